"""Tolerances and array comparisons of ``mx.test_utils``.

Everything is compared in NumPy: NDArrays are read back with ``asnumpy()`` first (MXNet ran an
``allclose`` operator when both sides were NDArrays on one context; the answer is the same).
The default tolerance of a comparison is the looser of the two sides' dtype defaults.

A failed :func:`assert_almost_equal` prints the largest violations one by one (up to
``mismatches[0]`` lines, looking at up to ``mismatches[1]`` of them) and raises an
``AssertionError`` worded as MXNet 1.9.1 words it::

    Items are not equal:
    Error 400.000000 exceeds tolerance rtol=1.000000e-04, atol=1.000000e-03 (mismatch 33.333333%).
    Location of maximum error: (1,), a=2.00000000, b=2.50000000
     ACTUAL: array([1., 2., 3.], dtype=float32)
     DESIRED: array([1. , 2.5, 3. ], dtype=float32)

The arrays are printed with NumPy's ``threshold=4, suppress=True`` (and NumPy 1.x scalar
reprs under NumPy 2), set only while the message is built.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.testing as npt

from ..base import DTypeError, ShapeError
from ..context import Context

_FLOAT64 = np.dtype(np.float64)
_EXACT = (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64)


def default_rtols() -> dict[np.dtype, float]:
    """Return the default relative tolerance for each dtype."""
    tols = {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-5}
    tols.update({np.dtype(t): 0 for t in _EXACT + (np.uint64,)})
    return tols


def default_atols() -> dict[np.dtype, float]:
    """Return the default absolute tolerance for each dtype."""
    tols = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3, np.dtype(np.float64): 1e-20}
    tols.update({np.dtype(t): 0 for t in _EXACT + (np.uint64,)})
    return tols


def default_numeric_eps() -> dict[np.dtype, float]:
    """Return the default finite-difference step for each float dtype (powers of two)."""
    return {
        np.dtype(np.float16): 1.0 / 2**6,
        np.dtype(np.float32): 1.0 / 2**9,
        np.dtype(np.float64): 1.0 / 2**14,
    }


def effective_dtype(dat: Any) -> np.dtype:
    """Return the dtype whose tolerances fit ``dat``.

    That is ``dat``'s dtype, except float32 data on a GPU whose float32 products run in TF32
    (CuPy with ``CUPY_TF32=1`` on compute capability 8.0 or newer), which is as precise as
    float16.

    Parameters
    ----------
    dat : numpy.ndarray or NDArray
    """
    dtype = np.dtype(dat.dtype)
    ctx = getattr(dat, "context", None)
    if dtype == np.float32 and isinstance(ctx, Context) and _tf32_enabled(ctx):
        return np.dtype(np.float16)
    return dtype


def _tf32_enabled(ctx: Context) -> bool:
    if ctx.device_type != "gpu" or os.environ.get("CUPY_TF32") != "1":
        return False
    if os.environ.get("NVIDIA_TF32_OVERRIDE") == "0":
        return False
    try:
        return int(ctx.xp.cuda.Device(ctx.device_id).compute_capability) >= 80
    except Exception:  # no CuPy or no such device: no TF32 either
        return False


def get_tolerance(dat: Any, tol: Any, default_tol: Mapping[np.dtype, float]) -> float:
    """Return the tolerance for comparing ``dat``.

    Parameters
    ----------
    dat : numpy.ndarray or NDArray
        The data (its dtype and context choose the tolerance).
    tol : float, or a dict of dtype->float
        A number is used as is; a dict overrides ``default_tol`` for the dtypes it names.
    default_tol : dict of dtype->float
        Default tolerances for all types.
    """
    if isinstance(tol, numbers.Number):
        return tol
    dtype = effective_dtype(dat)
    tol = {} if tol is None else tol
    if dtype in tol:
        return tol[dtype]
    if dtype not in default_tol:
        raise DTypeError(
            f"get_tolerance: no default tolerance for dtype {dtype}; pass rtol and atol."
        )
    return default_tol[dtype]


def get_tols(x: Any, y: Any, rtol: Any, atol: Any) -> tuple[float, float]:
    """Return ``(rtol, atol)`` for comparing ``x`` and ``y``: the looser default of the two."""
    x = np.array(x) if isinstance(x, numbers.Number) else x
    y = np.array(y) if isinstance(y, numbers.Number) else y
    rtol = max(get_tolerance(x, rtol, default_rtols()), get_tolerance(y, rtol, default_rtols()))
    atol = max(get_tolerance(x, atol, default_atols()), get_tolerance(y, atol, default_atols()))
    return rtol, atol


def get_atol(atol: float | None = None, dtype: Any = _FLOAT64) -> float:
    """Return ``atol``, or the default absolute tolerance of ``dtype`` when it is None."""
    return default_atols()[np.dtype(dtype)] if atol is None else atol


def get_rtol(rtol: float | None = None, dtype: Any = _FLOAT64) -> float:
    """Return ``rtol``, or the default relative tolerance of ``dtype`` when it is None."""
    return default_rtols()[np.dtype(dtype)] if rtol is None else rtol


def get_etol(etol: float | None = None) -> float:
    """Return ``etol``, or 0 (no mismatching elements allowed) when it is None."""
    return 0 if etol is None else etol


# ---------------------------------------------------------------------------------------------
# Comparisons


def _as_numpy(x: Any) -> Any:
    """NDArray -> NumPy; lists -> NumPy; NumPy arrays and numbers stay as they are."""
    if hasattr(x, "asnumpy"):
        return x.asnumpy()
    if isinstance(x, (list, tuple)):
        return np.asarray(x)
    return x


def _lists_to_numpy(x: Any) -> Any:
    return np.asarray(x) if isinstance(x, (list, tuple)) else x


_NUMPY2 = np.lib.NumpyVersion(np.__version__) >= "2.0.0"


def _build_err_msg(arrays: Sequence[Any], err_msg: str, **print_options: Any) -> str:
    if _NUMPY2:
        print_options["legacy"] = "1.25"  # scalars print as 1.0, not np.float64(1.0), as in 1.x
    with np.printoptions(**print_options):
        return npt.build_err_msg(list(arrays), err_msg=err_msg)


def find_max_violation(a: Any, b: Any, rtol: float, atol: float) -> tuple[tuple[int, ...], Any]:
    """Return the index of the element that exceeds the tolerance most, and by how much.

    The violation is ``|a - b| / (atol + rtol * |b|)``; equal elements (infinities included)
    count as 0, as in ``numpy.allclose``.
    """
    if np.ndim(a) == 0 and np.ndim(b) == 0 and np.result_type(a, b).kind in "fiu":
        # NumPy 1.x (MXNet's) computed scalar-only expressions with Python floats in float64;
        # NumPy 2 keeps float32. Compute scalars in float64 so the reported error is the same.
        a, b = np.float64(a), np.float64(b)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        absdiff = np.where(np.equal(a, b), 0, np.abs(a - b))
        violation = absdiff / (atol + rtol * np.abs(b) + 1e-20)
    index = np.unravel_index(np.argmax(violation), np.shape(violation))
    return tuple(int(i) for i in index), np.max(violation)


def same(a: Any, b: Any) -> bool:
    """Return whether two arrays (NumPy or NDArray) have the same shape and elements.

    Parameters
    ----------
    a : np.ndarray
    b : np.ndarray
    """
    return bool(np.array_equal(_as_numpy(a), _as_numpy(b)))


def checkShapes(a: Any, b: Any) -> None:  # noqa: N802  (MXNet's name)
    """Raise ``AssertionError`` unless ``a`` and ``b`` have the same shape."""
    if np.shape(a) != np.shape(b):
        msg = f"a.shape = {np.shape(a)} and b.shape = {np.shape(b)} are not equal"
        raise AssertionError(_build_err_msg([_as_numpy(a), _as_numpy(b)], msg))


def _allclose(who: str, a: Any, b: Any, rtol: float, atol: float, equal_nan: bool) -> bool:
    try:
        np.broadcast_shapes(np.shape(a), np.shape(b))
    except ValueError:
        raise ShapeError(
            f"{who}: shapes {np.shape(a)} and {np.shape(b)} cannot be broadcast together."
        ) from None
    if (
        type(a) is np.ndarray
        and type(b) is np.ndarray
        and a.shape == b.shape
        and a.size > _CHUNK
        and a.flags.c_contiguous
        and b.flags.c_contiguous
    ):
        # in slices: numpy.allclose's temporaries are several times the arrays' size, which
        # set the peak memory of tests comparing large gradients
        a, b = a.reshape(-1), b.reshape(-1)
        return all(
            np.allclose(a[i : i + _CHUNK], b[i : i + _CHUNK], rtol, atol, equal_nan)
            for i in range(0, a.size, _CHUNK)
        )
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


_CHUNK = 1 << 18  # elements compared at once by _allclose


def almost_equal(
    a: Any,
    b: Any,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    use_broadcast: bool = True,
) -> bool:
    """Return whether ``|a - b| <= atol + rtol * |b|`` everywhere.

    Parameters
    ----------
    a, b : np.ndarray or NDArray
        The arrays to compare.
    rtol, atol : float, optional
        Tolerances; None means float64's defaults (1e-5 and 1e-20).
    equal_nan : bool, optional
        Whether NaNs in the same place count as equal.
    use_broadcast : bool, optional
        If False, the shapes must be equal.
    """
    a, b = _as_numpy(a), _as_numpy(b)
    if not use_broadcast:
        checkShapes(a, b)
    return _allclose("almost_equal", a, b, get_rtol(rtol), get_atol(atol), equal_nan)


def locationError(  # noqa: N802  (MXNet's name)
    a: Any, b: Any, index: Sequence[int], names: Sequence[str], maxError: bool = False
) -> str:
    """Describe the elements of ``a`` and ``b`` at ``index``.

    Parameters
    ----------
    a, b : np.ndarray
        The compared arrays.
    index : tuple of int
        Location of the violation.
    names : tuple of str
        The names of the compared arrays.
    maxError : bool, optional
        Whether this is the largest violation.
    """
    index = tuple(int(i) for i in index)
    which = "maximum " if maxError else ""
    a_val, b_val = np.asarray(a)[index], np.asarray(b)[index]
    return f"Location of {which}error: {index}, {names[0]}={a_val:.8f}, {names[1]}={b_val:.8f}"


def _mismatch_message(
    a: Any,
    b: Any,
    rtol: float,
    atol: float,
    names: Sequence[str],
    equal_nan: bool,
    mismatches: Sequence[int],
) -> str:
    """Print the largest violations one by one and return MXNet's failure message."""
    index, rel = find_max_violation(a, b, rtol, atol)
    if index == ():
        err = f"Error {rel:f} exceeds tolerance rtol={rtol:e}, atol={atol:e}.\n"
        return _build_err_msg([a, b], err, threshold=4, suppress=True)
    a_view, b_view = np.broadcast_arrays(a, b)
    a_left, b_left = a_view.copy(), b_view.copy()
    size = a_left.size
    max_index, max_rel = index, rel
    print(f"\n*** Maximum errors for vector of size {size}:  rtol={rtol}, atol={atol}\n")
    # Zero out the worst element until the rest passes; ``count`` ends as the number of
    # mismatching elements, or mismatches[1] + 1 when the search stops early.
    count = 1
    while count <= size:
        if count <= mismatches[0]:
            where = locationError(a_view, b_view, index, names)
            print(f"{count:3d}: Error {rel:f}  {where}")
        a_left[index] = b_left[index] = 0
        if _allclose("assert_almost_equal", a_left, b_left, rtol, atol, equal_nan):
            break
        count += 1
        if count > mismatches[1] > 0:
            break
        index, rel = find_max_violation(a_left, b_left, rtol, atol)
    at_least = "at least " if count > mismatches[1] > 0 else ""
    where = locationError(a_view, b_view, max_index, names, maxError=True)
    err = (
        f"Error {max_rel:f} exceeds tolerance rtol={rtol:e}, atol={atol:e} "
        f"(mismatch {at_least}{100 * count / size:f}%).\n{where}"
    )
    return _build_err_msg([a, b], err, threshold=4, suppress=True)


def assert_almost_equal(
    a: Any,
    b: Any,
    rtol: Any = None,
    atol: Any = None,
    names: Sequence[str] = ("a", "b"),
    equal_nan: bool = False,
    use_broadcast: bool = True,
    mismatches: Sequence[int] = (10, 10),
) -> None:
    """Check that two arrays are almost equal; raise ``AssertionError`` saying where not.

    Parameters
    ----------
    a : np.ndarray or mx.nd.array
    b : np.ndarray or mx.nd.array
    rtol : None or float or dict of dtype -> float
        The relative threshold. Default threshold will be used if set to ``None``.
    atol : None or float or dict of dtype -> float
        The absolute threshold. Default threshold will be used if set to ``None``.
    names : tuple of names, optional
        The names used in error message when an exception occurs.
    equal_nan : boolean, optional
        The flag determining how to treat NAN values in comparison.
    use_broadcast : boolean, optional
        If False, the shapes must be equal.
    mismatches : tuple of mismatches
        Maximum number of mismatches to be printed (mismatches[0]) and determined
        (mismatches[1]).
    """
    a, b = _lists_to_numpy(a), _lists_to_numpy(b)
    if not use_broadcast:
        checkShapes(a, b)
    rtol, atol = get_tols(a, b, rtol, atol)  # before asnumpy(): the context may matter
    a, b = _as_numpy(a), _as_numpy(b)
    if np.result_type(a) == np.bool_ and np.result_type(b) == np.bool_:
        np.testing.assert_equal(a, b)
        return
    if _allclose("assert_almost_equal", a, b, rtol, atol, equal_nan):
        return
    raise AssertionError(_mismatch_message(a, b, rtol, atol, names, equal_nan, mismatches))


def assert_allclose(
    a: Any, b: Any, rtol: float = 1e-07, atol: float = 0, equal_nan: bool = True
) -> None:
    """:func:`assert_almost_equal` with ``numpy.testing.assert_allclose``'s defaults."""
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal_with_err(
    a: Any,
    b: Any,
    rtol: Any = None,
    atol: Any = None,
    etol: float | None = None,
    names: Sequence[str] = ("a", "b"),
    equal_nan: bool = False,
    mismatches: Sequence[int] = (10, 10),
) -> None:
    """Check that at most a share ``etol`` of the elements of two arrays differ.

    Parameters
    ----------
    a : np.ndarray
    b : np.ndarray
    rtol : None or float or dict of dtype -> float
        The relative threshold. Default threshold will be used if set to ``None``.
    atol : None or float or dict of dtype -> float
        The absolute threshold. Default threshold will be used if set to ``None``.
    etol : None or float
        The error rate threshold: the check passes when the share of mismatching elements is
        at most ``etol``. None or 0 means :func:`assert_almost_equal`.
    names : tuple of names, optional
        The names used in error message when an exception occurs.
    equal_nan : boolean, optional
        The flag determining how to treat NAN values in comparison.
    mismatches : tuple of mismatches
        Maximum number of mismatches to be printed (mismatches[0]) and determined
        (mismatches[1]).
    """
    etol = get_etol(etol)
    if etol <= 0:
        assert_almost_equal(
            a, b, rtol=rtol, atol=atol, names=names, equal_nan=equal_nan, mismatches=mismatches
        )
        return
    a, b = _lists_to_numpy(a), _lists_to_numpy(b)
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _as_numpy(a), _as_numpy(b)
    equals = np.isclose(a, b, rtol=rtol, atol=atol)
    if 1 - np.count_nonzero(equals) / equals.size > etol:
        raise AssertionError(_mismatch_message(a, b, rtol, atol, names, equal_nan, mismatches))


def assert_almost_equal_ignore_nan(
    a: Any, b: Any, rtol: Any = None, atol: Any = None, names: Sequence[str] = ("a", "b")
) -> None:
    """:func:`assert_almost_equal`, ignoring every place where either array holds NaN.

    Parameters
    ----------
    a : np.ndarray
    b : np.ndarray
    rtol : None or float
        The relative threshold. Default threshold will be used if set to ``None``.
    atol : None or float
        The absolute threshold. Default threshold will be used if set to ``None``.
    names : tuple of names, optional
        The names used in error message when an exception occurs.
    """
    a, b = np.copy(_as_numpy(a)), np.copy(_as_numpy(b))
    nan_mask = np.logical_or(np.isnan(a), np.isnan(b))
    a[nan_mask] = 0
    b[nan_mask] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def compare_ndarray_tuple(t1: Any, t2: Any, rtol: Any = None, atol: Any = None) -> None:
    """Check nested tuples of arrays element by element; None on either side is skipped."""
    if t1 is None or t2 is None:
        return
    if isinstance(t1, tuple):
        for s1, s2 in zip(t1, t2):
            compare_ndarray_tuple(s1, s2, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


def same_array(array1: Any, array2: Any) -> bool:
    """Return whether two NDArrays share memory (a write to one shows in the other).

    Parameters
    ----------
    array1 : NDArray
        First NDArray to be checked.
    array2 : NDArray
        Second NDArray to be checked.
    """
    saved = array1.copy()
    array1[:] += 1
    shared = same(array1.asnumpy(), array2.asnumpy())
    array1[:] = saved  # not ``-= 1``: x + 1 - 1 need not give x back in floating point
    return shared and same(array1.asnumpy(), array2.asnumpy())
