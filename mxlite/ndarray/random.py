"""``mx.nd.random``: random sampling with numbers or NDArrays as distribution parameters.

Each function dispatches as MXNet 1.9.1's does: numbers go to the ``_random_X`` operator
(one distribution, ``shape`` samples; ``shape`` defaults to 1), NDArrays to ``_sample_X``
(one distribution per element; output shape ``params.shape + shape``). The ``*_like``
functions come from the registry (``_random_X_like``) when ``mxlite.ndarray`` fills this
module in.

The sampling functions of ``mx.nd.random`` and ``mx.sym.random`` are generated from one
description (:data:`DISTRIBUTIONS`, one :class:`Distribution` each) by :func:`make_sampler`,
given a :class:`SamplerKind` that says what differs between the two front ends: the array
type, the arguments after ``dtype`` and how the chosen operator is called.
"""

from __future__ import annotations

import dataclasses
import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base import MXNetError, numeric_types
from ..context import Context, current_context
from . import _internal
from .ndarray import NDArray

__all__ = [
    "uniform",
    "normal",
    "randn",
    "poisson",
    "exponential",
    "gamma",
    "multinomial",
    "negative_binomial",
    "generalized_negative_binomial",
    "shuffle",
    "randint",
]


class _NullType:
    """Marks an argument the caller did not give (MXNet's ``_Null``)."""

    def __repr__(self) -> str:
        return "_Null"


_Null: Any = _NullType()
_REQUIRED = inspect.Parameter.empty


@dataclass(frozen=True)
class Distribution:
    """One sampling function: its operators, its arguments and its documentation.

    ``args`` are (name, default, description) of the distribution parameters as the user
    gives them; ``op_args`` the ``_random_X`` parameters they become, through ``to_op``.
    """

    func: str
    random_op: str
    sample_op: str | None
    args: tuple[tuple[str, Any, str], ...]
    summary: str
    to_op: Callable[[list], list] = list
    dtypes: str = "{'float16', 'float32', 'float64'}, optional"
    dtype_doc: str = "Data type of output samples. Default is 'float32'."
    example: str = ""
    op_names: tuple[str, ...] = ()

    @property
    def op_args(self) -> tuple[str, ...]:
        """The names of the ``_random_X`` parameters that ``to_op(params)`` gives."""
        return self.op_names or tuple(name for name, _, _ in self.args)


def _dist(
    func: str, args: tuple[tuple[str, Any, str], ...], summary: str, **kw: Any
) -> Distribution:
    return Distribution(func, f"_random_{func}", f"_sample_{func}", args, summary, **kw)


_FLOATS = " the samples have a floating point data type."
DISTRIBUTIONS: dict[str, Distribution] = {
    d.func: d
    for d in (
        _dist(
            "uniform",
            (
                ("low", 0, "Lower boundary of the output interval. The default value is 0."),
                ("high", 1, "Upper boundary of the output interval. The default value is 1.0."),
            ),
            "Draw random samples from a uniform distribution on the half-open interval "
            "*[low, high)*.",
            example=">>> mx.nd.random.uniform(-1, 1, shape=(2,)).shape\n(2,)",
        ),
        _dist(
            "normal",
            (
                ("loc", 0, "Mean (centre) of the distribution."),
                ("scale", 1, "Standard deviation (spread or width) of the distribution."),
            ),
            "Draw random samples from a normal (Gaussian) distribution with mean *loc* and "
            "standard deviation *scale*.",
        ),
        _dist(
            "poisson",
            (("lam", 1, "Expectation of interval, should be >= 0."),),
            "Draw random samples from a Poisson distribution with rate *lam*;" + _FLOATS,
        ),
        _dist(
            "exponential",
            (("scale", 1, "The scale parameter, \\beta = 1/\\lambda."),),
            "Draw samples from an exponential distribution with scale *scale* (rate "
            "1/scale).\n\nIts probability density function is :math:`f(x) = \\frac{1}{\\beta} "
            "\\exp(-x/\\beta)` for\nx > 0 and 0 elsewhere, where :math:`\\beta` is the scale.",
            to_op=lambda p: [1.0 / p[0]],
            op_names=("lam",),
        ),
        _dist(
            "gamma",
            (
                ("alpha", 1, "The shape of the gamma distribution. Should be greater than zero."),
                (
                    "beta",
                    1,
                    "The scale of the gamma distribution. Should be greater than zero. "
                    "Default is 1.",
                ),
            ),
            "Draw random samples from a gamma distribution with shape *alpha* and scale *beta*.",
        ),
        _dist(
            "negative_binomial",
            (
                ("k", 1, "Limit of unsuccessful experiments, > 0."),
                ("p", 1, "Failure probability in each experiment, >= 0 and <=1."),
            ),
            "Draw random samples from a negative binomial distribution with *k* (limit of "
            "unsuccessful experiments) and *p* (failure probability in each experiment);" + _FLOATS,
        ),
        _dist(
            "generalized_negative_binomial",
            (
                ("mu", 1, "Mean of the negative binomial distribution."),
                ("alpha", 1, "Alpha (dispersion) parameter of the negative binomial distribution."),
            ),
            "Draw random samples from a generalized negative binomial distribution with mean "
            "*mu* and dispersion *alpha* (*1/k*, *k* the failure limit generalized to real "
            "numbers);" + _FLOATS,
        ),
        Distribution(
            "randint",
            "_random_randint",
            None,
            (
                ("low", _REQUIRED, "Lower boundary of the output interval."),
                (
                    "high",
                    _REQUIRED,
                    "Upper boundary of the output interval (excluded); must be greater than `low`.",
                ),
            ),
            "Draw random samples from a discrete uniform distribution on the half-open "
            "interval *[low, high)*.",
            dtypes="{'int32', 'int64'}, optional",
            dtype_doc="Data type of output samples. Default is 'int32'.",
            example=">>> mx.nd.random.randint(-10, 10, shape=(2,)).dtype\n<class 'numpy.int32'>",
        ),
    )
}

# randn draws from normal's operators; its name is its own in errors
RANDN = dataclasses.replace(DISTRIBUTIONS["normal"], func="randn")


@dataclass(frozen=True)
class SamplerKind:
    """What a front end's sampling functions differ in: the API name (for errors), the array
    type of array parameters, the arguments after ``dtype`` (name, default, and the docstring
    entry: its first line, a newline, its description) and
    ``call(dist, params, shape, dtype, kwargs)``, which runs the chosen operator (``kwargs``
    holds the values of ``extra_args``, whose type hints are ``extra_types``, with the other
    keyword arguments)."""

    api: str
    array_type: type
    extra_args: tuple[tuple[str, Any, str], ...]
    extra_types: dict[str, str]
    call: Callable[..., Any]
    examples: bool


def pick_operator(
    api: str, dist: Distribution, params: list[Any], array_type: type
) -> tuple[str, bool]:
    """The operator for ``dist`` with distribution parameters ``params``: ``_sample_X`` when
    they are all ``array_type`` (NDArray or Symbol), ``_random_X`` when all are numbers;
    the bool says which. Shared by ``mx.nd.random`` and ``mx.sym.random`` (``api``)."""
    func = dist.func
    first = params[0]
    kind = array_type if isinstance(first, array_type) else numeric_types
    if kind is numeric_types and not isinstance(first, numeric_types):
        raise MXNetError(
            f"{api}.{func}: distribution parameters must be either {array_type.__name__} or "
            f"numbers, but got {type(first).__name__}."
        )
    for p in params[1:]:
        if not isinstance(p, kind):
            raise MXNetError(
                f"{api}.{func}: distribution parameters must all have the same type, but got "
                f"both {type(first).__name__} and {type(p).__name__}."
            )
    if kind is numeric_types:
        return dist.random_op, False
    if dist.sample_op is None:
        raise MXNetError(
            f"{api}.{func}: arguments {', '.join(map(repr, dist.op_args))} must be numbers, "
            f"got {array_type.__name__}."
        )
    return dist.sample_op, True


def make_sampler(dist: Distribution, kind: SamplerKind, module: str) -> Callable[..., Any]:
    """The sampling function ``dist.func`` of front end ``kind``, in module ``module``."""
    pos = inspect.Parameter.POSITIONAL_OR_KEYWORD
    args = [*dist.args, ("shape", _Null, ""), ("dtype", _Null, ""), *kind.extra_args]
    hints = {name: "int" if dist.sample_op is None else "Any" for name, _, _ in dist.args}
    hints.update(kind.extra_types)
    sig = inspect.Signature(
        [
            inspect.Parameter(name, pos, default=default, annotation=hints.get(name, "Any"))
            for name, default, _ in args
        ]
        + [inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD, annotation="Any")],
        return_annotation=kind.array_type.__name__,
    )
    order = [name for name, _, _ in args]
    index = {name: i for i, name in enumerate(order)}
    defaults = {name: default for name, default, _ in args if default is not _REQUIRED}
    names = [name for name, _, _ in dist.args]
    extras = [name for name, _, _ in kind.extra_args]
    where = f"{kind.api}.{dist.func}"

    def sampler(*a: Any, **kw: Any) -> Any:
        # binds the arguments as a def with this signature would (Signature.bind is slower)
        if len(a) > len(order):
            raise TypeError(f"{where}: takes {len(order)} positional arguments, got {len(a)}.")
        values = {**defaults, **dict(zip(order, a))}
        rest = {}
        for key, value in kw.items():
            if key not in index:
                rest[key] = value
            elif index[key] < len(a):
                raise TypeError(f"{where}: got multiple values for argument {key!r}.")
            else:
                values[key] = value
        if len(values) < len(order):
            missing = next(name for name in order if name not in values)
            raise TypeError(f"{where}: missing required argument {missing!r}.")
        params = dist.to_op([values[n] for n in names])
        rest.update((n, values[n]) for n in extras)
        return kind.call(dist, params, values["shape"], values["dtype"], rest)

    sampler.__name__ = sampler.__qualname__ = dist.func
    sampler.__module__ = module
    sampler.__signature__ = sig  # type: ignore[attr-defined]
    sampler.__doc__ = _sampler_doc(dist, kind)
    return sampler


def _para(head: str, text: str) -> str:
    return head + "\n" + textwrap.fill(text, 92, initial_indent="    ", subsequent_indent="    ")


def make_samplers(kind: SamplerKind, module: str) -> list[Callable[..., Any]]:
    """The sampling functions of front end ``kind``, in the order of :data:`DISTRIBUTIONS`."""
    return [make_sampler(dist, kind, module) for dist in DISTRIBUTIONS.values()]


def _sampler_doc(dist: Distribution, kind: SamplerKind) -> str:
    array = kind.array_type.__name__
    first = dist.args[0][0]
    if dist.sample_op is None:
        shape = "The shape of the output."
        lines = [_para(f"{name} : int, required", doc) for name, _, doc in dist.args]
    else:
        if len(dist.args) == 1:
            per = f"per entry of `{first}` when it is an {array}"
        else:
            pair = ", ".join(name for name, _, _ in dist.args)
            per = f"per `({pair})` pair when they are {array}s"
        shape = (
            f"The number of samples to draw ({per}; the output then has shape "
            f"`{first}.shape + shape`)."
        )
        lines = [_para(f"{name} : float or {array}, optional", doc) for name, _, doc in dist.args]
    lines += [
        _para("shape : int or tuple of ints, optional", shape),
        _para(f"dtype : {dist.dtypes}", dist.dtype_doc),
    ]
    for name, _, doc in kind.extra_args:
        head, _, doc = doc.partition("\n")
        if name == "ctx" and dist.sample_op is not None:
            doc += f" Overridden by `{first}.context` when `{first}` is an {array}."
        lines.append(_para(head, doc))
    summary = "\n\n".join(textwrap.fill(part, 92) for part in dist.summary.split("\n\n"))
    text = "\n".join(
        [summary, "", "Parameters", "----------", *lines, "", "Returns", "-------", array]
    )
    text += (
        "\n    The samples." if dist.sample_op is not None else "\n    Samples from `[low, high)`."
    )
    if kind.examples and dist.example:
        text += "\n\nExamples\n--------\n" + dist.example
    return text


def randn_args(api: str, kwargs: dict[str, Any], array_type: type) -> tuple[Any, Any, Any]:
    """``randn``'s ``loc``, ``scale`` and ``dtype``, popped from its keyword arguments and
    checked (its positional arguments are the shape)."""
    loc = kwargs.pop("loc", 0)
    scale = kwargs.pop("scale", 1)
    for name, value in (("loc", loc), ("scale", scale)):
        if not isinstance(value, (int, float, array_type)):
            article = "an" if array_type.__name__[0] in "AEINO" else "a"
            raise MXNetError(
                f"{api}.randn: argument {name!r} must be a number or {article} "
                f"{array_type.__name__}, got {type(value).__name__}."
            )
    return loc, scale, kwargs.pop("dtype", _Null)


def _nd_call(
    dist: Distribution, params: list[Any], shape: Any, dtype: Any, kwargs: dict[str, Any]
) -> Any:
    """Call ``_random_X`` with scalar ``params`` or ``_sample_X`` with NDArray ``params``
    (``ctx`` and ``out`` come in ``kwargs``)."""
    ctx: Context | None = kwargs.pop("ctx", None)
    out: NDArray | None = kwargs.pop("out", None)
    if dtype is not _Null:
        # MXNet's front end passes np.dtype(dtype).name, so dtype=None means float64 there
        kwargs["dtype"] = dtype if isinstance(dtype, str) else np.dtype(dtype).name
    if shape is not _Null:
        kwargs["shape"] = shape
    if out is not None and "dtype" not in kwargs:
        # MXNet infers the dtype that is not given from ``out``.
        kwargs["dtype"] = np.dtype(out.dtype).name
    name, is_array = pick_operator("mx.nd.random", dist, params, NDArray)
    if is_array:
        return getattr(_internal, name)(*params, out=out, **kwargs)
    # MXNet takes a shape that is not given from ``out``, else draws one sample.
    kwargs.setdefault("shape", out.shape if out is not None else 1)
    scalars = dict(zip(dist.op_args, params))
    ctx = current_context() if ctx is None else ctx
    return getattr(_internal, name)(ctx=ctx, out=out, **scalars, **kwargs)


_ND = SamplerKind(
    api="mx.nd.random",
    array_type=NDArray,
    extra_args=(
        (
            "ctx",
            None,
            "ctx : Context, optional\nDevice context of output. Default is current context.",
        ),
        ("out", None, "out : NDArray, optional\nStore output to an existing NDArray."),
    ),
    extra_types={"ctx": "Context | None", "out": "NDArray | None"},
    call=_nd_call,
    examples=True,
)

(uniform, normal, poisson, exponential, gamma, negative_binomial,
 generalized_negative_binomial, randint) = make_samplers(_ND, __name__)  # fmt: skip


def randn(*shape: int, **kwargs: Any) -> NDArray:
    """Draw random samples from a normal (Gaussian) distribution; the positional arguments
    are the shape.

    Parameters
    ----------
    *shape : int
        The shape of the output (per `(loc, scale)` pair when they are NDArrays).
    loc : float or NDArray, optional
        Mean (centre) of the distribution; default 0.
    scale : float or NDArray, optional
        Standard deviation of the distribution; default 1.
    dtype : {'float16', 'float32', 'float64'}, optional
        Data type of output samples. Default is 'float32'.
    ctx : Context, optional
        Device context of output. Default is current context.
    out : NDArray, optional
        Store output to an existing NDArray.

    Returns
    -------
    NDArray
        The samples.

    Examples
    --------
    >>> mx.nd.random.randn(2, 3, loc=5, scale=1).shape
    (2, 3)
    """
    loc, scale, dtype = randn_args("mx.nd.random", kwargs, NDArray)
    return _nd_call(RANDN, [loc, scale], shape, dtype, kwargs)


def multinomial(
    data: NDArray,
    shape: Any = _Null,
    get_prob: bool = False,
    out: NDArray | None = None,
    dtype: Any = "int32",
    **kwargs: Any,
) -> Any:
    """Concurrent sampling from multiple multinomial distributions.

    `data` must sum to 1 along its last axis.

    Parameters
    ----------
    data : NDArray
        An *n* dimensional array whose last dimension has length `k`, the number of possible
        outcomes of each multinomial distribution: shape `(m, n, k)` holds `m*n`
        distributions.
    shape : int or tuple of ints, optional
        The number of samples to draw from each distribution (one when empty).
    get_prob : bool, optional
        If true, a second array holding the log likelihood of the drawn samples is also
        returned (its gradient serves score-function estimators, as in reinforcement
        learning).
    out : NDArray, optional
        Store output to an existing NDArray.
    dtype : str or numpy.dtype, optional
        Data type of the sample output array. The default is int32. The log likelihood array
        has the dtype of `data`.

    Returns
    -------
    NDArray or list of NDArray
        Samples of shape `data.shape[:-1] + shape` (`shape`, or `(1,)`, for 1-D `data`), and,
        with `get_prob`, their log likelihood.
    """
    if shape is not _Null:
        kwargs["shape"] = shape
    if not isinstance(dtype, str):
        dtype = np.dtype(dtype).name
    return _internal._sample_multinomial(data, get_prob=get_prob, out=out, dtype=dtype, **kwargs)


def shuffle(data: NDArray, **kwargs: Any) -> NDArray:
    """Shuffle the elements randomly along the first axis.

    The order of the elements in each subarray does not change: for a 2-D array the order
    of the rows changes, each row keeping its contents. `data` itself is not modified.

    Parameters
    ----------
    data : NDArray
        Input data array.
    out : NDArray, optional
        Array to store the result.

    Returns
    -------
    NDArray
        A new NDArray of the shape and type of `data`, its first axis shuffled.
    """
    return _internal._shuffle(data, **kwargs)
