"""NumPy-style linear algebra (MXNet 1.9.1's src/operator/numpy/linalg/): ``_npi_norm``,
``_npi_svd``, ``_npi_cholesky``, ``_npi_solve``, ``_npi_tensorinv``, ``_npi_tensorsolve``,
``_npi_pinv``, ``_npi_pinv_scalar_rcond``, ``_npi_eigvals``, ``_npi_eigvalsh``, ``_npi_eig`` and
``_npi_eigh``. ``_npi_inv``, ``_npi_det`` and ``_npi_slogdet`` are aliases of the legacy
``_linalg_*`` operators (mxlite/operator/tensor/linalg.py), as in MXNet.

The kernels are ``xp.linalg`` calls over the batch (the trailing two axes). MXNet's conventions
kept: ``svd`` needs rows <= columns and returns ``UT, L, V`` with ``A = UT diag(L) V`` and each
row of ``V`` flipped so that its entry of largest magnitude is positive; ``eigh`` flips each
eigenvector (column) the same way. The eigen-operators and ``pinv`` have zero gradients
(MXNet's ``MakeZeroGradNodes``).
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

try:
    from scipy.linalg import eig as _scipy_eig
except ImportError:  # SciPy is optional
    _scipy_eig = None

from ...base import DTypeError, Shape, ShapeError
from ..param import Param, field
from ..registry import OpTest, register
from ..tensor.linalg import LaCholeskyParam, PotrfProp, _LaProp, _square, _t


def _flip_rows(xp: Any, v: Any) -> Any:
    """The sign per row (last axis) that makes its entry of largest magnitude positive."""
    if v.shape[-1] == 0 or v.size == 0:
        return xp.ones(v.shape[:-1] + (1,), dtype=v.dtype)
    idx = xp.argmax(xp.abs(v), axis=-1)[..., None]
    sign = xp.sign(xp.take_along_axis(v, idx, axis=-1))
    return xp.where(sign == 0, 1, sign)


class _ZeroGrad(_LaProp):
    grad_reads = ""

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        return tuple(xp.zeros_like(a) for a in ins)


# ---- norm -------------------------------------------------------------------------------------


class NumpyNormParam(Param):
    ord: float = field(default=2.0, doc="Order of the norm. inf means numpy's inf object.")
    axis: tuple[int, ...] | None = field(
        default=None, doc="The axis (one) of the vector norms or the two axes of the matrix norms."
    )
    keepdims: bool = field(default=False, doc="Keep the reduced axes with size one.")
    flag: int = field(default=-1, doc="Which norm: -2 flattened 2-norm, 1 'fro', 2 'nuc', "
                                      "0 and -1 ord as given.")  # fmt: skip


@register("_npi_norm")
class NpNormProp(_LaProp):
    """Vector and matrix norms of ``x`` (np.linalg.norm; ``flag`` says which)."""

    args = ("x",)
    param_class = NumpyNormParam
    grad_reads = "inout"
    test = OpTest(shapes={"x": (2, 3)}, params={"flag": 1}, low=0.5, high=1.0)

    def _axes(self, ndim: int) -> tuple[int, ...]:
        p = self.param
        if p.axis is None:
            return tuple(range(ndim)) if p.flag == -2 or ndim != 2 else (0, 1)
        axes = tuple(a % ndim if -ndim <= a < ndim else -1 for a in p.axis)
        if -1 in axes or len(set(axes)) != len(axes) or len(axes) > 2:
            raise ShapeError(f"{self.op_name}: argument 'axis' {p.axis} is invalid for an "
                             f"input of {ndim} dims.")  # fmt: skip
        return axes

    def _ord(self) -> Any:
        return {-2: None, 1: "fro", 2: "nuc"}.get(self.param.flag, self.param.ord)

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        s = in_shape[0]
        if s is None:
            return None
        axes = self._axes(len(s))
        keep = self.param.keepdims
        out = tuple(1 if i in axes else d for i, d in enumerate(s) if keep or i not in axes)
        return list(in_shape), [out], []

    def shapes(self, x: Shape) -> list[Shape]:
        return self.infer_shape([x])[1]

    def compute(self, xp: Any, x: Any) -> tuple:
        axes, ord_ = self._axes(x.ndim), self._ord()
        keep = self.param.keepdims
        if len(axes) == 2:
            if ord_ in ("fro", None):
                out = xp.sqrt((x * x).sum(axis=axes, keepdims=keep))
            else:
                out = np.linalg.norm(x, ord=ord_, axis=axes, keepdims=keep)
        elif self.param.flag == -2 or len(axes) != 1:
            out = xp.sqrt((x * x).sum(axis=axes, keepdims=keep))
        else:
            out = np.linalg.norm(x, ord=2 if ord_ in ("fro", None) else ord_, axis=axes[0],
                                 keepdims=keep)  # fmt: skip
        return (xp.asarray(out, dtype=x.dtype).reshape(self.shapes(x.shape)[0]),)

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        x = ins[0]
        axes, ord_ = self._axes(x.ndim), self._ord()
        kept = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        g, n = ograds[0].reshape(kept), outs[0].reshape(kept)
        with np.errstate(divide="ignore", invalid="ignore"):
            if len(axes) == 2 and ord_ in (2, -2, 2.0, -2.0, "nuc"):
                m = xp.moveaxis(x, axes, (-2, -1))
                u, s, vt = xp.linalg.svd(m, full_matrices=False)
                if ord_ == "nuc":
                    d = xp.matmul(u, vt)
                else:
                    k = 0 if ord_ > 0 else -1
                    d = u[..., :, k, None] * vt[..., k, None, :]
                return (xp.moveaxis(d, (-2, -1), axes) * g,)
            if ord_ in ("fro", None) or self.param.flag == -2 or ord_ == 2:
                d = x / n
            elif ord_ == 0:
                d = xp.zeros_like(x)
            elif math.isinf(ord_):
                hit = (xp.abs(x) == n).astype(x.dtype)
                d = xp.sign(x) * hit / hit.sum(axis=axes, keepdims=True)
            else:
                d = xp.sign(x) * xp.abs(x) ** (ord_ - 1) / n ** (ord_ - 1)
        return (xp.where(xp.isfinite(d), d, 0).astype(x.dtype) * g,)


# ---- factorizations ---------------------------------------------------------------------------


@register("_npi_svd")
class NpSvdProp(_LaProp):
    """Singular value decomposition ``A = UT diag(L) V`` of matrices with rows <= columns."""

    outs = ("UT", "L", "V")
    grad_reads = "out"
    test = OpTest(shapes={"A": (2, 2, 3)}, rtol=1e-2, atol=1e-3)

    def shapes(self, a: Shape) -> list[Shape]:
        if len(a) < 2 or a[-2] > a[-1]:
            raise ShapeError(f"{self.op_name}: argument 'A' has shape {a}; expected ndim >= 2 "
                             "and rows <= columns.")  # fmt: skip
        lead, m = tuple(a[:-2]), a[-2]
        return [lead + (m, m), lead + (m,), tuple(a)]

    def compute(self, xp: Any, a: Any) -> tuple:
        u, s, v = xp.linalg.svd(a, full_matrices=False)
        sign = _flip_rows(xp, v)
        return u * _t(sign), s, v * sign

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        du, ds, dv = ograds
        u, s, v = outs
        s2 = s[..., None, :] ** 2 - s[..., :, None] ** 2  # s_j^2 - s_i^2 at [i, j]
        eye = xp.eye(s.shape[-1], dtype=bool)
        f = xp.where(eye, 0, 1 / xp.where(eye, 1, s2))
        ut_du = xp.matmul(_t(u), du)
        v_dvt = xp.matmul(v, _t(dv))
        sd = s[..., None, :]  # diag(s) as a right factor
        mid = (f * (ut_du - _t(ut_du))) * sd + (f * (v_dvt - _t(v_dvt))) * s[..., :, None]
        mid = mid + eye * ds[..., None, :]
        grad = xp.matmul(xp.matmul(u, mid), v)
        proj = dv - xp.matmul(xp.matmul(dv, _t(v)), v)
        grad = grad + xp.matmul(u, proj / s[..., :, None])
        return (grad,)


@register("_npi_cholesky")
class NpCholeskyProp(PotrfProp):
    """Cholesky factor ``L`` (``lower``, ``A = L L^T``) of symmetric positive-definite
    matrices; its gradient is potrf's."""

    param_class = LaCholeskyParam


# ---- solves and inverses ----------------------------------------------------------------------


def _vector_rhs(a: Shape, b: Shape) -> bool:
    return len(b) == 1 or len(b) == len(a) - 1


@register("_npi_solve")
class NpSolveProp(_LaProp):
    """The solution ``X`` of ``A X = B`` (``B`` a batch of vectors or matrices)."""

    args = ("A", "B")
    grad_reads = "inout"
    test = OpTest(shapes={"A": (2, 3, 3), "B": (2, 3, 2)}, rtol=1e-2, atol=1e-3)

    def shapes(self, a: Shape, b: Shape) -> list[Shape]:
        _square(self, "A", a)
        rows = b[-1] if _vector_rhs(a, b) else (b[-2] if len(b) >= 2 else -1)
        if rows != a[-1]:
            raise ShapeError(f"{self.op_name}: argument 'B' has shape {b}; its rows must "
                             f"match A's {a[-1]} (A has shape {a}).")  # fmt: skip
        return [tuple(b)]

    def compute(self, xp: Any, a: Any, b: Any) -> tuple:
        if _vector_rhs(a.shape, b.shape):
            return (xp.linalg.solve(a, b[..., None])[..., 0],)
        return (xp.linalg.solve(a, b),)

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        a, b = ins
        g, x = ograds[0], outs[0]
        vec = _vector_rhs(a.shape, b.shape)
        if vec:
            g, x = g[..., None], x[..., None]
        db = xp.linalg.solve(_t(a), g)
        da = -xp.matmul(db, _t(x))
        da = da.reshape((-1,) + a.shape).sum(axis=0) if da.shape != a.shape else da
        return da, (db[..., 0] if vec else db)


class TensorinvParam(Param):
    ind: int = field(default=2, doc="Number of first indices that are involved in the "
                                    "inverse sum.")  # fmt: skip


@register("_npi_tensorinv")
class NpTensorinvProp(_LaProp):
    """The inverse of ``a`` as a tensor: ``tensordot(tensorinv(a), a, ind)`` is the identity."""

    args = ("a",)
    param_class = TensorinvParam
    grad_reads = "out"
    test = OpTest(shapes={"a": (4, 2, 2)}, params={"ind": 1}, rtol=1e-2, atol=1e-3)

    def _split(self, a: Shape) -> tuple[Shape, Shape]:
        ind = self.param.ind
        head, tail = tuple(a[:ind]), tuple(a[ind:])
        if ind <= 0 or math.prod(head) != math.prod(tail):
            raise ShapeError(
                f"{self.op_name}: argument 'a' of shape {a} with ind={ind} is not "
                "square (prod(a.shape[:ind]) == prod(a.shape[ind:]) needed)."
            )
        return head, tail

    def shapes(self, a: Shape) -> list[Shape]:
        head, tail = self._split(a)
        return [tail + head]

    def compute(self, xp: Any, a: Any) -> tuple:
        head, tail = self._split(a.shape)
        n = math.prod(head)
        return (xp.linalg.inv(a.reshape(n, n)).reshape(tail + head),)

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        a = ins[0] if ins and ins[0] is not None else None
        y = outs[0]
        shape = a.shape if a is not None else tuple(y.shape[y.ndim - self.param.ind:]) + tuple(
            y.shape[: y.ndim - self.param.ind])  # fmt: skip
        n = int(math.isqrt(y.size))
        y2, g2 = y.reshape(n, n), ograds[0].reshape(n, n)
        return (-xp.matmul(xp.matmul(y2.T, g2), y2.T).reshape(shape),)


class TensorsolveParam(Param):
    a_axes: tuple[int, ...] = field(default=(), doc="Axes of a to move to the end, in order.")


@register("_npi_tensorsolve")
class NpTensorsolveProp(_LaProp):
    """The ``x`` with ``tensordot(a, x, x.ndim) == b`` (np.linalg.tensorsolve)."""

    args = ("a", "b")
    param_class = TensorsolveParam
    grad_reads = "inout"
    test = OpTest(shapes={"a": (2, 3, 6), "b": (2, 3)}, rtol=1e-2, atol=1e-3)

    def _perm(self, ndim: int) -> list[int]:
        moved = [ax % ndim for ax in self.param.a_axes]
        return [i for i in range(ndim) if i not in moved] + moved

    def _x_shape(self, a: Shape, b: Shape) -> Shape:
        """The solution's shape: the trailing dims of the moved ``a`` past ``b``'s count (all
        of them when the counts are equal, as MXNet's rule gives), a square system needed."""
        moved = tuple(a[i] for i in self._perm(len(a)))
        x = moved[len(b) - len(a) :] if len(a) != len(b) else moved
        if math.prod(x) ** 2 != math.prod(a) or math.prod(x) != math.prod(b):
            raise ShapeError(f"{self.op_name}: a of shape {tuple(a)} (axes moved: {moved}) and "
                             f"b of shape {tuple(b)} do not make a square system.")  # fmt: skip
        return x

    def shapes(self, a: Shape, b: Shape) -> list[Shape]:
        return [self._x_shape(a, b)]

    def compute(self, xp: Any, a: Any, b: Any) -> tuple:
        x_shape = self._x_shape(a.shape, b.shape)
        q = b.size
        moved = xp.transpose(a, self._perm(a.ndim))
        return (xp.linalg.solve(moved.reshape(q, q), b.reshape(q, 1)).reshape(x_shape),)

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        a, b = ins
        perm = self._perm(a.ndim)
        moved = xp.transpose(a, perm)
        q = b.size
        db = xp.linalg.solve(moved.reshape(q, q).T, ograds[0].reshape(q, 1))[:, 0]
        da = -xp.outer(db, outs[0].reshape(q)).reshape(moved.shape)
        return xp.transpose(da, np.argsort(perm)), db.reshape(b.shape)


class PinvParam(Param):
    hermitian: bool = field(default=False, doc="If True, A is assumed to be Hermitian.")


class PinvScalarRcondParam(Param):
    rcond: float = field(default=1e-15, doc="Cutoff for small singular values.")
    hermitian: bool = field(default=False, doc="If True, A is assumed to be Hermitian.")


@register("_npi_pinv")
class NpPinvProp(_ZeroGrad):
    """Moore-Penrose pseudo-inverse with a per-matrix cutoff ``rcond`` (an array)."""

    args = ("A", "rcond")
    param_class = PinvParam
    test = OpTest(shapes={"A": (2, 3, 2), "rcond": (2,)}, low=0.0, high=0.01, grad=False)

    def shapes(self, a: Shape, rcond: Shape) -> list[Shape]:
        return [tuple(a[:-2]) + (a[-1], a[-2])]

    def compute(self, xp: Any, a: Any, rcond: Any) -> tuple:
        return (np.linalg.pinv(a, rcond, hermitian=self.param.hermitian).astype(a.dtype),)


@register("_npi_pinv_scalar_rcond")
class NpPinvScalarRcondProp(_ZeroGrad):
    """Moore-Penrose pseudo-inverse with a scalar cutoff ``rcond``."""

    param_class = PinvScalarRcondParam
    test = OpTest(shapes={"A": (2, 3, 2)}, grad=False)

    def shapes(self, a: Shape) -> list[Shape]:
        return [tuple(a[:-2]) + (a[-1], a[-2])]

    def compute(self, xp: Any, a: Any) -> tuple:
        p = self.param
        return (np.linalg.pinv(a, p.rcond, hermitian=p.hermitian).astype(a.dtype),)


# ---- eigen-decompositions ---------------------------------------------------------------------


class EighParam(Param):
    UPLO: str = field(default="L", choices=("L", "U"), doc="Use the lower ('L') or upper "
                                                            "('U') triangle.")  # fmt: skip


def _eig_dtype(dtype: Any) -> Any:
    return np.float32 if dtype == np.float32 else np.float64


class _EigBase(_ZeroGrad):
    test: ClassVar[OpTest] = OpTest(shapes={"A": (2, 3, 3)}, grad=False)

    def shapes(self, a: Shape) -> list[Shape]:
        _square(self, "A", a)
        shapes = [tuple(a[:-1]), tuple(a)]
        return shapes[: len(self.outs)]

    def infer_type(self, in_type: list, out_type: list | None = None):
        """Any real input but float16; the outputs are float32 for float32, else float64."""
        t = in_type[0]
        if t is None:
            return None
        if np.dtype(t) == np.float16:
            raise DTypeError(f"{self.op_name}: argument 'A' has dtype float16, which linalg "
                             "does not support.")  # fmt: skip
        out = np.dtype(np.float32 if np.dtype(t) == np.float32 else np.float64)
        return list(in_type), [out] * len(self.outs), []


@register("_npi_eigvals")
class NpEigvalsProp(_EigBase):
    """Eigenvalues of real square matrices (their real parts)."""

    def compute(self, xp: Any, a: Any) -> tuple:
        return (np.linalg.eigvals(a).real.astype(_eig_dtype(a.dtype)),)


@register("_npi_eigvalsh")
class NpEigvalshProp(_EigBase):
    """Eigenvalues of symmetric matrices (ascending), from the ``UPLO`` triangle."""

    param_class = EighParam

    def compute(self, xp: Any, a: Any) -> tuple:
        return (xp.linalg.eigvalsh(a, UPLO=self.param.UPLO),)


@register("_npi_eig")
class NpEigProp(_EigBase):
    """Eigenvalues and right eigenvectors (columns) of real square matrices, with the signs
    LAPACK gives MXNet (SciPy computes them; without it, NumPy's)."""

    outs = ("w", "v")

    def compute(self, xp: Any, a: Any) -> tuple:
        dt = _eig_dtype(a.dtype)
        if _scipy_eig is None or a.size == 0:
            w, v = np.linalg.eig(a)
            return w.real.astype(dt), v.real.astype(dt)
        # MXNet runs LAPACK on the row-major data, i.e. on A^T: its vectors (and their signs)
        # are the left eigenvectors of A^T
        flat = np.asarray(a).reshape((-1,) + a.shape[-2:])
        pairs = [_scipy_eig(m.T, left=True, right=False) for m in flat]
        w = np.stack([p[0].real for p in pairs]).reshape(a.shape[:-1])
        v = np.stack([p[1].real for p in pairs]).reshape(a.shape)
        return w.astype(dt), v.astype(dt)


@register("_npi_eigh")
class NpEighProp(_EigBase):
    """Eigenvalues (ascending) and eigenvectors (columns) of symmetric matrices."""

    outs = ("w", "v")
    param_class = EighParam

    def compute(self, xp: Any, a: Any) -> tuple:
        w, v = xp.linalg.eigh(a, UPLO=self.param.UPLO)
        return w, v * _t(_flip_rows(xp, _t(v)))
