"""NumPy-style reductions (MXNet 1.9.1's np_broadcast_reduce_op_*.cc, np_moments_op.cc):
``_np_sum``, ``_np_prod``, ``_np_max``/``_np_min`` (aliases ``_np_amax``/``_np_amin``),
``_npi_mean``, ``_npi_std``, ``_npi_var``, ``_npi_argmax``/``_npi_argmin`` and
``_np_all``/``_np_any``.

NumPy's axis rules, unlike the legacy ``sum``: ``axis=None`` reduces every axis into a
zero-dim result (shape ``()``), ``axis=()`` reduces none, and a zero-size axis reduces to the
identity (0 for sum, 1 for prod). MXNet's dtypes: sum and prod of bool give int64, of an
integer its own dtype; mean of an integer gives float32; ``dtype=`` overrides; argmax/argmin
give int64; all/any give bool.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base import ShapeError
from ...context import Context
from ..param import DTYPE_NAMES, Param, field
from ..registry import Operator, OperatorProperty, OpTest, register
from ..req import OpReq, assign
from .dtypes import BOOL, FLOAT32, INT64

_NULL = OpReq.NULL  # quicker than OpReq.X (req.py)

_AXIS_DOC = "Axis or axes along which to reduce; None reduces all of them."
_KEEP_DOC = "Keep the reduced axes in the result as dimensions of size one."


class NumpyReduceAxesParam(Param):
    axis: tuple[int, ...] | None = field(default=None, doc=_AXIS_DOC)
    dtype: str | None = field(default=None, choices=DTYPE_NAMES, doc="The output dtype.")
    keepdims: bool = field(default=False, doc=_KEEP_DOC)
    initial: float | None = field(default=None, doc="Starting value for the reduction.")


class NumpyReduceAxesNoDTypeParam(Param):
    axis: tuple[int, ...] | None = field(default=None, doc=_AXIS_DOC)
    keepdims: bool = field(default=False, doc=_KEEP_DOC)
    initial: float | None = field(default=None, doc="Starting value for the reduction.")


class NumpyReduceAxesBoolParam(Param):
    axis: tuple[int, ...] | None = field(default=None, doc=_AXIS_DOC)
    keepdims: bool = field(default=False, doc=_KEEP_DOC)


class NumpyMomentsParam(Param):
    axis: tuple[int, ...] | None = field(default=None, doc=_AXIS_DOC)
    dtype: str | None = field(default=None, choices=DTYPE_NAMES, doc="The output dtype.")
    ddof: int = field(default=0, doc="Delta degrees of freedom: the divisor is N - ddof.")
    keepdims: bool = field(default=False, doc=_KEEP_DOC)


class NumpyReduceAxisParam(Param):
    axis: int | None = field(default=None, doc="The axis to search; None flattens first.")
    keepdims: bool = field(default=False, doc=_KEEP_DOC)


def np_reduce_axes(op: str, ishape: tuple, axis: Any) -> tuple[int, ...]:
    """The axes NumPy reduces for ``axis`` (None: all; an int or a tuple), sorted, checked."""
    ndim = len(ishape)
    if axis is None:
        return tuple(range(ndim))
    items = (axis,) if isinstance(axis, int) else tuple(axis)
    out = []
    for a in items:
        if not -ndim <= a < ndim:
            raise ShapeError(
                f"{op}: argument 'axis' {a} is out of bounds for an array of dimension {ndim}."
            )
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ShapeError(f"{op}: argument 'axis' has duplicates: {items}.")
    return tuple(sorted(out))


def _out_shape(ishape: tuple, red: tuple[int, ...], keepdims: bool) -> tuple:
    if keepdims:
        return tuple(1 if i in red else n for i, n in enumerate(ishape))
    return tuple(n for i, n in enumerate(ishape) if i not in red)


class _NpReduceOperator(Operator):
    def forward(self, op_ctx: Any, in_data: list, req: list, out_data: list, aux: list) -> None:
        if req[0] == _NULL:
            return
        x, out = in_data[0], out_data[0]
        red = self.prop.axes(x.shape)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            y = self.prop.compute(self.xp, x, red, out.dtype)
        assign(out, req[0], y.reshape(out.shape))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        if req[0] == _NULL:
            return
        x, y, dx = in_data[0], out_data[0], in_grad[0]
        red = self.prop.axes(x.shape)
        keep = _out_shape(x.shape, red, True)
        g = out_grad[0].reshape(keep)
        if dx.dtype.kind == "f" and g.dtype != dx.dtype:  # computed in the input's dtype
            g = g.astype(dx.dtype)
        with np.errstate(divide="ignore", invalid="ignore"):
            grad = self.prop.gradient(self.xp, g, x, y.reshape(keep), red)
        assign(dx, req[0], grad)  # the write broadcasts it to x's shape


class _NpReduceProp(OperatorProperty):
    """A reduction over ``param.axis`` with NumPy's rules (see the module note)."""

    param_class: Any = NumpyReduceAxesParam
    arg_name = "a"

    def list_arguments(self) -> list[str]:
        return [self.arg_name]

    def axes(self, ishape: tuple) -> tuple[int, ...]:
        return np_reduce_axes(self.op_name, ishape, self.param.axis)

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        self.check_num_inputs(in_shape)
        s = in_shape[0]
        if s is None:
            return None
        red = self.axes(s)
        self.check_nonempty(s, red)
        return [s], [_out_shape(s, red, self.param.keepdims)], []

    def check_nonempty(self, shape: tuple, red: tuple[int, ...]) -> None:
        pass

    def out_dtype(self, t: np.dtype) -> np.dtype:
        dt = getattr(self.param, "dtype", None)
        if dt is not None:
            return np.dtype(dt)
        return INT64 if t == BOOL else t

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = in_type[0]
        if t is None:
            return None
        return [t], [self.out_dtype(np.dtype(t))], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list) -> list:
        return [*out_grad, *in_data, *out_data]

    def create_operator(self, ctx: Context) -> Operator:
        return _NpReduceOperator(self, ctx.xp)

    def compute(self, xp: Any, x: Any, red: tuple, dtype: np.dtype) -> Any:
        raise NotImplementedError

    def gradient(self, xp: Any, g: Any, x: Any, y: Any, red: tuple) -> Any:
        raise NotImplementedError


def _acc_dtype(x: Any, dtype: np.dtype) -> np.dtype:
    """The dtype a sum or mean of ``x`` accumulates in for an output of ``dtype``, as MXNet's
    kernels: a float input at least in float32 (float16 sums would lose digits), then cast to
    ``dtype``; an integer input in ``dtype`` itself (wrapping as NumPy does)."""
    if x.dtype.kind != "f":
        return dtype
    acc = np.promote_types(x.dtype, dtype) if dtype.kind == "f" else x.dtype
    return np.promote_types(acc, FLOAT32)


def _initial(param: Any) -> dict:
    return {} if getattr(param, "initial", None) is None else {"initial": param.initial}


@register("_np_sum")
class NpSumProp(_NpReduceProp):
    """Sum of array elements over the given axes (``np.sum``)."""

    np_signature = "(a, axis=None, dtype=None, keepdims=False, initial=None, out=None)"

    test = OpTest(shapes={"a": (2, 3)}, params={"axis": (1,)})

    def compute(self, xp: Any, x: Any, red: tuple, dtype: np.dtype) -> Any:
        acc = _acc_dtype(x, dtype)
        # NumPy's sum is this reduction behind two Python wrappers (~2 us on a small array)
        total = np.add.reduce if xp is np else xp.sum
        y = total(x, axis=red, dtype=acc, keepdims=True, **_initial(self.param))
        return y if acc == dtype else y.astype(dtype)

    def gradient(self, xp: Any, g: Any, x: Any, y: Any, red: tuple) -> Any:
        return g


@register("_np_prod", aliases=("_np_product",))
class NpProdProp(_NpReduceProp):
    """Product of array elements over the given axes (``np.prod``)."""

    np_signature = "(a, axis=None, dtype=None, out=None, keepdims=False)"

    test = OpTest(shapes={"a": (2, 3)}, params={"axis": (1,)}, low=0.5, high=2.0)

    def compute(self, xp: Any, x: Any, red: tuple, dtype: np.dtype) -> Any:
        return xp.prod(x, axis=red, dtype=dtype, keepdims=True, **_initial(self.param))

    def gradient(self, xp: Any, g: Any, x: Any, y: Any, red: tuple) -> Any:
        return g * y / x


@register("_npi_mean")
class NpMeanProp(_NpReduceProp):
    """Arithmetic mean over the given axes (``np.mean``); integers give float32."""

    test = OpTest(shapes={"a": (2, 3)}, params={"axis": (1,)})

    def out_dtype(self, t: np.dtype) -> np.dtype:
        if self.param.dtype is not None:
            return np.dtype(self.param.dtype)
        return t if t.kind == "f" else FLOAT32

    def compute(self, xp: Any, x: Any, red: tuple, dtype: np.dtype) -> Any:
        acc = _acc_dtype(x, dtype)
        y = xp.mean(x, axis=red, dtype=acc, keepdims=True)
        return y if acc == dtype else y.astype(dtype)

    def gradient(self, xp: Any, g: Any, x: Any, y: Any, red: tuple) -> Any:
        n = math.prod([x.shape[i] for i in red])
        return g / max(n, 1)


class _NpExtremumProp(_NpReduceProp):
    param_class = NumpyReduceAxesNoDTypeParam
    fn_name = "max"
    np_signature = "(a, axis=None, keepdims=False, out=None)"

    def check_nonempty(self, shape: tuple, red: tuple[int, ...]) -> None:
        if any(shape[i] == 0 for i in red) and getattr(self.param, "initial", None) is None:
            raise ShapeError(
                f"{self.op_name}: cannot reduce a zero-size axis of shape {tuple(shape)} "
                "without an initial value."
            )

    def compute(self, xp: Any, x: Any, red: tuple, dtype: np.dtype) -> Any:
        return getattr(xp, self.fn_name)(x, axis=red, keepdims=True, **_initial(self.param))

    def gradient(self, xp: Any, g: Any, x: Any, y: Any, red: tuple) -> Any:
        return g * (x == y)


@register("_np_max", aliases=("_np_amax",))
class NpMaxProp(_NpExtremumProp):
    """Maximum over the given axes (``np.max``); the gradient goes to every maximum."""

    test = OpTest(shapes={"a": (2, 3)}, params={"axis": (1,)})
    fn_name = "max"


@register("_np_min", aliases=("_np_amin",))
class NpMinProp(_NpExtremumProp):
    """Minimum over the given axes (``np.min``); the gradient goes to every minimum."""

    test = OpTest(shapes={"a": (2, 3)}, params={"axis": (1,)})
    fn_name = "min"


class _NpMomentProp(_NpReduceProp):
    param_class = NumpyMomentsParam

    def _var(self, xp: Any, x: Any, red: tuple) -> Any:
        return xp.var(x, axis=red, ddof=self.param.ddof, keepdims=True)


@register("_npi_var")
class NpVarProp(_NpMomentProp):
    """Variance over the given axes (``np.var``), divisor N - ddof."""

    test = OpTest(shapes={"a": (2, 3)}, params={"axis": (1,)})

    def compute(self, xp: Any, x: Any, red: tuple, dtype: np.dtype) -> Any:
        return self._var(xp, x, red)

    def gradient(self, xp: Any, g: Any, x: Any, y: Any, red: tuple) -> Any:
        n = int(np.prod([x.shape[i] for i in red]))
        mean = xp.mean(x, axis=red, keepdims=True)
        return g * 2 * (x - mean) / max(n - self.param.ddof, 1)


@register("_npi_std")
class NpStdProp(_NpMomentProp):
    """Standard deviation over the given axes (``np.std``), divisor N - ddof."""

    test = OpTest(shapes={"a": (2, 3)}, params={"axis": (1,)})

    def compute(self, xp: Any, x: Any, red: tuple, dtype: np.dtype) -> Any:
        return xp.sqrt(self._var(xp, x, red))

    def gradient(self, xp: Any, g: Any, x: Any, y: Any, red: tuple) -> Any:
        n = int(np.prod([x.shape[i] for i in red]))
        mean = xp.mean(x, axis=red, keepdims=True)
        return g * (x - mean) / (max(n - self.param.ddof, 1) * y)


class _NpBoolReduceProp(_NpReduceProp):
    param_class = NumpyReduceAxesBoolParam
    fn_name = "all"
    np_signature = "(a, axis=None, keepdims=False, out=None)"
    test = OpTest(shapes={"a": (2, 3)}, params={"axis": (1,)}, grad=False)

    def out_dtype(self, t: np.dtype) -> np.dtype:
        return BOOL

    def compute(self, xp: Any, x: Any, red: tuple, dtype: np.dtype) -> Any:
        return getattr(xp, self.fn_name)(x, axis=red, keepdims=True)

    def gradient(self, xp: Any, g: Any, x: Any, y: Any, red: tuple) -> Any:
        return xp.zeros(x.shape, g.dtype)


@register("_np_all")
class NpAllProp(_NpBoolReduceProp):
    """Whether every element along the given axes is true (``np.all``)."""

    fn_name = "all"


@register("_np_any", aliases=("_np_sometrue",))
class NpAnyProp(_NpBoolReduceProp):
    """Whether any element along the given axes is true (``np.any``)."""

    fn_name = "any"


class _NpSearchOperator(Operator):
    def forward(self, op_ctx: Any, in_data: list, req: list, out_data: list, aux: list) -> None:
        p = self.prop.param
        fn = getattr(self.xp, self.prop.fn_name)
        y = fn(in_data[0], axis=p.axis, keepdims=p.keepdims)
        assign(out_data[0], req[0], y.reshape(out_data[0].shape))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        assign(in_grad[0], req[0], 0)


class _NpSearchProp(OperatorProperty):
    param_class = NumpyReduceAxisParam
    fn_name = "argmax"
    test = OpTest(shapes={"data": (2, 3)}, params={"axis": 1}, grad=False)

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        self.check_num_inputs(in_shape)
        s = in_shape[0]
        if s is None:
            return None
        p = self.param
        if p.axis is None:
            if 0 in s:
                raise ShapeError(f"{self.op_name}: attempt to get {self.fn_name} of an empty "
                                 "sequence.")  # fmt: skip
            return [s], [(1,) * len(s) if p.keepdims else ()], []
        if not s and p.axis in (0, -1):  # a zero-dim array has one element along axis 0, as NumPy
            return [s], [()], []
        red = np_reduce_axes(self.op_name, s, p.axis)
        if s[red[0]] == 0:
            raise ShapeError(f"{self.op_name}: attempt to get {self.fn_name} of an empty sequence.")
        return [s], [_out_shape(s, red, p.keepdims)], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None:
            return None
        return [in_type[0]], [INT64], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list) -> list:
        return []

    def create_operator(self, ctx: Context) -> Operator:
        return _NpSearchOperator(self, ctx.xp)


@register("_npi_argmax")
class NpArgmaxProp(_NpSearchProp):
    """Index of the maximum along ``axis`` (flattened when None), as int64."""

    fn_name = "argmax"


@register("_npi_argmin")
class NpArgminProp(_NpSearchProp):
    """Index of the minimum along ``axis`` (flattened when None), as int64."""

    fn_name = "argmin"
