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

The BLAS libraries are found and set through ``threadpoolctl`` (scikit-learn's library for
this): it knows the symbols of the OpenBLAS builds NumPy and SciPy ship (scipy-openblas, with
64-bit integers or not), of a system OpenBLAS, MKL and BLIS, and finds them among the
libraries the process has loaded.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from threadpoolctl import ThreadpoolController

from ..base import env_int

__all__ = [
    "kernel_threads",
    "blas_threads",
    "set_blas_threads",
    "blas_is_single",
    "apply_blas_setting",
]

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


_lock = threading.Lock()  # guards the one search for NumPy's BLAS below
_searched = False
_numpy_blas: Any = None  # threadpoolctl's controller of NumPy's BLAS, or None


def _numpy_blas_controller() -> Any:
    """threadpoolctl's controller of the BLAS NumPy calls (the one loaded from NumPy's own
    folder, else the first BLAS loaded), or None; searched once."""
    global _searched, _numpy_blas
    if _searched:  # the kernels ask on every call: no lock once the search is done
        return _numpy_blas
    with _lock:
        if not _searched:
            import numpy  # noqa: F401  (loads NumPy's BLAS, if nothing did yet)

            libs = ThreadpoolController().select(user_api="blas").lib_controllers
            # NumPy's wheels keep theirs in numpy.libs/ or numpy/.dylibs/
            own = [lib for lib in libs if "numpy" in lib.filepath]
            _numpy_blas = (own or libs or [None])[0]
            _searched = True
    return _numpy_blas


def blas_threads() -> int | None:
    """Threads of NumPy's BLAS now, or None when threadpoolctl finds no BLAS it can set."""
    lib = _numpy_blas_controller()
    return None if lib is None else int(lib.get_num_threads())


def set_blas_threads(n: int) -> int | None:
    """Set every BLAS loaded in the process (NumPy's, and SciPy's own copy once SciPy is
    imported) to ``n`` threads; return NumPy's previous count, or None (and change nothing)
    when there is none threadpoolctl can set."""
    old = blas_threads()
    if old is None:
        return None
    ThreadpoolController().limit(limits=int(n), user_api="blas")
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
