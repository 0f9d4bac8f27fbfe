"""MXNet's NumPy-interface operators (``_np_*``, ``_npi_*``, ``_npx_*``), the registry entries
behind ``mx.np``, ``mx.npx``, ``mx.nd.np`` and ``mx.sym.np``.

Each file mirrors one of MXNet 1.9.1's ``src/operator/numpy/*.cc`` groups. An ``_npi_``/``_np_``
name that MXNet declares with ``.add_alias`` on a legacy operator is an alias there (on the
legacy registration, or in :mod:`.aliases` where that is one line).
"""

from . import dot as dot
from . import elemwise_binary as elemwise_binary
from . import elemwise_unary as elemwise_unary
from . import init as init
from . import matrix as matrix
from . import reduce as reduce
