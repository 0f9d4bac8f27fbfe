"""``_multi_lamb_update`` and ``_multi_mp_lamb_update``: one LAMB step for several weights
(``mx.nd.contrib.multi_lamb_update`` / ``multi_mp_lamb_update`` call them).

Per weight, with ``t`` its entry of ``step_count``::

    g = clip(rescale_grad * grad, clip_gradient)
    mean = beta1 * mean + (1 - beta1) * g
    var = beta2 * var + (1 - beta2) * g**2
    u = mean_hat / (sqrt(var_hat) + epsilon) + wd * w   (hats: divided by 1 - beta**t,
                                                          with bias_correction)
    r1 = ||weight|| (bounded by lower_bound / upper_bound when they are >= 0), r2 = ||u||
    w = w - lr * (r1 / r2 if both are nonzero else 1) * u

Inputs are ``weight, grad, mean, var[, weight32]`` for each weight; mean, var (and the
float32 master weight of the ``mp`` form, from which ``w`` is then read) are updated in place.
As in MXNet, ``r1`` is the norm of the ``weight`` input itself, also in the ``mp`` form.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ...context import Context
from ..optimizer_multi_ops import InterleavedUpdateProp
from ..param import Param, field
from ..registry import Operator, register
from ..req import assign

__all__: list[str] = []

_F32 = np.dtype(np.float32)


class MultiLAMBParam(Param):
    learning_rates: tuple[float, ...] = field(doc="List of learning rates")
    beta1: float = field(default=0.9, doc="Exponential decay rate for the first moment estimates.")
    beta2: float = field(
        default=0.999, doc="Exponential decay rate for the second moment estimates."
    )
    epsilon: float = field(default=1e-6, doc="Small value to avoid division by 0.")
    wds: tuple[float, ...] = field(
        doc="List of Weight decays.Weight decay augments the objective function with a "
        "regularization term that penalizes large weights. The penalty scales with the square "
        "of the magnitude of each weight."
    )
    rescale_grad: float = field(default=1.0, doc="Gradient rescaling factor")
    lower_bound: float = field(
        default=-1.0,
        doc="Lower limit of norm of weight. If lower_bound <= 0, Lower limit is not set",
    )
    upper_bound: float = field(
        default=-1.0,
        doc="Upper limit of norm of weight. If upper_bound <= 0, Upper limit is not set",
    )
    clip_gradient: float = field(
        default=-1.0,
        doc="Clip gradient to the range of [-clip_gradient, clip_gradient] If clip_gradient "
        "<= 0, gradient clipping is turned off. grad = max(min(grad, clip_gradient), "
        "-clip_gradient).",
    )
    bias_correction: bool = field(default=True, doc="Whether to use bias correction.")
    step_count: tuple[int, ...] = field(doc="Step count for each tensor")
    num_tensors: int = field(default=1, low=1, doc="Number of tensors")


class _MultiLAMBProp(InterleavedUpdateProp):
    """Compute the LAMB coefficients of multiple weights and grads, and update them."""

    param_class = MultiLAMBParam
    mp: ClassVar[bool] = False
    count_field: ClassVar[str] = "num_tensors"
    per_weight: ClassVar[tuple[str, ...]] = ("learning_rates", "wds", "step_count")

    @property
    def group(self) -> tuple[str, ...]:
        return ("weight", "grad", "mean", "var", "weight32")[: 5 if self.mp else 4]

    def infer_type(self, in_type, out_type=None):
        self.check_counts(len(in_type))
        result = self.per_weight_types(in_type, out_type, floats_only=False)
        return None if result is None else (*result, [])

    def create_operator(self, ctx: Context) -> Operator:
        return _MultiLAMBOp(self)


class _MultiLAMBOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        prop, p = self.prop, self.prop.param
        k = len(prop.group)
        for i in range(p.num_tensors):
            weight, grad, mean, var = in_data[i * k : i * k + 4]
            t = mean.dtype.type  # float32 for half weights (MXNet's MPDType)
            w = in_data[i * k + 4] if prop.mp else weight.astype(t, copy=False)
            g = grad.astype(t) * t(p.rescale_grad)
            if p.clip_gradient >= 0:
                g = g.clip(-t(p.clip_gradient), t(p.clip_gradient))
            b1, b2 = t(p.beta1), t(p.beta2)
            mean[...] = b1 * mean + (1 - b1) * g
            var[...] = b2 * var + (1 - b2) * g * g
            m, v = mean, var
            if p.bias_correction:
                step = t(p.step_count[i])
                m = mean / (1 - b1**step)
                v = var / (1 - b2**step)
            u = (m / (np.sqrt(v) + t(p.epsilon)) + t(p.wds[i]) * w).astype(np.float32)
            r1 = np.float32(np.sqrt(np.square(weight, dtype=np.float32).sum()))
            r2 = np.float32(np.sqrt(np.square(u).sum()))
            if p.lower_bound >= 0:
                r1 = max(r1, np.float32(p.lower_bound))
            if p.upper_bound >= 0:
                r1 = min(r1, np.float32(p.upper_bound))
            ratio = t(1) if r1 == 0 or r2 == 0 else t(r1 / r2)
            new = w - t(p.learning_rates[i]) * ratio * u.astype(t, copy=False)
            if prop.mp:
                w[...] = new
            assign(out_data[i], req[i], new.astype(out_data[i].dtype, copy=False))


@register("_multi_lamb_update")
class MultiLAMBProp(_MultiLAMBProp):
    """Compute the LAMB coefficients of multiple weights and grads, and update them."""


@register("_multi_mp_lamb_update")
class MultiMPLAMBProp(_MultiLAMBProp):
    """Compute the LAMB coefficients of multiple weights and grads with Mix Precision, and
    update them (float32 master weights ``weight32``)."""

    mp = True
