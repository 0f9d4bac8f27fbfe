"""The base of the tensor operators that compute their outputs from fully known input shapes
(``ArrayOp``), and the shape rules several of them share (``reshape_shape``, ``norm_axis``).

Design note
-----------
An :class:`ArrayOp` property computes its output shapes from fully known input shapes
(``out_shapes``; partial shapes wait), and its kernels are two methods (``compute`` and
``gradient``) called with ``xp`` and plain arrays by one shared :class:`Operator`. Gradients
read only ``out_grad`` unless an operator says otherwise, and take input shapes from the
gradient arrays, so the planner may free inputs after forward. shape.py, layout.py, join.py,
misc.py and gather.py build on it.

``reshape_shape`` is MXNet's Reshape inference (special values 0, -1, -2, -3, -4 and
``reverse``); ``NDArray.reshape`` uses it too::

    >>> reshape_shape((2, 3, 4), (-4, 1, 2, -2))
    (1, 2, 3, 4)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base import MXNetError, Shape, ShapeError
from ...context import Context
from ...util import is_np_shape
from ..registry import Operator, OperatorProperty, shape_assign
from ..req import OpReq, assign

_NULL, _ADD = OpReq.NULL, OpReq.ADD  # quicker than OpReq.X (req.py)

__all__ = ["reshape_shape", "ArrayOp", "norm_axis", "scatter_rows"]

# elements of the rows per flat scatter of scatter_rows: their int64 positions stay ~8 MiB
_SCATTER = 1 << 20


def reshape_shape(
    src: tuple[int, ...], target: tuple[int, ...], reverse: bool = False, partial: bool = False
) -> tuple[int, ...]:
    """The shape ``Reshape(shape=target, reverse=reverse)`` gives an array of shape ``src``.

    0 copies a source dim, -1 infers one dim, -2 copies all remaining dims, -3 merges two
    source dims, -4 splits one source dim into the next two values (one may be -1); with
    ``reverse`` the special values are matched from the right. Raises ShapeError naming both
    shapes when the target is malformed or its size differs. With ``partial``, 0 dims of
    ``src`` are unknown: the output dims they decide are 0 (unknown) too, sizes unchecked.
    """
    src, target = tuple(src), tuple(target)
    dims = list(src[::-1] if reverse else src)
    spec = list(target[::-1] if reverse else target)

    def bad(why: str) -> ShapeError:
        return ShapeError(
            f"Reshape: cannot reshape shape {src} to shape={target}"
            f"{' with reverse=True' if reverse else ''}: {why}."
        )

    out: list[int] = []
    i = j = 0  # i walks spec, j walks the source dims
    infer = -1
    while i < len(spec):
        d = spec[i]
        if d == 0:
            if j >= len(dims):
                raise bad(f"0 at position {i} has no source dim to copy")
            out.append(dims[j])
            j += 1
        elif d == -1:
            if infer >= 0:
                raise bad("only one dim can be -1")
            infer = len(out)
            out.append(1)
            j += 1
        elif d == -2:
            out.extend(dims[j:])
            j = len(dims)
        elif d == -3:
            if j + 1 >= len(dims):
                raise bad(f"-3 at position {i} needs two source dims")
            out.append(dims[j] * dims[j + 1])
            j += 2
        elif d == -4:
            if i + 2 >= len(spec) or j >= len(dims):
                raise bad(f"-4 at position {i} needs a source dim and two values after it")
            whole, a, b = dims[j], spec[i + 1], spec[i + 2]
            j += 1
            i += 2
            if a == -1 and b == -1:
                raise bad("the two dims after -4 cannot both be -1")
            if a == -1:
                a = whole // b if b else 0
            if b == -1:
                b = whole // a if a else 0
            if a * b != whole and not (partial and whole == 0):
                raise bad(f"split dims {a}, {b} do not divide source dim {whole}")
            out.extend((a, b))
        elif d > 0:
            out.append(d)
            j += 1
        else:
            raise bad(f"{d} is not a valid dim (use a positive size, 0, -1, -2, -3 or -4)")
        i += 1
    size = math.prod(src)
    if partial and size == 0:  # an unknown source dim: -1 stays unknown, nothing to check
        if infer >= 0:
            out[infer] = 0
        if reverse:
            out.reverse()
        return tuple(out)
    if infer >= 0:
        rest = math.prod(out)
        if rest == 0 or size % rest:
            raise bad("the -1 dim cannot be inferred")
        out[infer] = size // rest
    if reverse:
        out.reverse()
    if math.prod(out) != size or any(d <= 0 for d in out):
        raise bad(f"the result {tuple(out)} has a different size")
    return tuple(out)


def norm_axis(prop: OperatorProperty, arg: str, axis: int, ndim: int) -> int:
    """``axis`` in [-ndim, ndim) made non-negative; ShapeError naming the operator otherwise."""
    if not -ndim <= axis < ndim:
        raise ShapeError(
            f"{prop.where()}: argument {arg!r} is {axis}; expected an axis in "
            f"[{-ndim}, {ndim - 1}] for an input of {ndim} dims."
        )
    return axis + ndim if axis < 0 else axis


class _ArrayOperator(Operator):
    def forward(self, op_ctx: Any, in_data: list, req: list, out_data: list, aux: list) -> None:
        if all(r == _NULL for r in req):
            return
        values = self.prop.compute(self.xp, in_data, out_data)
        for o, r, v in zip(out_data, req, values):
            if r != _NULL:
                assign(o, r, v)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        if all(r == _NULL for r in req):
            return
        # An input bound without a gradient comes as None; take its shape from in_data when
        # backward reads it, else leave it None (the gradient may derive it, as Concat does).
        shapes = [
            g.shape if g is not None else (d.shape if d is not None else None)
            for g, d in zip(in_grad, in_data)
        ]
        keys = self.prop.gradient_block(shapes, out_grad)
        if keys is not None:
            _scatter_into(in_grad, req, keys, out_grad[0])
            return
        grads = self.prop.gradient(self.xp, out_grad, in_data, shapes)
        for g, r, v in zip(in_grad, req, grads):
            if r != _NULL and v is not None:
                assign(g, r, v)


def scatter_rows(xp: Any, dst: Any, idx: Any, rows: Any) -> None:
    """``dst[:, idx[i]] += rows[:, i]`` for every ``i`` in order (``dst`` (pre, n, post),
    ``rows`` (pre, len(idx), post)). On NumPy, as flat element scatters in chunks of rows per
    leading slice: ``np.add.at`` over whole rows took 4.5x one over the elements they cover
    ((8192, 256) into (30000, 256) float32: 19.4 -> 4.3 ms); each element's sum runs in the
    same order."""
    if xp is not np or not dst.flags.c_contiguous:
        xp.add.at(dst, (slice(None), idx), rows)
        return
    dim = dst.shape[2]
    cols = np.arange(dim)
    step = max(1, _SCATTER // max(dim, 1))
    for part, values in zip(dst, np.ascontiguousarray(rows, dtype=dst.dtype)):
        flat, values = part.reshape(-1), values.reshape(-1)
        for lo in range(0, len(idx), step):
            cells = (idx[lo : lo + step, None] * dim + cols).reshape(-1)
            np.add.at(flat, cells, values[lo * dim : (lo + step) * dim])


def _scatter_into(in_grad: list, req: list, keys: list, dy: Any) -> None:
    """Each input gradient: ``dy`` at its block ``key`` and zeros elsewhere (zeros for a None
    key), written straight into ``in_grad`` as ``req`` says, without an input-sized temporary."""
    for g, r, key in zip(in_grad, req, keys):
        if g is None or r == _NULL:
            continue
        if r == _ADD:
            if key is not None:
                g[key] += dy
            continue
        g.fill(0)
        if key is not None:
            g[key] = dy


class ArrayOp(OperatorProperty):
    """Base of the shape and indexing operators: subclasses give ``out_shapes``, ``compute``
    and ``gradient`` (or ``differentiable = False``); the rest has sensible defaults."""

    differentiable = True
    backward_reads_inputs = False  # the gradient reads in_data (the indices of take, ...)
    inplace = False  # the output may share memory with input 0 (Reshape, Flatten, ...)
    # out_shapes maps an unknown (0) input dim to unknown (0) output dims and nothing worse,
    # so it may run on partial shapes; imperative calls then get zero-size outputs for
    # zero-size inputs (mx.np_shape), as in MXNet. Under NumPy shape semantics every operator
    # takes a 0 dim as empty, as simple ops do.
    partial_shapes = False

    def out_shapes(self, *in_shapes: Shape) -> list[Shape]:
        raise NotImplementedError

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        raise NotImplementedError

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list[Shape]) -> list:
        raise MXNetError(f"{self.op_name}: this operator has no gradient (MXNet registers none).")

    def gradient_block(self, in_shapes: list, ograds: list) -> list | None:
        """For an operator whose output is a block of input 0 (the slices): per input, the
        index of the block that takes ``ograds[0]`` (None: a zero gradient), so the backward
        writes into the gradient arrays directly; None (the default) calls ``gradient``."""
        return None

    def fail(self, why: str) -> ShapeError:
        return ShapeError(f"{self.where()}: {why}")

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        partial = self.partial_shapes or is_np_shape()
        if any(s is None or (0 in s and not partial) for s in in_shape):
            return None
        outs = [tuple(int(d) for d in s) for s in self.out_shapes(*in_shape)]
        if out_shape:
            for k, (o, given) in enumerate(zip(outs, out_shape)):
                shape_assign(self, "output", self.list_outputs()[k], given, o)
        return list(in_shape), outs, []

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None:
            return None
        return list(in_type), [in_type[0]] * self.num_outputs(), []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return [*out_grad, *in_data] if self.backward_reads_inputs else list(out_grad)

    def forward_inplace_option(self, in_data: list, out_data: list) -> list:
        return [(in_data[0], out_data[0])] if self.inplace else []

    def backward_inplace_option(
        self, out_grad: list, in_data: list, out_data: list, in_grad: list
    ) -> list:
        return [(out_grad[0], in_grad[0])] if self.inplace else []

    def create_operator(self, ctx: Context) -> Operator:
        return _ArrayOperator(self, ctx.xp)
