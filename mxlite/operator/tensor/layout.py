"""Operators that broadcast an array, move blocks between its axes, take its diagonals or report
its shape: broadcast_to, broadcast_like, broadcast_axis, depth_to_space, space_to_depth, diag,
shape_array and size_array.

They share :class:`ArrayOp` (and its design note) with shape.py: each computes its output
shapes from fully known input shapes, and its ``compute``/``gradient`` kernels get ``xp`` and
plain arrays. Broadcast gradients sum over the broadcast axes of the input.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import Shape
from ..param import Param, field
from ..registry import OpTest, register
from .array_op import ArrayOp, norm_axis

# ---- broadcasting ---------------------------------------------------------------------------


def _unbroadcast(g: Any, shape: Shape) -> Any:
    """Sum ``g`` over the axes where an input of ``shape`` (same ndim) was broadcast."""
    axes = tuple(i for i, (a, b) in enumerate(zip(shape, g.shape)) if a != b)
    return g.sum(axis=axes, keepdims=True) if axes else g


class _BroadcastBase(ArrayOp):
    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.broadcast_to(ins[0], outs[0].shape)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [_unbroadcast(ograds[0], in_shapes[0])] + [
            # the shape-giving input, bound without a gradient, comes with no shape
            None if s is None else xp.zeros(s, ograds[0].dtype)
            for s in in_shapes[1:]
        ]

    def _to(self, src: Shape, dst: list[int], what: str) -> Shape:
        if len(src) != len(dst) or any(d and s not in (1, d) for s, d in zip(src, dst)):
            raise self.fail(f"input of shape {src} cannot be broadcast to {what}.")
        return tuple(d or s for s, d in zip(src, dst))


class BroadcastToParam(Param):
    shape: tuple[int, ...] = field(default=(), doc="Target shape; a 0 keeps the input's dim.")


@register("broadcast_to")
class BroadcastToProp(_BroadcastBase):
    """Broadcast axes of size 1 to the sizes in ``shape``."""

    fluent = ("broadcast_to",)

    param_class = BroadcastToParam
    test = OpTest(shapes={"data": (2, 1, 3)}, params={"shape": (2, 4, 3)})

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        return [self._to(dshape, list(self.param.shape), f"shape={self.param.shape}")]


class BroadcastLikeParam(Param):
    lhs_axes: tuple[int, ...] | None = field(default=None, doc="Axes of lhs to broadcast.")
    rhs_axes: tuple[int, ...] | None = field(default=None, doc="Axes of rhs whose sizes they take.")


@register("broadcast_like")
class BroadcastLikeProp(_BroadcastBase):
    """Broadcast lhs to the shape of rhs (or only lhs_axes to the sizes of rhs_axes)."""

    fluent = ("broadcast_like",)

    param_class = BroadcastLikeParam
    test = OpTest(shapes={"lhs": (1, 3), "rhs": (4, 3)})

    def list_arguments(self) -> list[str]:
        return ["lhs", "rhs"]

    def out_shapes(self, lhs: Shape, rhs: Shape) -> list[Shape]:
        la, ra = self.param.lhs_axes, self.param.rhs_axes
        if la is None or ra is None:
            return [self._to(lhs, list(rhs), f"rhs shape {rhs}")]
        if len(la) != len(ra) or not la:
            raise self.fail(
                f"arguments 'lhs_axes' {la} and 'rhs_axes' {ra} must be non-empty "
                "and of one length."
            )
        dst = [0] * len(lhs)
        for a, b in zip(la, ra):
            dst[norm_axis(self, "lhs_axes", a, len(lhs))] = rhs[
                norm_axis(self, "rhs_axes", b, len(rhs))
            ]
        return [self._to(lhs, dst, f"the rhs sizes {tuple(rhs[b] for b in ra)} on lhs_axes")]

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None or in_type[1] is None:
            return None
        return list(in_type), [in_type[0]], []


class BroadcastAxesParam(Param):
    axis: tuple[int, ...] = field(default=(), doc="Axes (of size 1) to broadcast.")
    size: tuple[int, ...] = field(default=(), doc="New sizes of those axes.")


@register("broadcast_axis", aliases=("broadcast_axes",))
class BroadcastAxisProp(_BroadcastBase):
    """Broadcast the given axes of size 1 to the given sizes."""

    fluent = ("broadcast_axes",)

    param_class = BroadcastAxesParam
    test = OpTest(shapes={"data": (2, 1)}, params={"axis": (1,), "size": (3,)})

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        p = self.param
        if len(p.axis) != len(p.size):
            raise self.fail(f"arguments 'axis' {p.axis} and 'size' {p.size} differ in length.")
        dst = [0] * len(dshape)
        for a, n in zip(p.axis, p.size):
            i = norm_axis(self, "axis", a, len(dshape))
            if dshape[i] != 1:
                raise self.fail(
                    f"argument 'axis' selects axis {a} of size {dshape[i]}; only "
                    "axes of size 1 can be broadcast."
                )
            dst[i] = n
        return [self._to(dshape, dst, f"sizes {p.size} on axes {p.axis}")]


# ---- blocks, diagonals, shapes ----------------------------------------------------------------


class DepthToSpaceParam(Param):
    block_size: int = field(doc="Side of the square blocks moved between depth and space.")


def _d2s(x: Any, b: int) -> Any:
    n, c, h, w = x.shape
    return (
        x.reshape(n, b, b, c // (b * b), h, w)
        .transpose(0, 3, 4, 1, 5, 2)
        .reshape(n, c // (b * b), h * b, w * b)
    )


def _s2d(x: Any, b: int) -> Any:
    n, c, h, w = x.shape
    return (
        x.reshape(n, c, h // b, b, w // b, b)
        .transpose(0, 3, 5, 1, 2, 4)
        .reshape(n, c * b * b, h // b, w // b)
    )


@register("depth_to_space")
class DepthToSpaceProp(ArrayOp):
    """Move (block_size x block_size) blocks of channels into the height and width axes."""

    fluent = ("depth_to_space",)
    lists_input_names = True

    param_class = DepthToSpaceParam
    test = OpTest(shapes={"data": (1, 4, 2, 3)}, params={"block_size": 2})
    to_space = True

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        b = self.param.block_size
        if len(dshape) != 4:
            raise self.fail(f"input has shape {dshape}; it must be 4-D.")
        if b <= 0:
            raise self.fail(f"argument 'block_size' is {b}; it must be positive.")
        n, c, h, w = dshape
        if self.to_space:
            if c % (b * b):
                raise self.fail(
                    f"input shape {dshape}: dim 1 must be a multiple of block_size**2 = {b * b}."
                )
            return [(n, c // (b * b), h * b, w * b)]
        if h % b or w % b:
            raise self.fail(
                f"input shape {dshape}: dims 2 and 3 must be multiples of block_size = {b}."
            )
        return [(n, c * b * b, h // b, w // b)]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [(_d2s if self.to_space else _s2d)(ins[0], self.param.block_size)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [(_s2d if self.to_space else _d2s)(ograds[0], self.param.block_size)]


@register("space_to_depth")
class SpaceToDepthProp(DepthToSpaceProp):
    """Move (block_size x block_size) blocks of height and width into the channel axis."""

    fluent = ("space_to_depth",)
    lists_input_names = True

    test = OpTest(shapes={"data": (1, 1, 4, 6)}, params={"block_size": 2})
    to_space = False


class DiagParam(Param):
    k: int = field(default=0, doc="Which diagonal: 0 the main one, > 0 above, < 0 below.")
    axis1: int = field(default=0, doc="First axis of the 2-D sub-arrays (ignored for 1-D).")
    axis2: int = field(default=1, doc="Second axis of the 2-D sub-arrays (ignored for 1-D).")


@register("diag")
class DiagProp(ArrayOp):
    """Extract a diagonal (input of 2 or more dims, diagonal last) or build a diagonal matrix
    from a vector."""

    fluent = ("diag",)
    lists_input_names = True

    param_class = DiagParam
    test = OpTest(shapes={"data": (3, 4)}, params={"k": 1})

    def _axes(self, ndim: int) -> tuple[int, int]:
        a = norm_axis(self, "axis1", self.param.axis1, ndim)
        b = norm_axis(self, "axis2", self.param.axis2, ndim)
        if a == b:
            raise self.fail(f"arguments 'axis1' and 'axis2' name the same axis {a}.")
        return a, b

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        k = self.param.k
        if len(dshape) == 1:
            return [(dshape[0] + abs(k),) * 2]
        a, b = self._axes(len(dshape))
        n = min(dshape[a] + min(k, 0), dshape[b] - max(k, 0))
        if n <= 0:
            raise self.fail(f"argument 'k' is {k}; input shape {dshape} has no such diagonal.")
        return [tuple(d for i, d in enumerate(dshape) if i not in (a, b)) + (n,)]

    def _index(self, xp: Any, n: int) -> tuple[Any, Any]:
        r = xp.arange(n)
        return r + max(-self.param.k, 0), r + max(self.param.k, 0)

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        x = ins[0]
        if x.ndim == 1:
            return [xp.diag(x, self.param.k)]
        return [xp.diagonal(x, self.param.k, *self._axes(x.ndim))]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        g, shape = ograds[0], in_shapes[0]
        if len(shape) == 1:
            return [xp.diagonal(g, self.param.k)]
        out = xp.zeros(shape, g.dtype)
        view = xp.moveaxis(out, self._axes(len(shape)), (-2, -1))
        rows, cols = self._index(xp, g.shape[-1])
        view[..., rows, cols] = g
        return [out]


class _ShapeInfo(ArrayOp):
    def infer_type(self, in_type: list, out_type: list | None = None):
        return list(in_type), [np.dtype(np.int64)], []

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [xp.zeros(in_shapes[0], ograds[0].dtype)]


@register("shape_array", aliases=("_npx_shape_array",))
class ShapeArrayProp(_ShapeInfo):
    """The shape of the input as a 1-D int64 array."""

    fluent = ("shape_array",)
    grad_flow = "zeros"

    test = OpTest(shapes={"data": (2, 3)}, grad=False)

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        return [(len(dshape),)]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.asarray(ins[0].shape, dtype=np.int64)]


@register("size_array")
class SizeArrayProp(_ShapeInfo):
    """The number of elements of the input as a 1-element int64 array."""

    fluent = ("size_array",)
    grad_flow = "zeros"

    test = OpTest(shapes={"data": (2, 3)}, grad=False)

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        return [(1,)]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.asarray([ins[0].size], dtype=np.int64)]
