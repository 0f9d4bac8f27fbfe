"""The large-batch optimizers LARS and LBSGD, and MXNet's ``Test`` optimizer, as MXNet 1.9.1.

LARS is SGD whose learning rate is scaled per layer by ``eta * |w| / (|g| * rescale_grad +
wd * |w| + eps)`` (not for biases, BatchNorm's gamma and beta); MXNet computes the factors
with its ``multi_sum_sq`` and ``multi_lars`` operators in float32, here the same float32
arithmetic runs on the host, and the updates go through the SGD operators as MXNet's do.
LBSGD accumulates ``batch_scale`` gradients per weight before one SGD step, with a warm-up
multiplier of the learning rate.
"""

from __future__ import annotations

import logging
import math
import os
import warnings
from typing import Any, ClassVar

import numpy as np

from .. import ndarray as nd
from .optimizer import Optimizer, _FusedOptimizer, register
from .sgd import _sgd_step

__all__ = ["LARS", "LBSGD", "Test"]

_F32 = np.float32


def _sum_sq(arr: Any, scale: float = 1.0) -> np.float32:
    """The float32 sum of squares of ``arr`` (times ``scale`` first)."""
    v = arr.asnumpy().astype(_F32)
    if scale != 1.0:
        v = v * _F32(scale)
    return _F32(np.sum(np.square(v), dtype=_F32))


def _no_lars(name: str) -> bool:
    return name.endswith("gamma") or name.endswith("beta") or name.endswith("bias")


@register
class LARS(_FusedOptimizer):
    """The LARS optimizer from 'Large Batch Training of Convolution Networks'
    (https://arxiv.org/abs/1708.03888).

    Behaves mostly like SGD with momentum and weight decay but scales the learning rate of
    each layer (except bias and batch norm parameters)::

        w_norm = L2norm(weights)
        g_norm = L2norm(gradients)
        if w_norm > 0 and g_norm > 0:
            lr_layer = lr * lr_mult * eta * w_norm / (g_norm + weight_decay * w_norm + eps)
        else:
            lr_layer = lr * lr_mult

    Parameters
    ----------
    momentum : float, optional, default 0.0
        The momentum value.
    lazy_update : bool, optional, default True
        If True, lazy updates are applied if the storage types of weight and grad are both
        ``row_sparse``.
    eta : float, optional, default 0.001
        LARS coefficient used to scale the learning rate.
    eps : float, optional, default 0
        Optional epsilon in case of very small gradients.
    momentum_correction : bool, optional, default True
        If True scale momentum w.r.t global learning rate change (with an lr_scheduler) as
        indicated in 'Accurate, Large Minibatch SGD: Training ImageNet in 1 Hour'
        (https://arxiv.org/pdf/1706.02677.pdf).
    **kwargs
        Passed to :class:`Optimizer`.
    """

    def __init__(
        self,
        momentum: float = 0.0,
        lazy_update: bool = True,
        eta: float = 0.001,
        eps: float = 0,
        momentum_correction: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.momentum = momentum
        self.momentum_correction = momentum_correction
        self.lazy_update = lazy_update
        self.aggregate_num = int(os.getenv("MXNET_OPTIMIZER_AGGREGATION_SIZE", "4"))
        self.eta = eta
        self.eps = eps
        self.skip = 0
        self.last_lr: float | None = None
        self.cur_lr: float | None = None

    _state_then_master: ClassVar[bool] = True
    _warn_name: ClassVar[str] = "SGD"  # MXNet's LARS names SGD in its float16 warning
    _decayed: ClassVar[tuple[str, ...]] = ("_weight",)  # not "_gamma", as MXNet's LARS

    def _get_lrs(self, indices: list) -> list[float]:
        """The learning rates of ``indices``; remembers the previous global rate for the
        momentum correction."""
        if self.cur_lr is not None:
            self.last_lr = self.cur_lr
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        if self.cur_lr is None:
            self.last_lr = lr
        self.cur_lr = lr
        return super()._get_lrs(indices)

    def create_state(self, index: Any, weight: Any) -> Any:
        if self.momentum == 0.0:
            return None
        stype = weight.stype if self.lazy_update else "default"
        return nd.zeros(weight.shape, weight.context, dtype=weight.dtype, stype=stype)

    def _lars_lr(self, weight: Any, grad: Any, lr: float, wd: float) -> float:
        """``lr`` scaled by this layer's LARS factor, in float32 as MXNet's multi_lars."""
        w_norm = np.sqrt(_sum_sq(weight))
        g_sum_sq = _sum_sq(grad)
        if not (w_norm > 0 and g_sum_sq > 0):
            return lr
        denom = np.sqrt(g_sum_sq) * _F32(self.rescale_grad) + _F32(wd) * w_norm + _F32(self.eps)
        return float(_F32(lr) * _F32(self.eta) * w_norm / denom)

    def _sgd_momentum(self) -> float:
        """The momentum, scaled by the change of the global learning rate with
        ``momentum_correction``."""
        corrected = self.momentum_correction and self.last_lr != 0
        return self.momentum * (self.cur_lr / self.last_lr) if corrected else self.momentum

    def _layer_rates(self, indices: list, weights: list, grads: list, lrs: list, wds: list,
                     dense: bool) -> tuple[list, list]:  # fmt: skip
        """The learning rates scaled by each layer's LARS factor; for the multi_* operators
        in float32, as MXNet's multi_lars leaves them (and the weight decays)."""
        names = [self.idx2name.get(i, str(i)) for i in indices]
        lrs = [lr if _no_lars(name) else self._lars_lr(w, g, lr, wd)
               for name, w, g, lr, wd in zip(names, weights, grads, lrs, wds)]  # fmt: skip
        if not dense:
            return lrs, wds
        return [float(_F32(lr)) for lr in lrs], [float(_F32(wd)) for wd in wds]

    def _update_impl(
        self, index: Any, weight: Any, grad: Any, state: Any, multi_precision: bool = False
    ) -> None:
        _sgd_step(self, index, weight, grad, state, multi_precision, self._layer_rates)


@register
class LBSGD(Optimizer):
    """The Large Batch SGD optimizer with momentum and weight decay.

    The optimizer updates the weight by::

        state = momentum * state + lr * rescale_grad * clip(grad, clip_gradient) + wd * weight
        weight = weight - state

    In addition, gradients are summed over ``batch_scale`` calls before one step is taken
    (the other calls leave the weight as it is), and the learning rate is multiplied by a
    warm-up factor (or, with ``warmup_strategy='lars'``, by the layer's LARS factor).

    Parameters
    ----------
    momentum : float, optional, default 0.0
        The momentum value.
    multi_precision : bool, optional, default False
        Keep a float32 master copy of float16 weights and update that.
    warmup_strategy : {'linear', 'power2', 'sqrt', 'lars'}, optional, default 'linear'
        How the learning-rate multiplier grows to ``batch_scale``.
    warmup_epochs : int, optional, default 5
        The epochs of the warm-up.
    batch_scale : int, optional, default 1
        Number of gradients summed per step (same as batch size * numworkers).
    updates_per_epoch : int, optional, default 32
        Updates per epoch (used for warm-up).
    begin_epoch : int, optional, default 0
        Starting epoch.
    num_epochs : int, optional, default 60
        Number of epochs.
    **kwargs
        Passed to :class:`Optimizer`.
    """

    def __init__(
        self,
        momentum: float = 0.0,
        multi_precision: bool = False,
        warmup_strategy: str = "linear",
        warmup_epochs: int = 5,
        batch_scale: int = 1,
        updates_per_epoch: int = 32,
        begin_epoch: int = 0,
        num_epochs: int = 60,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        logging.info("Running Large-Batch SGD Algorithm")
        logging.info(
            "(Batch_scale=%f, warmup_epochs=%d, warmup_strategy=%s, updates_per_epoch=%d)",
            batch_scale, warmup_epochs, warmup_strategy, updates_per_epoch,
        )  # fmt: skip
        self.momentum = momentum
        self.multi_precision = multi_precision
        self.warmup_strategy = warmup_strategy
        self.warmup_epochs = warmup_epochs
        self.batch_scale = batch_scale
        self.updates_per_epoch = updates_per_epoch
        self.init_updates = begin_epoch * updates_per_epoch
        self.num_epochs = num_epochs
        self.lbmult = 1
        self.cumgrads: dict[Any, dict[str, Any]] = {}
        self.adaptive = False
        self.admult = 1

    def create_state(self, index: Any, weight: Any) -> Any:
        if self.multi_precision and weight.dtype == np.float16:
            master = nd.array(weight, ctx=weight.context, dtype=np.float32)
            momentum = None
            if self.momentum != 0.0:
                momentum = nd.zeros(weight.shape, weight.context, dtype=np.float32,
                                    stype=weight.stype)  # fmt: skip
            return (momentum, master)
        if weight.dtype == np.float16 and not self.multi_precision:
            warnings.warn(
                "Accumulating with float16 in optimizer can lead to poor accuracy or slow "
                "convergence. Consider using multi_precision=True option of the SGD optimizer",
                stacklevel=2,
            )
        if self.momentum == 0.0:
            return None
        return nd.zeros(weight.shape, weight.context, dtype=weight.dtype, stype=weight.stype)

    def _get_lbmult(self, nup: int) -> float:
        """The learning-rate multiplier after ``nup`` updates (the warm-up schedule)."""
        nwup = self.warmup_epochs * self.updates_per_epoch
        maxmult = float(self.batch_scale)
        if nup >= nwup:
            return maxmult
        if nwup <= 1:
            return 1.0
        if self.warmup_strategy == "linear":
            return 1.0 + (maxmult - 1) * nup / nwup
        if self.warmup_strategy == "power2":
            return 1.0 + (maxmult - 1) * (nup * nup) / (nwup * nwup)
        if self.warmup_strategy == "sqrt":
            return 1.0 + (maxmult - 1) * math.sqrt(float(nup) / nwup)
        return 1.0

    def _get_lars(self, weight: Any, g: Any, wd: float) -> float:
        """The layer's LARS factor ``sqrt(|w|^2 / (|g|^2 + wd |w|^2))``, within [0.01, 100]."""
        weight2 = self._l2norm(weight)
        grad2 = self._l2norm(g)
        lars = math.sqrt(weight2 / (grad2 + wd * weight2 + 1e-18))
        return min(max(lars, 0.01), 100)

    def _l2norm(self, v: Any) -> float:
        """The sum of squares of ``v`` (MXNet's name; no square root)."""
        return float(nd.multiply(v, v).asnumpy().sum())

    def _reset_cum_gradient(self, index: Any) -> None:
        self.cumgrads[index]["cum_grad"] = 0

    def _get_cum_gradient(self, index: Any) -> dict[str, Any]:
        return self.cumgrads.get(index, {})

    def _put_cum_gradient(self, index: Any, cgrad: dict[str, Any]) -> None:
        self.cumgrads[index] = cgrad

    def _cumulate_gradient(self, grad: Any, index: Any) -> dict[str, Any]:
        """Add ``grad`` to the sum kept for ``index``; counts the calls in ``num_cums``."""
        cgrad = self._get_cum_gradient(index)
        if cgrad and cgrad["num_cums"] > 0:
            cgrad = {"cum_grad": cgrad["cum_grad"] + grad, "num_cums": cgrad["num_cums"] + 1}
        else:
            cgrad = {"cum_grad": grad, "num_cums": self.init_updates + 1}
        self._put_cum_gradient(index, cgrad)
        return cgrad

    def update(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        if not isinstance(weight, nd.NDArray) or not isinstance(grad, nd.NDArray):
            raise TypeError(
                "LBSGD.update: 'weight' and 'grad' must be NDArrays, got "
                f"{type(weight).__name__} and {type(grad).__name__}."
            )
        lr = self._get_lr(index)
        wd = self._get_wd(index)
        self._update_count(index)
        cgrad = self._cumulate_gradient(grad, index)
        if cgrad["num_cums"] % self.batch_scale != 0:
            # as MXNet: a step with learning rate 0 (the weight stays)
            nd.sgd_update(weight, grad, out=weight, lr=0.0, wd=wd)
            return
        grad = cgrad["cum_grad"] / self.batch_scale
        if self.warmup_strategy == "lars":
            lr *= self._get_lars(weight, grad, wd)
        else:
            lr *= self._get_lbmult(cgrad["num_cums"])
        kwargs: dict[str, Any] = {"rescale_grad": self.rescale_grad}
        if self.momentum > 0:
            kwargs["momentum"] = self.momentum
        self._clip_kwargs(kwargs)
        if not isinstance(state, (list, tuple)):
            if state is not None:
                nd.sgd_mom_update(weight, grad, state, out=weight, lr=lr, wd=wd, **kwargs)
            else:
                nd.sgd_update(weight, grad, out=weight, lr=lr, wd=wd, **kwargs)
        elif state[0] is not None:
            nd.mp_sgd_mom_update(weight, grad, state[0], state[1], out=weight, lr=lr, wd=wd,
                                 **kwargs)  # fmt: skip
        else:
            nd.mp_sgd_update(weight, grad, state[1], out=weight, lr=lr, wd=wd, **kwargs)
        self._reset_cum_gradient(index)


@register
class Test(Optimizer):
    """The Test optimizer: ``weight += rescale_grad * grad``, and the state keeps a copy of
    the weight."""

    __test__ = False  # pytest collects classes named Test*: this is no test

    def create_state(self, index: Any, weight: Any) -> Any:
        """Creates a state to duplicate weight."""
        return nd.zeros(weight.shape, weight.context)

    def update(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        """Performs w += rescale_grad * grad."""
        weight[:] += grad * self.rescale_grad
        state[:] = weight
