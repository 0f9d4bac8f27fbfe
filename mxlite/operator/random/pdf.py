"""``_random_pdf_*``: densities (or log densities) of samples under given distributions.

Design note
-----------
One table (:data:`PDFS`) lists each distribution once: its parameters (the inputs of its
``_sample_*`` operator, read from sample.py's table; Dirichlet, which has none, names its
own), its density in MXNet's own formulas (so edge values, such as ``0 * log(0)``, come out
as MXNet's kernels give them), and the derivatives of the *log* density with respect to the
sample and to each parameter. Both forms share them: the gradient of the density is the
density times the gradient of its log, so backward scales by ``out_grad`` (log form) or
``out_grad * output``.

Parameter arrays share one shape ``P``, the leading axes of ``sample`` (``sample.shape[:len(P)]``);
each parameter set applies to the samples below it, so the kernels simply broadcast ``P``
against ``sample`` and the parameter gradients sum back over the trailing axes. Dirichlet is
the one vector-valued case: the last axis of ``sample`` and ``alpha`` holds the ``k``
components, ``P`` is ``sample.shape[:alpha.ndim - 1] + (k,)`` and one density comes out per
vector (shape ``sample.shape[:-1]``, or ``(1,)`` for one vector).

Inputs and output share one floating dtype. float16 is computed in float32 (MXNet's special
functions do the same for half precision). Support is not checked, as in MXNet: the uniform
density is ``1 / (high - low)`` everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...base import DTypeError, ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, register, shape_assign
from ..req import OpReq, assign
from ..tensor.special import digamma, gammaln
from .sample import DISTRIBUTIONS

__all__ = ["PDFS", "PdfParam"]

# MXNet's normal density uses pi rounded to float32 (mxnet_op::PI), in every dtype
_SQRT_2PI = math.sqrt(2.0 * float(np.float32(math.pi)))
_LOG_SQRT_2PI = math.log(_SQRT_2PI)


class PdfParam(Param):
    is_log: bool = field(
        default=False,
        doc="If set, compute the density of the log-probability instead of the probability.",
    )


# ---- the distributions ----------------------------------------------------------------------
# logpdf(xp, x, *p) and pdf(xp, x, *p) give the values; grad(xp, x, *p) gives the derivatives
# of the log density (d_sample or None for "zero", then one per parameter), element-wise.


def _nb_lpdf(xp, x, k, p):
    # p is the failure probability, as in MXNet
    return (
        gammaln(xp, x + k) - gammaln(xp, x + 1) - gammaln(xp, k) + k * xp.log(p) + x * xp.log1p(-p)
    )


def _nb_grad(xp, x, k, p):
    return None, digamma(xp, x + k) - digamma(xp, k) + xp.log(p), k / p - x / (1 - p)


def _gnb_kp(mu, alpha):
    return 1.0 / alpha, 1.0 / (mu * alpha + 1.0)


def _gnb_grad(xp, x, mu, alpha):
    k, p = _gnb_kp(mu, alpha)
    _, gk, gp = _nb_grad(xp, x, k, p)
    den2 = (mu * alpha + 1.0) ** 2
    return None, -gp * alpha / den2, -gk / (alpha * alpha) - gp * mu / den2


def _normal_lpdf(xp, x, mu, sigma):
    return -0.5 * (x - mu) ** 2 / (sigma * sigma) - xp.log(sigma) - _LOG_SQRT_2PI


def _normal_pdf(xp, x, mu, sigma):
    return xp.exp(-0.5 * (x - mu) ** 2 / (sigma * sigma)) / (_SQRT_2PI * sigma)


def _normal_grad(xp, x, mu, sigma):
    s2 = sigma * sigma
    d = x - mu
    return -d / s2, d / s2, (d * d - s2) / (s2 * sigma)


def _gamma_lpdf(xp, x, alpha, beta):
    return alpha * xp.log(beta) + (alpha - 1) * xp.log(x) - beta * x - gammaln(xp, alpha)


def _gamma_grad(xp, x, alpha, beta):
    return (
        (alpha - 1) / x - beta,
        xp.log(beta) + xp.log(x) - digamma(xp, alpha),
        alpha / beta - x,
    )


@dataclass(frozen=True)
class Pdf:
    """One distribution of the table: parameter names and docs, values and derivatives."""

    name: str
    params: tuple[tuple[str, str], ...]  # (argument name, description)
    logpdf: Callable[..., Any]
    grad: Callable[..., tuple]
    pdf: Callable[..., Any] | None = None  # MXNet's direct form where it has one
    vector: bool = False  # Dirichlet: the last axis holds one sample vector
    reads_sample: bool = True  # whether the gradient reads the sample


# the parameters are the inputs of the distribution's _sample_* operator
_INPUTS = {dist.name: dist.inputs for dist in DISTRIBUTIONS}

PDFS: tuple[Pdf, ...] = (
    Pdf(
        "uniform",
        _INPUTS["uniform"],
        logpdf=lambda xp, x, lo, hi: xp.broadcast_to(-xp.log(hi - lo), x.shape),
        pdf=lambda xp, x, lo, hi: xp.broadcast_to(1 / (hi - lo), x.shape),
        grad=lambda xp, x, lo, hi: (None, 1 / (hi - lo), 1 / (lo - hi)),
        reads_sample=False,
    ),
    Pdf(
        "normal",
        _INPUTS["normal"],
        logpdf=_normal_lpdf,
        pdf=_normal_pdf,
        grad=_normal_grad,
    ),
    Pdf(
        "gamma",
        _INPUTS["gamma"],
        logpdf=_gamma_lpdf,
        grad=_gamma_grad,
    ),
    Pdf(
        "exponential",
        _INPUTS["exponential"],
        logpdf=lambda xp, x, lam: xp.log(lam) - lam * x,
        pdf=lambda xp, x, lam: lam * xp.exp(-lam * x),
        grad=lambda xp, x, lam: (-lam, 1 / lam - x),
    ),
    Pdf(
        "poisson",
        _INPUTS["poisson"],
        logpdf=lambda xp, x, lam: x * xp.log(lam) - gammaln(xp, x + 1) - lam,
        grad=lambda xp, x, lam: (None, x / lam - 1),
    ),
    Pdf(
        "negative_binomial",
        _INPUTS["negative_binomial"],
        logpdf=_nb_lpdf,
        grad=_nb_grad,
    ),
    Pdf(
        "generalized_negative_binomial",
        _INPUTS["generalized_negative_binomial"],
        logpdf=lambda xp, x, mu, alpha: _nb_lpdf(xp, x, *_gnb_kp(mu, alpha)),
        grad=_gnb_grad,
    ),
    Pdf(
        "dirichlet",
        (("alpha", "Concentration parameters of the distributions."),),
        logpdf=lambda xp, x, alpha: (
            ((alpha - 1) * xp.log(x)).sum(axis=-1)
            + gammaln(xp, alpha.sum(axis=-1))
            - gammaln(xp, alpha).sum(axis=-1)
        ),
        grad=lambda xp, x, alpha: (
            (alpha - 1) / x,
            xp.log(x) + digamma(xp, alpha.sum(axis=-1, keepdims=True)) - digamma(xp, alpha),
        ),
        vector=True,
    ),
)


# ---- operator -------------------------------------------------------------------------------


def _compute_type(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def _expand(pdf: Pdf, sample_ndim: int, p: Any) -> Any:
    """View a parameter array so that it broadcasts against the samples."""
    extra = sample_ndim - p.ndim
    if pdf.vector:
        return p.reshape(p.shape[:-1] + (1,) * extra + p.shape[-1:])
    return p.reshape(p.shape + (1,) * extra)


class _PdfOp(Operator):
    def __init__(self, pdf: Pdf, is_log: bool, xp: Any) -> None:
        self.pdf = pdf
        self.is_log = is_log
        self.xp = xp

    def _inputs(self, sample: Any, params: list[Any]) -> tuple[Any, list[Any]]:
        ct = _compute_type(sample.dtype)
        x = sample.astype(ct, copy=False)
        return x, [_expand(self.pdf, x.ndim, p.astype(ct, copy=False)) for p in params]

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        if req[0] == OpReq.NULL or out_data[0].size == 0:
            return
        xp, pdf = self.xp, self.pdf
        x, params = self._inputs(in_data[0], in_data[1:])
        with np.errstate(all="ignore"):
            if self.is_log:
                value = pdf.logpdf(xp, x, *params)
            elif pdf.pdf is not None:
                value = pdf.pdf(xp, x, *params)
            else:
                value = xp.exp(pdf.logpdf(xp, x, *params))
        assign(out_data[0], req[0], value.reshape(out_data[0].shape))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        xp, pdf = self.xp, self.pdf
        # the sample's shape (the density's, where backward does not read the sample)
        gshape = in_data[0].shape if pdf.reads_sample else out_grad[0].shape
        ct = _compute_type(out_grad[0].dtype)
        sample = in_data[0] if pdf.reads_sample else xp.zeros(gshape, ct)
        x, params = self._inputs(sample, in_data[1:])
        head = out_grad[0].astype(ct, copy=False)
        if not self.is_log:
            head = head * out_data[0].astype(ct, copy=False)
        # one density per sample vector: its scale applies to every component
        scale = head.reshape(gshape[:-1] + (1,) if pdf.vector else gshape)
        with np.errstate(all="ignore"):
            derivs = pdf.grad(xp, x, *params)
            # every gradient is computed before any is written: dx may share out_grad's memory
            grads = [None if d is None else scale * d for d in derivs]
        for i, g in enumerate(grads):
            if req[i] == OpReq.NULL:
                continue
            if g is None:
                assign(in_grad[i], req[i], 0)
                continue
            g = xp.broadcast_to(g, gshape)
            if i > 0:  # a parameter: sum over the samples each parameter set applies to
                ndim = in_grad[i].ndim - (1 if pdf.vector else 0)
                g = g.sum(axis=tuple(range(ndim, len(gshape) - (1 if pdf.vector else 0))))
            assign(in_grad[i], req[i], g.reshape(in_grad[i].shape))


class _PdfProp(OperatorProperty):
    pdf: Pdf
    param_class = PdfParam

    def list_arguments(self) -> list[str]:
        return ["sample", *(name for name, _ in self.pdf.params)]

    def infer_shape(self, in_shape, out_shape=None):
        if any(s is None or len(s) == 0 for s in in_shape):
            return None  # MXNet waits until every input's rank is known
        names = self.list_arguments()
        shapes = [tuple(s) for s in in_shape]
        for i in range(2, len(shapes)):
            shapes[i] = shape_assign(self, "input", names[i], shapes[i], shapes[i - 1])
        sample, pshape = shapes[0], shapes[1]
        if len(pshape) > len(sample):
            raise ShapeError(
                f"{self.where()}: input 'sample' has {len(sample)} dimensions {sample}; it "
                f"needs at least as many as the distribution parameters {pshape}."
            )
        lead = sample[: len(pshape)]
        if self.pdf.vector:
            lead = lead[:-1] + sample[-1:]
        for i in range(1, len(shapes)):
            shapes[i] = shape_assign(self, "input", names[i], shapes[i], lead)
        if self.pdf.vector:
            oshape = (1,) if len(sample) == 1 else sample[:-1]
        else:
            oshape = sample
        if out_shape and out_shape[0] is not None:
            oshape = shape_assign(self, "output", "output", out_shape[0], oshape)
        return shapes, [oshape], []

    def infer_type(self, in_type, out_type=None):
        res = super().infer_type(in_type, out_type)
        if res is not None and np.dtype(res[1][0]).kind != "f":
            raise DTypeError(
                f"{self.where()}: input 'sample' has dtype {np.dtype(res[1][0]).name}; this "
                "operation only supports floating point types (float16, float32, float64)."
            )
        return res

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list[int]:
        deps = [*out_grad, *(in_data if self.pdf.reads_sample else in_data[1:])]
        return deps if self.param.is_log else [*deps, *out_data]

    def backward_inplace_option(self, out_grad, in_data, out_data, in_grad) -> list[tuple]:
        # the sample's gradient has the density's shape (not so for Dirichlet's vectors)
        return [] if self.pdf.vector else [(out_grad[0], in_grad[0])]

    def create_operator(self, ctx: Context) -> Operator:
        return _PdfOp(self.pdf, self.param.is_log, ctx.xp)


def _doc(pdf: Pdf) -> str:
    names = ", ".join(f"*{n}*" for n, _ in pdf.params)
    where = "the last axis of *sample* holds one sample vector, " if pdf.vector else ""
    return (
        f"Computes the value of the PDF of *sample* of {pdf.name.replace('_', ' ')} "
        f"distributions with parameters {names}.\n\n"
        f"The parameters share one shape, which must match the leftmost subshape of *sample* "
        f"({where}so *sample* may hold one or many samples per distribution); the output "
        "holds one density per sample. With *is_log* the log density is computed instead."
    )


def _register_all() -> None:
    for pdf in PDFS:
        cls = type(
            f"Pdf{pdf.name.title().replace('_', '')}Prop",
            (_PdfProp,),
            {"pdf": pdf, "__doc__": _doc(pdf), "__module__": __name__},
        )
        register(f"_random_pdf_{pdf.name}", aliases=(f"random_pdf_{pdf.name}",))(cls)


_register_all()
