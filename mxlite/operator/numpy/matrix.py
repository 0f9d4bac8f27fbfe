"""NumPy-style shape, joining and product operators (MXNet 1.9.1's np_matrix_op.cc,
np_dot.cc, np_matmul_op.cc, np_tensordot_op.cc, np_where_op.cc): ``_np_reshape``,
``_npx_reshape`` (alias ``_npi_reshape``), ``_np_transpose``, ``_np_squeeze``, ``_npi_flip``,
``_npi_broadcast_to``, ``_np_moveaxis``, ``_npi_concatenate``, ``_npi_stack``, ``_npi_where``
and its scalar forms, ``_np_dot``, ``_npi_matmul``, ``_npi_tensordot`` and
``_npi_tensordot_int_axes``.

Every shape is taken with NumPy's rules: a 0 dimension is empty, ``()`` is zero-dim.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base import Shape
from ..param import Param, field
from ..registry import OpTest, register, shape_is_known
from ..tensor.array_op import ArrayOp
from .dtypes import binary_result


class _NpArrayOp(ArrayOp):
    partial_shapes = True  # a 0 dim is an empty axis under NumPy's rules


def _norm(prop: ArrayOp, arg: str, axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise prop.fail(f"argument {arg!r} {axis} is out of bounds for {ndim} dimensions.")
    return axis % ndim


# ---- reshape ----------------------------------------------------------------------------------


class NumpyReshapeParam(Param):
    newshape: tuple[int, ...] = field(doc="The new shape; one dimension may be -1 (inferred).")
    order: str = field(default="C", choices=("C",), doc="Read the elements in C order.")


def np_reshape_shape(prop: ArrayOp, src: Shape, target: Shape) -> Shape:
    """NumPy's reshape: at most one -1, inferred from the size."""
    size = math.prod(src)
    unknown = [i for i, d in enumerate(target) if d == -1]
    if len(unknown) > 1 or any(d < -1 for d in target):
        raise prop.fail(f"argument 'newshape' {tuple(target)} may hold one -1 and no other "
                        "negative value.")  # fmt: skip
    if unknown:
        rest = math.prod(d for d in target if d != -1)
        if rest == 0 or size % rest:
            raise prop.fail(f"cannot reshape an array of shape {tuple(src)} into {target}.")
        target = tuple(size // rest if d == -1 else d for d in target)
    if math.prod(target) != size:
        raise prop.fail(f"cannot reshape an array of shape {tuple(src)} into {tuple(target)}.")
    return tuple(target)


@register("_np_reshape")
class NpReshapeProp(_NpArrayOp):
    """The array with a new shape and the same data (``np.reshape``)."""

    param_class = NumpyReshapeParam
    inplace = True
    test = OpTest(shapes={"a": (2, 3)}, params={"newshape": (3, -1)})
    np_signature = "(a, newshape, order='C', out=None)"

    def list_arguments(self) -> list[str]:
        return ["a"]

    def out_shapes(self, a: Shape) -> list[Shape]:
        return [np_reshape_shape(self, a, self.param.newshape)]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        # a graph's known output fills the one unknown (0) input dim back, as MXNet's
        # ReverseReshapeInferShape does: how a deferred RNN weight learns its input size
        a, out = in_shape[0], (out_shape[0] if out_shape else None)
        if a is not None and out is not None and shape_is_known(out) and a.count(0) == 1:
            rest = math.prod(d for d in a if d)
            if rest and math.prod(out) % rest == 0:
                in_shape = [tuple(math.prod(out) // rest if d == 0 else d for d in a)]
        return super().infer_shape(in_shape, out_shape)

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [ins[0].reshape(outs[0].shape)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [ograds[0].reshape(in_shapes[0])]


class NumpyXReshapeParam(Param):
    newshape: tuple[int, ...] = field(doc="The new shape, with npx's special values.")
    reverse: bool = field(default=False, doc="Match the special values from the right.")
    order: str = field(default="C", choices=("C",), doc="Read the elements in C order.")


def npx_reshape_shape(prop: ArrayOp, src: Shape, spec: Shape, reverse: bool) -> Shape:
    """npx.reshape's codes: -1 infer, -2 copy a dim, -3 drop a dim of size 1, -4 copy the
    rest, -5 merge two dims, -6 split a dim into the next two values (one may be -1)."""
    dims = list(src[::-1] if reverse else src)
    codes = list(spec[::-1] if reverse else spec)
    out: list[int] = []
    i = j = 0
    infer = -1
    while i < len(codes):
        c = codes[i]
        if c >= 0:
            out.append(c)
            j += 1
        elif c == -1:
            infer = len(out)
            out.append(-1)
            j += 1
        elif c == -2:
            out.append(dims[j])
            j += 1
        elif c == -3:
            if dims[j] != 1:
                raise prop.fail(f"-3 in newshape {tuple(spec)} drops a dim of size 1, found "
                                f"{dims[j]} in {tuple(src)}.")  # fmt: skip
            j += 1
        elif c == -4:
            out.extend(dims[j:])
            j = len(dims)
        elif c == -5:
            out.append(dims[j] * dims[j + 1])
            j += 2
        elif c == -6:
            d1, d2 = codes[i + 1], codes[i + 2]
            if reverse:
                d1, d2 = d2, d1
            d1 = dims[j] // d2 if d1 == -1 else d1
            d2 = dims[j] // d1 if d2 == -1 else d2
            pair = [d2, d1] if reverse else [d1, d2]
            out.extend(pair)
            j += 1
            i += 2
        else:
            raise prop.fail(f"invalid value {c} in newshape {tuple(spec)}.")
        i += 1
    if infer >= 0:
        rest = math.prod(d for k, d in enumerate(out) if k != infer)
        out[infer] = math.prod(src) // rest if rest else 0
    shape = tuple(out[::-1] if reverse else out)
    if math.prod(shape) != math.prod(src):
        raise prop.fail(f"cannot reshape {tuple(src)} with newshape {tuple(spec)}.")
    return shape


@register("_npx_reshape", aliases=("_npi_reshape",))
class NpxReshapeProp(NpReshapeProp):
    """Reshape with npx's special values (``npx.reshape``)."""

    param_class = NumpyXReshapeParam
    test = OpTest(shapes={"a": (2, 3, 4)}, params={"newshape": (-2, -1)})
    np_signature = "(a, newshape, reverse=False, order='C')"

    def out_shapes(self, a: Shape) -> list[Shape]:
        return [npx_reshape_shape(self, a, self.param.newshape, self.param.reverse)]


# ---- axes -------------------------------------------------------------------------------------


class NumpyTransposeParam(Param):
    axes: tuple[int, ...] | None = field(default=None, doc="The new order of the axes.")


@register("_np_transpose")
class NpTransposeProp(_NpArrayOp):
    """Permute the axes (reversed by default) (``np.transpose``)."""

    param_class = NumpyTransposeParam
    test = OpTest(shapes={"a": (2, 3, 4)}, params={"axes": (1, 2, 0)})
    np_signature = "(a, axes=None)"

    def list_arguments(self) -> list[str]:
        return ["a"]

    def _axes(self, ndim: int) -> tuple[int, ...]:
        axes = self.param.axes
        if axes is None or axes == (-1,) and ndim != 1:
            return tuple(range(ndim - 1, -1, -1))
        norm = tuple(_norm(self, "axes", a, ndim) for a in axes)
        if sorted(norm) != list(range(ndim)):
            raise self.fail(f"argument 'axes' {axes} is not a permutation of {ndim} axes.")
        return norm

    def out_shapes(self, a: Shape) -> list[Shape]:
        return [tuple(a[i] for i in self._axes(len(a)))]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.transpose(ins[0], self._axes(ins[0].ndim))]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [xp.transpose(ograds[0], np.argsort(self._axes(len(in_shapes[0]))))]


class NumpyMoveaxisParam(Param):
    source: tuple[int, ...] = field(doc="Original positions of the axes to move.")
    destination: tuple[int, ...] = field(doc="Destination positions of the axes.")


@register("_np_moveaxis")
class NpMoveaxisProp(_NpArrayOp):
    """Move axes to new positions (``np.moveaxis``)."""

    param_class = NumpyMoveaxisParam
    test = OpTest(shapes={"a": (2, 3, 4)}, params={"source": (0,), "destination": (2,)})
    np_signature = "(a, source, destination)"

    def list_arguments(self) -> list[str]:
        return ["a"]

    def out_shapes(self, a: Shape) -> list[Shape]:
        dummy = np.empty(a, dtype=np.bool_) if math.prod(a) < 2 else np.broadcast_to(False, a)
        return [np.moveaxis(dummy, self.param.source, self.param.destination).shape]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.moveaxis(ins[0], self.param.source, self.param.destination)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [xp.moveaxis(ograds[0], self.param.destination, self.param.source)]


class NumpySqueezeParam(Param):
    axis: tuple[int, ...] | None = field(default=None, doc="Axes of size 1 to remove.")


@register("_np_squeeze")
class NpSqueezeProp(_NpArrayOp):
    """Remove axes of size one (all, or those in ``axis``) (``np.squeeze``)."""

    param_class = NumpySqueezeParam
    inplace = True
    test = OpTest(shapes={"a": (2, 1, 3)}, params={"axis": (1,)})
    np_signature = "(a, axis=None, out=None)"

    def list_arguments(self) -> list[str]:
        return ["a"]

    def out_shapes(self, a: Shape) -> list[Shape]:
        if self.param.axis is None:
            return [tuple(d for d in a if d != 1)]
        if not a:  # as NumPy, a zero-dim array takes one axis, 0 or -1
            if len(self.param.axis) != 1 or self.param.axis[0] not in (0, -1):
                raise self.fail(f"argument 'axis' {self.param.axis} must be one axis, 0 or -1, "
                                "for a zero-dim array.")  # fmt: skip
            return [()]
        axes = {_norm(self, "axis", x, len(a)) for x in self.param.axis}
        for x in axes:
            if a[x] != 1:
                raise self.fail(f"cannot select an axis to squeeze out which has size "
                                f"{a[x]} != 1 (shape {tuple(a)}).")  # fmt: skip
        return [tuple(d for i, d in enumerate(a) if i not in axes)]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [ins[0].reshape(outs[0].shape)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [ograds[0].reshape(in_shapes[0])]


class FlipParam(Param):
    axis: tuple[int, ...] | None = field(doc="The axes to reverse (None: every axis).")


@register("_npi_flip")
class NpFlipProp(_NpArrayOp):
    """Reverse the order of elements along the given axes (``np.flip``)."""

    param_class = FlipParam
    test = OpTest(shapes={"data": (2, 3)}, params={"axis": (1,)})

    def _axes(self, ndim: int) -> tuple[int, ...]:
        if self.param.axis is None:
            return tuple(range(ndim))
        return tuple(_norm(self, "axis", a, ndim) for a in self.param.axis)

    def out_shapes(self, a: Shape) -> list[Shape]:
        self._axes(len(a))
        return [tuple(a)]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.flip(ins[0], self._axes(ins[0].ndim))]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [xp.flip(ograds[0], self._axes(ograds[0].ndim))]


class BroadcastToParam(Param):
    shape: tuple[int, ...] = field(
        default=(), doc="The shape to broadcast to; -2 keeps the input's dimension there."
    )


@register("_npi_broadcast_to")
class NpBroadcastToProp(_NpArrayOp):
    """The array broadcast to ``shape`` with NumPy's rules (``np.broadcast_to``)."""

    param_class = BroadcastToParam
    test = OpTest(shapes={"array": (1, 3)}, params={"shape": (2, 3)})

    def list_arguments(self) -> list[str]:
        return ["array"]

    def out_shapes(self, a: Shape) -> list[Shape]:
        shape = tuple(self.param.shape)
        lead = len(shape) - len(a)  # -2 takes the input dimension it is aligned with
        shape = tuple(a[i - lead] if d == -2 and i >= lead else d for i, d in enumerate(shape))
        try:
            if np.broadcast_shapes(tuple(a), shape) == shape:
                return [shape]
        except ValueError:
            pass
        raise self.fail(f"cannot broadcast an array of shape {tuple(a)} to {shape}.")

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.broadcast_to(ins[0], outs[0].shape)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        from ..simple_op import unbroadcast

        return [unbroadcast(xp, ograds[0], in_shapes[0])]


# ---- joining ----------------------------------------------------------------------------------


class _NpJoin(_NpArrayOp):
    key_var_num_args = "num_args"
    backward_reads_inputs = True

    def list_arguments(self) -> list[str]:
        return [f"data{i}" for i in range(self.param.num_args)]

    def infer_type(self, in_type: list, out_type: list | None = None):
        known = [t for t in in_type if t is not None]
        if len(known) < len(in_type):
            return None
        out = known[0]
        for t in known[1:]:
            out = binary_result(out, t)
        return list(in_type), [out], []


class NumpyConcatenateParam(Param):
    num_args: int = field(low=1, doc="Number of inputs to concatenate.")
    axis: int | None = field(default=0, doc="The axis to join along; None flattens first.")


@register("_npi_concatenate")
class NpConcatenateProp(_NpJoin):
    """Join arrays along an existing axis (``np.concatenate``)."""

    param_class = NumpyConcatenateParam
    test = OpTest(shapes={"data0": (2, 3), "data1": (1, 3)}, params={"num_args": 2})

    def out_shapes(self, *shapes: Shape) -> list[Shape]:
        if self.param.axis is None:
            return [(sum(math.prod(s) for s in shapes),)]
        first = shapes[0]
        ax = _norm(self, "axis", self.param.axis, len(first))
        for i, s in enumerate(shapes):
            if len(s) != len(first) or s[:ax] + s[ax + 1 :] != first[:ax] + first[ax + 1 :]:
                raise self.fail(f"input data{i} has shape {tuple(s)}; it must match "
                                f"{tuple(first)} except on axis {ax}.")  # fmt: skip
        return [first[:ax] + (sum(s[ax] for s in shapes),) + first[ax + 1 :]]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.concatenate(ins, axis=self.param.axis).astype(outs[0].dtype, copy=False)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        g = ograds[0]
        if self.param.axis is None:
            cuts = np.cumsum([math.prod(s) for s in in_shapes[:-1]]).tolist()
            return [p.reshape(s) for p, s in zip(xp.split(g, cuts), in_shapes)]
        ax = self.param.axis % g.ndim
        cuts = np.cumsum([s[ax] for s in in_shapes[:-1]]).tolist()
        return xp.split(g, cuts, axis=ax)


class NumpyStackParam(Param):
    axis: int = field(default=0, doc="The axis of the result along which to stack.")
    num_args: int = field(low=1, doc="Number of inputs to stack.")


@register("_npi_stack")
class NpStackProp(_NpJoin):
    """Join arrays of one shape along a new axis (``np.stack``)."""

    param_class = NumpyStackParam
    test = OpTest(shapes={"data0": (2, 3), "data1": (2, 3)}, params={"num_args": 2})

    def out_shapes(self, *shapes: Shape) -> list[Shape]:
        first = tuple(shapes[0])
        for i, s in enumerate(shapes):
            if tuple(s) != first:
                raise self.fail(f"all inputs must have one shape; data{i} has {tuple(s)}, "
                                f"data0 {first}.")  # fmt: skip
        ax = _norm(self, "axis", self.param.axis, len(first) + 1)
        return [first[:ax] + (len(shapes),) + first[ax:]]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.stack(ins, axis=self.param.axis).astype(outs[0].dtype, copy=False)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        g = ograds[0]
        ax = self.param.axis % g.ndim
        return [xp.take(g, i, axis=ax) for i in range(g.shape[ax])]


# ---- where ------------------------------------------------------------------------------------


def _bshape(prop: ArrayOp, *shapes: Shape) -> Shape:
    try:
        return np.broadcast_shapes(*[tuple(s) for s in shapes])
    except ValueError:
        raise prop.fail(f"operands could not be broadcast together with shapes "
                        f"{[tuple(s) for s in shapes]}.") from None  # fmt: skip


def _unb(xp: Any, g: Any, shape: Shape) -> Any:
    from ..simple_op import unbroadcast

    return unbroadcast(xp, g, tuple(shape))


@register("_npi_where")
class NpWhereProp(_NpArrayOp):
    """Elements of x where the condition is true, else of y, broadcast (``np.where``)."""

    backward_reads_inputs = True
    test = OpTest(shapes={"condition": (2, 3), "x": (2, 3), "y": (1, 3)})

    def list_arguments(self) -> list[str]:
        return ["condition", "x", "y"]

    def out_shapes(self, c: Shape, x: Shape, y: Shape) -> list[Shape]:
        return [_bshape(self, c, x, y)]

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[1] is None or in_type[2] is None:
            return None
        return list(in_type), [binary_result(in_type[1], in_type[2])], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.where(ins[0] != 0, ins[1], ins[2])]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        g, c = ograds[0], ins[0] != 0
        return [
            xp.zeros(in_shapes[0], ins[0].dtype),
            _unb(xp, xp.where(c, g, 0), in_shapes[1]),
            _unb(xp, xp.where(c, 0, g), in_shapes[2]),
        ]


class WhereScalarParam(Param):
    scalar: float = field(default=0.0, doc="The scalar value.")


class WhereScalar2Param(Param):
    x: float = field(default=0.0, doc="The value where the condition is true.")
    y: float = field(default=0.0, doc="The value where the condition is false.")


class _NpWhereScalar(_NpArrayOp):
    param_class = WhereScalarParam
    backward_reads_inputs = True
    right = True  # the scalar is y (``_rscalar``) or x (``_lscalar``)
    test = OpTest(shapes={"condition": (2, 3), "x": (2, 3)}, params={"scalar": 2.0})

    def list_arguments(self) -> list[str]:
        return ["condition", "x"] if self.right else ["condition", "y"]

    def out_shapes(self, c: Shape, x: Shape) -> list[Shape]:
        return [_bshape(self, c, x)]

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[1] is None:
            return None
        return list(in_type), [in_type[1]], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        c, a = ins[0] != 0, ins[1]
        s = a.dtype.type(self.param.scalar)
        return [xp.where(c, a, s) if self.right else xp.where(c, s, a)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        g, c = ograds[0], ins[0] != 0
        ga = xp.where(c, g, 0) if self.right else xp.where(c, 0, g)
        return [xp.zeros(in_shapes[0], ins[0].dtype), _unb(xp, ga, in_shapes[1])]


@register("_npi_where_rscalar")
class NpWhereRScalarProp(_NpWhereScalar):
    """``np.where(condition, x, scalar)``."""

    right = True


@register("_npi_where_lscalar")
class NpWhereLScalarProp(_NpWhereScalar):
    """``np.where(condition, scalar, y)``."""

    right = False
    test = OpTest(shapes={"condition": (2, 3), "y": (2, 3)}, params={"scalar": 2.0})


@register("_npi_where_scalar2")
class NpWhereScalar2Prop(_NpArrayOp):
    """``np.where(condition, x, y)`` for two scalars: float32 values."""

    param_class = WhereScalar2Param
    test = OpTest(shapes={"condition": (2, 3)}, params={"x": 1.0, "y": 2.0}, grad=False)

    def list_arguments(self) -> list[str]:
        return ["condition"]

    def out_shapes(self, c: Shape) -> list[Shape]:
        return [tuple(c)]

    def infer_type(self, in_type: list, out_type: list | None = None):
        return list(in_type), [np.dtype(np.float32)], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.where(ins[0] != 0, np.float32(self.param.x), np.float32(self.param.y))]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [xp.zeros(in_shapes[0], ins[0].dtype)]
