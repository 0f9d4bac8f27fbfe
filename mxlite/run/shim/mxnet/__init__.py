"""Put on PYTHONPATH by ``python -m mxlite.run`` for the processes a script starts: importing
``mxnet`` here turns mxlite's alias on in that process (see ``mxlite/run/__init__.py``), and
NumPy's old aliases too where the run asked for them (``MXLITE_NUMPY_ALIASES=1``)."""

import os

from mxlite.run import as_mxnet, numpy_aliases

as_mxnet()
if os.environ.get("MXLITE_NUMPY_ALIASES") == "1":
    numpy_aliases()
