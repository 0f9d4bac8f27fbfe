"""Row-parallel NumPy kernels: split the leading axis (or a product) over a few threads.

NumPy releases the GIL inside its loops and in BLAS, so one kernel applied to disjoint row
blocks of the same arrays runs on several cores, as MXNet's OpenMP loops do, on
``engine.openmp.kernel_threads()`` threads (``OMP_NUM_THREADS``, else the cores); small work
runs inline.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import numpy as np

from ..engine.openmp import blas_is_single, kernel_threads

__all__ = [
    "num_threads",
    "over_rows",
    "elementwise",
    "matmul",
    "relu_into",
    "row_buffer",
    "broadcast_run",
]

_MIN_ELEMENTS = 1 << 18  # below this a thread hand-off costs more than it saves
# multiply-adds below which a product runs in one call: splitting the products of a small MLP
# costs more in hand-offs than it gains
_MIN_FLOPS = 1 << 25
# elements of the zero row relu() compares against, and the shortest row it splits
_ZERO_ROW = 1 << 16
_MIN_ROW = 256
# the shortest row for which row_buffer() shrinks the ufunc buffer
_ROW_BUFFER = 512
_CAST_BUFFER = 1024  # cast_buffer()'s ufunc buffer
_zero_rows: dict[np.dtype, Any] = {}
_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_pool_size = 0


def num_threads() -> int:
    return kernel_threads()


def _executor(n: int) -> ThreadPoolExecutor:
    global _pool, _pool_size
    with _lock:
        if _pool is None or _pool_size < n:
            _pool, _pool_size = ThreadPoolExecutor(n, thread_name_prefix="mxlite-kernel"), n
        return _pool


_region = threading.local()


def _in_kernel_thread() -> bool:
    """Whether this thread already runs one share of a split kernel (a nested split would only
    oversubscribe the cores)."""
    return getattr(_region, "inside", False)


def _inside(call: Callable[[], Any]) -> Callable[[], Any]:
    def run() -> Any:
        before = getattr(_region, "inside", False)
        _region.inside = True
        try:
            return call()
        finally:
            _region.inside = before

    return run


def _spread(calls: list[Callable[[], Any]]) -> None:
    """Run the calls, the first on this thread and the others on the kernel threads."""
    futures = [_executor(len(calls)).submit(_inside(c)) for c in calls[1:]]
    try:
        _inside(calls[0])()
    finally:
        for f in futures:
            f.result()


def broadcast_run(out: tuple[int, ...], shapes: list[tuple[int, ...]]) -> int:
    """Elements of the last axes of ``out`` along which each operand of ``shapes`` is either
    broadcast throughout or present throughout: NumPy's inner loop when the operands
    broadcast (``(N, C, H, W)`` against ``(1, C, 1, 1)``: H*W); 0 when none is broadcast."""
    padded = [(1,) * (len(out) - len(sh)) + tuple(sh) for sh in shapes]
    run, pattern = 1, None
    for i in reversed(range(len(out))):
        if out[i] == 1:
            continue
        axis = tuple(sh[i] == 1 for sh in padded)
        if pattern is None:
            pattern = axis
        elif axis != pattern:
            return run
        run *= out[i]
    return 0


@contextmanager
def row_buffer(length: int) -> Iterator[None]:
    """Within the block, this thread's ufunc buffer holds at most one row of ``length``
    elements (NumPy's buffer is per thread). A ufunc with an operand broadcast along rows
    (a per-row column ``(R, 1)``, or one row for all) copies its operands through the buffer
    whenever the buffer spans several rows; with a buffer no longer than a row it runs on the
    arrays themselves. Measured (NumPy 1.23 and 2.4, float32, 2^18 elements): ``(83, 3136) *
    (83, 1)`` 53 -> 26 us (a product by a scalar: 24), ``(334, 784)`` 57 -> 35, ``(512, 512)``
    57 -> 41; rows of 8192 or more are not copied anyway, and below ``_ROW_BUFFER`` the calls
    per row cost what the copy did (``(1024, 256)`` 58 -> 55, ``(4096, 196)`` 58 -> 66): the
    buffer is left alone."""
    size = min(8192, length // 16 * 16)
    if size < _ROW_BUFFER:
        yield
        return
    with _ufunc_buffer(size):
        yield


def cast_buffer() -> AbstractContextManager[None]:
    """Within the block, this thread's ufunc buffer holds ``_CAST_BUFFER`` elements: a ufunc
    whose operands differ in dtype (a float array times a bool mask) casts them through the
    buffer, which then stays in the core's L1 cache: ``(3211264,)`` float32 times a bool mask
    1.81 -> 1.34 ms against NumPy's 8192 (2048: 1.41, 512: 1.45)."""
    return _ufunc_buffer(_CAST_BUFFER)


@contextmanager
def _ufunc_buffer(size: int) -> Iterator[None]:
    """This thread's ufunc buffer at ``size`` elements within the block, restored after."""
    old = np.setbufsize(size)
    try:
        yield
    finally:
        np.setbufsize(old)


def _bounds(size: int, n: int) -> list[tuple[int, int]]:
    """``n`` nearly equal ranges covering ``range(size)``."""
    cuts = [size * i // n for i in range(n + 1)]
    return list(zip(cuts, cuts[1:]))


def over_rows(fn: Callable[..., Any], rows: int, work: int, *arrays: Any) -> list:
    """Call ``fn(*blocks)`` on row blocks ``a[lo:hi]`` of every array (all with ``rows`` rows),
    on up to ``num_threads()`` threads when ``work`` (elements touched) is large enough; its
    results in row order, so that a sum of them does not depend on which thread ended first."""
    n = work // _MIN_ELEMENTS
    if n > 1:  # (small work, the common case, does not read the thread setting)
        n = min(num_threads(), rows, n)
    if n <= 1 or _in_kernel_thread():
        return [fn(*arrays)]
    bounds = _bounds(rows, n)
    results: list[Any] = [None] * len(bounds)

    def call(i: int, lo: int, hi: int) -> None:
        results[i] = fn(*[a[lo:hi] for a in arrays])

    _spread([(lambda i=i, lo=lo, hi=hi: call(i, lo, hi)) for i, (lo, hi) in enumerate(bounds)])
    return results


def elementwise(fn: Callable[..., Any], *arrays: Any) -> None:
    """Call ``fn(*blocks)`` on matching blocks of arrays of one shape (an element-wise kernel
    writing its last array), split over the kernel threads when they are large and
    C-contiguous; a memory-bound pass runs nearly twice as fast on two cores."""
    size = arrays[0].size
    if size < 2 * _MIN_ELEMENTS or not all(
        isinstance(a, np.ndarray) and a.flags.c_contiguous for a in arrays
    ):
        fn(*arrays)
        return
    over_rows(fn, size, size * len(arrays), *[a.reshape(-1) for a in arrays])


def matmul(xp: Any, a: Any, b: Any, out: Any = None) -> Any:
    """``xp.matmul(a, b, out=out)`` for 2-D ``a (M, K)`` and ``b (K, N)``, split over the
    kernel threads by rows of ``a`` (or columns of ``b`` when ``N`` is the larger) when the
    product is large and NumPy's BLAS runs one thread (``engine.openmp``)."""
    if xp.__name__ != "numpy" or a.ndim != 2 or b.ndim != 2:
        return xp.matmul(a, b, out=out)
    m, k = a.shape
    n_cols = b.shape[1]
    n = m * k * n_cols // _MIN_FLOPS
    if n > 1:
        n = min(num_threads(), n)
    if n <= 1 or _in_kernel_thread() or not blas_is_single():
        return xp.matmul(a, b, out=out)
    if out is None:
        out = xp.empty((m, n_cols), xp.result_type(a.dtype, b.dtype))
    if m >= n_cols:
        calls = [
            (lambda lo=lo, hi=hi: xp.matmul(a[lo:hi], b, out=out[lo:hi]))
            for lo, hi in _bounds(m, n)
        ]
    else:
        calls = [
            (lambda lo=lo, hi=hi: xp.matmul(a, b[:, lo:hi], out=out[:, lo:hi]))
            for lo, hi in _bounds(n_cols, n)
        ]
    _spread(calls)
    return out


def relu_into(xp: Any, x: Any, out: Any = None) -> Any:
    """``max(x, 0)`` into ``out`` (x's shape; it may be x; None: a new array), NaN kept as
    MXNet's relu keeps it.
    NumPy 2's ``maximum`` against a scalar runs a loop 3-4x slower than against an array, so
    NumPy float arrays are compared with a cached row of zeros, piece by piece along the last
    axis (the whole array as one row where both are contiguous); the values are the same."""
    if xp is not np or x.dtype.kind != "f" or x.ndim == 0:
        return xp.maximum(x, x.dtype.type(0), out=out)
    if out is None:
        out = np.empty(x.shape, x.dtype)
    a, o = x, out
    if a.flags.c_contiguous and o.flags.c_contiguous:
        a, o = a.reshape(-1), o.reshape(-1)
    n = a.shape[-1]
    if n < _MIN_ROW:
        return np.maximum(x, x.dtype.type(0), out=out)
    zeros = _zero_rows.get(a.dtype)
    if zeros is None or len(zeros) != _ZERO_ROW:
        zeros = np.zeros(_ZERO_ROW, a.dtype)
        zeros.flags.writeable = False
        _zero_rows[a.dtype] = zeros
    for i in range(0, n, _ZERO_ROW):
        j = min(n, i + _ZERO_ROW)
        np.maximum(a[..., i:j], zeros[: j - i], out=o[..., i:j])
    return out
