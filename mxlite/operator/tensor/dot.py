"""Matrix products: ``dot`` (MXNet's flattening dot), ``batch_dot``, and the BLAS-3 operators
of ``mx.nd.linalg``: ``gemm``, ``gemm2``, ``syrk``, ``trmm``, ``trsm``.

Design note
-----------
MXNet's ``dot`` is not NumPy's: it views ``lhs`` as a matrix ``(prod(shape[:-1]), shape[-1])``
and ``rhs`` as ``(shape[0], prod(shape[1:]))`` and multiplies those, so the last axis of ``lhs``
meets the first axis of ``rhs`` and the output shape is ``lhs.shape[:-1] + rhs.shape[1:]``.
``transpose_a`` views ``lhs`` as ``(shape[0], prod(shape[1:]))`` and transposes that matrix, so
the output starts with ``lhs.shape[1:]`` (in order, not reversed); ``transpose_b`` likewise
views ``rhs`` as ``(prod(shape[:-1]), shape[-1])``. A 1-D operand is a row (``lhs``) or a
column (``rhs``) and adds no axis; two 1-D operands give shape ``(1,)``.

Both products run as BLAS calls (``operator.parallel.matmul``: large 2-D products split over
the kernel threads) on those 2-D (or, for ``batch_dot``,
3-D) views, written straight into the output when the request is a plain write. Gradients
follow from ``C = A @ B``: ``dA = dC @ B.T``, ``dB = A.T @ dC``, transposed back where the
operand was transposed; the backward reads the inputs and the output gradient, never the
output.

MXNet computes these on CPU for float32 and float64 only (float16 on GPU); integer inputs are
rejected at the call, float16 on a CPU context when the kernel runs, as in MXNet.

The ``_linalg_*`` products use the shared base of linalg.py (trailing two axes, batching over
the others; ``gemm``/``gemm2`` may take the row axis elsewhere with ``axis``). ``trmm`` and
``trsm`` read only the ``lower`` (or upper) triangle of ``A`` and give ``A`` a gradient in that
triangle only, as MXNet does.
"""

from __future__ import annotations

from math import prod
from typing import Any

import numpy as np

from ...base import DTypeError, Shape, ShapeError
from ...util import is_np_shape
from ..parallel import matmul
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, merge_shape, register
from ..req import OpReq, assign
from ..sparse.forms_tensor import DOT, DOT_BACKWARD
from .linalg import _LOWER_DOC, _LaProp, _square, _t, _tri, solve_triangular

__all__ = [
    "DotParam",
    "LaMatrixMacParam",
    "LaMatrixMultParam",
    "LaSyrkParam",
    "LaTriangMatrixMultParam",
]

_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


class DotParam(Param):
    transpose_a: bool = field(
        default=False, doc="If true then transpose the first input before dot."
    )
    transpose_b: bool = field(
        default=False, doc="If true then transpose the second input before dot."
    )
    forward_stype: str | None = field(
        default=None,
        choices=("default", "row_sparse", "csr"),
        doc="The desired storage type of the forward output given by user (only dense "
        "arrays exist here: accepted and ignored).",
    )


def _swap(x: Any) -> Any:
    return x.swapaxes(-1, -2)


def _matmul_into(xp: Any, a: Any, b: Any, out: Any, req: OpReq) -> None:
    """``out <req> a @ b``; computes straight into ``out`` when that is safe and cheap."""
    if req == OpReq.NULL:
        return
    if req == OpReq.WRITE and out.flags.c_contiguous:
        # a reshape of a C-contiguous array is a view, so the result lands in ``out``
        matmul(xp, a, b, out=out.reshape(a.shape[:-1] + b.shape[-1:]))
        return
    assign(out, req, matmul(xp, a, b).reshape(out.shape))


class _DotBase(OperatorProperty):
    param_class = DotParam
    bfloat16_kernel = False  # MXNet 1.9.1 refuses bfloat16 here (operator/bfloat16.py)

    def list_arguments(self) -> list[str]:
        return ["lhs", "rhs"]

    def infer_type(self, in_type: list, out_type: list | None = None):
        res = super().infer_type(in_type, out_type)
        if res is not None and res[1][0] not in _FLOATS:
            raise DTypeError(
                f"{self.op_name}: argument 'lhs' has dtype {np.dtype(res[1][0]).name}; "
                f"{self.op_name} accepts float32 and float64 (and float16 on GPU)."
            )
        return res

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list) -> list:
        return [out_grad[0], in_data[0], in_data[1]]


class _DotOperatorBase(Operator):
    __slots__ = ("param", "xp", "op_name")

    def __init__(self, prop: _DotBase, xp: Any) -> None:
        self.param = prop.param
        self.xp = xp
        self.op_name = prop.op_name

    def _check_dtype(self, x: Any) -> None:
        if self.xp is np and x.dtype == np.float16:
            raise DTypeError(
                f"{self.op_name}: float16 inputs need a GPU context; on CPU {self.op_name} "
                "supports float32 and float64, as in MXNet."
            )

    def _operands(self, lhs: Any, rhs: Any) -> tuple[Any, Any]:
        """The matrices (or stacks of matrices) A, B with output = A @ B."""
        raise NotImplementedError

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        lhs, rhs = in_data
        self._check_dtype(lhs)
        a, b = self._operands(lhs, rhs)
        _matmul_into(self.xp, a, b, out_data[0], req[0])

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        lhs, rhs = in_data
        a, b = self._operands(lhs, rhs)
        g = out_grad[0].reshape(a.shape[:-1] + b.shape[-1:])
        p, xp = self.param, self.xp
        # dA = g @ B.T, dB = A.T @ g; an operand used transposed gets the transposed gradient
        if req[0] != OpReq.NULL:
            dlhs = matmul(xp, b, _swap(g)) if p.transpose_a else matmul(xp, g, _swap(b))
            assign(in_grad[0], req[0], dlhs.reshape(lhs.shape))
        if req[1] != OpReq.NULL:
            drhs = matmul(xp, _swap(g), a) if p.transpose_b else matmul(xp, _swap(a), g)
            assign(in_grad[1], req[1], drhs.reshape(rhs.shape))


# ---- dot ------------------------------------------------------------------------------------


def _dot_views(lshape: Shape, rshape: Shape, ta: bool, tb: bool) -> tuple:
    """The 2-D shapes MXNet gives lhs and rhs before the optional transposes."""
    lv = (lshape[0], prod(lshape[1:])) if ta else (prod(lshape[:-1]), lshape[-1])
    rv = (prod(rshape[:-1]), rshape[-1]) if tb else (rshape[0], prod(rshape[1:]))
    return lv, rv


@register("dot")
class DotProp(_DotBase):
    """Dot product of two arrays.

    ``dot``'s behaviour depends on the input shapes: 1-D with 1-D gives the inner product
    (shape ``(1,)``); otherwise the last axis of ``lhs`` is contracted with the first axis of
    ``rhs`` and ``dot(x, y)[i, j, a, b] = sum(x[i, j, :] * y[:, a, b])``. ``transpose_a`` /
    ``transpose_b`` transpose the operands first, each viewed as a matrix: with
    ``transpose_a`` lhs is ``(shape[0], prod(shape[1:]))`` and the output starts with
    ``lhs.shape[1:]``; with ``transpose_b`` rhs is ``(prod(shape[:-1]), shape[-1])`` and the
    output ends with ``rhs.shape[:-1]``.
    """

    sparse_form = DOT
    sparse_backward = DOT_BACKWARD
    grad_rows_from = "csr_columns"

    def grad_stypes(self, in_stypes: list[str]) -> list[str]:
        # dot(csr.T, dy), the gradient of dot(csr, w) for w, is row-sparse; dot(csr, dy)
        # after transpose_a is dense
        p = self.param
        sparse_w = in_stypes[0] == "csr" and not (p.transpose_a or p.transpose_b)
        return ["default", "row_sparse" if sparse_w else "default"]

    test = OpTest(shapes={"lhs": (3, 4), "rhs": (4, 5)})

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        lshape, rshape = in_shape
        # partial shapes (0 = unknown dim) give a partial output, as MXNet's DotShape does
        if lshape is None or rshape is None:
            return None
        ta, tb = self.param.transpose_a, self.param.transpose_b
        if len(lshape) == 0 or len(rshape) == 0:
            raise ShapeError(
                f"dot: argument {'lhs' if not lshape else 'rhs'!r} is a scalar "
                "array (shape ()); dot needs at least one axis."
            )
        if len(lshape) == 1 and len(rshape) == 1:
            if ta or tb:
                raise ShapeError(
                    "dot: cannot transpose vectors: transpose_a and transpose_b "
                    "must be False when lhs and rhs are both 1-D."
                )
            if lshape[0] and rshape[0] and lshape[0] != rshape[0]:
                raise ShapeError(
                    f"dot: argument 'rhs' has shape {rshape}; lhs of shape {lshape} needs {lshape}."
                )
            return [lshape, rshape], [(1,)], []
        # a 1-D operand contracts over its whole length whatever the transpose flag says
        k_l = lshape[0] if ta or len(lshape) == 1 else lshape[-1]
        k_r = rshape[-1] if tb or len(rshape) == 1 else rshape[0]
        if k_l and k_r and k_l != k_r:
            raise ShapeError(
                f"dot: argument 'rhs' has shape {rshape}; with lhs of shape {lshape}, "
                f"transpose_a={ta} and transpose_b={tb} it must contract over {k_l} "
                f"elements, got {k_r}."
            )
        out: tuple = ()
        if len(lshape) > 1:
            out += tuple(lshape[1:]) if ta else tuple(lshape[:-1])
        if len(rshape) > 1:
            out += tuple(rshape[:-1]) if tb else tuple(rshape[1:])
        return [lshape, rshape], [out], []

    def create_operator(self, ctx: Any) -> Operator:
        return _DotOperator(self, ctx.xp)


class _DotOperator(_DotOperatorBase):
    def _operands(self, lhs: Any, rhs: Any) -> tuple[Any, Any]:
        """The 2-D matrices A, B with output = A @ B (views where the layout allows)."""
        p = self.param
        if lhs.ndim == 1:
            a = lhs.reshape(1, -1)
        else:
            lv, _ = _dot_views(lhs.shape, (1, 1), p.transpose_a, False)
            a = lhs.reshape(lv).T if p.transpose_a else lhs.reshape(lv)
        if rhs.ndim == 1:
            b = rhs.reshape(-1, 1)
        else:
            _, rv = _dot_views((1, 1), rhs.shape, False, p.transpose_b)
            b = rhs.reshape(rv).T if p.transpose_b else rhs.reshape(rv)
        return a, b


# ---- batch_dot ------------------------------------------------------------------------------


@register("batch_dot", aliases=("_npx_batch_dot",))
class BatchDotProp(_DotBase):
    """Batchwise dot product of N-D arrays (N >= 3) of shapes ``(B0, ..., Bi, N, M)`` and
    ``(B0, ..., Bi, M, K)``: ``batch_dot(x, y)[b0, ..., bi, :, :] = dot(x[b0, ..., bi, :, :],
    y[b0, ..., bi, :, :])``, of shape ``(B0, ..., Bi, N, K)``.
    """

    test = OpTest(shapes={"lhs": (2, 3, 4), "rhs": (2, 4, 5)})

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        return self._infer(in_shape, complete=False)

    def infer_shape_known(self, in_shape: list) -> Any:
        return self._infer(in_shape, complete=True)

    def _infer(self, in_shape: list, complete: bool) -> Any:
        lshape, rshape = in_shape
        if lshape is None or rshape is None:
            return None
        ta, tb = self.param.transpose_a, self.param.transpose_b
        if len(lshape) < 3 or len(lshape) != len(rshape):
            raise ShapeError(
                f"batch_dot: arguments 'lhs' and 'rhs' must both be N-D arrays with the same "
                f"N >= 3, got shapes {lshape} and {rshape}."
            )
        # MXNet infers a partial output only when lhs's last and rhs's second-to-last dims are
        # known, whatever the transpose flags say. Under NumPy shape semantics a 0 there is an
        # empty axis when every input dim is known (an imperative call) or, in a graph, when
        # the batch and output dims are; with those unknown too it stays unknown
        # (infer_shape_partial hands its -1s in as 0s)
        kept = (*lshape[:-2], *rshape[:-2], lshape[-1 if ta else -2], rshape[-2 if tb else -1])
        empty_ok = is_np_shape() and (complete or all(kept))
        if not empty_ok and (not lshape[-1] or not rshape[-2]):
            return None
        try:
            batch = merge_shape(lshape[:-2], rshape[:-2])
        except ValueError:
            raise ShapeError(
                f"batch_dot: argument 'rhs' has shape {rshape}; its leading batch dimensions "
                f"must equal those of lhs {lshape}."
            ) from None
        k_l = lshape[-2] if ta else lshape[-1]
        k_r = rshape[-1] if tb else rshape[-2]
        if k_l and k_r and k_l != k_r:
            raise ShapeError(
                f"batch_dot: argument 'rhs' has shape {rshape}; with lhs of shape {lshape}, "
                f"transpose_a={ta} and transpose_b={tb} it must contract over {k_l} "
                f"elements, got {k_r}."
            )
        m = lshape[-1] if ta else lshape[-2]
        n = rshape[-2] if tb else rshape[-1]
        return [batch + lshape[-2:], batch + rshape[-2:]], [batch + (m, n)], []

    def create_operator(self, ctx: Any) -> Operator:
        return _BatchDotOperator(self, ctx.xp)


class _BatchDotOperator(_DotOperatorBase):
    def _operands(self, lhs: Any, rhs: Any) -> tuple[Any, Any]:
        a = _swap(lhs) if self.param.transpose_a else lhs
        b = _swap(rhs) if self.param.transpose_b else rhs
        return a, b


# ---- the BLAS-3 operators of mx.nd.linalg -----------------------------------------------


class LaMatrixMacParam(Param):
    transpose_a: bool = field(default=False, doc="Multiply with transposed of first input (A).")
    transpose_b: bool = field(default=False, doc="Multiply with transposed of second input (B).")
    alpha: float = field(default=1.0, typename="double", doc="Scalar factor multiplied with A*B.")
    beta: float = field(default=1.0, typename="double", doc="Scalar factor multiplied with C.")
    axis: int = field(default=-2, doc="Axis corresponding to the matrix rows.")


class LaMatrixMultParam(Param):
    transpose_a: bool = field(default=False, doc="Multiply with transposed of first input (A).")
    transpose_b: bool = field(default=False, doc="Multiply with transposed of second input (B).")
    alpha: float = field(default=1.0, typename="double", doc="Scalar factor multiplied with A*B.")
    axis: int = field(default=-2, doc="Axis corresponding to the matrix row indices.")


class LaTriangMatrixMultParam(Param):
    transpose: bool = field(default=False, doc="Use transposed of the triangular matrix")
    rightside: bool = field(
        default=False, doc="Multiply triangular matrix from the right to non-triangular one."
    )
    lower: bool = field(default=True, doc=_LOWER_DOC)
    alpha: float = field(
        default=1.0, typename="double", doc="Scalar factor to be applied to the result."
    )


class LaSyrkParam(Param):
    transpose: bool = field(default=False, doc="Use transpose of input matrix.")
    alpha: float = field(
        default=1.0, typename="double", doc="Scalar factor to be applied to the result."
    )


def _trmul(xp: Any, a: Any, b: Any, lower: bool, trans: bool, rightside: bool) -> Any:
    t = _tri(xp, a, lower)
    t = _t(t) if trans else t
    return xp.matmul(b, t) if rightside else xp.matmul(t, b)


# ---- gemm, gemm2, syrk ----------------------------------------------------------------------


def _gemm_shape(prop: _LaProp, a: Shape, b: Shape) -> Shape:
    p = prop.param
    nd = len(a)
    axis = p.axis + nd if p.axis < 0 else p.axis
    if nd < 2 or len(b) != nd:
        raise ShapeError(
            f"{prop.op_name}: arguments 'A' and 'B' must have one ndim >= 2, got "
            f"shapes {a} and {b}."
        )
    if not 0 <= axis < nd - 1:
        raise ShapeError(
            f"{prop.op_name}: argument 'axis' is {p.axis}; the row axis of "
            f"{nd}-D inputs must be in [{-nd}, {nd - 2}] and not the last axis."
        )
    if any(a[i] != b[i] for i in range(nd - 1) if i != axis):
        raise ShapeError(
            f"{prop.op_name}: argument 'B' has shape {b}; it must equal the shape "
            f"of A {a} except on the row/column axes."
        )
    k_a = a[axis] if p.transpose_a else a[-1]
    k_b = b[-1] if p.transpose_b else b[axis]
    if k_a != k_b:
        raise ShapeError(
            f"{prop.op_name}: argument 'B' has shape {b}; with A of shape {a}, "
            f"transpose_a={p.transpose_a} and transpose_b={p.transpose_b} the "
            f"inner dimensions differ ({k_a} vs {k_b})."
        )
    out = list(a)
    out[axis] = a[-1] if p.transpose_a else a[axis]
    out[-1] = b[axis] if p.transpose_b else b[-1]
    return tuple(out)


class _GemmMixin(_LaProp):
    def _moved(self, xp: Any, *xs: Any) -> list:
        ax = self.param.axis
        if ax in (-2, xs[0].ndim - 2):
            return list(xs)
        return [xp.moveaxis(x, ax, -2) for x in xs]

    def _back(self, xp: Any, x: Any) -> Any:
        ax = self.param.axis
        return x if ax in (-2, x.ndim - 2) else xp.moveaxis(x, -2, ax)

    def _product(self, xp: Any, a: Any, b: Any) -> Any:
        p = self.param
        return p.alpha * xp.matmul(_t(a) if p.transpose_a else a, _t(b) if p.transpose_b else b)

    def _grads(self, xp: Any, g: Any, a: Any, b: Any) -> tuple:
        p = self.param
        oa = _t(a) if p.transpose_a else a
        ob = _t(b) if p.transpose_b else b
        da = xp.matmul(ob, _t(g)) if p.transpose_a else xp.matmul(g, _t(ob))
        db = xp.matmul(_t(g), oa) if p.transpose_b else xp.matmul(_t(oa), g)
        return p.alpha * da, p.alpha * db


@register("_linalg_gemm", aliases=("linalg_gemm",))
class GemmProp(_GemmMixin):
    """General matrix multiplication and accumulation: ``out = alpha * op(A) * op(B) + beta *
    C`` on the trailing two axes (the row axis given by ``axis``), batched over the others."""

    param_class = LaMatrixMacParam
    args = ("A", "B", "C")
    inplace = ((2, 0),)
    test = OpTest(shapes={"A": (2, 3, 4), "B": (2, 4, 5), "C": (2, 3, 5)})

    def shapes(self, a: Shape, b: Shape, c: Shape) -> list[Shape]:
        out = _gemm_shape(self, a, b)
        if tuple(c) != out:
            raise ShapeError(f"{self.op_name}: argument 'C' has shape {c}; expected {out}.")
        return [out]

    def compute(self, xp: Any, a: Any, b: Any, c: Any) -> tuple:
        a, b = self._moved(xp, a, b)
        return (self._back(xp, self._product(xp, a, b)) + self.param.beta * c,)

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        a, b, g = self._moved(xp, ins[0], ins[1], ograds[0])
        da, db = self._grads(xp, g, a, b)
        return self._back(xp, da), self._back(xp, db), self.param.beta * ograds[0]


@register("_linalg_gemm2", aliases=("linalg_gemm2",))
class Gemm2Prop(_GemmMixin):
    """General matrix multiplication: ``out = alpha * op(A) * op(B)`` on the trailing two axes
    (the row axis given by ``axis``), batched over the others."""

    param_class = LaMatrixMultParam
    args = ("A", "B")
    test = OpTest(shapes={"A": (2, 3, 4), "B": (2, 4, 5)})

    def shapes(self, a: Shape, b: Shape) -> list[Shape]:
        return [_gemm_shape(self, a, b)]

    def compute(self, xp: Any, a: Any, b: Any) -> tuple:
        a, b = self._moved(xp, a, b)
        return (self._back(xp, self._product(xp, a, b)),)

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        a, b, g = self._moved(xp, ins[0], ins[1], ograds[0])
        return tuple(self._back(xp, d) for d in self._grads(xp, g, a, b))


@register("_linalg_syrk", aliases=("linalg_syrk",))
class SyrkProp(_LaProp):
    """Multiplication of a matrix with its transpose: ``out = alpha * A * A^T``, or ``alpha *
    A^T * A`` with ``transpose``."""

    lists_input_names = True

    param_class = LaSyrkParam
    test = OpTest(shapes={"A": (2, 3, 4)})

    def shapes(self, a: Shape) -> list[Shape]:
        if len(a) < 2:
            raise ShapeError(f"{self.op_name}: argument 'A' has shape {a}; expected ndim >= 2.")
        n = a[-1] if self.param.transpose else a[-2]
        return [tuple(a[:-2]) + (n, n)]

    def compute(self, xp: Any, a: Any) -> tuple:
        p = self.param
        return (p.alpha * (xp.matmul(_t(a), a) if p.transpose else xp.matmul(a, _t(a))),)

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        p, g, a = self.param, ograds[0], ins[0]
        gs = g + _t(g)
        return (p.alpha * (xp.matmul(a, gs) if p.transpose else xp.matmul(gs, a)),)


# ---- triangular products and solves ---------------------------------------------------------


class _TriangProp(_LaProp):
    param_class = LaTriangMatrixMultParam
    args = ("A", "B")
    inplace = ((1, 0),)
    test = OpTest(shapes={"A": (2, 3, 3), "B": (2, 3, 4)})

    def shapes(self, a: Shape, b: Shape) -> list[Shape]:
        _square(self, "A", a)
        if len(b) != len(a) or tuple(b[:-2]) != tuple(a[:-2]):
            raise ShapeError(
                f"{self.op_name}: argument 'B' has shape {b}; it must have A's "
                f"leading dimensions {tuple(a[:-2])} and two more."
            )
        n = b[-1] if self.param.rightside else b[-2]
        if n != a[-1]:
            side = "columns" if self.param.rightside else "rows"
            raise ShapeError(
                f"{self.op_name}: argument 'B' has shape {b}; with A of shape {a}"
                f" and rightside={self.param.rightside} B needs {a[-1]} {side}."
            )
        return [tuple(b)]


@register("_linalg_trmm", aliases=("linalg_trmm",))
class TrmmProp(_TriangProp):
    """Multiplication with a triangular matrix: ``out = alpha * op(A) * B``, or ``alpha * B *
    op(A)`` with ``rightside``; only the ``lower`` (or upper) triangle of A is read."""

    def compute(self, xp: Any, a: Any, b: Any) -> tuple:
        p = self.param
        return (p.alpha * _trmul(xp, a, b, p.lower, p.transpose, p.rightside),)

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        p, g, (a, b) = self.param, ograds[0], ins
        if p.rightside == p.transpose:
            da = xp.matmul(_t(g), b) if p.transpose else xp.matmul(g, _t(b))
        else:
            da = xp.matmul(_t(b), g) if p.rightside else xp.matmul(b, _t(g))
        db = _trmul(xp, a, g, p.lower, not p.transpose, p.rightside)
        return p.alpha * _tri(xp, da, p.lower), p.alpha * db


@register("_linalg_trsm", aliases=("linalg_trsm",))
class TrsmProp(_TriangProp):
    """Solve with a triangular matrix: ``out = alpha * op(A)^-1 * B``, or ``alpha * B *
    op(A)^-1`` with ``rightside``; only the ``lower`` (or upper) triangle of A is read."""

    grad_reads = "inout"
    test = OpTest(shapes={"A": (2, 3, 3), "B": (2, 3, 4)}, low=0.5, high=1.5)

    def compute(self, xp: Any, a: Any, b: Any) -> tuple:
        p = self.param
        return (p.alpha * solve_triangular(xp, a, b, p.lower, p.transpose, p.rightside),)

    def gradient(self, xp: Any, ograds: list, ins: list, outs: list) -> tuple:
        p, g, a, c = self.param, ograds[0], ins[0], outs[0]
        db = p.alpha * solve_triangular(xp, a, g, p.lower, not p.transpose, p.rightside)
        # for C = alpha A^-1 B: dA = -A^-T dC C^T = -(dB C^T) / alpha; likewise per side
        if p.rightside == p.transpose:
            da = xp.matmul(_t(db), c) if p.transpose else xp.matmul(db, _t(c))
        else:
            da = xp.matmul(_t(c), db) if p.rightside else xp.matmul(c, _t(db))
        return _tri(xp, da, p.lower) * (-1.0 / p.alpha), db
