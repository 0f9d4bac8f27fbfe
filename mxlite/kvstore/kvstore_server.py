"""``mx.kvstore.kvstore_server``, MXNet's module path of the server of a distributed store.

mxlite's servers are the server ranks of an MPI job (``server.py``): importing mxlite on one
serves and exits (``kvstore/__init__.py``), as importing this module does on a ps-lite server
in MXNet. Code that imports the class from here gets that server.
"""

from .server import KVStoreServer as KVStoreServer

__all__ = ["KVStoreServer"]
