"""Row-parallel NumPy kernels: split the leading axis over a few threads.

NumPy releases the GIL inside its loops, so one kernel applied to disjoint row blocks of the
same arrays runs on several cores, as MXNet's OpenMP loops do. The thread count is
``OMP_NUM_THREADS`` (MXNet's knob for its CPU kernels) or the number of cores; small work runs
inline.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ...base import env_int

__all__ = ["num_threads", "over_rows"]

_MIN_ELEMENTS = 1 << 18  # below this a thread hand-off costs more than it saves
_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_size = 0


def num_threads() -> int:
    return env_int("OMP_NUM_THREADS", os.cpu_count() or 1, 1)


def _executor(n: int) -> ThreadPoolExecutor:
    global _pool, _pool_size
    with _lock:
        if _pool is None or _pool_size < n:
            _pool, _pool_size = ThreadPoolExecutor(n, thread_name_prefix="mxlite-kernel"), n
        return _pool


def over_rows(fn: Callable[..., None], rows: int, work: int, *arrays: Any) -> None:
    """Call ``fn(*blocks)`` on row blocks ``a[lo:hi]`` of every array (all with ``rows`` rows),
    on up to ``num_threads()`` threads when ``work`` (elements touched) is large enough."""
    n = min(num_threads(), rows, max(1, work // _MIN_ELEMENTS))
    if n <= 1 or threading.current_thread().name.startswith("mxlite-kernel"):
        fn(*arrays)
        return
    bounds = [rows * i // n for i in range(n + 1)]
    blocks = [[a[lo:hi] for a in arrays] for lo, hi in zip(bounds, bounds[1:])]
    futures = [_executor(n).submit(fn, *b) for b in blocks[1:]]
    try:
        fn(*blocks[0])
    finally:
        for f in futures:
            f.result()
