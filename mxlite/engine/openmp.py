"""How many threads one operator may use: MXNet's ``engine/openmp`` for mxlite.

MXNet's CPU kernels are OpenMP loops of ``OMP_NUM_THREADS`` threads (default: the cores). Ours
are NumPy calls, which release the GIL, so an operator spreads its work over
:func:`kernel_threads` Python threads itself (``operator.parallel``).

NumPy's own BLAS (OpenBLAS in the pip wheels) has a thread pool of its own whose idle threads
spin: beside the kernel threads, or beside any other busy process, they take the cores from
the threads with work, and a product runs many times slower. So when the engine starts, mxlite
sets NumPy's BLAS to ``MXLITE_BLAS_THREADS`` threads (default 1) and its kernels split large
products over the kernel threads themselves (Convolution by blocks of images, FullyConnected by
rows or columns). ``MXLITE_BLAS_THREADS=0`` leaves NumPy's BLAS as NumPy set it (then the
kernels leave the products whole to it). The setting is process-wide: NumPy products that user
code runs in the same process use it too. Changing the count back and forth costs OpenBLAS a
restart of its threads, so it is set once, not per operator.
"""

from __future__ import annotations

import ctypes
import glob
import os
import threading
from collections.abc import Callable

from ..base import env_int

__all__ = [
    "kernel_threads",
    "blas_threads",
    "set_blas_threads",
    "blas_is_single",
    "apply_blas_setting",
]

# the setters and getters of the OpenBLAS builds NumPy ships (scipy-openblas, 64-bit ints, in
# NumPy 2; openblas64_ in NumPy 1.26) and of a system OpenBLAS
_SETTERS = (
    "scipy_openblas_set_num_threads64_",
    "scipy_openblas_set_num_threads",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)
_GETTERS = tuple(s.replace("set_", "get_") for s in _SETTERS)

_lock = threading.Lock()
_found: list[tuple[Callable[[int], None], Callable[[], int]]] | None = None


_threads_read: tuple[str | None, int] | None = None  # (OMP_NUM_THREADS as read, its value)


def kernel_threads() -> int:
    """Threads one operator may spread its work over: ``OMP_NUM_THREADS`` as in MXNet, else
    the number of cores. (Asked by every large kernel: parsed again only when the variable
    changes.)"""
    global _threads_read
    raw = os.environ.get("OMP_NUM_THREADS")
    read = _threads_read
    if read is None or read[0] != raw:
        read = _threads_read = (raw, env_int("OMP_NUM_THREADS", os.cpu_count() or 1, 1))
    return read[1]


def _candidates() -> list[str]:
    paths: list[str] = []
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            for line in maps:
                path = line.rsplit(" ", 1)[-1].strip()
                if "openblas" in os.path.basename(path).lower() and path not in paths:
                    paths.append(path)
    except OSError:
        pass
    import numpy

    root = os.path.dirname(os.path.dirname(numpy.__file__))
    for pattern in ("numpy.libs/*openblas*", "numpy/.dylibs/*openblas*", "scipy_openblas*/lib/*"):
        paths += [p for p in glob.glob(os.path.join(root, pattern)) if p not in paths]
    return sorted(paths, key=lambda p: "numpy" not in p)


def _find() -> list[tuple[Callable[[int], None], Callable[[], int]]]:
    """The thread setter and getter of every OpenBLAS loaded in this process (NumPy's, and
    SciPy's own copy once SciPy is imported)."""
    global _found
    if _found is not None:  # the kernels ask on every call: no lock once the scan is done
        return _found
    with _lock:
        if _found is not None:
            return _found
        found = []
        for path in _candidates():
            # only a library this process already loaded, never a second copy
            mode = getattr(os, "RTLD_NOLOAD", 0) | ctypes.RTLD_LOCAL
            try:
                lib = ctypes.CDLL(path, mode=mode)
            except OSError:
                continue
            for setter, getter in zip(_SETTERS, _GETTERS):
                if hasattr(lib, setter) and hasattr(lib, getter):
                    set_fn, get_fn = getattr(lib, setter), getattr(lib, getter)
                    set_fn.argtypes, set_fn.restype = [ctypes.c_int], None
                    get_fn.argtypes, get_fn.restype = [], ctypes.c_int
                    found.append((set_fn, get_fn))
                    break
        _found = found
        return found


def blas_threads() -> int | None:
    """Threads of NumPy's BLAS now, or None when its BLAS is not an OpenBLAS mxlite can reach."""
    found = _find()
    return int(found[0][1]()) if found else None


def set_blas_threads(n: int) -> int | None:
    """Set every OpenBLAS of the process (NumPy's first) to ``n`` threads; return NumPy's
    previous count, or None (and change nothing) when there is none mxlite can reach."""
    found = _find()
    if not found:
        return None
    old = int(found[0][1]())
    for set_fn, _ in found:
        set_fn(int(n))
    return old


def blas_is_single() -> bool:
    """Whether NumPy's BLAS runs one thread per call now (so that kernels should split their
    products over the kernel threads themselves); False when mxlite cannot tell."""
    return blas_threads() == 1


def apply_blas_setting() -> None:
    """Apply ``MXLITE_BLAS_THREADS`` (default 1; 0 leaves NumPy's BLAS as it is). The engine
    calls this when it starts."""
    n = env_int("MXLITE_BLAS_THREADS", 1, 0)
    if n > 0:
        set_blas_threads(n)
