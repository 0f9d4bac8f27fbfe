"""Small tensor operators: clip, where, add_n, zeros_like / ones_like and the creation
operators behind ``mx.sym.zeros``, ``ones``, ``full``, ``arange``, ``eye``, ``linspace``, and
``contrib.arange_like``.

Design note
-----------
``clip``, ``zeros_like`` and ``ones_like`` are SimpleOps; ``where`` (three inputs), ``add_n``
(variadic, ``num_args``) and the creation operators (no inputs) are property classes.

MXNet 1.9.1's rules kept here:

- ``clip`` keeps the bounds as float32 (real_t); an integer array is compared as float and
  clipped to the truncated bound; nan passes; the gradient is 0 outside [a_min, a_max].
- ``where``: the condition is non-zero for true, has x's shape or is 1-D with one entry per
  row of x; it may have any dtype; x and y share one dtype. The gradient goes to x and y;
  the condition's gradient is zero.
- Creation operators take their output shape from the parameters (``shape``, ``N``/``M``,
  ``start``/``stop``/``step``/``repeat``, ``num``). In ``shape`` a 0 dimension or an empty
  shape means "unknown" (MXNet's legacy shape semantics) and is filled from the consumer in a
  symbol graph; an imperative call needs it known. ``ctx`` is accepted and ignored (the
  context is given to invoke separately). ``_arange`` with ``stop=None`` and not
  ``infer_range`` counts from 0 to ``start``; integer dtypes and float16 truncate ``start``
  and ``step`` to integers (so does MXNet).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base import DTypeError, MXNetError, ParamError, Shape, ShapeError
from ...context import Context
from ..param import DTYPE_NAMES, Param, field
from ..registry import (
    Operator,
    OperatorProperty,
    OpTest,
    register,
    shape_assign,
    shape_is_known,
)
from ..req import OpReq, assign
from ..simple_op import GradNeeds, simple_op
from ..sparse.forms import ADD_N, CLIP, ZEROS_LIKE
from ..sparse.forms_tensor import WHERE, all_row_sparse
from .array_op import ArrayOp, norm_axis
from .elemwise_unary import to_int

__all__ = [
    "ClipParam",
    "InitOpParam",
    "InitOpWithScalarParam",
    "RangeParam",
    "RangeLikeParam",
    "EyeParam",
    "LinspaceParam",
    "ElementWiseSumParam",
]

_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_CTX_DOC = "Context of output, in format [cpu|gpu|cpu_pinned](n).Only used for imperative calls."
_NO_BOOL = tuple(d for d in DTYPE_NAMES if d != "bool")
_EYE_TYPES = ("float32", "float64", "float16", "uint8", "int8", "int32", "int64")


def _np_dtype(op: str, name: str) -> np.dtype:
    return np.dtype(name)  # 'bfloat16' too: ml_dtypes gives NumPy that name


def _cast_scalar(value: float, dtype: np.dtype) -> Any:
    """``static_cast<DType>(value)`` for a double."""
    if dtype.kind in "iu":
        return to_int(np.asarray(value, dtype=np.float64), dtype)[()]
    return dtype.type(value)


# ---- clip -----------------------------------------------------------------------------------


class ClipParam(Param):
    a_min: float = field(doc="Minimum value")
    a_max: float = field(doc="Maximum value")


def _clip_bounds(x: Any, param: ClipParam) -> tuple[Any, Any, Any]:
    lo, hi = np.float32(param.a_min), np.float32(param.a_max)
    ct = x.dtype if x.dtype.kind == "f" and x.dtype.itemsize >= 4 else _F32
    return x.astype(ct, copy=False), ct.type(lo), ct.type(hi)


def _clip(xp: Any, x: Any, env: Any, out: Any) -> Any:
    v, lo, hi = _clip_bounds(x, env.param)
    dt = x.dtype
    if v is x and lo <= hi:
        # one pass (MobileNet's ReLU6 ran 40x slower through two wheres); NumPy's clip keeps
        # NaN and -0.0 as MXNet's comparisons do, and differs from them only when a_min >
        # a_max (MXNet then gives a_max above a_max and a_min below a_min)
        return xp.clip(x, lo, hi, out=out)
    top, bottom = _cast_scalar(float(hi), dt), _cast_scalar(float(lo), dt)
    return xp.where(v > hi, top, xp.where(v < lo, bottom, x)).astype(dt, copy=False)


def _clip_grad(xp: Any, g: Any, x: Any, env: Any) -> Any:
    v, lo, hi = _clip_bounds(x, env.param)
    return xp.where((v > hi) | (v < lo), 0, g).astype(g.dtype, copy=False)


def _clip_recorded_gradient(prop: Any, op: Any, og: Any, ins: list, outs: list) -> list:
    x, p = ins[0], prop.param
    return [og * ((x >= p.a_min) * (x <= p.a_max))]


simple_op(
    "clip",
    forward=_clip,
    gradient=_clip_grad,
    grad_needs=GradNeeds.INPUT,
    gradient_inplace=True,
    param_class=ClipParam,
    sparse_form=CLIP,
    facts={"fluent": ("clip",), "recorded_gradient": staticmethod(_clip_recorded_gradient)},
    aliases=("_npi_clip",),
    test=OpTest(params={"a_min": -0.5, "a_max": 0.5}, low=-1.0, high=1.0),
    doc="Clip (limit) the values of an array to [a_min, a_max].",
)


# ---- zeros_like, ones_like ------------------------------------------------------------------


def _zero_grad(xp: Any, g: Any, env: Any) -> Any:
    return xp.zeros_like(g)


simple_op(
    "zeros_like",
    forward=lambda xp, x, env, out: 0,
    gradient=_zero_grad,
    sparse_form=ZEROS_LIKE,
    facts={"fluent": ("zeros_like",)},
    test=OpTest(grad=False),
    doc="An array of zeros with the input's shape and dtype.",
)
simple_op(
    "ones_like",
    forward=lambda xp, x, env, out: 1,
    gradient=_zero_grad,
    facts={"fluent": ("ones_like",)},
    test=OpTest(grad=False),
    doc="An array of ones with the input's shape and dtype.",
)


# ---- where ----------------------------------------------------------------------------------


def _cond_mask(cond: Any, ndim: int) -> Any:
    mask = cond != 0
    if mask.ndim != ndim:  # one entry per row
        mask = mask.reshape(mask.shape + (1,) * (ndim - 1))
    return mask


class _WhereOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        if req[0] == OpReq.NULL:
            return
        cond, x, y = in_data
        assign(out_data[0], req[0], self.xp.where(_cond_mask(cond, x.ndim), x, y))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        xp, g = self.xp, out_grad[0]
        mask = _cond_mask(in_data[0], g.ndim)
        if req[0] != OpReq.NULL:
            assign(in_grad[0], req[0], 0)
        if req[1] != OpReq.NULL:
            assign(in_grad[1], req[1], xp.where(mask, g, 0))
        if req[2] != OpReq.NULL:
            assign(in_grad[2], req[2], xp.where(mask, 0, g))


@register("where")
class WhereProp(OperatorProperty):
    """Elements of x where the condition is non-zero, else of y."""

    sparse_form = WHERE

    @staticmethod
    def recorded_gradient(prop: Any, op: Any, og: Any, ins: list, outs: list) -> list:
        cond, zeros = ins[0], op("zeros_like", [og])
        return [
            op("zeros_like", [cond]),
            op("where", [cond, og, zeros]),
            op("where", [cond, zeros, og]),
        ]

    test = OpTest(shapes={"condition": (2, 3), "x": (2, 3), "y": (2, 3)})

    def list_arguments(self) -> list[str]:
        return ["condition", "x", "y"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        cond, x, y = in_shape
        if not shape_is_known(cond):
            return None
        t = shape_assign(self, "input", "y", y, x)
        if out_shape:
            t = shape_assign(self, "output", "output", out_shape[0], t)
        if t is None:
            return None
        if len(cond) == len(t):
            cond = shape_assign(self, "input", "condition", cond, t)
            t = cond
        elif len(cond) != 1 or cond[0] != t[0]:
            raise ShapeError(
                f"where: argument 'condition' has shape {cond}; expected the shape of x {t} "
                f"or a 1-D shape ({t[0]},) with one entry per row of x."
            )
        if not shape_is_known(t):
            return None
        return [cond, t, t], [t], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        cond, x, y = in_type
        known = x if x is not None else y
        if known is None and out_type:
            known = out_type[0]
        if known is None:
            return None
        for name, t in (("x", x), ("y", y)):
            if t is not None and t != known:
                raise DTypeError(
                    f"where: argument {name!r} has dtype {np.dtype(t).name}; "
                    f"expected {np.dtype(known).name} like the other of x, y."
                )
        return [cond, known, known], [known], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list) -> list:
        return [out_grad[0], in_data[0]]  # only the condition is read

    def create_operator(self, ctx: Context) -> Operator:
        return _WhereOp(xp=ctx.xp)


# ---- add_n ----------------------------------------------------------------------------------


class ElementWiseSumParam(Param):
    num_args: int = field(low=1, doc="Number of inputs to be summed.")


class _AddNOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        r, out = req[0], out_data[0]
        if r == OpReq.NULL:
            return
        if len(in_data) == 1:
            assign(out, r, in_data[0])
            return
        # WRITE means out shares no memory with the inputs: sum straight into it
        acc = self.xp.add(in_data[0], in_data[1], out=out if r == OpReq.WRITE else None)
        for a in in_data[2:]:
            acc += a
        assign(out, r, acc)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        for r, gi in zip(req, in_grad):
            if r != OpReq.NULL:
                assign(gi, r, out_grad[0])


@register("add_n", aliases=("ElementWiseSum",))
class AddNProp(OperatorProperty):
    """Sum of all inputs, element-wise: add_n(a1, ..., an) = a1 + ... + an."""

    param_class = ElementWiseSumParam
    sparse_form = ADD_N
    grad_stypes = all_row_sparse
    key_var_num_args = "num_args"
    test = OpTest(shapes={"arg0": (2, 3), "arg1": (2, 3), "arg2": (2, 3)}, params={"num_args": 3})

    def list_arguments(self) -> list[str]:
        return [f"arg{i}" for i in range(self.param.num_args)]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        if len(in_shape) != self.param.num_args:
            raise MXNetError(
                f"add_n: argument 'num_args' is {self.param.num_args} but "
                f"{len(in_shape)} inputs were given."
            )
        return super().infer_shape(in_shape, out_shape)

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list) -> list:
        return [out_grad[0]]

    def forward_inplace_option(self, in_data: list, out_data: list) -> list:
        return [(in_data[0], out_data[0])]

    def backward_inplace_option(
        self, out_grad: list, in_data: list, out_data: list, in_grad: list
    ) -> list:
        return [(out_grad[0], in_grad[0])]

    def create_operator(self, ctx: Context) -> Operator:
        return _AddNOp(xp=ctx.xp)


# ---- creation operators ---------------------------------------------------------------------


class InitOpParam(Param):
    shape: Shape = field(default=(), doc="The shape of the output")
    ctx: str = field(default="", doc=_CTX_DOC)
    dtype: str = field(default="float32", choices=DTYPE_NAMES, doc="Target data type.")


class InitOpWithScalarParam(InitOpParam):
    value: float = field(typename="double", doc="Value with which to fill newly created tensor")


class RangeParam(Param):
    start: float = field(
        typename="double",
        doc="Start of interval. The interval includes this value. The default start value is 0.",
    )
    stop: float | None = field(
        default=None,
        typename="double or None",
        doc="End of interval. The interval does not include this value.",
    )
    step: float = field(default=1.0, typename="double", doc="Spacing between values.")
    repeat: int = field(default=1, doc="The repeating time of all elements.")
    infer_range: bool = field(
        default=False,
        doc="When set to True, infer the stop position "
        "from the start, step, repeat, and output tensor size.",
    )
    ctx: str = field(default="", doc=_CTX_DOC)
    dtype: str = field(default="float32", choices=_NO_BOOL, doc="Target data type.")


class EyeParam(Param):
    N: int = field(typename="long", doc="Number of rows in the output.")
    M: int = field(
        default=0, typename="long", doc="Number of columns in the output. If 0, defaults to N"
    )
    k: int = field(
        default=0,
        typename="long",
        doc="Index of the diagonal. 0 (the default) refers to the main diagonal.",
    )
    ctx: str = field(default="", doc=_CTX_DOC)
    dtype: str = field(default="float32", choices=_EYE_TYPES, doc="Target data type.")


class LinspaceParam(Param):
    start: float = field(typename="double", doc="The starting value of the sequence.")
    stop: float = field(typename="double", doc="The ending value of the sequence")
    num: int = field(doc="Number of samples to generate. Must be non-negative.")
    endpoint: bool = field(
        default=True, doc="If True, stop is the last sample. Otherwise, it is not included."
    )
    ctx: str = field(default="", doc=_CTX_DOC)
    dtype: str = field(default="float32", choices=_NO_BOOL, doc="Target data type.")


class _InitOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        if req[0] != OpReq.NULL:
            out = out_data[0]
            assign(out, req[0], self.prop.values(self.xp, out.shape, out.dtype))


class _InitProp(OperatorProperty):
    """Base of the creation operators: no inputs, one output, no gradient."""

    def list_arguments(self) -> list[str]:
        return []

    def out_shape(self) -> Shape | None:
        """The output shape from the parameters (0 dims or None: unknown)."""
        # -1 is unknown too, as MXNet's legacy shape semantics convert it (shape=[-1, -1])
        return tuple(max(d, 0) for d in self.param.shape) or None

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        if in_shape:
            raise MXNetError(f"{self.op_name}: takes no inputs, got {len(in_shape)}.")
        shape = self.out_shape()
        if out_shape and out_shape[0] is not None:
            shape = shape_assign(self, "output", "output", out_shape[0], shape)
        if shape is None:
            return None
        return [], [shape], []  # partly known (0 dims) until the graph fills it

    def infer_imperative(self, shapes: tuple, dtypes: tuple):
        shape = self.out_shape()
        if shape is None or not shape_is_known(shape):
            raise ShapeError(
                f"{self.op_name}: the output shape must be known for an imperative call, got "
                f"{shape}; in MXNet's legacy shape semantics an empty shape or a 0 dimension "
                "means unknown."
            )
        return super().infer_imperative(shapes, dtypes)

    def infer_type(self, in_type: list, out_type: list | None = None):
        return [], [_np_dtype(self.op_name, self.param.dtype)], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list) -> list:
        return []

    def values(self, xp: Any, shape: Shape, dtype: np.dtype) -> Any:
        raise NotImplementedError

    def create_operator(self, ctx: Context) -> Operator:
        return _InitOp(self, ctx.xp)


class _ConstantProp(_InitProp):
    """An array of one constant, ``constant``."""

    param_class = InitOpParam
    test = OpTest(params={"shape": (2, 3)}, grad=False)
    constant = 0

    def values(self, xp: Any, shape: Shape, dtype: np.dtype) -> Any:
        return self.constant


@register("_zeros")
class ZerosProp(_ConstantProp):
    """An array of zeros (``mx.sym.zeros``)."""

    constant = 0


@register("_ones")
class OnesProp(_ConstantProp):
    """An array of ones (``mx.sym.ones``)."""

    constant = 1


@register("_full")
class FullProp(_InitProp):
    """An array filled with ``value`` (``mx.sym.full``)."""

    param_class = InitOpWithScalarParam
    test = OpTest(params={"shape": (2, 3), "value": 2.5}, grad=False)

    def values(self, xp: Any, shape: Shape, dtype: np.dtype) -> Any:
        if dtype.kind == "b":
            return bool(self.param.value)
        return _cast_scalar(self.param.value, dtype)


@register("_arange")
class ArangeProp(_InitProp):
    """Evenly spaced values in [start, stop), each repeated ``repeat`` times."""

    param_class = RangeParam
    test = OpTest(params={"start": 0.0, "stop": 3.0, "step": 0.5}, grad=False)

    def __init__(self, param: Any = None, attrs: dict[str, str] | None = None) -> None:
        super().__init__(param, attrs)
        # arange(n) counts from 0 to n; the param itself stays as given, for to_attrs
        self.start, self.stop = param.start, param.stop
        if not param.infer_range and param.stop is None:
            self.start, self.stop = 0.0, param.start

    def out_shape(self) -> Shape | None:
        p, start, stop = self.param, self.start, self.stop
        if p.step == 0:
            raise ParamError(f"_arange: argument 'step' must not be 0, got {p.step}.")
        if p.repeat <= 0:
            raise ParamError(f"_arange: argument 'repeat' must be > 0, got {p.repeat}.")
        if stop is None:
            return None  # infer_range: the consumer decides the size
        if (p.step > 0 and not start < stop) or (p.step < 0 and not start > stop):
            raise ParamError(
                f"_arange: invalid range (start, stop, step) = ({start}, {stop}, {p.step})."
            )
        return (int(math.ceil((stop - start) / p.step)) * p.repeat,)

    def values(self, xp: Any, shape: Shape, dtype: np.dtype) -> Any:
        return _range_values(xp, shape[0], self.start, self.param.step, self.param.repeat, dtype)


def _range_values(
    xp: Any, size: int, start: float, step: float, repeat: int, dtype: np.dtype
) -> Any:
    """MXNet's range kernel: ``start + (i // repeat) * step`` for i < size, in ``dtype``."""
    idx = xp.arange(size) // repeat
    if dtype.kind in "iu":
        return (int(start) + idx * int(step)).astype(dtype)  # wraps as C does
    if dtype == _F16:
        # MXNet truncates start and step to integers for float16 (its half type does not
        # count as signed there): arange(0, 1, 0.1, dtype='float16') is ten zeros
        start16, step16 = _F32.type(int(start)), _F32.type(int(step))
        return (start16 + idx.astype(_F32) * step16).astype(_F16)
    return (dtype.type(start) + idx.astype(dtype) * dtype.type(step)).astype(dtype, copy=False)


class RangeLikeParam(Param):
    start: float = field(default=0.0, typename="double", doc="Start of interval.")
    step: float = field(default=1.0, typename="double", doc="Spacing between values.")
    repeat: int = field(default=1, doc="The repeating time of all elements.")
    ctx: str = field(default="", doc=_CTX_DOC)
    axis: int | None = field(
        default=None,
        doc="Count along this axis of the input (negative counts from the back); "
        "default: fill the input's whole shape.",
    )


@register("_contrib_arange_like", aliases=("_npx_arange_like",))
class ArangeLikeProp(ArrayOp):
    """Evenly spaced values shaped like the input (or as long as one of its axes); the
    input's values are never read."""

    param_class = RangeLikeParam
    partial_shapes = True  # unknown input dims stay unknown
    test = OpTest(shapes={"data": (2, 3)}, params={"start": 1.0, "step": 0.5}, grad=False)

    def out_shapes(self, dshape: Shape) -> list[Shape]:
        axis = self.param.axis
        if axis is None:
            return [tuple(dshape)]
        return [(dshape[norm_axis(self, "axis", axis, len(dshape))],)]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        p, out = self.param, outs[0]
        return [
            _range_values(xp, out.size, p.start, p.step, p.repeat, out.dtype).reshape(out.shape)
        ]

    # MXNet's FGradient is MakeZeroGradNodes and FIgnoreInputs drops the data: the backward
    # reads nothing and the input gets a zero gradient
    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return []

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [0]  # a scalar: assign broadcasts it into the gradient


@register("_eye")
class EyeProp(_InitProp):
    """A 2-D array with ones on the k-th diagonal."""

    param_class = EyeParam
    test = OpTest(params={"N": 3, "M": 4, "k": 1}, grad=False)

    def out_shape(self) -> Shape | None:
        p = self.param
        for name in ("N", "M"):
            if getattr(p, name) < 0:
                raise ParamError(f"_eye: argument {name!r} must be >= 0, got {getattr(p, name)}.")
        return (p.N, p.M if p.M > 0 else p.N)

    def infer_imperative(self, shapes: tuple, dtypes: tuple):
        # N=0 gives a (0, 0) array: known, though a 0 dim means unknown during inference
        shape = self.out_shape()
        return [shape], [self.infer_type([])[1][0]], [], []

    def values(self, xp: Any, shape: Shape, dtype: np.dtype) -> Any:
        return xp.eye(shape[0], shape[1], self.param.k, dtype=dtype)


@register("_linspace", aliases=("_npi_linspace",))
class LinspaceProp(_InitProp):
    """``num`` evenly spaced values from start to stop (stop included when ``endpoint``)."""

    param_class = LinspaceParam
    test = OpTest(params={"start": 0.0, "stop": 1.0, "num": 5}, grad=False)

    def out_shape(self) -> Shape | None:
        if self.param.num < 0:
            raise ParamError(f"_linspace: argument 'num' must be >= 0, got {self.param.num}.")
        return (self.param.num,)

    def infer_imperative(self, shapes: tuple, dtypes: tuple):
        return [self.out_shape()], [self.infer_type([])[1][0]], [], []

    def values(self, xp: Any, shape: Shape, dtype: np.dtype) -> Any:
        p = self.param
        steps = p.num - 1 if p.endpoint else p.num
        step = (p.stop - p.start) / steps if steps > 0 else 0.0
        v = p.start + step * xp.arange(shape[0], dtype=np.float64)
        return to_int(v, dtype) if dtype.kind in "iu" else v.astype(dtype)
