"""ThreadedEnginePerDevice (the default): a worker pool per device, and a priority pool.

CPU functions run on ``MXNET_CPU_WORKER_NTHREADS`` workers (default 1, as in MXNet: each
NumPy kernel may already use several cores through BLAS). Functions pushed with
``priority > 0`` (MXNet's prioritized CPU work, such as KVStore communication) run on a
separate pool of ``MXNET_CPU_PRIORITY_NTHREADS`` workers (default 4), highest priority first,
so they never queue behind long computations. Each GPU gets its own pool of
``MXNET_GPU_WORKER_NTHREADS`` workers (default 2); its streams come with GPU support.
"""

from __future__ import annotations

import threading
from typing import Any

from ..base import env_int
from ..context import Context
from .objects import _Block
from .threaded import ThreadedEngine, WorkerPool

__all__ = ["ThreadedEnginePerDevice"]


class ThreadedEnginePerDevice(ThreadedEngine):
    """Worker pools per device, plus a priority pool for prioritized CPU work."""

    kind = "ThreadedEnginePerDevice"

    def __init__(self) -> None:
        super().__init__()  # the inherited self._pool is the CPU pool
        self._pool = WorkerPool(self, "cpu", env_int("MXNET_CPU_WORKER_NTHREADS", 1, 1))
        self._priority_pool = WorkerPool(
            self, "cpu-priority", env_int("MXNET_CPU_PRIORITY_NTHREADS", 4, 1), prioritized=True
        )
        self._gpu_threads = env_int("MXNET_GPU_WORKER_NTHREADS", 2, 1)
        self._gpu_pools: dict[int, WorkerPool] = {}
        # _gpu_lock guards _gpu_pools insertions; lookups read the dict without it.
        self._gpu_lock = threading.Lock()

    def _pool_of(self, blk: _Block) -> Any:
        ctx: Context = blk.ctx
        if ctx.device_typeid == 2:
            pool = self._gpu_pools.get(ctx.device_id)
            if pool is None:
                with self._gpu_lock:
                    pool = self._gpu_pools.get(ctx.device_id)
                    if pool is None:
                        pool = WorkerPool(self, f"gpu{ctx.device_id}", self._gpu_threads)
                        self._gpu_pools[ctx.device_id] = pool
            return pool
        if blk.priority > 0:
            return self._priority_pool
        return self._pool

    def _pools(self) -> list[WorkerPool]:
        return [self._pool, self._priority_pool, *self._gpu_pools.values()]
