"""Contrib optimizer updates: AdamW (``_adamw_update``, ``_mp_adamw_update`` and their
``_multi_*`` forms, which ``mx.nd.contrib.adamw_update`` & co. call) and
``_contrib_group_adagrad_update``.

AdamW decouples weight decay from the adaptive step::

    g = clip(rescale_grad * grad, clip_gradient)
    mean = beta1 * mean + (1 - beta1) * g
    var = beta2 * var + (1 - beta2) * g**2
    w = w - eta * (lr * mean / (sqrt(var) + epsilon) + wd * w)

``rescale_grad`` is an input array (one value), so a loss scaler can change it without a new
operator; when it is 0, NaN or infinite the update is skipped and nothing changes. The states
(mean, var, and the float32 master weight of the ``mp`` forms) are updated in place
(``mutate_inputs``), interleaved per weight as in MXNet: ``weight, grad, mean, var[, weight32]``
for each weight, then ``rescale_grad``.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from ...context import Context
from ..optimizer_multi_ops import InterleavedUpdateProp
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, register, shape_assign
from ..req import OpReq, assign

__all__: list[str] = []

_F32 = np.dtype(np.float32)
_CG = (
    "Clip gradient to the range of [-clip_gradient, clip_gradient] If clip_gradient <= 0, "
    "gradient clipping is turned off. grad = max(min(grad, clip_gradient), -clip_gradient)."
)
_WD = (
    "Weight decay augments the objective function with a regularization term that penalizes "
    "large weights. The penalty scales with the square of the magnitude of each weight."
)


def _f(x: float) -> Any:
    return np.float32(x)  # MXNet keeps these parameters as C floats


class AdamWParam(Param):
    lr: float = field(doc="Learning rate")
    beta1: float = field(default=0.9, doc="The decay rate for the 1st moment estimates.")
    beta2: float = field(default=0.999, doc="The decay rate for the 2nd moment estimates.")
    epsilon: float = field(default=1e-8, doc="A small constant for numerical stability.")
    wd: float = field(default=0.0, doc=_WD)
    eta: float = field(doc="Learning rate schedule multiplier")
    clip_gradient: float = field(default=-1.0, doc=_CG)


class MultiAdamWParam(Param):
    lrs: tuple[float, ...] = field(doc="Learning rates")
    beta1: float = field(default=0.9, doc="The decay rate for the 1st moment estimates.")
    beta2: float = field(default=0.999, doc="The decay rate for the 2nd moment estimates.")
    epsilon: float = field(default=1e-8, doc="A small constant for numerical stability.")
    wds: tuple[float, ...] = field(doc=_WD)
    etas: tuple[float, ...] = field(doc="Learning rates schedule multiplier")
    clip_gradient: float = field(default=-1.0, doc=_CG)
    num_weights: int = field(default=1, low=1, doc="Number of updated weights.")


class _AdamWProp(InterleavedUpdateProp):
    """Inputs ``weight, grad, mean, var[, weight32]`` per weight, then ``rescale_grad``; one
    output per weight (its new value)."""

    mp: ClassVar[bool] = False
    multi: ClassVar[bool] = False

    @property
    def group(self) -> tuple[str, ...]:
        return ("weight", "grad", "mean", "var", "weight32") if self.mp else (
            "weight", "grad", "mean", "var")  # fmt: skip

    def n_weights(self) -> int:
        return super().n_weights() if self.multi else 1

    def list_arguments(self) -> list[str]:
        return [*super().list_arguments(), "rescale_grad"] if self.multi else [
            *self.group, "rescale_grad"]  # fmt: skip

    def list_outputs(self) -> list[str]:
        return super().list_outputs() if self.multi else ["output"]

    def infer_shape(self, in_shape, out_shape=None):
        self.check_counts(len(in_shape), ("rescale_grad",))
        ins, outs = self.group_shapes(in_shape, out_shape)
        if ins[-1] is None:
            ins[-1] = (1,)
        if any(s is None for s in outs):
            return None
        return ins, outs, []

    def infer_type(self, in_type, out_type=None):
        self.check_counts(len(in_type), ("rescale_grad",))
        result = self.per_weight_types(in_type, out_type, floats_only=True)
        if result is None:
            return None
        ins, outs = result
        if ins[-1] is None:
            ins[-1] = _F32
        return ins, outs, []

    def create_operator(self, ctx: Context) -> Operator:
        return _AdamWOp(self)


class _AdamWOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        prop, p = self.prop, self.prop.param
        k = len(prop.group)
        scale = float(np.asarray(in_data[-1]).reshape(-1)[0])
        skip = not math.isfinite(scale) or scale == 0
        b1, b2, eps = _f(p.beta1), _f(p.beta2), _f(p.epsilon)
        for i in range(prop.n_weights()):
            w, g, mean, var = in_data[i * k : i * k + 4]
            if skip:
                if req[i] != OpReq.NULL and out_data[i] is not w:
                    assign(out_data[i], req[i], w)
                continue
            lr, wd, eta = (p.lrs[i], p.wds[i], p.etas[i]) if prop.multi else (p.lr, p.wd, p.eta)
            master = in_data[i * k + 4] if prop.mp else w
            gs = g.astype(mean.dtype, copy=False) * _f(scale)
            if p.clip_gradient >= 0:
                gs = gs.clip(-_f(p.clip_gradient), _f(p.clip_gradient))
            mean[...] = b1 * mean + (1 - b1) * gs
            var[...] = b2 * var + (1 - b2) * gs * gs
            new = master - _f(eta) * (_f(lr) * mean / (np.sqrt(var) + eps) + _f(wd) * master)
            if prop.mp:
                master[...] = new
            assign(out_data[i], req[i], new.astype(out_data[i].dtype, copy=False))


def _define(name: str, mp: bool, multi: bool, doc: str) -> None:
    body = {
        "__doc__": doc,
        "param_class": MultiAdamWParam if multi else AdamWParam,
        "mp": mp,
        "multi": multi,
        "per_weight": ("lrs", "wds", "etas") if multi else (),
    }
    register(name)(type(f"{name}_prop", (_AdamWProp,), body))


_define("_adamw_update", False, False,
        "Update function for AdamW optimizer.")  # fmt: skip
_define("_mp_adamw_update", True, False,
        "Update function for multi-precision AdamW optimizer.")  # fmt: skip
_define("_multi_adamw_update", False, True,
        "Update function for AdamW optimizer, for num_weights weights at once.")  # fmt: skip
_define("_multi_mp_adamw_update", True, True,
        "Update function for multi-precision AdamW optimizer, for num_weights weights at "
        "once.")  # fmt: skip


# ---- group_adagrad_update ---------------------------------------------------------------------


class GroupAdagradParam(Param):
    lr: float = field(doc="Learning rate")
    rescale_grad: float = field(default=1.0, doc="Rescale gradient to grad = rescale_grad*grad.")
    clip_gradient: float = field(default=-1.0, doc=_CG)
    epsilon: float = field(default=1e-5, doc="Epsilon for numerical stability")


@register("_contrib_group_adagrad_update")
class GroupAdagradProp(OperatorProperty):
    """AdaGrad with one history value per row: ``history`` (rows, 1) is updated in place."""

    param_class = GroupAdagradParam
    test = OpTest(
        shapes={"weight": (3, 4), "grad": (3, 4), "history": (3, 1)},
        params={"lr": 0.1},
        low=0.0,
        grad=False,
        accumulates=False,  # updates weight and history in place
    )

    def list_arguments(self) -> list[str]:
        return ["weight", "grad", "history"]

    def mutate_inputs(self) -> list[int]:
        return [2]

    def infer_shape(self, in_shape, out_shape=None):
        w = shape_assign(self, "input", "weight", in_shape[0], out_shape[0] if out_shape else None)
        w = shape_assign(self, "input", "grad", in_shape[1], w)
        if w is None:
            return None
        h = shape_assign(self, "input", "history", in_shape[2], (w[0], 1))
        return [w, w, h], [w], []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        return []

    def forward_inplace_option(self, in_data, out_data):
        return [(in_data[0], out_data[0])]

    def create_operator(self, ctx: Context) -> Operator:
        return _GroupAdagradOp(self)


class _GroupAdagradOp(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        p = self.prop.param
        w, g, hist = in_data
        dt = w.dtype.type
        gs = g * dt(p.rescale_grad)
        if p.clip_gradient >= 0:
            gs = gs.clip(-dt(p.clip_gradient), dt(p.clip_gradient))
        rows = gs.reshape(gs.shape[0], -1)
        hist[...] += (rows * rows).mean(axis=1).reshape(hist.shape)
        step = dt(p.lr) * rows / np.sqrt(hist.reshape(-1, 1) + dt(p.epsilon))
        assign(out_data[0], req[0], (w - step.reshape(w.shape)).astype(w.dtype, copy=False))
