"""MXNet's NumPy-interface operators (``_np_*``, ``_npi_*``, ``_npx_*``), the registry entries
behind ``mx.np``, ``mx.npx``, ``mx.nd.np`` and ``mx.sym.np``.

Each file mirrors one of MXNet 1.9.1's ``src/operator/numpy/*.cc`` groups. An ``_npi_``/``_np_``
name that MXNet declares with ``.add_alias`` on a legacy operator is an alias there (on the
legacy registration: ``aliases=(..., "_npi_clip")``).

Adding one operator
-------------------
1. Register it here under MXNet's name, in the file of its MXNet group: ``simple_op(...)`` for
   element-wise ones (``dtype=`` from :mod:`.dtypes`), else a property class (``_NpArrayOp``
   from :mod:`.matrix` for shape-like ones: ``out_shapes``/``compute``/``gradient``), with a
   ``test=OpTest(...)``; tests/operator/numpy/test_registry_cases.py then checks its forward,
   gradient and ``req='add'`` from that declaration. An ``_np_``/``_npx_`` name whose front-end
   function MXNet documents in ``mx._numpy_op_doc`` also declares ``np_signature``.
2. ``mx.nd.np._internal``, ``mx.sym.np._internal`` (and ``mx.npx.<name>`` for ``_npx_<name>``,
   ``mx.sym.np.<name>`` for ``_np_<name>``/``_npi_<name>``) are generated from the registry.
3. The ``mx.np`` function with NumPy's signature goes to ``mxlite/numpy/`` (creation.py,
   ufuncs.py, functions.py, random.py, linalg.py) and calls
   ``multiarray.call("_npi_x", *arrays, **params)``; an ndarray method calls the same.
4. A golden case in tests/numpy/numpy_cases.py (recorded by tools/golden/cases/numpy_exprs.py:
   values, dtype, shape, printing; a gradient) pins it to MXNet 1.9.1.
"""

from . import boolean_mask_assign as boolean_mask_assign
from . import dot as dot
from . import elemwise_binary as elemwise_binary
from . import elemwise_unary as elemwise_unary
from . import index_ops as index_ops
from . import init as init
from . import init_more as init_more
from . import insert_delete as insert_delete
from . import linalg as linalg
from . import matrix as matrix
from . import matrix_more as matrix_more
from . import pad as pad
from . import random as random
from . import reduce as reduce
from . import statistics as statistics


def is_np_op(reg_name: str) -> bool:
    """Whether ``reg_name`` is one of MXNet's NumPy-interface operators (``_np_``, ``_npi_``,
    ``_npx_``): those the ``mx.np``/``mx.npx`` front ends are generated from."""
    return reg_name.startswith(("_np_", "_npi_", "_npx_"))
