"""NAG, Signum, LAMB, DCASGD and SGLD, as MXNet 1.9.1.

LAMB's aggregated calls (lists of indices from the Updater) count every index first and then
run the two single-tensor phases per weight, the values MXNet's ``multi_lamb_update`` gives.
"""

from __future__ import annotations

import math
import os
from typing import Any, ClassVar

from .. import ndarray as nd
from .adaptive import _clipped
from .optimizer import Optimizer, _FusedOptimizer, register
from .sgd import _MomentumState

__all__ = ["NAG", "Signum", "LAMB", "DCASGD", "SGLD"]


@register
class NAG(_MomentumState, _FusedOptimizer):
    """Nesterov accelerated gradient (``nag_mom_update``).

    Parameters
    ----------
    momentum : float, default 0.0
        The momentum value.
    multi_precision : bool, default False
        Keep a float32 master copy of float16 weights.
    """

    def __init__(self, momentum: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.momentum = momentum

    _state_then_master: ClassVar[bool] = True
    _warn_name: ClassVar[str] = "NAG"

    def _update_impl(
        self, index: Any, weight: Any, grad: Any, state: Any, multi_precision: bool = False
    ) -> None:
        lr, wd = self._begin(index)
        kwargs: dict[str, Any] = {"rescale_grad": self.rescale_grad}
        mom = {"momentum": self.momentum} if self.momentum > 0 else {}
        self._clip_kwargs(kwargs)
        if not multi_precision:
            if state is not None:
                nd.nag_mom_update(weight, grad, state, out=weight, lr=lr, wd=wd, **mom, **kwargs)
            else:
                nd.sgd_update(weight, grad, out=weight, lr=lr, wd=wd, **kwargs)
        elif state[0] is not None:
            nd.mp_nag_mom_update(
                weight, grad, state[0], state[1], out=weight, lr=lr, wd=wd, **mom, **kwargs
            )
        else:
            nd.mp_sgd_update(weight, grad, state[1], out=weight, lr=lr, wd=wd, **kwargs)

    def update_multi_precision(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        use_mp = self._use_mp(index, weight) and isinstance(state, (tuple, list))
        self._update_impl(index, weight, grad, state, multi_precision=use_mp)


@register
class Signum(_MomentumState, Optimizer):
    """The Signum optimizer (``signum_update``; ``signsgd_update`` without momentum).

    Parameters
    ----------
    learning_rate : float, default 0.01
    momentum : float, default 0.9
    wd_lh : float, default 0.0
        Decoupled weight decay, applied to the weight directly.
    """

    def __init__(
        self, learning_rate: float = 0.01, momentum: float = 0.9, wd_lh: float = 0.0, **kwargs: Any
    ) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum
        self.wd_lh = wd_lh

    def update(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        lr, wd = self._begin(index)
        kwargs = self._clip_kwargs({"rescale_grad": self.rescale_grad})
        if state is not None:
            if self.momentum > 0:
                kwargs["momentum"] = self.momentum
            if self.wd_lh:
                kwargs["wd_lh"] = self.wd_lh
            nd.signum_update(weight, grad, state, out=weight, lr=lr, wd=wd, **kwargs)
        else:
            nd.signsgd_update(weight, grad, out=weight, lr=lr, wd=wd, **kwargs)


@register
class LAMB(_FusedOptimizer):
    """LAMB: layer-wise adaptive moments for large batches (You et al.).

    Parameters
    ----------
    learning_rate : float, default 0.001
    beta1 : float, default 0.9
    beta2 : float, default 0.999
    epsilon : float, default 1e-6
    lower_bound : float, optional
        Lower limit of the weight norm in the trust ratio.
    upper_bound : float, optional
        Upper limit of the weight norm in the trust ratio.
    bias_correction : bool, default True
        Whether to use bias correction.
    """

    def __init__(
        self,
        learning_rate: float = 0.001,
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float = 1e-6,
        lower_bound: float | None = None,
        upper_bound: float | None = None,
        bias_correction: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.bias_correction = bias_correction
        size = int(os.getenv("MXNET_OPTIMIZER_AGGREGATION_SIZE", "45"))
        self.aggregate_num = max(1, min(45, size))

    def create_state(self, index: Any, weight: Any) -> Any:
        return (
            nd.zeros(weight.shape, weight.context, dtype=weight.dtype),
            nd.zeros(weight.shape, weight.context, dtype=weight.dtype),
        )

    def _one(self, index: Any, weight: Any, grad: Any, state: Any, mp: bool) -> None:
        lr = self._get_lr(index)
        wd = self._get_wd(index)
        kwargs = self._clip_kwargs(
            {
                "beta1": self.beta1,
                "beta2": self.beta2,
                "epsilon": self.epsilon,
                "bias_correction": self.bias_correction,
                "rescale_grad": self.rescale_grad,
                "t": self._index_update_count[index],
            }
        )
        bounds = {}
        if self.lower_bound:
            bounds["lower_bound"] = self.lower_bound
        if self.upper_bound:
            bounds["upper_bound"] = self.upper_bound
        if mp:
            weight32 = state[0]
            mean, var = state[1]
            g = nd.mp_lamb_update_phase1(weight, grad, mean, var, weight32, wd=wd, **kwargs)
            r_1, r_2 = weight32.norm(), g.norm()
            # MXNet's aggregated LAMB (what its Updater calls) also writes the master copy;
            # mp_lamb_update_phase2 alone leaves weight32 as it was
            nd.lamb_update_phase2(weight32, g, r_1, r_2, lr=lr, out=weight32, **bounds)
            nd.cast(weight32, dtype=weight.dtype, out=weight)
        else:
            mean, var = state
            g = nd.lamb_update_phase1(weight, grad, mean, var, wd=wd, **kwargs)
            r_1, r_2 = weight.norm(), g.norm()
            nd.lamb_update_phase2(weight, g, r_1, r_2, lr=lr, out=weight, **bounds)

    def _update_impl(
        self, index: Any, weight: Any, grad: Any, state: Any, multi_precision: bool = False
    ) -> None:
        if not isinstance(index, (tuple, list)):
            index, weight, grad, state = [index], [weight], [grad], [state]
        for i in index:
            self._update_count(i)
        for i, w, g, s in zip(index, weight, grad, state):
            self._one(i, w, g, s, multi_precision)


@register
class DCASGD(Optimizer):
    """Delay-compensated asynchronous SGD (Zheng et al.).

    Parameters
    ----------
    momentum : float, default 0.0
    lamda : float, default 0.04
        Scale of the delay compensation term.
    """

    def __init__(self, momentum: float = 0.0, lamda: float = 0.04, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.momentum = momentum
        self.weight_previous: dict = {}
        self.lamda = lamda

    def create_state(self, index: Any, weight: Any) -> Any:
        if self.momentum == 0.0:
            return (None, weight.copy())
        return (nd.zeros(weight.shape, weight.context, dtype=weight.dtype), weight.copy())

    def update(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        lr, wd = self._begin(index)
        grad = _clipped(grad * self.rescale_grad, self.clip_gradient)
        mom, previous_weight = state
        step = -lr * (grad + wd * weight + self.lamda * grad * grad * (weight - previous_weight))
        if mom is not None:
            mom[:] *= self.momentum
            mom[:] += step
        else:
            mom = step
        previous_weight[:] = weight
        weight[:] += mom


@register
class SGLD(Optimizer):
    """Stochastic gradient Langevin dynamics: an SGD half-step plus Gaussian noise of
    variance ``lr``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def create_state(self, index: Any, weight: Any) -> Any:
        return None

    def update(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        lr, wd = self._begin(index)
        grad = _clipped(grad * self.rescale_grad, self.clip_gradient)
        weight[:] += -lr / 2 * (grad + wd * weight)
        weight[:] += nd.random.normal(
            0, math.sqrt(lr), shape=weight.shape, dtype=weight.dtype, ctx=weight.context
        )
