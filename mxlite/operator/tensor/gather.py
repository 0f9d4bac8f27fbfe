"""Indexing operators: slices (slice, slice_axis, slice_like, _slice_assign*), gathers (take,
batch_take, pick, gather_nd), scatter_nd, one_hot and the index conversions ravel/unravel.

Index inputs may have any dtype; float indices are truncated to integers, as MXNet's kernels
do with a C cast. The gradient of a gather scatters ``out_grad`` back (adding where an index
repeats) and reads only the indices; index inputs get zero gradients.

Organisation: one concern (indexing), in three sections: slices, gathers (with scatter_nd and
one_hot), index conversions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base import DTypeError, MXNetError, Shape
from ..param import Param, field
from ..registry import OperatorProperty, OpTest, register, shape_assign, shape_is_known
from ..sparse.forms_tensor import SLICE, TAKE
from .array_op import ArrayOp, norm_axis, scatter_rows

__all__: list[str] = []


def _ints(xp: Any, a: Any) -> Any:
    return a.astype(np.int64, copy=False)


def _clip_ints(xp: Any, idx: Any, n: int) -> Any:
    """Integer indices clipped to [0, n - 1] (``xp.clip``'s values; NumPy's clip checks its
    bounds in Python first, twice the time of these two passes on a (1120,) index)."""
    out = xp.empty_like(idx)  # an array also for a zero-dim index (a ufunc returns a scalar)
    xp.maximum(idx, 0, out=out)
    return xp.minimum(out, n - 1, out=out)


def _other_types(prop: ArrayOp, in_type: list) -> Any:
    """Output and data dtype from input 0; the other inputs (indices, shape_like) are free."""
    if any(t is None for t in in_type):
        return None
    return list(in_type), [in_type[0]], []


# ---- slices ---------------------------------------------------------------------------------


class SliceParam(Param):
    begin: tuple[int | None, ...] = field(doc="Start of each sliced axis (None: the edge).")
    end: tuple[int | None, ...] = field(doc="End of each sliced axis (None: the edge).")
    step: tuple[int | None, ...] | None = field(
        default=(), doc="Step of each sliced axis (default 1; None: 1 on every axis)."
    )


def _slice_key(prop: ArrayOp, dshape: Shape) -> tuple[tuple[slice, ...], Shape]:
    """MXNet's begin/end/step rules as NumPy slices, and the shape they select."""
    p = prop.param
    if len(p.begin) != len(p.end) or len(p.begin) > len(dshape):
        raise prop.fail(
            f"arguments 'begin' {p.begin} and 'end' {p.end} must have one length, "
            f"at most the {len(dshape)} dims of input shape {dshape}."
        )
    if p.step and len(p.step) != len(p.begin):
        raise prop.fail(f"argument 'step' {p.step} must have the length of 'begin' {p.begin}.")
    key, shape = [], list(dshape)
    for i, (b0, e0) in enumerate(zip(p.begin, p.end)):
        s = p.step[i] if p.step and p.step[i] is not None else 1
        if s == 0:
            raise prop.fail(f"argument 'step' {p.step} has a 0 at position {i}.")
        n = dshape[i]
        b = b0 if b0 is not None else (n - 1 if s < 0 else 0)
        e = e0 if e0 is not None else (-1 if s < 0 else n)
        b += n if b < 0 else 0
        e += n if e < 0 and e0 is not None else 0
        b = 0 if b < 0 < s else (n - 1 if b > n - 1 and s < 0 else b)
        b = -1 if b < 0 or b > n - 1 else b
        e = min(max(e, -1), n)
        if b < 0 or e == b:
            size = 0
        elif s > 0:
            size = (e - b - 1) // s + 1 if e > b else 0
        else:
            size = (b - e - 1) // -s + 1 if e < b else 0
        shape[i] = size
        key.append(slice(b, e if e >= 0 else None, s) if size else slice(0, 0))
    return tuple(key), tuple(shape)


def _partial_infer(prop: ArrayOp, in_shape: list, out_shape: list | None) -> Any:
    """ArrayOp.infer_shape for one-input operators whose out_shapes also takes partly known
    shapes (0 dims): the output is then partial too."""
    if in_shape[0] is None or shape_is_known(in_shape[0]):
        return ArrayOp.infer_shape(prop, in_shape, out_shape)
    out = prop.out_shapes(in_shape[0])[0]
    if out_shape:
        out = shape_assign(prop, "output", "output", out_shape[0], out)
    return list(in_shape), [out], []


class _Gather(ArrayOp):
    """An operator reading only the part of its data (input 0) it returns."""

    gathered_input = 0


@register("slice", aliases=("crop", "_npi_slice", "_npx_slice"))
class SliceProp(_Gather):
    """Take a (strided) block of the input: data[begin:end:step] on the leading axes."""

    fluent = ("slice",)
    sparse_form = SLICE

    param_class = SliceParam
    test = OpTest(shapes={"data": (3, 4)}, params={"begin": (0, 1), "end": (2, 3)})

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        # an unknown input dim (0) gives an unknown output dim, as in MXNet's SliceOpShape
        shape = _slice_key(self, dshape)[1]
        return [tuple(o if d else 0 for o, d in zip(shape, dshape))]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        return _partial_infer(self, in_shape, out_shape)

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [ins[0][_slice_key(self, ins[0].shape)[0]]]

    def gradient_block(self, in_shapes: list, ograds: list) -> list:
        return [_slice_key(self, in_shapes[0])[0]]


@register("_slice_assign", aliases=("_crop_assign", "_npi_slice_assign"))
class SliceAssignProp(ArrayOp):
    """lhs with the block lhs[begin:end:step] replaced by rhs (x[a:b] = y)."""

    param_class = SliceParam
    test = OpTest(
        shapes={"lhs": (3, 4), "rhs": (2, 2)}, params={"begin": (0, 1), "end": (2, 3)}, grad=False
    )
    differentiable = False
    inplace = True

    def list_arguments(self) -> list[str]:
        return ["lhs", "rhs"]

    def out_shapes(self, lhs: Shape, rhs: Shape) -> list[Shape]:
        block = _slice_key(self, lhs)[1]
        if tuple(rhs) != block:
            raise self.fail(
                f"argument 'rhs' has shape {rhs}; the block of lhs {lhs} selected by "
                f"begin={self.param.begin}, end={self.param.end} has shape {block}."
            )
        return [lhs]

    def infer_type(self, in_type: list, out_type: list | None = None):
        # lhs, rhs and the output share one dtype, known from any of them (as in MXNet)
        return OperatorProperty.infer_type(self, in_type, out_type)

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        out = ins[0].copy()
        out[_slice_key(self, out.shape)[0]] = ins[1]
        return [out]


class SliceAssignScalarParam(Param):
    scalar: float = field(default=0.0, typename="double", doc="Value written into the block.")
    begin: tuple[int | None, ...] = field(doc="Start of each sliced axis (None: the edge).")
    end: tuple[int | None, ...] = field(doc="End of each sliced axis (None: the edge).")
    step: tuple[int | None, ...] = field(default=(), doc="Step of each sliced axis (default 1).")


@register("_slice_assign_scalar", aliases=("_crop_assign_scalar", "_npi_slice_assign_scalar"))
class SliceAssignScalarProp(SliceAssignProp):
    """data with the block data[begin:end:step] set to ``scalar`` (x[a:b] = 1.5)."""

    param_class = SliceAssignScalarParam
    test = OpTest(shapes={"data": (3, 4)}, params={"begin": (1,), "end": (3,)}, grad=False)

    def list_arguments(self) -> list[str]:
        return ["data"]

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        _slice_key(self, dshape)
        return [dshape]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        out = ins[0].copy()
        out[_slice_key(self, out.shape)[0]] = self.param.scalar
        return [out]


class SliceAxisParam(Param):
    axis: int = field(doc="Axis to slice.")
    begin: int = field(doc="Start index (may be negative).")
    end: int | None = field(doc="End index (may be negative; None: the end of the axis).")


@register("slice_axis")
class SliceAxisProp(_Gather):
    """data[begin:end] along one axis."""

    fluent = ("slice_axis",)

    param_class = SliceAxisParam
    test = OpTest(shapes={"data": (3, 4)}, params={"axis": 1, "begin": 1, "end": 3})

    def _range(self, dshape: Shape) -> tuple[int, int, int]:
        p = self.param
        axis = norm_axis(self, "axis", p.axis, len(dshape))
        n = dshape[axis]
        b = p.begin + n if p.begin < 0 else p.begin
        e = n if p.end is None else (p.end + n if p.end < 0 else p.end)
        if not 0 <= b < e <= n:
            raise self.fail(
                f"arguments begin={p.begin}, end={p.end} give no valid range of "
                f"axis {axis} (size {n})."
            )
        return axis, b, e

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        axis = norm_axis(self, "axis", self.param.axis, len(dshape))
        if not dshape[axis]:  # unknown: the sliced axis stays unknown
            return [dshape]
        axis, b, e = self._range(dshape)
        return [dshape[:axis] + (e - b,) + dshape[axis + 1 :]]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        return _partial_infer(self, in_shape, out_shape)

    def _key(self, shape: Shape) -> tuple:
        axis, b, e = self._range(shape)
        return (slice(None),) * axis + (slice(b, e),)

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [ins[0][self._key(ins[0].shape)]]

    def gradient_block(self, in_shapes: list, ograds: list) -> list:
        return [self._key(in_shapes[0])]


class SliceLikeParam(Param):
    axes: tuple[int, ...] = field(default=(), doc="Axes to slice (default: all).")


@register("slice_like")
class SliceLikeProp(ArrayOp):
    """The leading block of data with the sizes of shape_like (on ``axes``, or on all)."""

    fluent = ("slice_like",)

    param_class = SliceLikeParam
    test = OpTest(shapes={"data": (3, 4), "shape_like": (2, 3)})

    def list_arguments(self) -> list[str]:
        return ["data", "shape_like"]

    def out_shapes(self, dshape: Shape, like: Shape) -> list[Shape]:
        axes = self.param.axes
        if not axes:
            if len(dshape) != len(like):
                raise self.fail(
                    f"inputs have shapes {dshape} and {like}; without 'axes' they "
                    "need the same number of dims."
                )
            axes = tuple(range(len(dshape)))
        out = list(dshape)
        for a in axes:
            i = norm_axis(self, "axes", a, len(dshape))
            if i >= len(like) or like[i] > dshape[i]:
                raise self.fail(
                    f"argument 'axes' {axes}: shape_like {like} does not fit inside "
                    f"data {dshape} on axis {i}."
                )
            out[i] = like[i]
        return [tuple(out)]

    def infer_type(self, in_type: list, out_type: list | None = None):
        return _other_types(self, in_type)

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [ins[0][tuple(slice(0, n) for n in outs[0].shape)]]

    def gradient_block(self, in_shapes: list, ograds: list) -> list:
        # an input bound without a gradient (GluonCV slices a constant like a feature map)
        # comes without one; shape_like's gradient is zeros
        return [tuple(slice(0, n) for n in ograds[0].shape), None]


# ---- gathers --------------------------------------------------------------------------------


class TakeParam(Param):
    axis: int = field(default=0, doc="Axis of a to take along.")
    mode: str = field(
        default="clip",
        choices=("clip", "raise", "wrap"),
        doc="Out-of-range indices: clip to the ends, wrap around, or raise.",
    )


@register("take", aliases=("_npi_take",))
class TakeProp(_Gather):
    """Entries of ``a`` along ``axis`` at ``indices``: the axis is replaced by indices' shape."""

    fluent = ("take",)
    sparse_form = TAKE

    param_class = TakeParam
    test = OpTest(shapes={"a": (4, 3), "indices": (2,)})
    backward_reads_inputs = True

    def list_arguments(self) -> list[str]:
        return ["a", "indices"]

    def out_shapes(self, a: Shape, idx: Shape) -> list[Shape]:
        axis = norm_axis(self, "axis", self.param.axis, len(a))
        return [a[:axis] + tuple(idx) + a[axis + 1 :]]

    def infer_type(self, in_type: list, out_type: list | None = None):
        return _other_types(self, in_type)

    def _index(self, xp: Any, indices: Any, n: int) -> Any:
        idx = _ints(xp, indices)
        if self.param.mode == "clip":
            return _clip_ints(xp, idx, n)
        if self.param.mode == "wrap":
            return xp.mod(idx, n)
        if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= n):
            raise MXNetError(
                f"take: argument 'indices' holds values outside [0, {n - 1}] with mode='raise'."
            )
        return idx

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        a = ins[0]
        axis = norm_axis(self, "axis", self.param.axis, a.ndim)
        return [xp.take(a, self._index(xp, ins[1], a.shape[axis]), axis=axis)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        shape = in_shapes[0]
        axis = norm_axis(self, "axis", self.param.axis, len(shape))
        idx = self._index(xp, ins[1], shape[axis]).reshape(-1)
        pre, post = math.prod(shape[:axis]), math.prod(shape[axis + 1 :])
        g = xp.zeros((pre, shape[axis], post), ograds[0].dtype)
        scatter_rows(xp, g, idx, ograds[0].reshape(pre, idx.size, post))
        return [g.reshape(shape), xp.zeros(in_shapes[1], ins[1].dtype)]


@register("batch_take")
class BatchTakeProp(_Gather):
    """out[i] = a[i, indices[i]] for a 2-D view of ``a`` (indices clipped; int32 indices)."""

    test = OpTest(shapes={"a": (4, 3), "indices": (4,)}, grad=False)
    differentiable = False

    def list_arguments(self) -> list[str]:
        return ["a", "indices"]

    def out_shapes(self, a: Shape, idx: Shape) -> list[Shape]:
        if len(a) < 2 or math.prod(a) // a[-1] != math.prod(idx):
            raise self.fail(
                f"input 'indices' of shape {idx} must have one entry per row of "
                f"'a' {a} (a needs 2 or more dims)."
            )
        return [tuple(idx)]

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[1] is not None and in_type[1] != np.int32:
            raise DTypeError(
                f"batch_take: argument 'indices' has dtype "
                f"{np.dtype(in_type[1]).name}; expected int32."
            )
        # as MXNet: the data's dtype from the output's and back; indices are int32 anyway
        t = in_type[0] if in_type[0] is not None else (out_type or [None])[0]
        return [t, np.dtype(np.int32)], [t], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        a = ins[0].reshape(-1, ins[0].shape[-1])
        idx = xp.clip(_ints(xp, ins[1]).reshape(-1), 0, a.shape[1] - 1)
        return [a[xp.arange(a.shape[0]), idx].reshape(outs[0].shape)]


class PickParam(Param):
    axis: int | None = field(default=-1, doc="Axis to pick along (None is not supported).")
    keepdims: bool = field(default=False, doc="Keep the picked axis with size 1.")
    mode: str = field(
        default="clip",
        choices=("clip", "wrap"),
        doc="Out-of-range indices: clip to the ends, or wrap around.",
    )


@register("pick", aliases=("choose_element_0index", "_npx_pick"))
class PickProp(_Gather):
    """One entry along ``axis`` per position of the other axes, chosen by ``index``."""

    fluent = ("pick",)

    param_class = PickParam
    test = OpTest(shapes={"data": (3, 4), "index": (3,)})
    backward_reads_inputs = True

    def list_arguments(self) -> list[str]:
        return ["data", "index"]

    def _axis(self, ndim: int) -> int:
        if self.param.axis is None:
            raise self.fail("argument 'axis' is None; pick needs an axis.")
        return norm_axis(self, "axis", self.param.axis, ndim)

    def out_shapes(self, dshape: Shape, ishape: Shape) -> list[Shape]:
        axis = self._axis(len(dshape))
        kept = dshape[:axis] + (1,) + dshape[axis + 1 :]
        dropped = dshape[:axis] + dshape[axis + 1 :] or (1,)
        if tuple(ishape) not in (kept, dropped) or (len(ishape) == len(dshape)) != (
            tuple(ishape) == kept
        ):
            raise self.fail(
                f"input 'index' has shape {ishape}; data {dshape} with axis={axis} "
                f"needs {dropped} or {kept}."
            )
        return [kept if self.param.keepdims else dropped]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        # MXNet's PickOpShape: the output follows from the data's shape even when some of its
        # dims are unknown (0); the index is then checked against, and filled from, it
        dshape, ishape = in_shape
        if dshape is None:
            return None
        if ishape is not None and shape_is_known(dshape) and shape_is_known(ishape):
            return super().infer_shape(in_shape, out_shape)
        axis = self._axis(len(dshape))
        kept = dshape[:axis] + (1,) + dshape[axis + 1 :]
        dropped = dshape[:axis] + dshape[axis + 1 :] or (1,)
        out = kept if self.param.keepdims else dropped
        if out_shape:
            out = shape_assign(self, "output", "output", out_shape[0], out)
        if ishape is not None:
            want = kept if len(ishape) == len(dshape) else dropped
            ishape = shape_assign(self, "input", "index", ishape, want)
        return [dshape, ishape], [out], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        return _other_types(self, in_type)

    def _index(self, xp: Any, index: Any, shape: Shape, axis: int) -> Any:
        idx = _ints(xp, index).reshape(shape[:axis] + (1,) + shape[axis + 1 :])
        n = shape[axis]
        return _clip_ints(xp, idx, n) if self.param.mode == "clip" else xp.mod(idx, n)

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        x = ins[0]
        axis = self._axis(x.ndim)
        picked = xp.take_along_axis(x, self._index(xp, ins[1], x.shape, axis), axis=axis)
        return [picked.reshape(outs[0].shape)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        shape = in_shapes[0]
        axis = self._axis(len(shape))
        idx = self._index(xp, ins[1], shape, axis)
        g = ograds[0].reshape(idx.shape)
        dx = xp.zeros(shape, g.dtype)
        xp.put_along_axis(dx, idx, g, axis=axis)  # one entry per row: a scatter, not a pass
        return [dx, xp.zeros(in_shapes[1], ins[1].dtype)]


class OneHotParam(Param):
    depth: int = field(low=0, doc="Length of the one-hot axis.")
    on_value: float = field(default=1.0, typename="double", doc="Value at the index.")
    off_value: float = field(default=0.0, typename="double", doc="Value elsewhere.")
    dtype: str = field(
        default="float32",
        choices=("float16", "float32", "float64", "bfloat16", "int32", "int64", "int8", "uint8"),
        doc="Output dtype.",
    )


@register("one_hot", aliases=("_npx_one_hot",))
class OneHotProp(ArrayOp):
    """A new last axis of length ``depth``: on_value at each index, off_value elsewhere."""

    fluent = ("one_hot",)
    lists_input_names = True

    param_class = OneHotParam
    partial_shapes = True  # the input's dims pass through unchanged
    test = OpTest(shapes={"indices": (3,)}, params={"depth": 4}, grad=False)

    def list_arguments(self) -> list[str]:
        return ["indices"]

    def out_shapes(self, ishape: Shape) -> list[Shape]:
        return [tuple(ishape) + (self.param.depth,)]

    def infer_type(self, in_type: list, out_type: list | None = None):
        return list(in_type), [np.dtype(self.param.dtype)], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        p, dt = self.param, outs[0].dtype
        hit = _ints(xp, ins[0])[..., None] == xp.arange(p.depth)
        if p.on_value == 1 and p.off_value == 0:
            return [hit.astype(dt)]
        return [xp.where(hit, dt.type(p.on_value), dt.type(p.off_value))]

    # MXNet's FGradient here is MakeZeroGradNodes: the indices get a zero gradient and the
    # backward reads nothing, so binding with gradients works
    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return []

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [0]  # a scalar: assign broadcasts it into the gradient, whatever its dtype


class _NdIndexBase(ArrayOp):
    """Indices of shape (M, ...) address the first M axes of the data (gather_nd, scatter_nd)."""

    backward_reads_inputs = True

    def list_arguments(self) -> list[str]:
        return ["data", "indices"]

    def infer_type(self, in_type: list, out_type: list | None = None):
        return _other_types(self, in_type)

    def _check(self, ishape: Shape, target: Shape) -> None:
        if len(ishape) < 2 or ishape[0] > len(target) or ishape[0] > 10:
            raise self.fail(
                f"input 'indices' has shape {ishape}; it needs 2 or more dims and "
                f"a first dim of at most min(10, {len(target)}) for shape {target}."
            )


@register("gather_nd", aliases=("_npi_gather_nd", "_npx_gather_nd"))
class GatherNDProp(_NdIndexBase, _Gather):
    """out[i...] = data[indices[0, i...], ..., indices[M-1, i...]] (then the remaining axes)."""

    test = OpTest(shapes={"data": (3, 4), "indices": (2, 2)}, low=0.0)

    def out_shapes(self, dshape: Shape, ishape: Shape) -> list[Shape]:
        self._check(ishape, dshape)
        return [tuple(ishape[1:]) + tuple(dshape[ishape[0] :])]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [ins[0][tuple(_ints(xp, ins[1]))]]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        g = xp.zeros(in_shapes[0], ograds[0].dtype)
        xp.add.at(g, tuple(_ints(xp, ins[1])), ograds[0])
        return [g, xp.zeros(in_shapes[1], ins[1].dtype)]


class ScatterNDParam(Param):
    shape: tuple[int, ...] = field(doc="Shape of the output.")


@register("scatter_nd")
class ScatterNDProp(_NdIndexBase):
    """Zeros of ``shape`` with data written at the positions gather_nd would read."""

    param_class = ScatterNDParam
    # indices [[1, 2]]: distinct, so every data row has its own place
    test = OpTest(
        shapes={"data": (2, 3), "indices": (1, 2)}, params={"shape": (3, 3)}, low=0.0, high=3.0
    )

    def out_shapes(self, dshape: Shape, ishape: Shape) -> list[Shape]:
        shape = tuple(self.param.shape)
        self._check(ishape, shape)
        if tuple(dshape) != tuple(ishape[1:]) + shape[ishape[0] :]:
            raise self.fail(
                f"inputs data {dshape} and indices {ishape} do not fit "
                f"shape={shape}: data must have shape "
                f"{tuple(ishape[1:]) + shape[ishape[0] :]}."
            )
        return [shape]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        out = xp.zeros(outs[0].shape, ins[0].dtype)
        out[tuple(_ints(xp, ins[1]))] = ins[0]
        return [out]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [ograds[0][tuple(_ints(xp, ins[1]))], xp.zeros(in_shapes[1], ins[1].dtype)]


# ---- index conversions ----------------------------------------------------------------------


class RavelParam(Param):
    shape: tuple[int, ...] | None = field(default=None, doc="Shape of the indexed array.")


class _RavelBase(ArrayOp):
    param_class = RavelParam
    differentiable = False

    def _shape(self) -> tuple[int, ...]:
        if not self.param.shape:
            raise self.fail("argument 'shape' is required: the shape of the indexed array.")
        return tuple(self.param.shape)


@register("_ravel_multi_index", aliases=("ravel_multi_index",))
class RavelProp(_RavelBase):
    """Flat indices from a batch of multi-indices (one row per axis of ``shape``)."""

    test = OpTest(shapes={"data": (2, 3)}, params={"shape": (4, 5)}, grad=False)

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        if dshape[0] != len(self._shape()):
            raise self.fail(
                f"input 'data' has shape {dshape}; its first dim must be "
                f"len(shape) = {len(self._shape())}."
            )
        return [tuple(dshape[1:]) or (1,)]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        # Horner's rule as MXNet's ravel_index kernel: shape[0] is never read, so it may be -1.
        idx = _ints(xp, ins[0]).reshape(ins[0].shape[0], -1)
        flat = idx[0]
        for row, dim in zip(idx[1:], self._shape()[1:]):
            flat = flat * dim + row
        return [flat.reshape(outs[0].shape)]


@register("_unravel_index", aliases=("unravel_index",))
class UnravelProp(_RavelBase):
    """Multi-indices (one row per axis of ``shape``) from flat indices."""

    test = OpTest(shapes={"data": (3,)}, params={"shape": (4, 5)}, grad=False)

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        return [(len(self._shape()),) + tuple(dshape)]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        # As MXNet's unravel_index kernel: peel the last axes off with C-style (truncating)
        # division; what is left goes to axis 0 unreduced, so shape[0] may be -1.
        idx = _ints(xp, ins[0]).reshape(-1)
        rows = []
        for dim in reversed(self._shape()[1:]):
            quot = xp.sign(idx) * (xp.abs(idx) // dim)
            rows.append(idx - quot * dim)
            idx = quot
        rows.append(idx)
        return [xp.stack(rows[::-1]).reshape(outs[0].shape)]
