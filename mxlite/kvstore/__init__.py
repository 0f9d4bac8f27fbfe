"""Key-value store for data-parallel training (``mx.kv``): local, device and, on MPI, dist.

See ``kvstore.py`` for the store, ``dist.py`` for the MPI job and ``server.py`` for the
server ranks of ``dist_async``; ``python -m mxlite.launch`` starts a job.
"""

import os as _os

from . import kvstore_server as kvstore_server
from .base import KVStoreBase as KVStoreBase
from .base import TestStore as TestStore
from .base import create as create
from .kvstore import KVStore as KVStore
from .server import KVStoreServer as KVStoreServer

__all__ = ["KVStore", "KVStoreBase", "KVStoreServer", "TestStore", "create"]


def _run_if_server() -> None:
    """In a job with server ranks, join it at import; on a server rank, serve, then exit."""
    if not int(_os.environ.get("MXLITE_NUM_SERVERS", "0") or 0):
        return
    import sys

    from .dist import comm
    from .server import serve

    c = comm()
    if c.is_server:
        serve(c)
        sys.exit(0)


_run_if_server()
