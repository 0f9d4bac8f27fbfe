"""Joining and splitting: Concat, stack (variadic inputs) and SliceChannel, _split_v2 (several
outputs). The gradient of a join splits ``out_grad``; the gradient of a split joins the
``out_grad`` list, so none of them reads its inputs or outputs in backward.

``mx.nd.split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False)`` is a Python wrapper in
MXNet: an int ``n`` calls ``_split_v2(ary, indices=(), sections=n, ...)``; a tuple ``t`` calls
``_split_v2(ary, indices=(0,) + t, sections=0, ...)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import MXNetError, Shape
from ...util import is_np_shape
from ..param import Param, field
from ..registry import OpTest, dtype_assign, merge_shape, register, shape_assign, shape_is_known
from .array_op import ArrayOp, norm_axis

__all__: list[str] = []


class _JoinBase(ArrayOp):
    """n inputs named arg0, arg1, ... of one dtype joined along one axis."""

    key_var_num_args = "num_args"

    def list_arguments(self) -> list[str]:
        return [f"arg{i}" for i in range(self.param.num_args)]

    def infer_type(self, in_type: list, out_type: list | None = None):
        known = next((t for t in in_type if t is not None), None)
        if known is None:
            return None
        names = self.list_arguments()
        return [dtype_assign(self, names[i], t, known) for i, t in enumerate(in_type)], [known], []

    def _check_count(self, in_shapes: tuple) -> None:
        if len(in_shapes) != self.param.num_args:
            raise self.fail(
                f"argument 'num_args' is {self.param.num_args} but {len(in_shapes)} inputs came."
            )


class ConcatParam(Param):
    num_args: int = field(low=1, doc="Number of inputs to concatenate.")
    dim: int = field(default=1, doc="Axis along which to concatenate.")


@register("Concat", aliases=("concat",))
class ConcatProp(_JoinBase):
    """Join arrays along an existing axis ``dim``; other dims must agree."""

    lists_output_names = True

    plot_kind = "shape"

    lists_input_names = True

    # the gradient splits out_grad at the inputs' sizes, and an input that takes no gradient
    # has no gradient array to tell its size, so backward keeps the inputs (MXNet always has
    # the shapes)
    backward_reads_inputs = True

    param_class = ConcatParam
    test = OpTest(shapes={"arg0": (2, 3), "arg1": (2, 2)}, params={"num_args": 2, "dim": 1})
    quantized_name = "_contrib_quantized_concat"

    def quantized_op(self, granularity: str) -> tuple[str, dict[str, str]] | None:
        """Fact for quantization: joins along an axis after the first have a quantized form."""
        return super().quantized_op(granularity) if self.param.dim > 0 else None

    def out_shapes(self, *shapes: Shape) -> list[Shape]:
        self._check_count(shapes)
        first = shapes[0]
        axis = norm_axis(self, "dim", self.param.dim, len(first))
        for i, s in enumerate(shapes):
            if len(s) != len(first) or s[:axis] + s[axis + 1 :] != first[:axis] + first[axis + 1 :]:
                raise self.fail(
                    f"input arg{i} has shape {s}; with dim={self.param.dim} it "
                    f"must match arg0's shape {first} except on axis {axis}."
                )
        return [first[:axis] + (sum(s[axis] for s in shapes),) + first[axis + 1 :]]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        oshape = out_shape[0] if out_shape else None
        if oshape is None and all(shape_is_known(s) for s in in_shape):
            return super().infer_shape(in_shape, out_shape)
        # partial shapes (MXNet's ConcatShape): every dim but the joined one is shared by the
        # inputs and the output; the joined size is their sum once every input's is known
        self._check_count(tuple(in_shape))
        common, axis, size, unknown = None, 0, 0, False
        for i, s in enumerate([*in_shape, oshape]):
            if s is None:
                unknown = unknown or i < len(in_shape)
                continue
            axis = norm_axis(self, "dim", self.param.dim, len(s))
            if i < len(in_shape):
                unknown = unknown or not s[axis]
                size += s[axis]
            try:
                common = merge_shape(common, s[:axis] + (0,) + s[axis + 1 :])
            except ValueError:
                where = f"input arg{i}" if i < len(in_shape) else "the output"
                raise self.fail(
                    f"{where} has shape {s}; with dim={self.param.dim} the inputs and the "
                    f"output must agree except on axis {axis}, as in {common}."
                ) from None
        if common is None:
            return None
        ins = [shape_assign(self, "input", f"arg{i}", s, common) for i, s in enumerate(in_shape)]
        out = common if unknown else common[:axis] + (size,) + common[axis + 1 :]
        return ins, [shape_assign(self, "output", "output", oshape, out)], []

    def infer_imperative(self, shapes: tuple, dtypes: tuple) -> tuple:
        if is_np_shape() and any(0 in s for s in shapes):
            # NumPy shape semantics: a 0 is an empty dimension, not an unknown one, and an
            # imperative call's inputs are all known (not cached: the cache has no mode)
            tres = self.infer_type(list(dtypes))
            return self.out_shapes(*shapes), tres[1], [], []
        return super().infer_imperative(shapes, dtypes)

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.concatenate(ins, axis=norm_axis(self, "dim", self.param.dim, ins[0].ndim))]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        axis = norm_axis(self, "dim", self.param.dim, ograds[0].ndim)
        sizes = [None if s is None else s[axis] for s in in_shapes]
        if sizes.count(None) == 1:  # one input needs no gradient: its size is what is left
            sizes[sizes.index(None)] = ograds[0].shape[axis] - sum(n for n in sizes if n)
        if None in sizes:
            raise MXNetError(
                f"{self.where()}: backward needs the shapes of inputs that take no gradient "
                "when more than one of them does."
            )
        cuts = np.cumsum(sizes[:-1]).tolist()
        return xp.split(ograds[0], cuts, axis=axis)


@register("_rnn_param_concat", aliases=("_npi_rnn_param_concat",))
class RNNParamConcatProp(ConcatProp):
    """Concat of the flattened weights of a fused RNN layer (Gluon's ``rnn.RNN``/``LSTM``/``GRU``
    build the ``parameters`` input of ``RNN`` with it). Unlike Concat, a known output size fills
    in the one or two inputs whose size along ``dim`` is still unknown (the input-to-hidden
    weights of the first layer, one per direction, before the input size is seen), sharing the
    rest evenly as MXNet does."""

    test = OpTest(shapes={"arg0": (6,), "arg1": (4,)}, params={"num_args": 2, "dim": 0})

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        oshape = out_shape[0] if out_shape else None
        if oshape is not None and shape_is_known(oshape):
            axis = norm_axis(self, "dim", self.param.dim, len(oshape))
            sizes = [None if s is None or not s[axis] else s[axis] for s in in_shape]
            unknown = [i for i, n in enumerate(sizes) if n is None]
            if 1 <= len(unknown) <= 2:
                rest = oshape[axis] - sum(n for n in sizes if n is not None)
                if rest < 0 or rest % len(unknown):
                    raise self.fail(
                        f"the known inputs already take {oshape[axis] - rest} of the output's "
                        f"{oshape[axis]} along dim {axis}; {rest} cannot be shared by "
                        f"{len(unknown)} inputs."
                    )
                each = rest // len(unknown)
                filled = oshape[:axis] + (each,) + oshape[axis + 1 :]
                in_shape = list(in_shape)
                for i in unknown:
                    in_shape[i] = shape_assign(self, "input", f"arg{i}", in_shape[i], filled)
        return super().infer_shape(in_shape, out_shape)


class StackParam(Param):
    axis: int = field(default=0, doc="Axis of the result along which the inputs are stacked.")
    num_args: int = field(low=1, doc="Number of inputs to stack.")


@register("stack")
class StackProp(_JoinBase):
    """Join arrays of one shape along a new axis ``axis``."""

    lists_input_names = True

    param_class = StackParam
    test = OpTest(shapes={"arg0": (2, 3), "arg1": (2, 3)}, params={"num_args": 2})

    def out_shapes(self, *shapes: Shape) -> list[Shape]:
        self._check_count(shapes)
        for i, s in enumerate(shapes):
            if s != shapes[0]:
                raise self.fail(
                    f"input arg{i} has shape {s}; every input must have arg0's shape {shapes[0]}."
                )
        axis = norm_axis(self, "axis", self.param.axis, len(shapes[0]) + 1)
        return [shapes[0][:axis] + (len(shapes),) + shapes[0][axis:]]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.stack(ins, axis=norm_axis(self, "axis", self.param.axis, ins[0].ndim + 1))]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        # the output's rank, not an input's: an input without gradient has no shape here
        axis = norm_axis(self, "axis", self.param.axis, ograds[0].ndim)
        return [xp.take(ograds[0], i, axis=axis) for i in range(len(in_shapes))]


class _SplitBase(ArrayOp):
    """One input cut along ``axis`` into pieces [bounds[i], bounds[i+1])."""

    def list_outputs(self) -> list[str]:
        return [f"output{i}" for i in range(self._count())]

    def _count(self) -> int:
        raise NotImplementedError

    def _bounds(self, dshape: Shape, axis: int) -> list[int]:
        raise NotImplementedError

    def _axis(self, ndim: int) -> int:
        return norm_axis(self, "axis", self.param.axis, ndim)

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        axis = self._axis(len(dshape))
        bounds = self._bounds(dshape, axis)
        outs = []
        for i in range(len(bounds) - 1):
            n = bounds[i + 1] - bounds[i]
            if self.param.squeeze_axis:
                if n != 1:
                    raise self.fail(
                        f"squeeze_axis=True needs pieces of size 1 on axis {axis}; "
                        f"piece {i} of input shape {dshape} has size {n}."
                    )
                outs.append(dshape[:axis] + dshape[axis + 1 :])
            else:
                outs.append(dshape[:axis] + (n,) + dshape[axis + 1 :])
        return outs

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        x = ins[0]
        axis = self._axis(x.ndim)
        bounds = self._bounds(x.shape, axis)
        x = x[(slice(None),) * axis + (slice(bounds[0], None),)]  # _split_v2 may skip a head
        parts = xp.split(x, [b - bounds[0] for b in bounds[1:-1]], axis=axis)
        return [p.reshape(o.shape) for p, o in zip(parts, outs)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        shape = in_shapes[0]
        axis = self._axis(len(shape))
        bounds = self._bounds(shape, axis)
        parts = [
            g.reshape(shape[:axis] + (bounds[i + 1] - bounds[i],) + shape[axis + 1 :])
            for i, g in enumerate(ograds)
        ]
        if bounds[0]:
            parts.insert(
                0, xp.zeros(shape[:axis] + (bounds[0],) + shape[axis + 1 :], ograds[0].dtype)
            )
        return [xp.concatenate(parts, axis=axis)]


class SliceChannelParam(Param):
    num_outputs: int = field(low=1, doc="Number of equal pieces.")
    axis: int = field(default=1, doc="Axis to split.")
    squeeze_axis: bool = field(
        default=False,
        doc="Drop the split axis from the outputs (each piece must then have size 1 on it).",
    )


@register("SliceChannel", aliases=("split",))
class SliceChannelProp(_SplitBase):
    """Split an array into ``num_outputs`` equal pieces along ``axis``."""

    lists_output_names = True

    fluent = ("split",)
    lists_input_names = True

    param_class = SliceChannelParam
    test = OpTest(shapes={"data": (2, 4)}, params={"num_outputs": 2})

    def _count(self) -> int:
        return self.param.num_outputs

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        dshape = in_shape[0]
        given = list(out_shape) if out_shape else [None] * self._count()
        if dshape is None:
            return None
        if shape_is_known(dshape) and all(o is None for o in given):
            return super().infer_shape(in_shape, out_shape)
        # partial shapes (MXNet's SliceChannel InferShape): unknown dims (0) pass through, and
        # the outputs, which all share one shape, fill the input back
        axis, k, squeeze = self._axis(len(dshape)), self.param.num_outputs, self.param.squeeze_axis
        for i, o in enumerate(given):
            if o is None:
                continue
            if len(o) != len(dshape) - squeeze:
                raise self.fail(f"output{i} has shape {o}; input shape {dshape} cannot give it.")
            back = o[:axis] + ((k,) if squeeze else (o[axis] * k,)) + o[axis + 1 - squeeze :]
            dshape = shape_assign(self, "input", "data", dshape, back)
        n = dshape[axis]
        if n and n % k:
            self._bounds(dshape, axis)  # raises, naming num_outputs
        if squeeze and n and n != k:
            raise self.fail(
                f"squeeze_axis=True needs pieces of size 1 on axis {axis}; input shape {dshape} "
                f"split into {k} has pieces of size {n // k}."
            )
        piece = dshape[:axis] + (() if squeeze else (n // k,)) + dshape[axis + 1 :]
        outs = [shape_assign(self, "output", f"output{i}", o, piece) for i, o in enumerate(given)]
        return [dshape], outs, []

    def _bounds(self, dshape: Shape, axis: int) -> list[int]:
        n, k = dshape[axis], self.param.num_outputs
        if n % k:
            raise self.fail(
                f"argument 'num_outputs' is {k}; it does not divide axis {axis} "
                f"of input shape {dshape}."
            )
        return [i * (n // k) for i in range(k + 1)]


class SplitV2Param(Param):
    indices: tuple[int, ...] = field(doc="Start index of every piece along the axis.")
    axis: int = field(default=1, doc="Axis to split.")
    squeeze_axis: bool = field(
        default=False,
        doc="Drop the split axis from the outputs (each piece must then have size 1 on it).",
    )
    sections: int = field(default=0, doc="Number of near-equal pieces; 0 splits by indices.")


@register("_split_v2", aliases=("_npi_split",))
class SplitV2Prop(_SplitBase):
    """Split an array at given indices, or into ``sections`` near-equal pieces (the first
    ``size % sections`` pieces one longer)."""

    lists_input_names = True

    param_class = SplitV2Param
    test = OpTest(shapes={"data": (2, 5)}, params={"indices": (0, 2)})

    def _count(self) -> int:
        return self.param.sections if self.param.sections > 0 else len(self.param.indices)

    def _bounds(self, dshape: Shape, axis: int) -> list[int]:
        n, k = dshape[axis], self.param.sections
        if k > 0:
            small, extra = divmod(n, k)
            bounds = [0]
            for i in range(k):
                bounds.append(bounds[-1] + small + (1 if i < extra else 0))
            return bounds
        if n == 0 and self.param.indices:  # as MXNet: an empty axis gives empty pieces
            return [0] * (len(self.param.indices) + 1)
        bounds = [*self.param.indices, n]
        if (
            not self.param.indices
            or any(a > b for a, b in zip(bounds, bounds[1:]))
            or bounds[0] < 0
        ):
            raise self.fail(
                f"argument 'indices' {self.param.indices} must be non-empty, "
                f"non-negative, ascending and at most {n} (axis {axis} of input "
                f"shape {dshape})."
            )
        return bounds
