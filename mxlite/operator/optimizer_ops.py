"""The fused optimizer update operators of ``mx.nd`` (``sgd_update``, ``adam_update``, ...).

Design note
-----------
Each operator reads a weight and a gradient, updates its optimizer states (momentum, means,
a float32 master copy ...) in place and writes the new weight to its output, which callers
pass as ``out=weight``. Semantics, names, parameters and defaults follow MXNet 1.9.1's
``src/operator/optimizer_op.cc``, including its quirks (``nag_mom_update`` updates the
momentum with the *new* weight when it runs in place; ``mp_lamb_update_phase2`` does not
write ``weight32``).

The states that MXNet marks as mutated inputs (``FMutateInputs``) are declared here as the
operator's auxiliary states: they are always the trailing inputs of the single-tensor
operators, so ``mx.nd.sgd_mom_update(w, g, mom, lr=.1, out=w)`` hands ``mom`` to
``invoke`` as an auxiliary state and its var lands in ``mutate_vars``; a later read of
``mom`` therefore waits for the update. This is also what NNVM reports for these ops
(mutated inputs are auxiliary states of a symbol).

The ``multi_*`` operators, whose states interleave with weights and gradients, are in
optimizer_multi_ops.py.

Scalar parameters are rounded to float32 first, as MXNet stores them as C ``float``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ..base import DTypeError, ShapeError
from .param import Param, field
from .registry import Operator, OperatorProperty, dtype_assign, register, shape_assign
from .req import OpReq, assign
from .sparse.forms_tensor import LAZY_UPDATE, LAZY_UPDATE_RSP_WEIGHT

__all__: list[str] = []

_F32 = np.dtype(np.float32)


def _f(x: float) -> float:
    return float(np.float32(x))


def _clip(xp: Any, x: Any, bound: float) -> Any:
    return xp.clip(x, -bound, bound) if bound >= 0 else x


def _sign(xp: Any, x: Any) -> Any:
    return xp.sign(x)


def _aliased(xp: Any, a: Any, b: Any) -> bool:
    shares = getattr(xp, "shares_memory", None)
    return a is b or (shares is not None and bool(shares(a, b)))


# ---- parameters ------------------------------------------------------------------------------

_LR = "Learning rate"
_WD = (
    "Weight decay augments the objective function with a regularization term that penalizes "
    "large weights. The penalty scales with the square of the magnitude of each weight."
)
_RS = "Rescale gradient to grad = rescale_grad*grad."
_CG = (
    "Clip gradient to the range of [-clip_gradient, clip_gradient] If clip_gradient <= 0, "
    "gradient clipping is turned off. grad = max(min(grad, clip_gradient), -clip_gradient)."
)
_LAZY = "If true, lazy updates are applied if gradient's stype is row_sparse."


class SignSGDParam(Param):
    lr: float = field(doc=_LR)
    wd: float = field(default=0.0, doc=_WD)
    rescale_grad: float = field(default=1.0, doc=_RS)
    clip_gradient: float = field(default=-1.0, doc=_CG)


class SGDParam(SignSGDParam):
    """SignSGD's parameters followed by ``lazy_update``."""

    lazy_update: bool = field(default=True, doc=_LAZY)


class NAGMomParam(Param):
    lr: float = field(doc=_LR)
    momentum: float = field(default=0.0, doc="The decay rate of momentum estimates.")
    wd: float = field(default=0.0, doc=_WD)
    rescale_grad: float = field(default=1.0, doc=_RS)
    clip_gradient: float = field(default=-1.0, doc=_CG)


class SGDMomParam(NAGMomParam):
    """NAG's parameters followed by ``lazy_update``."""

    lazy_update: bool = field(default=True, doc=_LAZY)


class SignumParam(NAGMomParam):
    """NAG's parameters followed by ``wd_lh``."""

    wd_lh: float = field(default=0.0, doc="The amount of weight decay that does not go into "
                         "gradient/momentum calculations otherwise do weight decay algorithmically "
                         "only.")  # fmt: skip


class AdamParam(Param):
    lr: float = field(doc=_LR)
    beta1: float = field(default=0.9, doc="The decay rate for the 1st moment estimates.")
    beta2: float = field(default=0.999, doc="The decay rate for the 2nd moment estimates.")
    epsilon: float = field(default=1e-8, doc="A small constant for numerical stability.")
    wd: float = field(default=0.0, doc=_WD)
    rescale_grad: float = field(default=1.0, doc=_RS)
    clip_gradient: float = field(default=-1.0, doc=_CG)
    lazy_update: bool = field(default=True, doc=_LAZY)


class RMSPropParam(Param):
    lr: float = field(doc=_LR)
    gamma1: float = field(default=0.95, doc="The decay rate of momentum estimates.")
    epsilon: float = field(default=1e-8, doc="A small constant for numerical stability.")
    wd: float = field(default=0.0, doc=_WD)
    rescale_grad: float = field(default=1.0, doc=_RS)
    clip_gradient: float = field(default=-1.0, doc=_CG)
    clip_weights: float = field(default=-1.0, doc="Clip weights to the range of "
                                "[-clip_weights, clip_weights] If clip_weights <= 0, weight "
                                "clipping is turned off.")  # fmt: skip


class RMSPropAlexParam(Param):
    lr: float = field(doc=_LR)
    gamma1: float = field(default=0.95, doc="Decay rate.")
    gamma2: float = field(default=0.9, doc="Decay rate.")
    epsilon: float = field(default=1e-8, doc="A small constant for numerical stability.")
    wd: float = field(default=0.0, doc=_WD)
    rescale_grad: float = field(default=1.0, doc=_RS)
    clip_gradient: float = field(default=-1.0, doc=_CG)
    clip_weights: float = field(default=-1.0, doc="Clip weights to the range of "
                                "[-clip_weights, clip_weights].")  # fmt: skip


class FtrlParam(Param):
    lr: float = field(doc=_LR)
    lamda1: float = field(default=0.01, doc="The L1 regularization coefficient.")
    beta: float = field(default=1.0, doc="Per-Coordinate Learning Rate beta.")
    wd: float = field(default=0.0, doc=_WD)
    rescale_grad: float = field(default=1.0, doc=_RS)
    clip_gradient: float = field(default=-1.0, doc=_CG)


class FTMLParam(Param):
    lr: float = field(doc=_LR)
    beta1: float = field(default=0.6, low=0.0, high=1.0, doc="Generally close to 0.5.")
    beta2: float = field(default=0.999, low=0.0, high=1.0, doc="Generally close to 1.")
    epsilon: float = field(default=1e-8, doc="Epsilon to prevent div 0.")
    t: int = field(doc="Number of update.")
    wd: float = field(default=0.0, doc=_WD)
    rescale_grad: float = field(default=1.0, doc=_RS)
    clip_grad: float = field(default=-1.0, doc=_CG)


class LambPhase1Param(Param):
    beta1: float = field(default=0.9, doc="The decay rate for the 1st moment estimates.")
    beta2: float = field(default=0.999, doc="The decay rate for the 2nd moment estimates.")
    epsilon: float = field(default=1e-6, doc="A small constant for numerical stability.")
    t: int = field(doc="Index update count.")
    bias_correction: bool = field(default=True, doc="Whether to use bias correction.")
    wd: float = field(doc=_WD)
    rescale_grad: float = field(default=1.0, doc=_RS)
    clip_gradient: float = field(default=-1.0, doc=_CG)


class LambPhase2Param(Param):
    lr: float = field(doc=_LR)
    lower_bound: float = field(default=-1.0, doc="Lower limit of norm of weight. If "
                               "lower_bound <= 0, Lower limit is not set")  # fmt: skip
    upper_bound: float = field(default=-1.0, doc="Upper limit of norm of weight. If "
                               "upper_bound <= 0, Upper limit is not set")  # fmt: skip


# ---- kernels: (xp, p, ins, aux, out, req) with ins the arguments, aux the mutated states ------


def _k_sgd(xp, p, ins, aux, out, req):
    w, g = ins
    lr, wd, rescale = _f(p.lr), _f(p.wd), _f(p.rescale_grad)
    # (1 - lr*wd) * w - lr * clip(rescale * g), skipping the factors that are exactly 1 (they
    # change no bit) and reusing one temporary: this runs once per parameter per batch
    step = _clip(xp, g * rescale if rescale != 1.0 else g, p.clip_gradient)
    step = step * lr if step is g else xp.multiply(step, lr, out=step)
    keep = w if wd == 0.0 else (1.0 - lr * wd) * w
    if req == OpReq.WRITE or req == OpReq.INPLACE:
        xp.subtract(keep, step, out=out)
    else:
        assign(out, req, keep - step)


def _k_sgd_mom(xp, p, ins, aux, out, req):
    w, g = ins
    (mom,) = aux
    lr, wd, rescale = _f(p.lr), _f(p.wd), _f(p.rescale_grad)
    # mom = momentum * mom - lr * wd * w - lr * clip(rescale * g), in that order, in place
    # with one temporary: this runs once per parameter per batch over every weight
    mom *= _f(p.momentum)
    tmp = None
    if wd != 0.0:
        tmp = xp.multiply(w, lr * wd)
        mom -= tmp
    scaled = xp.multiply(g, rescale, out=tmp) if rescale != 1.0 or tmp is not None else g
    step = _clip(xp, scaled, _f(p.clip_gradient))
    step = xp.multiply(step, lr, out=step) if step is not g else step * lr
    mom -= step
    if req == OpReq.WRITE or req == OpReq.INPLACE:
        xp.add(w, mom, out=out)
    else:
        assign(out, req, w + mom)


def _k_mp_sgd(xp, p, ins, aux, out, req):
    w, g = ins
    (w32,) = aux
    lr, wd = _f(p.lr), _f(p.wd)
    g32 = g.astype(_F32)
    w32[...] = (1.0 - lr * wd) * w32 - lr * _clip(xp, _f(p.rescale_grad) * g32, p.clip_gradient)
    assign(out, req, w32.astype(out.dtype))


def _k_mp_sgd_mom(xp, p, ins, aux, out, req):
    w, g = ins
    mom, w32 = aux
    lr, wd = _f(p.lr), _f(p.wd)
    g32 = g.astype(_F32)
    mom[...] = (
        _f(p.momentum) * mom
        - lr * wd * w32
        - lr * _clip(xp, _f(p.rescale_grad) * g32, _f(p.clip_gradient))
    )
    w32 += mom
    assign(out, req, w32.astype(out.dtype))


def _k_nag_mom(xp, p, ins, aux, out, req):
    w, g = ins
    (mom,) = aux
    lr, wd, m = _f(p.lr), _f(p.wd), _f(p.momentum)
    cg = _clip(xp, _f(p.rescale_grad) * g, p.clip_gradient)
    in_place = _aliased(xp, out, w)
    mom *= m
    new_w = w - mom + (m + 1.0) * (mom - lr * (cg + wd * w))
    assign(out, req, new_w)
    # MXNet's kernel reads weight_data after writing out_data: in place, that is the new weight
    mom -= lr * (cg + wd * (new_w if in_place else w))


def _k_mp_nag_mom(xp, p, ins, aux, out, req):
    w, g = ins
    mom, w32 = aux
    lr, wd, m = _f(p.lr), _f(p.wd), _f(p.momentum)
    cg = _clip(xp, _f(p.rescale_grad) * g.astype(_F32), p.clip_gradient)
    mom *= m
    w32[...] = w32 - mom + (m + 1.0) * (mom - lr * (cg + wd * w32))
    mom -= lr * (cg + wd * w32)  # as MXNet: the momentum sees the already updated weight32
    assign(out, req, w32.astype(out.dtype))


def _k_signsgd(xp, p, ins, aux, out, req):
    w, g = ins
    lr, wd = _f(p.lr), _f(p.wd)
    assign(out, req, (1.0 - lr * wd) * w - lr * _sign(xp, g))  # clip_gradient has no effect


def _k_signum(xp, p, ins, aux, out, req):
    w, g = ins
    (mom,) = aux
    m, wd = _f(p.momentum), _f(p.wd)
    mom[...] = (
        m * mom
        - (1.0 - m) * wd * w
        - (1.0 - m) * _clip(xp, _f(p.rescale_grad) * g, p.clip_gradient)
    )
    assign(out, req, (1.0 - _f(p.lr) * _f(p.wd_lh)) * w + _f(p.lr) * _sign(xp, mom))


def _k_adam(xp, p, ins, aux, out, req):
    w, g = ins
    mean, var = aux
    b1, b2 = _f(p.beta1), _f(p.beta2)
    gr = _clip(xp, g * _f(p.rescale_grad) + w * _f(p.wd), p.clip_gradient)
    mean[...] = b1 * mean + (1.0 - b1) * gr
    var[...] = b2 * var + (1.0 - b2) * gr * gr
    assign(out, req, w - _f(p.lr) * mean / (xp.sqrt(var) + _f(p.epsilon)))


def _k_rmsprop(xp, p, ins, aux, out, req):
    w, g = ins
    (n,) = aux
    g1 = _f(p.gamma1)
    gr = _clip(xp, _f(p.rescale_grad) * g + _f(p.wd) * w, p.clip_gradient)
    n[...] = (1.0 - g1) * (gr * gr) + g1 * n
    new_w = w - _f(p.lr) * (gr / xp.sqrt(n + _f(p.epsilon)))
    assign(out, req, _clip(xp, new_w, p.clip_weights))


def _k_rmspropalex(xp, p, ins, aux, out, req):
    w, g = ins
    n, sg, delta = aux
    g1, g2 = _f(p.gamma1), _f(p.gamma2)
    gr = _clip(xp, _f(p.rescale_grad) * g + _f(p.wd) * w, p.clip_gradient)
    n[...] = (1.0 - g1) * gr * gr + g1 * n
    sg[...] = (1.0 - g1) * gr + g1 * sg
    delta[...] = g2 * delta - _f(p.lr) * gr / xp.sqrt(n - sg * sg + _f(p.epsilon))
    assign(out, req, _clip(xp, w + delta, p.clip_weights))


def _k_ftrl(xp, p, ins, aux, out, req):
    w, g = ins
    z, n = aux
    lr, l1 = _f(p.lr), _f(p.lamda1)
    gr = _clip(xp, g * _f(p.rescale_grad), p.clip_gradient)
    z += gr - (xp.sqrt(n + gr * gr) - xp.sqrt(n)) * w / lr
    n += gr * gr
    value = (xp.sign(z) * l1 - z) / ((_f(p.beta) + xp.sqrt(n)) / lr + _f(p.wd))
    assign(out, req, value * (xp.abs(z) > l1))


def _k_ftml(xp, p, ins, aux, out, req):
    w, g = ins
    d, v, z = aux
    b1, b2, t = _f(p.beta1), _f(p.beta2), float(p.t)
    gi = _clip(xp, _f(p.rescale_grad) * g + _f(p.wd) * w, p.clip_grad)
    v[...] = b2 * v + (1.0 - b2) * gi * gi
    d_t = (1.0 - b1**t) / _f(p.lr) * (xp.sqrt(v / (1.0 - b2**t)) + _f(p.epsilon))
    z[...] = b1 * z + (1.0 - b1) * gi - (d_t - b1 * d) * w
    d[...] = d_t
    assign(out, req, -z / d_t)


def _lamb1(xp, p, w, g, mean, var):
    b1, b2, eps, wd = _f(p.beta1), _f(p.beta2), _f(p.epsilon), _f(p.wd)
    gr = _clip(xp, g * _f(p.rescale_grad), p.clip_gradient)
    mean[...] = b1 * mean + (1.0 - b1) * gr
    var[...] = b2 * var + (1.0 - b2) * gr * gr
    if p.bias_correction:
        m_hat = mean / (1.0 - b1**p.t)
        v_hat = var / (1.0 - b2**p.t)
        return m_hat / (xp.sqrt(v_hat) + eps) + wd * w
    return mean / (xp.sqrt(var) + eps) + wd * w


def _k_lamb1(xp, p, ins, aux, out, req):
    w, g = ins
    mean, var = aux
    assign(out, req, _lamb1(xp, p, w, g, mean, var))


def _k_mp_lamb1(xp, p, ins, aux, out, req):
    w, g = ins
    mean, var, w32 = aux
    assign(out, req, _lamb1(xp, p, w32, g.astype(_F32), mean, var))


def _lamb_lr(xp, p, r1, r2):
    new_r1 = float(r1.reshape(-1)[0])
    r2v = float(r2.reshape(-1)[0])
    if p.lower_bound >= 0:
        new_r1 = max(new_r1, _f(p.lower_bound))
    if p.upper_bound >= 0:
        new_r1 = min(new_r1, _f(p.upper_bound))
    lr = _f(p.lr)
    if new_r1 == 0.0 or r2v == 0.0:
        return lr
    return lr * new_r1 / r2v


def _k_lamb2(xp, p, ins, aux, out, req):
    w, g, r1, r2 = ins
    assign(out, req, w - np.asarray(_lamb_lr(xp, p, r1, r2), w.dtype) * g)


def _k_mp_lamb2(xp, p, ins, aux, out, req):
    w, g, r1, r2 = ins
    (w32,) = aux
    assign(out, req, (w32 - np.float32(_lamb_lr(xp, p, r1, r2)) * g).astype(out.dtype))


# ---- one property class per operator, from a table -------------------------------------------


class _UpdateOp(Operator):
    def __init__(self, prop: _UpdateProp) -> None:
        self.kernel = type(prop).kernel
        self.param = prop.param
        self.prop = prop

    def forward(self, op_ctx, in_data, req, out_data, aux):
        if aux:
            # imperative calls infer from the arguments only; the states are checked here
            self.prop.check_states(in_data[0], aux)
        self.kernel(_xp(out_data[0]), self.param, in_data, aux, out_data[0], req[0])


def _xp(arr: Any) -> Any:
    mod = type(arr).__module__.split(".")[0]
    if mod == "numpy":
        return np
    import importlib

    return importlib.import_module(mod)


class _UpdateProp(OperatorProperty):
    """A fused update: arguments ``args``, mutated trailing states ``states``; the output is the
    new weight, shaped like input 0. ``f32`` names the inputs that are always float32 (the
    master copies and states of the multi-precision operators)."""

    args: ClassVar[tuple[str, ...]] = ()
    states: ClassVar[tuple[str, ...]] = ()
    f32: ClassVar[frozenset[str]] = frozenset()
    scalars: ClassVar[frozenset[str]] = frozenset()  # inputs of shape (1,) (LAMB's r1, r2)
    out_f32: ClassVar[bool] = False
    kernel: ClassVar[Callable] = staticmethod(lambda *a: None)

    def list_arguments(self) -> list[str]:
        return list(self.args)

    def list_auxiliary_states(self) -> list[str]:
        return list(self.states)

    def infer_shape(self, in_shape, out_shape=None):
        names = [*self.args, *self.states]
        known = in_shape[0]
        if known is None and out_shape:
            known = out_shape[0]
        if known is None:
            return None
        ins = []
        for name, s in zip(names, in_shape):
            want = (1,) if name in self.scalars else known
            if name in self.scalars and s is not None and (len(s) < 1 or s[0] not in (0, 1)):
                raise ShapeError(f"{self.op_name}: input {name!r} must have shape (1,), got {s}.")
            ins.append(s if name in self.scalars and s is not None else
                       shape_assign(self, "input", name, s, want))  # fmt: skip
        n_args = len(self.args)
        return ins[:n_args], [known], ins[n_args:]

    def infer_type(self, in_type, out_type=None):
        names = [*self.args, *self.states]
        wt = in_type[0] if in_type else None
        if wt is None and out_type:
            wt = out_type[0]
        if wt is None:
            return None
        ins = [
            dtype_assign(self, n, t, _F32 if n in self.f32 else wt) for n, t in zip(names, in_type)
        ]
        n_args = len(self.args)
        return ins[:n_args], [_F32 if self.out_f32 else wt], ins[n_args:]

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        return []

    def forward_inplace_option(self, in_data, out_data):
        return [(in_data[0], out_data[0])]

    def create_operator(self, ctx):
        return _UpdateOp(self)

    def check_states(self, weight: Any, aux: list) -> None:
        for name, a in zip(self.states, aux):
            if a.shape != weight.shape:
                raise ShapeError(
                    f"{self.op_name}: input {name!r} has shape {a.shape}; expected "
                    f"{weight.shape} like 'weight'."
                )
            want = _F32 if name in self.f32 else weight.dtype
            if a.dtype != want:
                raise DTypeError(
                    f"{self.op_name}: input {name!r} has dtype {a.dtype.name}; expected "
                    f"{np.dtype(want).name}."
                )


def _define(
    name, param_cls, args, states, kernel, doc, f32=(), scalars=(), out_f32=False, sparse_form=None
):
    cls = type(
        f"_{name}_prop",
        (_UpdateProp,),
        {
            "__doc__": doc,
            "param_class": param_cls,
            "args": tuple(args),
            "states": tuple(states),
            "f32": frozenset(f32),
            "scalars": frozenset(scalars),
            "out_f32": out_f32,
            "kernel": staticmethod(kernel),
            "sparse_form": sparse_form,  # LAZY_UPDATE: lazy_update on row-sparse gradients
        },
    )
    register(name)(cls)
    return cls


_WG = ("weight", "grad")
# fmt: off
_define("sgd_update", SGDParam, _WG, (), _k_sgd,
        "Update function for Stochastic Gradient Descent (SGD) optimizer.",
        sparse_form=LAZY_UPDATE)
_define("sgd_mom_update", SGDMomParam, _WG, ("mom",), _k_sgd_mom,
        "Momentum update function for Stochastic Gradient Descent (SGD) optimizer.",
        sparse_form=LAZY_UPDATE)
_define("mp_sgd_update", SGDParam, _WG, ("weight32",), _k_mp_sgd,
        "Updater function for multi-precision sgd optimizer", f32=("weight32",))
_define("mp_sgd_mom_update", SGDMomParam, _WG, ("mom", "weight32"), _k_mp_sgd_mom,
        "Updater function for multi-precision sgd optimizer", f32=("mom", "weight32"))
_define("nag_mom_update", NAGMomParam, _WG, ("mom",), _k_nag_mom,
        "Update function for Nesterov Accelerated Gradient( NAG) optimizer.")
_define("mp_nag_mom_update", NAGMomParam, _WG, ("mom", "weight32"), _k_mp_nag_mom,
        "Update function for multi-precision Nesterov Accelerated Gradient( NAG) optimizer.",
        f32=("mom", "weight32"))
_define("signsgd_update", SignSGDParam, _WG, (), _k_signsgd,
        "Update function for SignSGD optimizer.")
_define("signum_update", SignumParam, _WG, ("mom",), _k_signum,
        "SIGN momentUM (Signum) optimizer.")
_define("adam_update", AdamParam, _WG, ("mean", "var"), _k_adam,
        "Update function for Adam optimizer.", sparse_form=LAZY_UPDATE)
_define("rmsprop_update", RMSPropParam, _WG, ("n",), _k_rmsprop,
        "Update function for `RMSProp` optimizer.")
_define("rmspropalex_update", RMSPropAlexParam, _WG, ("n", "g", "delta"), _k_rmspropalex,
        "Update function for RMSPropAlex optimizer.")
_define("ftrl_update", FtrlParam, _WG, ("z", "n"), _k_ftrl,
        "Update function for Ftrl optimizer.", sparse_form=LAZY_UPDATE_RSP_WEIGHT)
_define("ftml_update", FTMLParam, _WG, ("d", "v", "z"), _k_ftml,
        "The FTML optimizer described in FTML - Follow the Moving Leader in Deep Learning.")
_define("lamb_update_phase1", LambPhase1Param, _WG, ("mean", "var"), _k_lamb1,
        "Phase I of lamb update it performs the following operations and returns g.")
_define("lamb_update_phase2", LambPhase2Param, ("weight", "g", "r1", "r2"), (), _k_lamb2,
        "Phase II of lamb update it performs the following operations and updates grad.",
        scalars=("r1", "r2"))
# weight32 is read, not written, by phase 1; it is a state here because it follows mean, var
_define("mp_lamb_update_phase1", LambPhase1Param, _WG, ("mean", "var", "weight32"),
        _k_mp_lamb1, "Mixed Precision version of Phase I of lamb update.",
        f32=("mean", "var", "weight32"), out_f32=True)
_define("mp_lamb_update_phase2", LambPhase2Param, ("weight", "g", "r1", "r2"), ("weight32",),
        _k_mp_lamb2, "Mixed Precision version Phase II of lamb update.",
        f32=("g", "r1", "r2", "weight32"), scalars=("r1", "r2"))
# fmt: on
