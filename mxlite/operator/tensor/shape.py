"""Operators that change an array's shape or axis order: Reshape, Flatten, expand_dims,
squeeze, transpose, SwapAxis, reverse, tile, repeat and Pad.

Every operator here is an :class:`~.array_op.ArrayOp` property (see ``array_op.py``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base import Shape
from ...util import is_np_shape
from ..param import Param, field
from ..registry import OpTest, register, shape_assign, shape_is_known
from .array_op import ArrayOp, norm_axis, reshape_shape

# ---- reshaping ------------------------------------------------------------------------------


class ReshapeParam(Param):
    shape: tuple[int, ...] = field(default=(), doc="New shape; may use 0, -1, -2, -3, -4.")
    reverse: bool = field(default=False, doc="Match the special values from the right.")
    target_shape: tuple[int, ...] = field(
        default=(), doc="Deprecated form of shape: one 0 dim is inferred."
    )
    keep_highest: bool = field(
        default=False, doc="Deprecated: keep the first input dim (with target_shape)."
    )


class _ReshapeBase(ArrayOp):
    inplace = True

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [ins[0].reshape(outs[0].shape)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [ograds[0].reshape(in_shapes[0])] + [
            # the shape-giving input, bound without a gradient, comes with no shape
            None if s is None else xp.zeros(s, ograds[0].dtype)
            for s in in_shapes[1:]
        ]


@register("Reshape", aliases=("reshape",))
class ReshapeProp(_ReshapeBase):
    """Reshape the input to a new shape of the same size, with MXNet's special values."""

    plot_kind = "shape"

    fluent = ("reshape",)

    param_class = ReshapeParam
    test = OpTest(shapes={"data": (2, 3, 4)}, params={"shape": (0, -1)})

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        dshape, oshape = in_shape[0], (out_shape[0] if out_shape else None)
        if dshape is None or shape_is_known(dshape) or not self.param.shape:
            return super().infer_shape(in_shape, out_shape)
        # MXNet's ReshapeShape on a partly known input: a partial output, and a known output
        # fills the one unknown input dim back (ReverseReshapeInferShape)
        p = self.param
        out = shape_assign(
            self, "output", "output", oshape, reshape_shape(dshape, p.shape, p.reverse, True)
        )
        unknown = [i for i, d in enumerate(dshape) if not d]
        if shape_is_known(out) and len(unknown) == 1:
            rest = math.prod(d for d in dshape if d)
            dshape = dshape[: unknown[0]] + (math.prod(out) // rest,) + dshape[unknown[0] + 1 :]
            out = shape_assign(self, "output", "output", out, self.out_shapes(dshape)[0])
        return [dshape], [out], []

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        p = self.param
        if p.shape:
            return [reshape_shape(dshape, p.shape, p.reverse)]
        if not p.target_shape:
            raise self.fail("argument 'shape' is required (got neither shape nor target_shape).")
        out = list(p.target_shape)
        if p.keep_highest:
            out[0] = dshape[0]
        zeros = [i for i in range(1 if p.keep_highest else 0, len(out)) if out[i] == 0]
        if len(zeros) == 1:
            out[zeros[0]] = 1
            out[zeros[0]] = math.prod(dshape) // math.prod(out)
        if math.prod(out) != math.prod(dshape) or 0 in out:
            raise self.fail(
                f"argument 'target_shape' {p.target_shape} does not fit input shape {dshape}."
            )
        return [tuple(out)]


class ReshapeLikeParam(Param):
    lhs_begin: int | None = field(default=None, doc="First lhs dim replaced (default 0).")
    lhs_end: int | None = field(default=None, doc="End of the lhs dims replaced (default all).")
    rhs_begin: int | None = field(default=None, doc="First rhs dim used (default 0).")
    rhs_end: int | None = field(default=None, doc="End of the rhs dims used (default all).")


@register("reshape_like", aliases=("_npx_reshape_like",))
class ReshapeLikeProp(_ReshapeBase):
    """Reshape lhs (or its dims lhs_begin:lhs_end) to the shape of rhs (or rhs_begin:rhs_end)."""

    fluent = ("reshape_like",)

    param_class = ReshapeLikeParam
    test = OpTest(shapes={"lhs": (2, 3), "rhs": (3, 2)})

    def list_arguments(self) -> list[str]:
        return ["lhs", "rhs"]

    def _range(self, side: str, ndim: int) -> tuple[int, int]:
        begin = getattr(self.param, f"{side}_begin")
        end = getattr(self.param, f"{side}_end")
        b = 0 if begin is None else begin + (ndim if begin < 0 else 0)
        e = ndim if end is None else end + (ndim if end < 0 else 0)
        if not 0 <= b < e <= ndim:
            raise self.fail(
                f"arguments '{side}_begin'={begin}, '{side}_end'={end} do not give "
                f"a non-empty range of the {ndim} dims of {side}."
            )
        return b, e

    def out_shapes(self, lhs: Shape, rhs: Shape) -> list[Shape]:
        lb, le = self._range("lhs", len(lhs))
        rb, re = self._range("rhs", len(rhs))
        out = lhs[:lb] + rhs[rb:re] + lhs[le:]
        if math.prod(out) != math.prod(lhs):
            raise self.fail(f"cannot reshape lhs with shape {lhs} to {out}: the sizes differ.")
        return [out]

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None or in_type[1] is None:
            return None
        return list(in_type), [in_type[0]], []


@register("Flatten", aliases=("flatten", "_npx_batch_flatten"))
class FlattenProp(_ReshapeBase):
    """Collapse all dims but the first: (d1, d2, ..., dk) -> (d1, d2*...*dk)."""

    plot_kind = "shape"

    fluent = ("flatten",)
    quantized_name = "_contrib_quantized_flatten"

    test = OpTest(shapes={"data": (2, 3, 4)})

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        return [(dshape[0], math.prod(dshape[1:]))]


class ExpandDimParam(Param):
    axis: int = field(doc="Where the new axis goes, in [-ndim-1, ndim].")


@register("expand_dims", aliases=("_npi_expand_dims",))
class ExpandDimsProp(_ReshapeBase):
    """Insert a new axis of size 1 at ``axis``."""

    fluent = ("expand_dims",)

    param_class = ExpandDimParam
    test = OpTest(shapes={"data": (2, 3)}, params={"axis": 1})

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        axis = norm_axis(self, "axis", self.param.axis, len(dshape) + 1)
        return [dshape[:axis] + (1,) + dshape[axis:]]


class SqueezeParam(Param):
    axis: tuple[int, ...] | None = field(
        default=None, doc="Axes of size 1 to remove (default: all of them)."
    )


@register("squeeze")
class SqueezeProp(_ReshapeBase):
    """Remove axes of size 1 (all of them, or those in ``axis``); never below one dim."""

    fluent = ("squeeze",)
    lists_input_names = True

    param_class = SqueezeParam
    test = OpTest(shapes={"data": (2, 1, 3)})

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        if self.param.axis is None:
            drop = {i for i, d in enumerate(dshape) if d == 1}
        else:
            drop = set()
            for a in self.param.axis:
                i = norm_axis(self, "axis", a, len(dshape))
                if dshape[i] != 1:
                    raise self.fail(
                        f"argument 'axis' selects axis {a} of size {dshape[i]}; "
                        "only axes of size 1 can be squeezed."
                    )
                if i in drop:
                    raise self.fail(f"argument 'axis' {self.param.axis} repeats axis {a}.")
                drop.add(i)
        return [tuple(d for i, d in enumerate(dshape) if i not in drop) or (1,)]


# ---- axis order --------------------------------------------------------------------------


class TransposeParam(Param):
    axes: tuple[int, ...] = field(default=(), doc="New order of the axes (default: reversed).")


@register("transpose")
class TransposeProp(ArrayOp):
    """Permute the axes (reverse them by default)."""

    fluent = ("transpose",)

    param_class = TransposeParam
    test = OpTest(shapes={"data": (2, 3, 4)}, params={"axes": (1, 2, 0)})

    def _axes(self, ndim: int) -> tuple[int, ...]:
        axes = self.param.axes
        if not axes:
            return tuple(range(ndim - 1, -1, -1))
        if (
            len(axes) != ndim
            or sorted(a % ndim for a in axes) != list(range(ndim))
            or any(not -ndim <= a < ndim for a in axes)
        ):
            raise self.fail(f"argument 'axes' {axes} is not a permutation of the {ndim} axes.")
        return tuple(a % ndim for a in axes)

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        if len(dshape) > 6:
            raise self.fail(f"input has {len(dshape)} dims; transpose supports at most 6.")
        return [tuple(dshape[a] for a in self._axes(len(dshape)))]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        # both directions, dim by dim: a partly known output fills the input (MXNet's
        # TransposeShape), and unknown input dims (0) stay unknown in the output
        dshape, oshape = in_shape[0], (out_shape[0] if out_shape else None)
        if dshape is None and oshape is None:
            return None
        if dshape is not None and oshape is not None and len(dshape) != len(oshape):
            raise self.fail(f"input has shape {dshape} but the output has shape {oshape}.")
        ndim = len(dshape if dshape is not None else oshape)
        if ndim > 6:
            raise self.fail(f"input has {ndim} dims; transpose supports at most 6.")
        axes = self._axes(ndim)
        if oshape is not None:
            back = [0] * ndim
            for i, a in enumerate(axes):
                back[a] = oshape[i]
            dshape = shape_assign(self, "input", "data", dshape, tuple(back))
        return [dshape], [tuple(dshape[a] for a in axes)], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.transpose(ins[0], self._axes(ins[0].ndim))]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [xp.transpose(ograds[0], np.argsort(self._axes(len(in_shapes[0]))))]


class SwapAxisParam(Param):
    dim1: int = field(default=0, doc="First axis.")
    dim2: int = field(default=0, doc="Second axis.")


@register("SwapAxis", aliases=("swapaxes", "_npi_swapaxes"))
class SwapAxisProp(ArrayOp):
    """Interchange two axes."""

    lists_output_names = True

    fluent = ("swapaxes",)
    lists_input_names = True

    param_class = SwapAxisParam
    test = OpTest(shapes={"data": (2, 3, 4)}, params={"dim1": 0, "dim2": 2})

    def _dims(self, ndim: int) -> tuple[int, int]:
        return (
            norm_axis(self, "dim1", self.param.dim1, ndim),
            norm_axis(self, "dim2", self.param.dim2, ndim),
        )

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        a, b = self._dims(len(dshape))
        out = list(dshape)
        out[a], out[b] = out[b], out[a]
        return [tuple(out)]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.swapaxes(ins[0], *self._dims(ins[0].ndim))]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [xp.swapaxes(ograds[0], *self._dims(ograds[0].ndim))]


class ReverseParam(Param):
    axis: tuple[int, ...] = field(doc="Axes along which to reverse.")


@register("reverse", aliases=("flip",))
class ReverseProp(ArrayOp):
    """Reverse the order of elements along the given axes."""

    fluent = ("flip",)
    lists_input_names = True

    param_class = ReverseParam
    test = OpTest(shapes={"data": (2, 3)}, params={"axis": (1,)})

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        for a in self.param.axis:
            norm_axis(self, "axis", a, len(dshape))
        return [dshape]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.flip(ins[0], axis=tuple(self.param.axis))]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [xp.flip(ograds[0], axis=tuple(self.param.axis))]


# ---- repetition and padding ----------------------------------------------------------------


class TileParam(Param):
    reps: tuple[int, ...] = field(
        doc="Repetitions per axis; the shorter of reps and the shape is padded with leading 1s."
    )


@register("tile", aliases=("_npi_tile",))
class TileProp(ArrayOp):
    """Repeat the whole array ``reps`` times along each axis (NumPy's tile)."""

    fluent = ("tile",)
    lists_input_names = True

    param_class = TileParam
    partial_shapes = True  # an unknown dim times its rep stays unknown
    test = OpTest(shapes={"data": (2, 3)}, params={"reps": (2, 2)})

    def _reps(self, ndim: int) -> tuple[int, ...]:
        reps = tuple(self.param.reps)
        if any(r < 0 for r in reps):
            raise self.fail(f"argument 'reps' {reps} must hold non-negative ints.")
        return (1,) * (ndim - len(reps)) + reps

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        reps = self._reps(len(dshape))
        if 0 in reps and not is_np_shape():
            # MXNet's TileOpShape: outside NumPy shape semantics a 0 dim means "unknown"
            raise self.fail(
                f"argument 'reps' {tuple(self.param.reps)} holds a 0, which would give a "
                "zero-size output; that needs NumPy shape semantics (mx.np_shape())."
            )
        shape = (1,) * (len(reps) - len(dshape)) + tuple(dshape)
        return [tuple(d * r for d, r in zip(shape, reps))]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.tile(ins[0], self._reps(ins[0].ndim))]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        shape = in_shapes[0]
        reps = self._reps(len(shape))
        full = (1,) * (len(reps) - len(shape)) + tuple(shape)
        split = [v for r, d in zip(reps, full) for v in (r, d)]
        g = ograds[0].reshape(split).sum(axis=tuple(range(0, 2 * len(full), 2)))
        return [g.reshape(shape)]


class RepeatParam(Param):
    repeats: int = field(doc="How many times each element is repeated.")
    axis: int | None = field(
        default=None, doc="Axis to repeat along (default: repeat the flattened array)."
    )


@register("repeat", aliases=("_np_repeat",))
class RepeatProp(ArrayOp):
    """Repeat each element ``repeats`` times (along ``axis``, or of the flattened array)."""

    fluent = ("repeat",)
    np_signature = "(a, repeats, axis=None)"
    lists_input_names = True

    param_class = RepeatParam
    test = OpTest(shapes={"data": (2, 3)}, params={"repeats": 2, "axis": 1})

    def _axis(self, ndim: int) -> int | None:
        if self.param.repeats < 0:
            raise self.fail(f"argument 'repeats' is {self.param.repeats}; it cannot be negative.")
        a = self.param.axis
        return None if a is None else norm_axis(self, "axis", a, ndim)

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        axis, r = self._axis(len(dshape)), self.param.repeats
        if axis is None:
            return [(math.prod(dshape) * r,)]
        return [dshape[:axis] + (dshape[axis] * r,) + dshape[axis + 1 :]]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.repeat(ins[0], self.param.repeats, axis=self._axis(ins[0].ndim))]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        shape, r = in_shapes[0], self.param.repeats
        axis = self._axis(len(shape))
        if axis is None:
            return [ograds[0].reshape(-1, r).sum(axis=1).reshape(shape)]
        split = shape[:axis] + (shape[axis], r) + shape[axis + 1 :]
        return [ograds[0].reshape(split).sum(axis=axis + 1)]


class PadParam(Param):
    mode: str = field(choices=("constant", "edge", "reflect"), doc="How to fill the padding.")
    pad_width: tuple[int, ...] = field(
        doc="(before, after) pairs for every axis, flattened; the first two axes must get 0."
    )
    constant_value: float = field(
        default=0.0, typename="double", doc="Fill value of mode 'constant'."
    )


@register("Pad", aliases=("pad",))
class PadProp(ArrayOp):
    """Pad the last two (4-D input) or three (5-D input) axes: constant, edge or reflect."""

    lists_output_names = True
    bfloat16_kernel = False  # MXNet 1.9.1 refuses bfloat16 here (operator/bfloat16.py)

    fluent = ("pad",)
    lists_input_names = True

    param_class = PadParam
    test = OpTest(
        shapes={"data": (1, 2, 3, 3)},
        params={"mode": "edge", "pad_width": (0, 0, 0, 0, 1, 1, 1, 1)},
    )

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        pw, n = self.param.pad_width, len(dshape)
        if n not in (4, 5):
            raise self.fail(f"input has shape {dshape}; Pad supports only 4-D or 5-D input.")
        if len(pw) != 2 * n:
            raise self.fail(
                f"argument 'pad_width' has {len(pw)} values; a {n}-D input needs {2 * n}."
            )
        if any(pw[:4]):
            raise self.fail(f"argument 'pad_width' {pw} pads the first two axes; they must be 0.")
        if any(w < 0 for w in pw):
            raise self.fail(f"argument 'pad_width' {pw} must not be negative.")
        if self.param.mode == "reflect" and any(
            pw[2 * i + k] >= dshape[i] for i in range(2, n) for k in (0, 1)
        ):
            raise self.fail(
                f"argument 'pad_width' {pw}: reflect padding must be smaller than "
                f"the padded axes of shape {dshape}."
            )
        return [tuple(d + pw[2 * i] + pw[2 * i + 1] for i, d in enumerate(dshape))]

    def _widths(self, ndim: int) -> list[tuple[int, int]]:
        pw = self.param.pad_width
        return [(pw[2 * i], pw[2 * i + 1]) for i in range(ndim)]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        x, mode = ins[0], self.param.mode
        if mode == "constant":
            return [
                xp.pad(
                    x,
                    self._widths(x.ndim),
                    mode="constant",
                    constant_values=x.dtype.type(self.param.constant_value),
                )
            ]
        return [xp.pad(x, self._widths(x.ndim), mode=mode)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        g, shape = ograds[0], in_shapes[0]
        widths = self._widths(len(shape))
        inner = tuple(slice(b, b + d) for (b, _), d in zip(widths, shape))
        if self.param.mode == "constant":
            return [g[inner]]
        # fold every padded position back onto the input position it copied, axis by axis
        for ax in range(2, len(shape)):
            b, a = widths[ax]
            n = shape[ax]
            if self.param.mode == "edge":
                src = np.concatenate([np.zeros(b, np.intp), np.arange(n), np.full(a, n - 1)])
            else:
                src = np.concatenate(
                    [np.arange(b, 0, -1), np.arange(n), np.arange(n - 2, n - 2 - a, -1)]
                )
            moved = xp.moveaxis(g, ax, 0)
            acc = xp.zeros((n,) + moved.shape[1:], g.dtype)
            xp.add.at(acc, xp.asarray(src), moved)
            g = xp.moveaxis(acc, 0, ax)
        return [g]
