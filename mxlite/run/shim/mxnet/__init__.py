"""Put on PYTHONPATH by ``python -m mxlite.run`` for the processes a script starts: importing
``mxnet`` here turns mxlite's alias on in that process (see ``mxlite/run/__init__.py``)."""

from mxlite.run import as_mxnet

as_mxnet()
