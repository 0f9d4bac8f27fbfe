"""ThreadedEngine: dependency tracking (engine/base.py) over pools of worker threads.

Design note
-----------
A ready block goes to the pool chosen by ``_pool_of``; this class has one pool for every
device. A worker takes a block, runs it, and releases its vars; of the blocks that became
ready, one that belongs to the worker's own pool runs next on the same worker without going
through the queue (a chain of dependent functions costs no thread hand-off), the others are
queued. Threads start on first use, are daemons, and stop at ``shutdown`` (called at exit
after the pending work is done), so the interpreter never waits on an idle pool.

Pool queues are ``queue.SimpleQueue`` (FIFO, lock-free for producers in CPython); a priority
pool orders by the push ``priority``, highest first.
"""

from __future__ import annotations

import itertools
import queue
import threading
from typing import Any

from ..base import env_int
from .base import Engine
from .objects import _Block, _tls

__all__ = ["ThreadedEngine", "WorkerPool"]

_STOP = None  # sentinel a worker exits on


class WorkerPool:
    """``nthreads`` workers serving one queue (FIFO, or by priority when ``prioritized``)."""

    def __init__(self, engine: Engine, name: str, nthreads: int, prioritized: bool = False) -> None:
        self.engine = engine
        self.name = name
        self.nthreads = nthreads
        self.prioritized = prioritized
        self._queue: Any = queue.PriorityQueue() if prioritized else queue.SimpleQueue()
        self._seq = itertools.count()  # FIFO among equal priorities
        self._threads: list[threading.Thread] = []
        # _start_lock guards _threads; taken only when the pool starts or stops.
        self._start_lock = threading.Lock()
        self.put = self._start_and_put

    def _start_and_put(self, blk: _Block) -> None:
        with self._start_lock:
            if not self._threads:
                for i in range(self.nthreads):
                    t = threading.Thread(
                        target=self._work, name=f"mxlite-{self.name}-{i}", daemon=True
                    )
                    t.start()
                    self._threads.append(t)
                self.put = self._put_prio if self.prioritized else self._queue.put
        self.put(blk)

    def _put_prio(self, blk: _Block) -> None:
        self._queue.put((-blk.priority, next(self._seq), blk))

    def _work(self) -> None:
        _tls.in_engine = True
        get = self._queue.get
        run = self.engine._run
        prioritized = self.prioritized
        while True:
            item = get()
            blk = item[2] if prioritized and item is not _STOP else item
            # an idle worker must not keep its last block (and the arrays its function holds)
            item = None
            if blk is _STOP:
                return
            while blk is not None:
                blk = run(blk, self)

    def stop(self) -> None:
        with self._start_lock:
            threads, self._threads = self._threads, []
            for _ in threads:
                if self.prioritized:
                    self._queue.put((float("inf"), next(self._seq), _STOP))
                else:
                    self._queue.put(_STOP)
        for t in threads:
            if t is not threading.current_thread():
                t.join()


class ThreadedEngine(Engine):
    """One pool of ``MXNET_CPU_WORKER_NTHREADS`` workers (default 4) for every device."""

    kind = "ThreadedEngine"

    def __init__(self) -> None:
        super().__init__()
        self._pool = WorkerPool(self, "worker", env_int("MXNET_CPU_WORKER_NTHREADS", 4, 1))

    def _pool_of(self, blk: _Block) -> Any:
        return self._pool

    def _dispatch(self, blk: _Block) -> None:
        self._pool_of(blk).put(blk)

    def _run(self, blk: _Block, pool: WorkerPool) -> _Block | None:
        result = self._execute(blk)
        if result is False:
            return None  # async: its on_complete releases the vars
        return self._complete(blk, result, pool)

    def _pools(self) -> list[WorkerPool]:
        return [self._pool]

    def shutdown(self) -> None:
        super().shutdown()
        for pool in self._pools():
            pool.stop()
