"""NumPy-style samplers (MXNet 1.9.1's src/operator/numpy/random/): ``_npi_uniform``,
``_npi_normal`` (and their ``_n`` forms), ``_npi_gamma``, ``_npi_exponential``, ``_npi_weibull``,
``_npi_pareto``, ``_npi_powerd``, ``_npi_rayleigh``, ``_npi_gumbel``, ``_npi_logistic``,
``_npi_bernoulli``, ``_npi_choice`` and ``_npi_multinomial``. ``_npi_shuffle`` and
``_npi_random_randint`` are aliases of the legacy samplers (mxlite/operator/random/).

A parameter given as a number is a scalar parameter; one left None comes as an array input
(MXNet's ``input1``, ``input2``). The output has shape ``size``, or the inputs' broadcast shape
without it (``()`` with neither); the ``_n`` forms prepend ``size`` to the broadcast shape.
The samplers MXNet differentiates (normal, exponential, weibull, pareto, rayleigh, gumbel,
logistic) keep the standard draw they transform as a hidden second output ``noise`` and
differentiate the transform (the reparameterisation gradient); the others have zero
gradients. The streams differ from MXNet's (another generator); the distributions are the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ...base import ParamError, Shape, ShapeError
from ...resource import ResourceRequest
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, register
from ..req import OpReq, assign

_CTX_DOC = "Context of output, in format [cpu|gpu|cpu_pinned](n). Only used for imperative calls."
_SIZE_DOC = "Output shape; None: a single value, or the broadcast shape of the inputs."
_FLOATS = ("float32", "float64", "float16")


def _unbroadcast(xp: Any, g: Any, shape: Shape) -> Any:
    extra = g.ndim - len(shape)
    g = g.sum(axis=tuple(range(extra))) if extra else g
    axes = tuple(i for i, d in enumerate(shape) if d == 1 and g.shape[i] != 1)
    return g.sum(axis=axes, keepdims=True) if axes else g


class _NpSamplerOp(Operator):
    def _values(self, in_data: list) -> list:
        it = iter(in_data)
        return [next(it) if getattr(self.prop.param, n) is None else getattr(self.prop.param, n)
                for n in self.prop.dist_params]  # fmt: skip

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        out = out_data[0]
        if req[0] == OpReq.NULL:
            return
        if out.size == 0:
            for o in out_data:
                assign(o, OpReq.WRITE, 0)
            return
        rng = op_ctx.requested[0].get_random()
        ft = np.float64 if out.dtype == np.float64 else np.float32
        values = self._values(in_data)
        try:
            self.prop.check_values(values)
        except ParamError as exc:  # raised at the wait as ValueError, as MXNet's check is
            raise ValueError(str(exc)) from None
        res = self.prop.draw(self.xp, rng, out.shape, ft, *values)
        res = res if isinstance(res, tuple) else (res,)
        for o, r, v in zip(out_data, req, res):
            if r != OpReq.NULL:
                assign(o, r, v)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        grads: list = [None] * len(in_grad)
        if self.prop.grad is not None and len(out_data) > 1:
            values = self._values(in_data)
            names = [n for n in self.prop.dist_params if getattr(self.prop.param, n) is None]
            full = self.prop.grad(self.xp, out_data[1], *values)
            per_name = dict(zip(self.prop.dist_params, full))
            grads = [_unbroadcast(self.xp, out_grad[0] * per_name[n], x.shape)
                     for n, x in zip(names, in_data)]  # fmt: skip
        for g, r, v in zip(in_grad, req, grads):
            if r != OpReq.NULL:
                assign(g, r, 0 if v is None else v)


class _NpSamplerProp(OperatorProperty):
    """A broadcasting sampler: scalar parameters or array inputs, NumPy's ``size``."""

    dist_params: ClassVar[tuple[str, ...]] = ()
    draw: ClassVar[Callable[..., Any]]
    grad: ClassVar[Callable[..., Any] | None] = None  # d sample / d param, from the noise
    prepend_size: ClassVar[bool] = False  # the _n forms
    out_dtype: ClassVar[str | None] = "float32"  # None: the dtype parameter
    positive: ClassVar[tuple[str, ...]] = ()  # parameters that must be > 0 (MXNet checks them)
    nonnegative: ClassVar[tuple[str, ...]] = ()  # parameters that must be >= 0 (a scale)

    def check_values(self, values: list) -> None:
        """Raise ValueError (ParamError) for parameter values outside the distribution's domain,
        as MXNet's kernels do; arrays are checked when the sampler runs."""
        for name, v in zip(self.dist_params, values):
            if v is None:
                continue
            if name in self.positive and bool(np.any(np.asarray(v) <= 0)):
                raise ParamError(f"{self.where()}: ValueError: expect {name} > 0.")
            if name in self.nonnegative and bool(np.any(np.asarray(v) < 0)):
                raise ParamError(f"{self.where()}: ValueError: expect {name} >= 0.")

    def list_arguments(self) -> list[str]:
        n = sum(getattr(self.param, p) is None for p in self.dist_params)
        return ["input1", "input2"][:n]

    def list_outputs(self) -> list[str]:
        return ["output", "noise"] if self.grad is not None else ["output"]

    def num_visible_outputs(self) -> int:
        return 1

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        self.check_values([getattr(self.param, n) for n in self.dist_params])
        if any(s is None for s in in_shape):
            return None
        size = self.param.size
        try:
            batch = tuple(np.broadcast_shapes(*in_shape)) if in_shape else ()
        except ValueError:
            raise ShapeError(f"{self.where()}: the inputs' shapes {in_shape} do not "
                             "broadcast.") from None  # fmt: skip
        if size is None:
            out = batch
        elif self.prepend_size:
            out = tuple(size) + batch
        else:
            out = tuple(size)
            try:
                ok = np.broadcast_shapes(out, batch) == out
            except ValueError:
                ok = False
            if not ok:
                raise ShapeError(f"{self.where()}: the inputs' shape {batch} does not broadcast "
                                 f"to size {out}.")  # fmt: skip
        return list(in_shape), [out] * self.num_outputs(), []

    def infer_type(self, in_type: list, out_type: list | None = None):
        dt = np.dtype(self.out_dtype or self.param.dtype or "float32")
        ins = [t if t is not None else np.dtype(np.float32) for t in in_type]
        return ins, [dt] * self.num_outputs(), []

    def forward_resource(self, in_shape: list[Shape]) -> list[Any]:
        return [ResourceRequest.RANDOM]

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list:
        return [*out_grad, *in_data, *out_data] if self.grad is not None else []

    def create_operator(self, ctx: Any) -> Operator:
        return _NpSamplerOp(self, ctx.xp)


def _param(name: str, params: tuple[tuple[str, str], ...], dtype: bool) -> type[Param]:
    ns: dict[str, Any] = {"__module__": __name__, "__qualname__": name, "__annotations__": {}}
    for pname, doc in params:
        ns["__annotations__"][pname] = float | None
        ns[pname] = field(default=None, doc=doc)
    ns["__annotations__"]["size"] = tuple[int, ...] | None
    ns["size"] = field(default=None, doc=_SIZE_DOC)
    ns["__annotations__"]["ctx"] = str
    ns["ctx"] = field(default="cpu", doc=_CTX_DOC)
    if dtype:
        ns["__annotations__"]["dtype"] = str
        ns["dtype"] = field(default="float32", choices=_FLOATS, doc="DType of the output.")
    return type(name, (Param,), ns)


def _exp(xp, rng, size, ft):
    return rng.standard_exponential(size, dtype=ft)


def _sampler(name: str, params: tuple[tuple[str, str], ...], draw: Callable, grad: Any = None,
             dtype: bool = False, prepend: bool = False, doc: str = "",
             positive: tuple[str, ...] = (),
             nonnegative: tuple[str, ...] = ()) -> None:  # fmt: skip
    cls = type(
        f"Np{name.title().replace('_', '')}Prop",
        (_NpSamplerProp,),
        {
            "__doc__": doc,
            "__module__": __name__,
            "param_class": _param(f"Numpy{name.title().replace('_', '')}Param", params, dtype),
            "dist_params": tuple(p for p, _ in params),
            "draw": staticmethod(draw),
            "grad": None if grad is None else staticmethod(grad),
            "prepend_size": prepend,
            "positive": positive,
            "nonnegative": nonnegative,
            "out_dtype": None if dtype else "float32",
            "test": OpTest(
                shapes={"input1": (2, 3)}, params={"size": (2, 3)}, low=0.5, high=1.0, grad=False
            )
            if len(params) == 1
            else OpTest(
                shapes={"input1": (2, 3)},
                params={params[1][0]: 1.0, "size": (2, 3)},
                low=0.5,
                high=1.0,
                grad=False,
            ),  # fmt: skip
        },
    )
    register(f"_npi_{name}")(cls)


def _uniform(xp, rng, size, ft, low, high):
    return low + (high - low) * rng.random(size, dtype=ft)


def _normal(xp, rng, size, ft, loc, scale):
    noise = rng.standard_normal(size, dtype=ft)
    return loc + scale * noise, noise


def _gamma(xp, rng, size, ft, shape, scale):
    return rng.standard_gamma(np.broadcast_to(np.maximum(shape, 0), size), dtype=ft) * scale


def _exponential(xp, rng, size, ft, scale):
    noise = _exp(xp, rng, size, ft)
    return scale * noise, noise


def _weibull(xp, rng, size, ft, a):
    noise = _exp(xp, rng, size, ft)
    return noise ** (1.0 / a), noise


def _weibull_grad(xp, noise, a):
    with np.errstate(divide="ignore", invalid="ignore"):
        x = noise ** (1.0 / a)
        d = -x * np.log(noise) / (a * a)
    return (np.where(np.isfinite(d), d, 0),)


def _pareto(xp, rng, size, ft, a):
    noise = _exp(xp, rng, size, ft)
    return np.expm1(noise / a), noise


def _powerd(xp, rng, size, ft, a):
    return (-np.expm1(-_exp(xp, rng, size, ft))) ** (1.0 / a)


def _rayleigh(xp, rng, size, ft, scale):
    noise = np.sqrt(2.0 * _exp(xp, rng, size, ft))
    return scale * noise, noise


def _gumbel(xp, rng, size, ft, loc, scale):
    noise = -np.log(_exp(xp, rng, size, ft))
    return loc + scale * noise, noise


def _logistic(xp, rng, size, ft, loc, scale):
    u = rng.random(size, dtype=ft)
    with np.errstate(divide="ignore"):
        noise = np.log(u) - np.log1p(-u)
    return loc + scale * noise, noise


def _bernoulli(xp, rng, size, ft, prob, logit):
    p = 1.0 / (1.0 + np.exp(-logit)) if prob is None else prob
    return rng.random(size) < p


_LOC = (("loc", "Mean (centre) of the distribution."),
        ("scale", "Scale (spread) of the distribution."))  # fmt: skip
_shift_scale = lambda xp, noise, loc, scale: (1.0, noise)  # noqa: E731
_scale_only = lambda xp, noise, scale: (noise,)  # noqa: E731

for _prepend in (False, True):
    _suffix = "_n" if _prepend else ""
    _sampler(f"uniform{_suffix}", (("low", "Lower boundary of the output interval."),
                                   ("high", "Upper boundary of the output interval.")),
             _uniform, dtype=True, prepend=_prepend,
             doc="Samples from the uniform distribution on [low, high).")  # fmt: skip
    _sampler(f"normal{_suffix}", _LOC, _normal, _shift_scale, dtype=True, prepend=_prepend,
             doc="Samples from the normal distribution N(loc, scale**2).",
             nonnegative=("scale",))  # fmt: skip

_sampler("gamma", (("shape", "The shape of the gamma distribution."),
                   ("scale", "The scale of the gamma distribution.")),
         _gamma, dtype=True, doc="Samples from the gamma distribution.",
         positive=("shape", "scale"))  # fmt: skip
_sampler("exponential", (("scale", "The scale (1/rate) of the distribution."),), _exponential,
         _scale_only, doc="Samples from the exponential distribution.",
         nonnegative=("scale",))  # fmt: skip
_sampler("weibull", (("a", "The shape of the Weibull distribution."),), _weibull,
         _weibull_grad, doc="Samples from the Weibull distribution with shape a.",
         positive=("a",))  # fmt: skip
_sampler("pareto", (("a", "The shape of the Pareto distribution."),), _pareto,
         lambda xp, noise, a: (-(np.expm1(noise / a) + 1) * noise / (a * a),),
         doc="Samples from the Pareto II (Lomax) distribution with shape a.",
         positive=("a",))  # fmt: skip
_sampler("powerd", (("a", "The exponent of the power distribution."),), _powerd,
         doc="Samples in [0, 1] from the power distribution with exponent a - 1.",
         positive=("a",))  # fmt: skip
_sampler("rayleigh", (("scale", "The scale of the Rayleigh distribution."),), _rayleigh,
         _scale_only, doc="Samples from the Rayleigh distribution.",
         nonnegative=("scale",))  # fmt: skip
_sampler("gumbel", _LOC, _gumbel, _shift_scale, doc="Samples from the Gumbel distribution.",
         nonnegative=("scale",))  # fmt: skip
_sampler("logistic", _LOC, _logistic, _shift_scale,
         doc="Samples from the logistic distribution.", nonnegative=("scale",))  # fmt: skip


class NumpyBernoulliParam(Param):
    prob: float | None = field(default=None, doc="The probability of 1.")
    logit: float | None = field(default=None, doc="The log-odds of 1.")
    size: tuple[int, ...] | None = field(default=None, doc=_SIZE_DOC)
    ctx: str = field(default="cpu", doc=_CTX_DOC)
    dtype: str = field(default="float32", choices=(*_FLOATS, "int32", "uint8", "bool"),
                       doc="DType of the output.")  # fmt: skip
    is_logit: bool = field(default=False, doc="Whether the array input is logits.")


@register("_npi_bernoulli")
class NpBernoulliProp(_NpSamplerProp):
    """Bernoulli samples (1 with probability ``prob``, or sigmoid(``logit``))."""

    param_class = NumpyBernoulliParam
    dist_params = ("prob", "logit")
    out_dtype = None

    def check_values(self, values: list) -> None:
        """``prob`` must lie in [0, 1] (ValueError, as MXNet)."""
        prob = values[0]
        if prob is not None and bool(np.any((np.asarray(prob) < 0) | (np.asarray(prob) > 1))):
            raise ParamError(f"{self.where()}: ValueError: expect prob in [0, 1].")

    test = OpTest(shapes={"input1": (2, 3)}, params={"size": (2, 3)}, low=0.1, high=0.9,
                  grad=False)  # fmt: skip

    def list_arguments(self) -> list[str]:
        p = self.param
        return ["input1"] if p.prob is None and p.logit is None else []

    draw = staticmethod(_bernoulli)

    def create_operator(self, ctx: Any) -> Operator:
        return _BernoulliOp(self, ctx.xp)


class _BernoulliOp(_NpSamplerOp):
    def _values(self, in_data: list) -> list:
        p = self.prop.param
        if p.prob is None and p.logit is None:
            return [None, in_data[0]] if p.is_logit else [in_data[0], None]
        return [p.prob, p.logit]


class NumpyChoiceParam(Param):
    a: int | None = field(default=None, doc="Draw from arange(a); None: from the indices of "
                          "the first input (its size is the population).")  # fmt: skip
    size: tuple[int, ...] | None = field(default=None, doc=_SIZE_DOC)
    ctx: str = field(default="cpu", doc=_CTX_DOC)
    # MXNet's 'replace' (default true) would hide Param.replace: it stays in ``extra``
    allow_unknown = True
    weighted: bool = field(default=False, doc="Whether a weight (probability) input is given.")


def _replace(param: Param) -> bool:
    return param.extra.get("replace", "True").lower() in ("true", "1")


class _ChoiceOp(Operator):
    def __init__(self, prop: NpChoiceProp) -> None:
        self.prop = prop

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        p = self.prop.param
        out = out_data[0]
        if req[0] == OpReq.NULL or out.size == 0:
            return
        rng = op_ctx.requested[0].get_random()
        population = int(p.a) if p.a is not None else int(in_data[0].size)
        w = None
        if p.weighted:
            w = np.asarray(in_data[-1], dtype=np.float64)
            w = w / w.sum()
        assign(out, req[0], rng.choice(population, size=out.shape, replace=_replace(p), p=w))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        for g, r in zip(in_grad, req):
            if r != OpReq.NULL:
                assign(g, r, 0)


@register("_npi_choice")
class NpChoiceProp(OperatorProperty):
    """Samples from arange(a), with or without replacement, optionally weighted (int64). With
    ``a`` None, the population is the size of the first input (``np.random.choice`` of an array
    takes the samples' indices from here); the weights come last."""

    param_class = NumpyChoiceParam
    test = OpTest(params={"a": 5, "size": (3,)}, grad=False)

    def list_arguments(self) -> list[str]:
        n = int(self.param.weighted) + int(self.param.a is None)
        return ["input1", "input2"][:n]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        p = self.param
        population = p.a
        if p.a is None:
            if in_shape[0] is None:
                return None
            population = int(np.prod(in_shape[0], dtype=np.int64))
        elif p.a <= 0:
            raise ParamError(f"{self.where()}: argument 'a' must be a positive int, got {p.a}.")
        size = tuple(p.size) if p.size is not None else ()
        if not _replace(p) and int(np.prod(size)) > population:
            raise ParamError(f"{self.where()}: cannot take a larger sample than population "
                             "when replace=False.")  # fmt: skip
        return list(in_shape), [size], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        ins = [t if t is not None else np.dtype(np.float32) for t in in_type]
        return ins, [np.dtype(np.int64)], []

    def forward_resource(self, in_shape: list[Shape]) -> list[Any]:
        return [ResourceRequest.RANDOM]

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list:
        return []

    def create_operator(self, ctx: Any) -> Operator:
        return _ChoiceOp(self)


class NumpyMultinomialParam(Param):
    n: int = field(doc="Number of experiments.")
    pvals: tuple[float, ...] | None = field(default=None, doc="Probabilities of the outcomes.")
    size: tuple[int, ...] | None = field(default=None, doc=_SIZE_DOC)


class _MultinomialOp(_ChoiceOp):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        p = self.prop.param
        out = out_data[0]
        if req[0] == OpReq.NULL or out.size == 0:
            return
        # MXNet's check: running sums (in the pvals' dtype) at most 1; then each draw takes the
        # first outcome whose running sum passes a uniform value, else the last one
        pv = np.asarray(in_data[0] if p.pvals is None else p.pvals)
        if pv.dtype.kind != "f":
            pv = pv.astype(np.float64)
        if bool(np.any(np.cumsum(pv) > 1.0 + 1e-12)):
            raise ValueError(f"{self.prop.where()}: sum(pvals[:-1]) > 1.0")
        reach = np.minimum(np.cumsum(pv.astype(np.float64))[:-1], 1.0)
        probs = np.diff(np.concatenate([[0.0], reach, [1.0]]))
        rng = op_ctx.requested[0].get_random()
        assign(out, req[0], rng.multinomial(p.n, probs, size=out.shape[:-1]))


@register("_npi_multinomial")
class NpMultinomialProp(NpChoiceProp):
    """Counts of ``n`` experiments over the outcomes of ``pvals``, per ``size`` (int64)."""

    param_class = NumpyMultinomialParam
    test = OpTest(params={"n": 5, "pvals": (0.2, 0.8), "size": (3,)}, grad=False)

    def list_arguments(self) -> list[str]:
        return ["a"] if self.param.pvals is None else []

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        p = self.param
        k = len(p.pvals) if p.pvals is not None else (in_shape[0][-1] if in_shape[0] else None)
        if k is None:
            return None
        size = tuple(p.size) if p.size is not None else ()
        return list(in_shape), [size + (k,)], []

    def create_operator(self, ctx: Any) -> Operator:
        return _MultinomialOp(self)
