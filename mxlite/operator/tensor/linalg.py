"""Linear algebra on batches of matrices: the ``_linalg_*`` operators (``mx.nd.linalg.*``);
the products ``gemm``, ``gemm2``, ``syrk``, ``trmm`` and ``trsm`` live in dot.py on this base.

Design note
-----------
Every operator works on the trailing two axes and batches over the leading ones (``gemm`` and
``gemm2`` may take the row axis elsewhere with ``axis``). Each is a small property class that
says four things: its output shapes (``shapes``), its forward (``compute``), its gradient
(``gradient``) and what that gradient reads (``grad_reads``: inputs ``"in"`` and/or outputs
``"out"``). A shared base turns these into the registry's methods; kernels are vectorised
``xp.linalg`` / ``xp.matmul`` calls over the whole batch.

MXNet's conventions kept here (they follow LAPACK on row-major data):

- ``potrf``/``potri``/``trmm``/``trsm`` read only the triangle named by ``lower``; ``syevd``
  reads only the lower triangle. ``potrf`` returns ``B`` with ``A = B B^T`` (lower) or
  ``A = B^T B`` (upper), and its gradient is the symmetric matrix MXNet computes.
- ``gelqf`` gives ``A = L Q`` with LAPACK's Householder signs (those of ``qr(A.T)``).
- ``syevd`` gives rows of ``U`` as eigenvectors, eigenvalues ascending, and flips each row so
  that its entry of largest magnitude (the first on ties) is positive.
- ``det``, ``slogdet`` and ``sumlogdiag`` of one matrix have shape ``(1,)``. MXNet's ``det`` and
  ``slogdet`` keep LU factors as hidden outputs for the backward; here the backward inverts
  the input again instead, so these operators have only their visible outputs.
- Only float32 and float64 are accepted, as in MXNet.

``scipy.linalg.solve_triangular`` is used for triangular solves when SciPy imports and the
arrays are NumPy's; otherwise ``xp.linalg.solve`` on the triangle gives the same result.
"""

from __future__ import annotations

from math import isqrt
from typing import Any, ClassVar

import numpy as np

from ...base import DTypeError, MXNetError, Shape, ShapeError
from ...util import is_np_shape
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, dtype_assign, register
from ..req import OpReq, assign

try:
    from scipy.linalg import solve_triangular as _scipy_solve_triangular
except ImportError:  # SciPy is optional
    _scipy_solve_triangular = None

__all__ = ["solve_triangular"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


# ---- parameters (MXNet's names, defaults and docs) -----------------------------------------


_LOWER_DOC = "True if the triangular matrix is lower triangular, false if it is upper triangular."
_OFFSET_DOC = (
    "Offset of the diagonal versus the main diagonal. 0 corresponds to the main "
    "diagonal, a negative/positive value to diagonals below/above the main diagonal."
)


class LaCholeskyParam(Param):
    lower: bool = field(default=True, doc=_LOWER_DOC)


class LaDiagParam(Param):
    offset: int = field(default=0, doc=_OFFSET_DOC)


class LaTrianParam(Param):
    offset: int = field(default=0, doc=_OFFSET_DOC)
    lower: bool = field(
        default=True,
        doc="Refer to the lower triangular matrix if lower=true, refer to the upper otherwise. "
        "Only relevant when offset=0",
    )


# ---- helpers --------------------------------------------------------------------------------


def _t(x: Any) -> Any:
    return x.swapaxes(-1, -2)


def _tri(xp: Any, x: Any, lower: bool) -> Any:
    return xp.tril(x) if lower else xp.triu(x)


def _sym_from(xp: Any, x: Any, lower: bool) -> Any:
    """The symmetric matrix whose lower (or upper) triangle is that of ``x``."""
    if lower:
        return xp.tril(x) + _t(xp.tril(x, -1))
    return xp.triu(x) + _t(xp.triu(x, 1))


def solve_triangular(
    xp: Any, a: Any, b: Any, lower: bool, trans: bool = False, rightside: bool = False
) -> Any:
    """Solve ``op(A) X = B`` (or ``X op(A) = B`` with ``rightside``) for triangular ``A``
    (only its ``lower``/upper triangle is read), batched over the leading axes."""
    if rightside:  # X op(A) = B  <=>  op(A)^T X^T = B^T
        return _t(solve_triangular(xp, a, _t(b), lower, not trans))
    if _scipy_solve_triangular is not None and xp is np:
        if a.ndim == 2:
            return _scipy_solve_triangular(a, b, trans=int(trans), lower=lower, check_finite=False)
        flat_a = a.reshape((-1,) + a.shape[-2:])
        flat_b = b.reshape((-1,) + b.shape[-2:])
        out = np.empty(flat_b.shape, np.result_type(a, b))
        for i in range(flat_a.shape[0]):  # one LAPACK call per matrix, as MXNet does
            out[i] = _scipy_solve_triangular(
                flat_a[i], flat_b[i], trans=int(trans), lower=lower, check_finite=False
            )
        return out.reshape(b.shape)
    t = _tri(xp, a, lower)
    return xp.linalg.solve(_t(t) if trans else t, b)


def _square(prop: OperatorProperty, arg: str, shape: Shape) -> None:
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ShapeError(
            f"{prop.op_name}: argument {arg!r} has shape {shape}; expected a "
            "tensor of square matrices (ndim >= 2, last two axes equal)."
        )


def _reduced(shape: Shape) -> Shape:
    """Shape after reducing the last two axes: MXNet keeps (1,) for one matrix."""
    return tuple(shape[:-2]) or (1,)


def _det_shape(shape: Shape) -> Shape:
    """``det``'s and ``slogdet``'s output shape: () for one matrix under NumPy's shape rules
    (``mx.np.linalg.det``), else as :func:`_reduced`."""
    return () if len(shape) == 2 and is_np_shape() else _reduced(shape)


# ---- the shared base ------------------------------------------------------------------------


class _LaProp(OperatorProperty):
    args: ClassVar[tuple[str, ...]] = ("A",)
    outs: ClassVar[tuple[str, ...]] = ("output",)
    grad_reads: ClassVar[str] = "in"  # what the gradient reads: "", "in", "out" or "inout"
    inplace: ClassVar[tuple[tuple[int, int], ...]] = ()  # MXNet's FInplaceOption pairs

    def list_arguments(self) -> list[str]:
        return list(self.args)

    def list_outputs(self) -> list[str]:
        return list(self.outs)

    def shapes(self, *in_shapes: Shape) -> list[Shape]:
        raise NotImplementedError

    def compute(self, xp: Any, *ins: Any) -> tuple:
        raise NotImplementedError

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        raise NotImplementedError

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        # a 0 dim is unknown, except under NumPy's shape rules (mx.np), where it is empty
        if any(s is None or (0 in s and not is_np_shape()) for s in in_shape):
            return None
        return list(in_shape), self.shapes(*in_shape), []

    def infer_type(self, in_type: list, out_type: list | None = None):
        known = next((t for t in in_type if t is not None), None)
        if known is None and out_type:
            known = next((t for t in out_type if t is not None), None)
        if known is None:
            return None
        known = np.dtype(known)
        if known not in _FLOATS:
            raise DTypeError(
                f"{self.op_name}: argument {self.args[0]!r} has dtype {known.name};"
                f" {self.op_name} supports float32 and float64 only."
            )
        ins = [dtype_assign(self, self.args[i], t, known) for i, t in enumerate(in_type)]
        return ins, [known] * len(self.outs), []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list) -> list:
        return [
            *out_grad,
            *(in_data if "in" in self.grad_reads else []),
            *(out_data if "out" in self.grad_reads else []),
        ]

    def forward_inplace_option(self, in_data: list, out_data: list) -> list:
        return [(in_data[i], out_data[o]) for i, o in self.inplace]

    def create_operator(self, ctx: Any) -> Operator:
        return _LaOperator(self, ctx.xp)


class _LaOperator(Operator):
    def _run(self, fn: Any, *args: Any) -> tuple:
        try:
            return fn(self.xp, *args)
        except np.linalg.LinAlgError as exc:
            raise MXNetError(
                f"{self.prop.op_name}: argument 'A': {exc} (LAPACK failed on the input matrix)."
            ) from None

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        if any(r != OpReq.NULL for r in req):
            for o, r, v in zip(out_data, req, self._run(self.prop.compute, *in_data)):
                assign(o, r, v)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        if any(r != OpReq.NULL for r in req):
            grads = self._run(self.prop.gradient, out_grad, in_data, out_data)
            for g, r, v in zip(in_grad, req, grads):
                if r != OpReq.NULL:
                    assign(g, r, v)


class _SquareOp(_LaProp):
    """A function of square matrices whose result has their shape and may overwrite them."""

    inplace = ((0, 0),)

    def shapes(self, a: Shape) -> list[Shape]:
        _square(self, "A", a)
        return [tuple(a)]


# ---- factorizations -------------------------------------------------------------------------


@register("_linalg_potrf", aliases=("linalg_potrf",))
class PotrfProp(_SquareOp):
    """Cholesky factorization of symmetric positive-definite matrices: ``B`` triangular with
    positive diagonal and ``A = B * B^T`` (``lower``) or ``A = B^T * B``; only that triangle of
    ``A`` is read."""

    lists_input_names = True

    param_class = LaCholeskyParam
    grad_reads = "out"
    test = OpTest(shapes={"A": (2, 1, 1)}, low=0.5, high=2.0)

    def compute(self, xp: Any, a: Any) -> tuple:
        chol = xp.linalg.cholesky(_sym_from(xp, a, self.param.lower))
        return (chol if self.param.lower else _t(chol),)

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        # lower: dA = 0.5 B^-T sym(B^T dB) B^-1, sym() mirroring the lower triangle;
        # upper: the same for B^T (sym() mirroring the upper triangle).
        g, b, low = ograds[0], outs[0], self.param.lower
        m = _sym_from(xp, xp.matmul(_t(b), g) if low else xp.matmul(g, _t(b)), low)
        x = solve_triangular(xp, b, m, low, trans=low)
        return (0.5 * solve_triangular(xp, b, x, low, trans=not low, rightside=True),)


@register("_linalg_potri", aliases=("linalg_potri",))
class PotriProp(_SquareOp):
    """Inverse from a Cholesky factor: ``out = A^-T * A^-1`` (``lower``) or ``A^-1 * A^-T``,
    i.e. the inverse of the matrix whose ``potrf`` factor is ``A``."""

    lists_input_names = True

    param_class = LaCholeskyParam
    grad_reads = "inout"
    test = OpTest(shapes={"A": (2, 3, 3)}, low=0.5, high=2.0)

    def compute(self, xp: Any, a: Any) -> tuple:
        eye = xp.broadcast_to(xp.eye(a.shape[-1], dtype=a.dtype), a.shape)
        inv = solve_triangular(xp, a, eye, self.param.lower)
        return (xp.matmul(_t(inv), inv) if self.param.lower else xp.matmul(inv, _t(inv)),)

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        # lower: dB = -tril(A (dA + dA^T) B^-T); upper: -triu(B^-T (dA + dA^T) A)
        g, b, out, low = ograds[0], ins[0], outs[0], self.param.lower
        gs = g + _t(g)
        if low:
            x = solve_triangular(xp, b, xp.matmul(out, gs), True, trans=True, rightside=True)
        else:
            x = solve_triangular(xp, b, xp.matmul(gs, out), False, trans=True)
        return (-_tri(xp, x, low),)


@register("_linalg_gelqf", aliases=("linalg_gelqf",))
class GelqfProp(_LaProp):
    """LQ factorization ``A = L * Q`` of full-rank matrices of shape ``(x, y)``, ``x <= y``:
    ``Q`` (first output, shape of A) row-orthonormal, ``L`` (second, ``(x, x)``) lower
    triangular."""

    lists_input_names = True

    outs = ("output0", "output1")
    grad_reads = "out"
    inplace = ((0, 0),)
    test = OpTest(shapes={"A": (2, 2, 3)})

    def shapes(self, a: Shape) -> list[Shape]:
        if len(a) < 2 or a[-2] > a[-1]:
            raise ShapeError(
                f"{self.op_name}: argument 'A' has shape {a}; expected ndim >= 2 "
                "and rows <= columns on the last two axes."
            )
        return [tuple(a), tuple(a[:-1]) + (a[-2],)]

    def compute(self, xp: Any, a: Any) -> tuple:
        q, r = xp.linalg.qr(_t(a))  # A^T = Q' R'  =>  A = R'^T Q'^T
        return _t(q), _t(r)

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        # dA = L^-T (dQ + sym(M) Q), M = L^T dL - dQ Q^T, sym() mirroring the lower triangle
        dq, dl = ograds
        q, lo = outs
        m = xp.matmul(_t(lo), dl) - xp.matmul(dq, _t(q))
        x = dq + xp.matmul(_sym_from(xp, m, True), q)
        return (solve_triangular(xp, lo, x, True, trans=True),)


# eigenvalue gaps are clamped here in the syevd gradient (MXNet's values per dtype)
_SYEVD_EPS = {np.dtype(np.float32): 1e-30, np.dtype(np.float64): 1e-100}


@register("_linalg_syevd")
class SyevdProp(_LaProp):
    """Eigendecomposition of symmetric matrices (only the lower triangle is read): ``U * A =
    diag(L) * U`` with the rows of ``U`` orthonormal eigenvectors (first output) and the
    eigenvalues ``L`` ascending (second output)."""

    lists_input_names = True

    outs = ("output0", "output1")
    grad_reads = "out"
    inplace = ((0, 0),)
    test = OpTest(shapes={"A": (2, 3, 3)}, grad=False)  # reads one triangle: no plain derivative

    def shapes(self, a: Shape) -> list[Shape]:
        _square(self, "A", a)
        return [tuple(a), tuple(a[:-1])]

    def compute(self, xp: Any, a: Any) -> tuple:
        w, v = xp.linalg.eigh(a, UPLO="L")
        u = _t(v)
        # MXNet's sign rule: the entry of largest magnitude in each row is positive
        big = xp.take_along_axis(u, xp.argmax(xp.abs(u), axis=-1)[..., None], axis=-1)
        return xp.where(big < 0, -u, u), w

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        # dA = U^T Y U, Y symmetric: Y_ij = (X_ij - X_ji) / (2 (L_i - L_j)) for i > j with
        # X = dU U^T, and Y_ii = dL_i
        du, dl = ograds
        u, lam = outs
        x = xp.matmul(du, _t(u))
        gap = xp.abs(lam[..., :, None] - lam[..., None, :])
        gap = 2 * xp.maximum(gap, _SYEVD_EPS[np.dtype(u.dtype)])
        y = xp.tril((x - _t(x)) / gap, -1)
        y = y + _t(y)
        n = u.shape[-1]
        y[..., xp.arange(n), xp.arange(n)] = dl
        return (xp.matmul(xp.matmul(_t(u), y), u),)


# ---- inverse and determinants ---------------------------------------------------------------


@register("_linalg_inverse", aliases=("linalg_inverse", "_npi_inv"))
class InverseProp(_SquareOp):
    """Inverse of square matrices."""

    lists_input_names = True

    grad_reads = "out"
    test = OpTest(shapes={"A": (2, 3, 3)})

    def compute(self, xp: Any, a: Any) -> tuple:
        return (xp.linalg.inv(a),)

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        inv = outs[0]
        return (-xp.matmul(xp.matmul(_t(inv), ograds[0]), _t(inv)),)


def _inv_t_or_zero(xp: Any, a: Any, singular: Any) -> Any:
    """``inv(A)^T`` for every matrix, with singular ones (where ``singular``) replaced by an
    identity so that one batched call succeeds; their gradient is zeroed by the caller."""
    if bool(singular.any()):
        eye = xp.eye(a.shape[-1], dtype=a.dtype)
        a = xp.where(singular[..., None, None], eye, a)
    return _t(xp.linalg.inv(a))


@register("_linalg_det", aliases=("linalg_det", "_npi_det"))
class DetProp(_LaProp):
    """Determinant of square matrices; shape ``(1,)`` for one matrix. The gradient of a
    singular matrix is zero, as in MXNet."""

    lists_input_names = True

    grad_reads = "inout"
    test = OpTest(shapes={"A": (2, 3, 3)})

    def shapes(self, a: Shape) -> list[Shape]:
        _square(self, "A", a)
        return [_det_shape(a)]

    def compute(self, xp: Any, a: Any) -> tuple:
        return (xp.linalg.det(a),)  # assign() fits one matrix's () to (1,) or ()

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        a = ins[0]
        lead = a.shape[:-2] + (1, 1)
        det, g = outs[0].reshape(lead), ograds[0].reshape(lead)
        singular = det[..., 0, 0] == 0
        return (xp.where(det == 0, 0, g * det * _inv_t_or_zero(xp, a, singular)),)


@register("_linalg_slogdet", aliases=("linalg_slogdet", "_npi_slogdet"))
class SlogdetProp(_LaProp):
    """Sign and log of the absolute determinant of square matrices (two outputs, each of shape
    ``(1,)`` for one matrix). Only ``logabsdet`` has a gradient; it is zero for singular
    matrices, as in MXNet."""

    lists_input_names = True

    outs = ("output0", "output1")
    grad_reads = "inout"
    test = OpTest(shapes={"A": (2, 3, 3)})

    def shapes(self, a: Shape) -> list[Shape]:
        _square(self, "A", a)
        return [_det_shape(a), _det_shape(a)]

    def compute(self, xp: Any, a: Any) -> tuple:
        sign, logdet = xp.linalg.slogdet(a)
        return sign, logdet  # assign() fits one matrix's () to (1,) or ()

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        a = ins[0]
        lead = a.shape[:-2] + (1, 1)
        logdet, g = outs[1].reshape(lead), ograds[1].reshape(lead)
        singular = xp.isneginf(logdet)
        return (xp.where(singular, 0, g * _inv_t_or_zero(xp, a, singular[..., 0, 0])),)


@register("_linalg_sumlogdiag", aliases=("linalg_sumlogdiag",))
class SumlogdiagProp(_LaProp):
    """Sum of the natural logarithms of the diagonal of square matrices; shape ``(1,)`` for
    one matrix."""

    lists_input_names = True

    test = OpTest(shapes={"A": (2, 3, 3)}, low=0.5, high=2.0)

    def shapes(self, a: Shape) -> list[Shape]:
        _square(self, "A", a)
        return [_reduced(a)]

    def compute(self, xp: Any, a: Any) -> tuple:
        return (xp.log(xp.diagonal(a, 0, -2, -1)).sum(axis=-1).reshape(_reduced(a.shape)),)

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        a = ins[0]
        g = ograds[0].reshape(a.shape[:-2] + (1,))
        return (_embed_diag(xp, g / xp.diagonal(a, 0, -2, -1), 0),)


# ---- diagonals and triangles ----------------------------------------------------------------


def _embed_diag(xp: Any, d: Any, k: int) -> Any:
    """Square matrices with ``d`` on their ``k``-th diagonal, zeros elsewhere."""
    n = d.shape[-1]
    out = xp.zeros(d.shape[:-1] + (n + abs(k), n + abs(k)), dtype=d.dtype)
    i = xp.arange(n)
    out[..., i + max(-k, 0), i + max(k, 0)] = d
    return out


def _trian_index(xp: Any, n: int, k: int, lower: bool) -> tuple[Any, Any]:
    """Row and column indices of the triangle, in MXNet's packing order: row-major over the
    lower triangle below the ``k``-th diagonal, or column-major over the upper one."""
    r, c = np.tril_indices(n - abs(k))
    r = r + abs(k)
    if k > 0 or (k == 0 and not lower):
        r, c = c, r
    return xp.asarray(r), xp.asarray(c)


def _unpack_trian(xp: Any, v: Any, k: int, lower: bool) -> Any:
    """Square matrices holding the packed triangles ``v`` (see _trian_index), zeros elsewhere."""
    m = (isqrt(8 * v.shape[-1] + 1) - 1) // 2
    r, c = _trian_index(xp, m + abs(k), k, lower)
    out = xp.zeros(v.shape[:-1] + (m + abs(k), m + abs(k)), dtype=v.dtype)
    out[..., r, c] = v
    return out


class _DiagBase(_LaProp):
    grad_reads = ""
    test = OpTest(shapes={"A": (2, 3, 3)})

    def _extract_shape(self, a: Shape) -> int:
        _square(self, "A", a)
        m = a[-1] - abs(self.param.offset)
        if m <= 0:
            raise ShapeError(
                f"{self.op_name}: argument 'offset' is {self.param.offset}; "
                f"matrices of size {a[-1]} need |offset| < {a[-1]}."
            )
        return m


@register("_linalg_extractdiag", aliases=("linalg_extractdiag",))
class ExtractdiagProp(_DiagBase):
    """The ``offset``-th diagonal of square matrices (above the main one for ``offset > 0``)."""

    lists_input_names = True

    param_class = LaDiagParam

    def shapes(self, a: Shape) -> list[Shape]:
        return [tuple(a[:-2]) + (self._extract_shape(a),)]

    def compute(self, xp: Any, a: Any) -> tuple:
        return (xp.diagonal(a, self.param.offset, -2, -1),)

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        return (_embed_diag(xp, ograds[0], self.param.offset),)


@register("_linalg_makediag", aliases=("linalg_makediag",))
class MakediagProp(_DiagBase):
    """Square matrices with the input on their ``offset``-th diagonal, zeros elsewhere."""

    lists_input_names = True

    param_class = LaDiagParam
    test = OpTest(shapes={"A": (2, 3)})

    def shapes(self, a: Shape) -> list[Shape]:
        if len(a) < 1:
            raise ShapeError(f"{self.op_name}: argument 'A' has shape {a}; expected ndim >= 1.")
        n = a[-1] + abs(self.param.offset)
        return [tuple(a[:-1]) + (n, n)]

    def compute(self, xp: Any, a: Any) -> tuple:
        return (_embed_diag(xp, a, self.param.offset),)

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        return (xp.diagonal(ograds[0], self.param.offset, -2, -1),)


@register("_linalg_extracttrian", aliases=("linalg_extracttrian",))
class ExtracttrianProp(_DiagBase):
    """A triangle of square matrices as a vector: the lower (``lower``) or upper one for
    ``offset = 0``, the part above the ``offset``-th diagonal for ``offset > 0`` and below it
    for ``offset < 0``."""

    lists_input_names = True

    param_class = LaTrianParam

    def shapes(self, a: Shape) -> list[Shape]:
        m = self._extract_shape(a)
        return [tuple(a[:-2]) + (m * (m + 1) // 2,)]

    def compute(self, xp: Any, a: Any) -> tuple:
        r, c = _trian_index(xp, a.shape[-1], self.param.offset, self.param.lower)
        return (a[..., r, c],)

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        return (_unpack_trian(xp, ograds[0], self.param.offset, self.param.lower),)


@register("_linalg_maketrian", aliases=("linalg_maketrian",))
class MaketrianProp(_DiagBase):
    """Square matrices from packed triangles (the inverse of ``extracttrian``), zeros
    elsewhere."""

    lists_input_names = True

    param_class = LaTrianParam
    test = OpTest(shapes={"A": (2, 6)})

    def shapes(self, a: Shape) -> list[Shape]:
        n = a[-1] if a else 0
        m = (isqrt(8 * n + 1) - 1) // 2
        if len(a) < 1 or m * (m + 1) // 2 != n:
            raise ShapeError(
                f"{self.op_name}: argument 'A' has shape {a}; the last axis must "
                "hold a triangle, m * (m + 1) / 2 entries for some m."
            )
        size = m + abs(self.param.offset)
        return [tuple(a[:-1]) + (size, size)]

    def compute(self, xp: Any, a: Any) -> tuple:
        return (_unpack_trian(xp, a, self.param.offset, self.param.lower),)

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        g = ograds[0]
        r, c = _trian_index(xp, g.shape[-1], self.param.offset, self.param.lower)
        return (g[..., r, c],)
