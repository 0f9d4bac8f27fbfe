"""``mx.np.linalg``: MXNet 1.9.1's 20 names. ``norm``, ``svd``, ``cholesky``, ``inv``, ``det``,
``slogdet``, ``solve``, ``tensorinv``, ``tensorsolve``, ``pinv``, ``eigvals``, ``eig``,
``eigvalsh`` and ``eigh`` run the registered ``_npi_*`` operators (so autograd sees them and
graphs serialise to MXNet's JSON); ``cond``, ``lstsq``, ``matrix_power``, ``matrix_rank``,
``multi_dot`` and ``qr`` run official NumPy, as in MXNet (:mod:`.fallback`).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ..base import MXNetError
from .fallback import LINALG_FALLBACK_NAMES, fallback
from .multiarray import _axes, call, ndarray

__all__ = [
    "norm", "svd", "cholesky", "inv", "det", "slogdet", "solve", "tensorinv", "tensorsolve",
    "pinv", "eigvals", "eig", "eigvalsh", "eigh", *LINALG_FALLBACK_NAMES,
]  # fmt: skip

_INF = float("inf")


def _abs_sum(x: ndarray, axis: int, keepdims: bool) -> ndarray:
    return call("_np_sum", call("_npi_absolute", x), axis=(axis,), keepdims=keepdims)


def _matrix_abs_norm(x: ndarray, ord: Any, axes: tuple, keepdims: bool) -> ndarray:  # noqa: A002
    """The max/min absolute row (inf) or column (1) sum over the two ``axes``."""
    row, col = (a % x.ndim for a in axes) if isinstance(x, ndarray) else axes
    if ord in (1, -1):
        inner, outer = row, col - (1 if not keepdims and row < col else 0)
    else:
        inner, outer = col, row - (1 if not keepdims and col < row else 0)
    sums = _abs_sum(x, inner, keepdims)
    op = "_np_max" if ord in (1, _INF) else "_np_min"
    return call(op, sums, axis=(outer,), keepdims=keepdims)


def norm(x: ndarray, ord: Any = None, axis: Any = None, keepdims: bool = False) -> ndarray:  # noqa: A002
    """Matrix or vector norm (``_npi_norm``).

    Parameters
    ----------
    x : ndarray
        Input array; with ``axis`` None it must be 1-D or 2-D unless ``ord`` is None.
    ord : {non-zero int, inf, -inf, 'fro', 'nuc'}, optional
        Order of the norm (NumPy's table); None is the 2-norm / Frobenius norm.
    axis : {int, 2-tuple of ints, None}, optional
        The axis of the vector norms or the two axes of the matrix norms.
    keepdims : bool, optional
        Keep the reduced axes with size one.
    """
    if isinstance(ord, str) and ord in ("inf", "-inf"):
        ord = _INF if ord == "inf" else -_INF  # noqa: A001
    if axis is None and ord is None:
        return call("_npi_norm", x, ord=2, axis=None, keepdims=keepdims, flag=-2)
    if axis is not None and not isinstance(axis, (int, np.integer, tuple, list)):
        raise TypeError("norm: 'axis' must be None, an integer or a tuple of integers.")
    axes = _axes(axis)
    ndim = x.ndim if isinstance(x, ndarray) else None  # a symbol's is not known
    matrix = (axes is not None and len(axes) == 2) or (axes is None and ndim == 2)
    if axes is None and ndim is not None and ndim > 2:
        raise MXNetError(f"norm: argument 'ord' {ord!r} needs an 'axis' for an input of "
                         f"{ndim} dims.")  # fmt: skip
    if matrix:
        axes2 = axes or (0, 1)
        if ord in (1, -1, _INF, -_INF):
            return _matrix_abs_norm(x, ord, axes2, keepdims)
        if ord in (2, -2):
            return call("_npi_norm", x, ord=ord, axis=axes, keepdims=keepdims, flag=0)
        if ord in (None, "fro", "f"):
            return call("_npi_norm", x, ord=2, axis=axes, keepdims=keepdims, flag=1)
        if ord == "nuc":
            return call("_npi_norm", x, ord=2, axis=axes, keepdims=keepdims, flag=2)
        raise MXNetError(f"norm: argument 'ord' {ord!r} is not a matrix norm.")
    if ord == "nuc":  # a symbol's ndim is unknown: the operator decides, as in MXNet
        return call("_npi_norm", x, ord=2, axis=axes, keepdims=keepdims, flag=2)
    if ord in ("fro", "f"):
        return call("_npi_norm", x, ord=2, axis=axes, keepdims=keepdims, flag=1)
    if isinstance(ord, str):
        raise MXNetError(f"norm: argument 'ord' {ord!r} is invalid for vector norms.")
    if ord in (_INF, -_INF):
        op = "_np_max" if ord > 0 else "_np_min"
        return call(op, call("_npi_absolute", x), axis=axes, keepdims=keepdims)
    if ord is None:
        return call("_npi_norm", x, ord=2, axis=axes, keepdims=keepdims, flag=1)
    return call("_npi_norm", x, ord=ord, axis=axes, keepdims=keepdims, flag=-1)


def svd(a: ndarray) -> tuple:
    """Singular value decomposition ``a = ut @ diag(l) @ v`` of matrices with rows <= columns:
    ``(ut, l, v)`` (``_npi_svd``)."""
    return tuple(call("_npi_svd", a))


def cholesky(a: ndarray) -> ndarray:
    """The lower Cholesky factor ``L`` of symmetric positive-definite ``a`` (``a = L L^T``)."""
    return call("_npi_cholesky", a)


def inv(a: ndarray) -> ndarray:
    """The inverse of the square matrices ``a``."""
    return call("_npi_inv", a)


def det(a: ndarray) -> ndarray:
    """The determinant of the square matrices ``a`` (zero-dim for one matrix)."""
    return call("_npi_det", a)


def slogdet(a: ndarray) -> list:
    """``[sign, logabsdet]`` of the determinants of the square matrices ``a`` (a list, as
    MXNet returns it)."""
    return list(call("_npi_slogdet", a))


def solve(a: ndarray, b: ndarray) -> ndarray:
    """The solution ``x`` of ``a x = b``."""
    return call("_npi_solve", a, b)


def tensorinv(a: ndarray, ind: int = 2) -> ndarray:
    """The inverse of ``a`` with respect to ``tensordot(., ., ind)``."""
    return call("_npi_tensorinv", a, ind=int(ind))


def tensorsolve(a: ndarray, b: ndarray, axes: Any = None) -> ndarray:
    """The ``x`` with ``tensordot(a, x, axes=x.ndim) == b``; ``axes`` of ``a`` move to the end
    first."""
    return call("_npi_tensorsolve", a, b, a_axes=tuple(_axes(axes) or ()))


def pinv(a: ndarray, rcond: Any = 1e-15, hermitian: bool = False) -> ndarray:
    """The Moore-Penrose pseudo-inverse; ``rcond`` a scalar or an array (one per matrix)."""
    if hermitian is True:
        raise NotImplementedError("pinv: argument 'hermitian' True is not supported yet.")
    if np.isscalar(rcond):
        return call("_npi_pinv_scalar_rcond", a, rcond=float(rcond), hermitian=hermitian)
    return call("_npi_pinv", a, rcond, hermitian=hermitian)


def eigvals(a: ndarray) -> ndarray:
    """Eigenvalues of real square matrices."""
    return call("_npi_eigvals", a)


def eigvalsh(a: ndarray, UPLO: str = "L") -> ndarray:  # noqa: N803  (NumPy's name)
    """Eigenvalues (ascending) of symmetric matrices, read from the ``UPLO`` triangle."""
    return call("_npi_eigvalsh", a, UPLO=UPLO)


def eig(a: ndarray) -> tuple:
    """``(w, v)``: eigenvalues and right eigenvectors (columns) of real square matrices."""
    return tuple(call("_npi_eig", a))


def eigh(a: ndarray, UPLO: str = "L") -> tuple:  # noqa: N803  (NumPy's name)
    """``(w, v)``: eigenvalues (ascending) and eigenvectors of symmetric matrices."""
    return tuple(call("_npi_eigh", a, UPLO=UPLO))


_module = sys.modules[__name__]
for _name in LINALG_FALLBACK_NAMES:
    setattr(_module, _name, fallback(_name, np.linalg, "linalg."))
del _name, _module

# MXNet binds its fallback module here too (mx.np.linalg.fallback_linalg); it reads the
# functions above, so it is imported after them
from . import fallback_linalg as fallback_linalg  # noqa: E402
