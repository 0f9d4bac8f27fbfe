"""The ``multi_*`` fused SGD update operators: several weights in one call.

Inputs interleave per weight (``weight_0, grad_0, mom_0, weight_1, ...``), which cannot be a
trailing block of auxiliary states as in optimizer_ops.py; every input is an argument and
the states are named in ``mutate_inputs`` (MXNet's ``FMutateInputs``), so an imperative call
writes their vars and a later read waits for the update. Values follow MXNet 1.9.1.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from ..base import DTypeError, MXNetError, ParamError
from .optimizer_ops import _CG, _F32, _RS, _WD, _WG, _clip, _f, _xp
from .param import Param, field
from .registry import Operator, OperatorProperty, dtype_assign, register, shape_assign
from .req import OpReq, assign

# ---- multi_*: several weights in one call, inputs interleaved per weight --------------------


class MultiSGDParam(Param):
    lrs: tuple[float, ...] = field(doc="Learning rates.")
    wds: tuple[float, ...] = field(doc=_WD)
    rescale_grad: float = field(default=1.0, doc=_RS)
    clip_gradient: float = field(default=-1.0, doc=_CG)
    num_weights: int = field(default=1, low=1, doc="Number of updated weights.")


class MultiSGDMomParam(Param):
    lrs: tuple[float, ...] = field(doc="Learning rates.")
    wds: tuple[float, ...] = field(doc=_WD)
    momentum: float = field(default=0.0, doc="The decay rate of momentum estimates at each epoch.")
    rescale_grad: float = field(default=1.0, doc=_RS)
    clip_gradient: float = field(default=-1.0, doc=_CG)
    num_weights: int = field(default=1, low=1, doc="Number of updated weights.")


class _MultiSGDOp(Operator):
    def __init__(self, prop: _MultiSGDProp) -> None:
        self.param = prop.param
        self.stride = len(prop.group)
        self.has_mom = "mom" in prop.group
        self.mp = "weight32" in prop.group

    def forward(self, op_ctx, in_data, req, out_data, aux):
        p, k = self.param, self.stride
        xp = _xp(out_data[0])
        momentum = getattr(p, "momentum", 0.0)
        for i, out in enumerate(out_data):
            w, g = in_data[i * k], in_data[i * k + 1]
            # as MXNet: with float32 weights the master copy is neither read nor written
            mixed = self.mp and w.dtype != _F32
            if mixed:  # the update runs on the float32 master copy
                w = in_data[i * k + k - 1]
                g = g.astype(_F32)
            t = w.dtype.type
            # MXNet keeps the scalars as C floats, then converts them to the compute type
            lr, rescale = t(_f(p.lrs[i])), t(_f(p.rescale_grad))
            # the order of the products follows MXNet's kernel, so float32 results agree bitwise
            if p.clip_gradient >= 0:
                step = lr * _clip(xp, rescale * g, t(_f(p.clip_gradient)))
            else:
                step = (lr * rescale) * g
            wd = _f(p.wds[i])
            if wd == 0.0 and not mixed and req[i] in (OpReq.WRITE, OpReq.INPLACE):
                # without weight decay the decay term is a zero that changes no bit: skip its
                # passes and update in place (this runs once per weight per batch)
                if self.has_mom:
                    mom = in_data[i * k + 2]
                    xp.multiply(mom, t(_f(momentum)), out=mom)
                    mom -= step
                    xp.add(w, mom, out=out)
                else:
                    xp.subtract(w, step, out=out)
                continue
            decay = (lr * t(wd)) * w
            if self.has_mom:
                mom = in_data[i * k + 2]
                mom[...] = t(_f(momentum)) * mom - decay - step
                new_w = w + mom
            else:
                new_w = w + (-decay - step)
            if mixed:
                w[...] = new_w
            assign(out, req[i], new_w.astype(out.dtype, copy=False))


class InterleavedUpdateProp(OperatorProperty):
    """The part shared by the fused multi-weight updates whose inputs come in groups of
    ``len(self.group)`` per weight (multi_sgd_*, multi_lamb, adamw): weight, gradient, then
    states (updated in place); one output per weight, which may reuse its weight's buffer; no
    backward. ``count_field`` names the parameter that gives the number of weights and
    ``per_weight`` the parameters that need one value per weight."""

    group: ClassVar[tuple[str, ...]] = ()
    count_field: ClassVar[str] = "num_weights"
    per_weight: ClassVar[tuple[str, ...]] = ()

    def n_weights(self) -> int:
        return 0 if self.param is None else getattr(self.param, self.count_field)

    def list_arguments(self) -> list[str]:
        return [f"{f}_{i}" for i in range(self.n_weights()) for f in self.group]

    def list_outputs(self) -> list[str]:
        return [f"output{i}" for i in range(self.n_weights())]

    def mutate_inputs(self) -> list[int]:
        k = len(self.group)
        return [i * k + j for i in range(self.n_weights()) for j in range(2, k)]

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        return []

    def forward_inplace_option(self, in_data, out_data):
        k = len(self.group)
        return [(in_data[i * k], o) for i, o in enumerate(out_data)]

    def check_counts(self, n_in: int, tail: tuple[str, ...] = ()) -> None:
        """Raise unless each ``per_weight`` parameter has a value per weight and ``n_in`` is
        a group per weight, then the ``tail`` inputs."""
        n, k = self.n_weights(), len(self.group)
        for arg in self.per_weight:
            values = getattr(self.param, arg)
            if len(values) != n:
                raise ParamError(
                    f"{self.op_name}: argument {arg!r} needs {self.count_field}={n} values, "
                    f"got {len(values)}: {values}."
                )
        if n_in != n * k + len(tail):
            then = f", then {', '.join(tail)}" if tail else ""
            raise MXNetError(
                f"{self.op_name}: argument 'data' needs {n * k + len(tail)} arrays "
                f"({', '.join(self.group)} for each of {self.count_field}={n}{then}), got {n_in}."
            )

    def infer_shape(self, in_shape, out_shape=None):
        self.check_counts(len(in_shape))
        ins, outs = self.group_shapes(in_shape, out_shape)
        if any(s is None for s in outs):
            return None
        return ins, outs, []

    def group_shapes(self, in_shape: list, out_shape: list | None) -> tuple[list, list]:
        """All of a group, and its output, share one shape, filled in from whichever is
        known. Returns the inputs and the outputs (None: unknown)."""
        k, names = len(self.group), self.list_arguments()
        ins, outs = list(in_shape), []
        for i in range(self.n_weights()):
            known = out_shape[i] if out_shape else None
            for j in range(i * k, i * k + k):
                known = shape_assign(self, "input", names[j], ins[j], known)
            for j in range(i * k, i * k + k):
                ins[j] = shape_assign(self, "input", names[j], ins[j], known)
            outs.append(known)
        return ins, outs

    def per_weight_types(
        self, in_type: list, out_type: list | None, floats_only: bool
    ) -> tuple[list, list] | None:
        """Per weight, one dtype for its group and output; with ``self.mp`` only the weight and
        gradient share it and the states (and master weight) are float32. None while a
        group's dtype is unknown."""
        k, names = len(self.group), self.list_arguments()
        ins, outs = list(in_type), []
        for i in range(self.n_weights()):
            lo = i * k
            plain = [lo, lo + 1] if self.mp else list(range(lo, lo + k))
            known = out_type[i] if out_type else None
            for j in plain:
                if ins[j] is not None:
                    known = dtype_assign(self, names[j], known, ins[j])
            if known is None:
                return None
            if floats_only and np.dtype(known).kind != "f":
                raise DTypeError(
                    f"{self.op_name}: input {names[lo]!r} has dtype {np.dtype(known).name}; "
                    "expected a floating-point dtype."
                )
            for j in range(lo, lo + k):
                ins[j] = dtype_assign(self, names[j], ins[j], known if j in plain else _F32)
            outs.append(known)
        return ins, outs


class _MultiSGDProp(InterleavedUpdateProp):
    """``num_weights`` fused SGD updates; inputs ``weight_i, grad_i[, mom_i][, weight32_i]``
    for each i, outputs the new weights; the states are updated in place (mutate_inputs)."""

    group: ClassVar[tuple[str, ...]] = ("weight", "grad")
    mp: ClassVar[bool] = False
    per_weight: ClassVar[tuple[str, ...]] = ("lrs", "wds")

    def infer_type(self, in_type, out_type=None):
        self.check_counts(len(in_type))
        k, names, n = len(self.group), self.list_arguments(), self.param.num_weights
        f32 = [j for j, f in enumerate(self.group) if f in ("mom", "weight32") and self.mp]
        outs = list(out_type) if out_type else [None] * n
        # with mp, each weight and its gradient share a dtype; without, every weight, gradient,
        # state and output shares one (MXNet's ElemwiseType<-1, -1>)
        groups = [range(n)] if not self.mp else [[i] for i in range(n)]
        ins = list(in_type)
        for members in groups:
            slots = [(i * k + j) for i in members for j in range(k) if j not in f32]
            known = None
            for s in slots:
                known = dtype_assign(self, names[s], known, ins[s]) if ins[s] is not None else known
            for i in members:
                known = dtype_assign(self, f"output{i}", known, outs[i]) if outs[i] is not None \
                    else known  # fmt: skip
            if known is None:
                return None
            if known.kind != "f":
                raise DTypeError(
                    f"{self.op_name}: input {names[slots[0]]!r} has dtype {known.name}; expected "
                    "a floating-point dtype (float16, float32, float64)."
                )
            for s in slots:
                ins[s] = dtype_assign(self, names[s], ins[s], known)
            for i in members:
                outs[i] = known
                for j in f32:
                    ins[i * k + j] = dtype_assign(self, names[i * k + j], ins[i * k + j], _F32)
        return ins, outs, []

    def create_operator(self, ctx):
        return _MultiSGDOp(self)


def _define_multi(name: str, param_cls: type, group: tuple[str, ...], doc: str) -> None:
    attrs = {"__doc__": doc, "param_class": param_cls, "group": group, "mp": "weight32" in group}
    register(name)(type(f"_{name}_prop", (_MultiSGDProp,), attrs))


_MULTI_DOC = (
    "{what} for Stochastic Gradient Descent (SGD) optimizer, for num_weights weights at once.\n\n"
    "Inputs are interleaved per weight: {inputs} for weight 0, then for weight 1, ...; the "
    "outputs are the new weights (pass ``out=`` the weights to update them in place)."
)
_define_multi("multi_sgd_update", MultiSGDParam, _WG, _MULTI_DOC.format(
    what="Update function", inputs="weight_i, grad_i"))  # fmt: skip
_define_multi("multi_sgd_mom_update", MultiSGDMomParam, (*_WG, "mom"), _MULTI_DOC.format(
    what="Momentum update function", inputs="weight_i, grad_i, mom_i"))  # fmt: skip
_define_multi("multi_mp_sgd_update", MultiSGDParam, (*_WG, "weight32"), _MULTI_DOC.format(
    what="Multi-precision update function", inputs="weight_i, grad_i, weight32_i"))  # fmt: skip
_define_multi("multi_mp_sgd_mom_update", MultiSGDMomParam, (*_WG, "mom", "weight32"),
              _MULTI_DOC.format(what="Multi-precision momentum update function",
                                inputs="weight_i, grad_i, mom_i, weight32_i"))  # fmt: skip
