"""The server ranks of ``dist_async`` (MXNet's ``KVStoreServer``).

Design note
-----------
With ``MXLITE_NUM_SERVERS=S`` (``python -m mxlite.launch -s S``) the last ``S`` ranks of the
job are servers: importing mxlite there runs :func:`serve` and exits, as importing MXNet
does on a ps-lite server. A server answers requests in the order they arrive, from any
worker: ``init`` (the first value of a key slice wins), ``push`` (the updater, when a worker
has sent an optimizer, applies the value to the stored slice at once; without one the value
replaces it; the answer tells the worker it is applied), ``pull`` (the latest slice),
``optimizer`` and ``command`` (acknowledged), and ``stop``, which every worker sends at exit:
the server returns once it has one per worker.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .. import ndarray as nd
from .. import optimizer as opt
from ..base import MXNetError
from .dist import TAG_REPLY, TAG_REQUEST, Comm

__all__ = ["KVStoreServer", "serve"]


class KVStoreServer:
    """The key slices a server owns and the updater that changes them.

    Parameters
    ----------
    c : Comm
        The server's place in the MPI job.
    """

    def __init__(self, c: Comm) -> None:
        self.c = c
        self.store: dict[tuple[Any, int], nd.NDArray] = {}
        self.updater: Any = None

    def run(self) -> None:
        """Serve requests until every worker has sent ``stop``."""
        world, MPI = self.c.world, self.c.MPI
        status = MPI.Status()
        stops = 0
        idle = 0.0
        while stops < self.c.num_workers:
            # Poll rather than block in recv: Open MPI's blocking receive spins a whole core,
            # which an idle server should leave to the workers on the same machine.
            if not world.Iprobe(source=MPI.ANY_SOURCE, tag=TAG_REQUEST):
                idle = min(idle * 2 or 1e-5, 1e-3)
                time.sleep(idle)
                continue
            idle = 0.0
            op, key, part, body = world.recv(source=MPI.ANY_SOURCE, tag=TAG_REQUEST, status=status)
            src = status.Get_source()
            if op == "stop":
                stops += 1
                continue
            try:
                reply = self._answer(op, key, part, body)
            except MXNetError as exc:
                reply = exc
            world.send(reply, src, TAG_REPLY)

    def _slice(self, key: Any, part: int) -> nd.NDArray:
        stored = self.store.get((key, part))
        if stored is None:
            raise MXNetError(f"key {key!r} has not been inited on server {self.c.rank}")
        return stored

    def _push(self, key: Any, part: int, value: np.ndarray) -> None:
        stored = self._slice(key, part)
        if self.updater is None:
            stored[:] = value
        else:
            self.updater(key, nd.array(value, dtype=value.dtype), stored)

    def _answer(self, op: str, key: Any, part: int, body: Any) -> Any:
        if op == "init":
            if (key, part) not in self.store:
                self.store[(key, part)] = nd.array(body, dtype=body.dtype)
            return True
        if op == "push":
            self._push(key, part, body)
            return True
        if op == "pull":
            return self._slice(key, part).asnumpy()
        if op == "optimizer":
            updater = opt.get_updater(opt.create("sgd"))
            updater.set_states(body)
            self.updater = updater
            return True
        if op == "command":
            return True
        raise MXNetError(f"unknown request {op!r}")


def serve(c: Comm) -> None:
    """Run this rank as a ``dist_async`` server until the workers are done."""
    KVStoreServer(c).run()
