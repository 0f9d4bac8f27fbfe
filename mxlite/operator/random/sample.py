"""Samplers of the common distributions, in MXNet 1.9.1's three forms.

Design note
-----------
One table (:data:`DISTRIBUTIONS`) describes each distribution once: its scalar parameters
(names, types, defaults, the checks MXNet makes on them), the input names of its array form,
and a vectorised ``draw`` that turns the device generator into samples. Three families of
operators are built from it:

* ``_random_X`` (``mx.nd.random.X`` with numbers): no inputs; ``shape``, ``ctx`` and ``dtype``
  parameters. The shape follows MXNet's legacy rules: ``()`` or a 0 dimension means "unknown",
  so the output shape must come from ``shape`` (or, in a graph, from the consumer).
* ``_random_X_like``: one input ``data`` whose shape and (floating) dtype the output takes;
  its values are never read. Gradient: zero.
* ``_sample_X`` (``mx.nd.random.X`` with NDArrays): the parameters are arrays of one shape
  ``s`` and one dtype (any numeric); the output has shape ``s + shape``, each parameter set
  drawing ``prod(shape)`` samples, and dtype ``dtype`` (float32 unless given). Gradient: zero.

Every sampler requests ``ResourceRequest.RANDOM``: the engine then runs the device's samplers
one at a time in push order, so ``mx.random.seed`` makes a run repeat exactly. The streams
differ from MXNet's (another generator), the distributions are the same, including MXNet's
mixtures: negative binomial is Poisson(Gamma(k, (1 - p) / p)), the generalized one
Poisson(Gamma(1 / alpha, alpha * mu)) (Poisson(mu) for alpha = 0). Array parameters outside a
distribution's domain give what MXNet's kernels give where that is defined (a negative
Poisson rate draws 0) rather than raising inside the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...base import DTypeError, ParamError, Shape
from ...context import Context
from ...resource import ResourceRequest
from ...util import is_np_shape
from ..param import Param, field
from ..registry import Operator, OperatorProperty, register, shape_assign, shape_is_known
from ..req import OpReq, assign

__all__ = ["DISTRIBUTIONS", "Distribution", "FLOAT_DTYPES"]

FLOAT_DTYPES = ("float16", "float32", "float64")
_INT_DTYPES = ("int32", "int64")
_FLOAT_OUT = ("float32", "float64", "float16")  # the output dtypes; the default first
_POISSON_MAX = 1.0e18  # beyond this NumPy's Poisson sampler refuses the rate


# ---- drawing --------------------------------------------------------------------------------
# Each draw takes (xp, rng, size, ft, *params) where ft is the float type to draw in and the
# params are numbers or arrays that broadcast to size; it returns the samples (any dtype).


def _rate(xp: Any, lam: Any) -> Any:
    """A Poisson rate NumPy accepts: MXNet's sampler draws 0 for rates <= 0 (and NaN)."""
    lam = xp.asarray(lam, dtype=np.float64)
    return xp.minimum(xp.where(lam > 0, lam, 0.0), _POISSON_MAX)


def _gamma(xp: Any, rng: Any, size: Shape, ft: Any, alpha: Any, beta: Any) -> Any:
    a = xp.asarray(alpha, dtype=ft)
    a = xp.where(a > 0, a, 0)  # shape 0 (and MXNet's undefined negatives) draw 0
    return rng.standard_gamma(xp.broadcast_to(a, size), dtype=ft) * beta


def _poisson(xp: Any, rng: Any, size: Shape, lam: Any) -> Any:
    return rng.poisson(xp.broadcast_to(_rate(xp, lam), size))


def _draw_uniform(xp, rng, size, ft, low, high):
    return low + (high - low) * rng.random(size, dtype=ft)


def _draw_normal(xp, rng, size, ft, loc, scale):
    return rng.standard_normal(size, dtype=ft) * scale + loc


def _draw_exponential(xp, rng, size, ft, lam):
    with np.errstate(divide="ignore"):
        return rng.standard_exponential(size, dtype=ft) / lam


def _draw_poisson(xp, rng, size, ft, lam):
    return _poisson(xp, rng, size, lam)


def _draw_negative_binomial(xp, rng, size, ft, k, p):
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = (1.0 - xp.asarray(p, dtype=np.float64)) / p
        return _poisson(xp, rng, size, _gamma(xp, rng, size, np.float64, k, scale))


def _draw_gen_negative_binomial(xp, rng, size, ft, mu, alpha):
    mu = xp.asarray(mu, dtype=np.float64)
    alpha = xp.asarray(alpha, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        shape = xp.where(alpha == 0, 1.0, 1.0 / alpha)
        lam = _gamma(xp, rng, size, np.float64, shape, alpha * mu)
    return _poisson(xp, rng, size, xp.where(alpha == 0, mu, lam))


def _draw_randint(xp, rng, size, ft, low, high):
    return rng.integers(low, high, size=size, dtype=np.int64)


# ---- the table ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Distribution:
    """One distribution: its scalar parameters ``(name, type, default, doc, check)``, a check
    being ``(relation, bound)`` such as ``('>', 0)`` or ``('>=', 'low')`` (another parameter);
    the inputs of its ``_sample_`` form ``(name, doc)`` (none: no such form); the operator
    docstring's summary; its draw; its aliases; whether it draws integers."""

    name: str
    params: tuple[tuple[str, type, Any, str, tuple | None], ...]
    inputs: tuple[tuple[str, str], ...]
    summary: str
    draw: Callable[..., Any]
    aliases: tuple[str, ...] = ()
    integer: bool = False


DISTRIBUTIONS: tuple[Distribution, ...] = (
    Distribution(
        "uniform",
        (
            ("low", float, 0.0, "Lower bound of the distribution.", None),
            ("high", float, 1.0, "Upper bound of the distribution.", (">=", "low")),
        ),
        (
            ("low", "Lower bounds of the distributions."),
            ("high", "Upper bounds of the distributions."),
        ),
        "Draw random samples from a uniform distribution on the half-open interval *[low, high)*.",
        _draw_uniform,
        ("uniform", "random_uniform"),
    ),
    Distribution(
        "normal",
        (
            ("loc", float, 0.0, "Mean of the distribution.", None),
            ("scale", float, 1.0, "Standard deviation of the distribution.", (">", 0)),
        ),
        (
            ("mu", "Means of the distributions."),
            ("sigma", "Standard deviations of the distributions."),
        ),
        "Draw random samples from a normal (Gaussian) distribution with mean *loc* and "
        "standard deviation *scale*.",
        _draw_normal,
        ("normal", "random_normal"),
    ),
    Distribution(
        "gamma",
        (
            ("alpha", float, 1.0, "Alpha parameter (shape) of the gamma distribution.", (">", 0)),
            ("beta", float, 1.0, "Beta parameter (scale) of the gamma distribution.", (">", 0)),
        ),
        (
            ("alpha", "Alpha (shape) parameters of the distributions."),
            ("beta", "Beta (scale) parameters of the distributions."),
        ),
        "Draw random samples from a gamma distribution with shape *alpha* and scale *beta*.",
        _gamma,
        ("random_gamma",),
    ),
    Distribution(
        "exponential",
        (
            (
                "lam",
                float,
                1.0,
                "Lambda parameter (rate) of the exponential distribution.",
                (">", 0),
            ),
        ),
        (("lam", "Lambda (rate) parameters of the distributions."),),
        "Draw random samples from an exponential distribution with rate *lam*.",
        _draw_exponential,
        ("random_exponential",),
    ),
    Distribution(
        "poisson",
        (("lam", float, 1.0, "Lambda parameter (rate) of the Poisson distribution.", (">=", 0)),),
        (("lam", "Lambda (rate) parameters of the distributions."),),
        "Draw random samples from a Poisson distribution with rate *lam*. Samples are "
        "returned as a floating point data type.",
        _draw_poisson,
        ("random_poisson",),
    ),
    Distribution(
        "negative_binomial",
        (
            ("k", int, 1, "Limit of unsuccessful experiments.", (">=", 0)),
            ("p", float, 1.0, "Failure probability in each experiment.", (">=", 0)),
        ),
        (
            ("k", "Limits of unsuccessful experiments."),
            ("p", "Failure probabilities in each experiment."),
        ),
        "Draw random samples from a negative binomial distribution with *k* (limit of "
        "unsuccessful experiments) and *p* (failure probability in each experiment). "
        "Samples are returned as a floating point data type.",
        _draw_negative_binomial,
        ("random_negative_binomial",),
    ),
    Distribution(
        "generalized_negative_binomial",
        (
            ("mu", float, 1.0, "Mean of the negative binomial distribution.", (">=", 0)),
            (
                "alpha",
                float,
                1.0,
                "Alpha (dispersion) parameter of the negative binomial distribution.",
                (">=", 0),
            ),
        ),
        (
            ("mu", "Means of the distributions."),
            ("alpha", "Alpha (dispersion) parameters of the distributions."),
        ),
        "Draw random samples from a generalized negative binomial distribution with mean "
        "*mu* and dispersion *alpha* (*1/k*, *k* the failure limit generalized to real "
        "numbers). Samples are returned as a floating point data type.",
        _draw_gen_negative_binomial,
        ("random_generalized_negative_binomial",),
    ),
    Distribution(
        "randint",
        (
            ("low", int, None, "Lower bound of the distribution.", None),
            ("high", int, None, "Upper bound of the distribution.", (">", "low")),
        ),
        (),
        "Draw random samples from a discrete uniform distribution on the half-open interval "
        "*[low, high)*.",
        _draw_randint,
        ("random_randint", "_npi_random_randint"),
        integer=True,
    ),
)


# ---- parameter structs ----------------------------------------------------------------------


def _param_class(name: str, fields: list[tuple[str, Any, Any]]) -> type[Param]:
    """A Param subclass with ``fields`` ``(name, annotation, field(...))`` in this order."""
    ns: dict[str, Any] = {"__module__": __name__, "__qualname__": name, "__annotations__": {}}
    for fname, annotation, spec in fields:
        ns["__annotations__"][fname] = annotation
        ns[fname] = spec
    return type(name, (Param,), ns)


def _dist_fields(dist: Distribution) -> list[tuple[str, Any, Any]]:
    out = []
    for pname, ptype, default, doc, _check in dist.params:
        if default is None:
            spec = field(doc=doc, typename="long")
        else:
            spec = field(default=default, doc=doc)
        out.append((pname, ptype, spec))
    return out


def _random_param(dist: Distribution) -> type[Param]:
    dtypes = _INT_DTYPES if dist.integer else FLOAT_DTYPES
    default = "int32" if dist.integer else "float32"
    return _param_class(
        f"Sample{_camel(dist.name)}Param",
        _dist_fields(dist)
        + [
            ("shape", tuple[int, ...], field(default=(), doc="Shape of the output.")),
            (
                "ctx",
                str,
                field(
                    default="",
                    doc="Context of output, in format [cpu|gpu|cpu_pinned](n). Only used for "
                    "imperative calls.",
                ),
            ),
            (
                "dtype",
                str | None,
                field(
                    default=None,
                    choices=dtypes,
                    doc="DType of the output in case this can't be inferred. Defaults to "
                    f"{default} if not defined (dtype=None).",
                ),
            ),
        ],
    )


def _like_param(dist: Distribution) -> type[Param]:
    return _param_class(f"Sample{_camel(dist.name)}LikeParam", _dist_fields(dist))


class MultiSampleParam(Param):
    shape: tuple[int, ...] = field(
        default=(), doc="Shape to be sampled from each random distribution."
    )
    dtype: str | None = field(
        default=None,
        choices=FLOAT_DTYPES,
        doc="DType of the output in case this can't be inferred. Defaults to float32 if not "
        "defined (dtype=None).",
    )


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def _check_params(op: str, name: str | None, dist: Distribution, param: Any) -> None:
    """MXNet's checks on the scalar parameters, made when the operator is created."""
    where = f"{op}(name={name!r})" if name else op
    for pname, _t, _d, _doc, check in dist.params:
        if check is None:
            continue
        rel, bound = check
        value = getattr(param, pname)
        limit = getattr(param, bound) if isinstance(bound, str) else bound
        ok = value > limit if rel == ">" else value >= limit
        if not ok:
            what = f"argument {bound!r} ({limit})" if isinstance(bound, str) else str(limit)
            raise ParamError(f"{where}: argument {pname!r} must be {rel} {what}, got {value}.")


# ---- operators ------------------------------------------------------------------------------


def _float_type(dtype: np.dtype) -> Any:
    return np.float64 if dtype == np.float64 else np.float32


def _shape_param(op: str, shape: Shape) -> Shape:
    if any(d <= 0 for d in shape):
        raise ParamError(
            f"{op}: argument 'shape' must have every dimension > 0, got {tuple(shape)}."
        )
    return shape


class _ZeroGradOp(Operator):
    """A sampler's gradient with respect to its inputs is zero (MXNet's MakeZeroGradNodes)."""

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        for g, r in zip(in_grad, req):
            if r != OpReq.NULL:
                assign(g, r, 0)


class _ScalarSampleOp(_ZeroGradOp):
    """``_random_X`` and ``_random_X_like``: scalar parameters, output of a given shape."""

    def __init__(self, dist: Distribution, param: Any, xp: Any) -> None:
        self.draw = dist.draw
        self.values = tuple(getattr(param, p[0]) for p in dist.params)
        self.xp = xp

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        out = out_data[0]
        if req[0] == OpReq.NULL or out.size == 0:
            return
        rng = op_ctx.requested[0].get_random()
        value = self.draw(self.xp, rng, out.shape, _float_type(out.dtype), *self.values)
        assign(out, req[0], value)


class _ArraySampleOp(_ZeroGradOp):
    """``_sample_X``: one distribution per element of the parameter arrays."""

    def __init__(self, dist: Distribution, xp: Any) -> None:
        self.draw = dist.draw
        self.xp = xp

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        out = out_data[0]
        if req[0] == OpReq.NULL or out.size == 0:
            return
        pshape = in_data[0].shape
        extra = (1,) * (out.ndim - len(pshape))
        params = [p.reshape(pshape + extra) for p in in_data]
        rng = op_ctx.requested[0].get_random()
        value = self.draw(self.xp, rng, out.shape, _float_type(out.dtype), *params)
        assign(out, req[0], value)


class _SamplerProp(OperatorProperty):
    """What every sampler shares: the random resource, and a backward that reads nothing."""

    dist: Distribution

    def forward_resource(self, in_shape: list[Shape]) -> list[Any]:
        return [ResourceRequest.RANDOM]

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list[int]:
        return []


def _out_dtype(prop: OperatorProperty, requested: str | None, out_type: list | None, allowed):
    """MXNet's SampleOpType: a known output dtype wins (it must match ``dtype`` if given),
    then ``dtype``, then the default (the first of the allowed after None)."""
    known = out_type[0] if out_type else None
    if known is not None:
        known = np.dtype(known)
        if requested is not None and known != np.dtype(requested):
            raise DTypeError(
                f"{prop.where()}: the output has dtype {known.name}, which does not match "
                f"argument 'dtype' {requested!r}."
            )
        if known.name not in allowed:
            raise DTypeError(
                f"{prop.where()}: the output dtype must be one of {', '.join(allowed)}, got "
                f"{known.name}."
            )
        return known
    return np.dtype(requested if requested is not None else allowed[0])


class _ScalarProp(_SamplerProp):
    """Samplers with scalar parameters, checked as MXNet's kernels check them."""

    @classmethod
    def parse_params(cls, kwargs: dict[str, Any], name: str | None = None) -> Any:
        param = super().parse_params(kwargs, name)
        _check_params(cls.op_name, name, cls.dist, param)
        return param


class _RandomProp(_ScalarProp):
    def list_arguments(self) -> list[str]:
        return []

    def infer_shape(self, in_shape, out_shape=None):
        shape = self.param.shape
        known = shape if shape_is_known(shape) and shape else None
        if is_np_shape():  # NumPy's rules: () is zero-dim and a 0 dim empty, both known
            known = tuple(shape)
        if out_shape and shape_is_known(out_shape[0]):
            if known is not None:
                shape_assign(self, "output", "output", out_shape[0], known)
            return [], [tuple(out_shape[0])], []
        if known is None:
            return None  # the shape comes from `shape` or from the graph
        return [], [tuple(known)], []

    def infer_type(self, in_type, out_type=None):
        allowed = _INT_DTYPES if self.dist.integer else _FLOAT_OUT
        return [], [_out_dtype(self, self.param.dtype, out_type, allowed)], []

    def create_operator(self, ctx: Context) -> Operator:
        return _ScalarSampleOp(self.dist, self.param, ctx.xp)


class _LikeProp(_ScalarProp):
    def infer_type(self, in_type, out_type=None):
        res = super().infer_type(in_type, out_type)
        if res is not None and res[1][0].name not in FLOAT_DTYPES:
            raise DTypeError(
                f"{self.where()}: input 'data' must have a floating point dtype "
                f"({', '.join(FLOAT_DTYPES)}), got {res[1][0].name}."
            )
        return res

    def create_operator(self, ctx: Context) -> Operator:
        return _ScalarSampleOp(self.dist, self.param, ctx.xp)


class _ArrayProp(_SamplerProp):
    param_class = MultiSampleParam

    @classmethod
    def parse_params(cls, kwargs: dict[str, Any], name: str | None = None) -> Any:
        param = super().parse_params(kwargs, name)
        _shape_param(cls.op_name, param.shape)
        return param

    def list_arguments(self) -> list[str]:
        return [name for name, _doc in self.dist.inputs]

    def infer_shape(self, in_shape, out_shape=None):
        names = self.list_arguments()
        sshape = tuple(self.param.shape)
        common = None
        if out_shape and out_shape[0] is not None and len(out_shape[0]) > len(sshape):
            common = tuple(out_shape[0][: len(out_shape[0]) - len(sshape)])
        for i, s in enumerate(in_shape):
            common = shape_assign(self, "input", names[i], s, common) if s is not None else common
        if common is None:
            return None
        ins = [shape_assign(self, "input", names[i], s, common) for i, s in enumerate(in_shape)]
        return ins, [tuple(common) + sshape], []

    def infer_type(self, in_type, out_type=None):
        res = super().infer_type(in_type)
        if res is None:
            return None
        return res[0], [_out_dtype(self, self.param.dtype, out_type, _FLOAT_OUT)], []

    def create_operator(self, ctx: Context) -> Operator:
        return _ArraySampleOp(self.dist, ctx.xp)


def _doc(dist: Distribution, form: str) -> str:
    if form == "like":
        return dist.summary.replace(
            "Draw random samples", "Draw random samples of the input's shape"
        )
    if form == "array":
        names = ", ".join(n for n, _d in dist.inputs)
        return (
            f"Concurrent sampling from multiple {dist.name.replace('_', ' ')} distributions "
            f"whose parameters ({names}) are given as input arrays of one shape *[s]*; the "
            "output has shape *[s]* + *shape*, with *prod(shape)* samples per distribution."
        )
    return dist.summary


def _register_all() -> None:
    for dist in DISTRIBUTIONS:
        ns = {"dist": dist, "param_class": _random_param(dist), "__doc__": _doc(dist, "random")}
        cls = type(f"Random{_camel(dist.name)}Prop", (_RandomProp,), ns)
        register(f"_random_{dist.name}", aliases=dist.aliases)(cls)
        if dist.integer:
            continue
        ns = {"dist": dist, "param_class": _like_param(dist), "__doc__": _doc(dist, "like")}
        cls = type(f"Random{_camel(dist.name)}LikeProp", (_LikeProp,), ns)
        register(f"_random_{dist.name}_like")(cls)
        ns = {"dist": dist, "__doc__": _doc(dist, "array")}
        cls = type(f"Sample{_camel(dist.name)}Prop", (_ArrayProp,), ns)
        register(f"_sample_{dist.name}", aliases=(f"sample_{dist.name}",))(cls)


_register_all()
