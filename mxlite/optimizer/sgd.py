"""SGD (with momentum and multi-precision) and its alias ccSGD, as MXNet 1.9.1.

As in MXNet, dense weights update through the fused ``multi_sgd_update`` family (one
operator for the up to ``aggregate_num`` weights of an aggregated Updater call, or for one
weight); sparse weights or gradients take ``sgd_update``/``sgd_mom_update`` (and their
``mp_`` forms) one weight at a time, with ``lazy_update``.
"""

from __future__ import annotations

import os
from typing import Any, ClassVar

import numpy as np

from .. import ndarray as nd
from .optimizer import Optimizer, register

__all__ = ["SGD", "ccSGD"]


@register
class SGD(Optimizer):
    """The SGD optimizer with momentum and weight decay.

    ``state = momentum * state - lr * (rescale_grad * grad + wd * weight)``;
    ``weight += state`` (without momentum: ``weight -= lr * (rescale_grad * grad + wd *
    weight)``).

    Parameters
    ----------
    momentum : float, optional, default 0.0
        The momentum value.
    lazy_update : bool, optional, default True
        With a row_sparse gradient, update only the rows it holds (weight decay and
        momentum included), as MXNet does.
    multi_precision : bool, optional, default False
        Keep a float32 master copy of float16 weights.
    **kwargs
        Passed to :class:`Optimizer`.
    """

    def __init__(self, momentum: float = 0.0, lazy_update: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update
        self.aggregate_num = int(os.getenv("MXNET_OPTIMIZER_AGGREGATION_SIZE", "4"))

    _state_then_master: ClassVar[bool] = True
    _warn_name: ClassVar[str] = "SGD"

    def create_state(self, index: Any, weight: Any) -> Any:
        if self.momentum == 0.0:
            return None
        return nd.zeros(weight.shape, weight.context, dtype=weight.dtype)

    def _update_impl(
        self, indices: Any, weights: Any, grads: Any, states: Any, multi_precision: bool = False
    ) -> None:
        if not isinstance(indices, (tuple, list)):
            indices, weights, grads, states = [indices], [weights], [grads], [states]
        self._update_count(indices)
        lrs = self._get_lrs(indices)
        wds = self._get_wds(indices)
        kwargs: dict[str, Any] = {"rescale_grad": self.rescale_grad}
        if self.momentum > 0:
            kwargs["momentum"] = self.momentum
        self._clip_kwargs(kwargs)
        if all(w.stype == "default" and g.stype == "default" for w, g in zip(weights, grads)):
            # as MXNet: dense weights update through the multi_* operators, one engine
            # operation for up to aggregate_num weights
            self._update_multi(weights, grads, states, lrs, wds, kwargs, multi_precision)
            return
        _sgd_each(weights, grads, states, lrs, wds, kwargs, self.lazy_update, multi_precision)

    def _update_multi(
        self,
        weights: list,
        grads: list,
        states: list,
        lrs: list,
        wds: list,
        kwargs: dict[str, Any],
        multi_precision: bool,
    ) -> None:
        _multi_sgd(weights, grads, states, lrs, wds, kwargs, self.momentum > 0, multi_precision)

    def update(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        self._update_impl(index, weight, grad, state, multi_precision=False)

    def update_multi_precision(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        first = weight[0] if isinstance(index, (tuple, list)) else weight
        use_mp = self.multi_precision and first.dtype == np.float16
        self._update_impl(index, weight, grad, state, multi_precision=use_mp)


@register
class ccSGD(SGD):  # noqa: N801  (MXNet's name)
    """[DEPRECATED] Same as :class:`SGD`."""


def _multi_sgd(
    weights: list,
    grads: list,
    states: list,
    lrs: list,
    wds: list,
    kwargs: dict[str, Any],
    momentum: bool,
    multi_precision: bool,
) -> None:
    """Update dense ``weights`` in one ``multi_*sgd*`` operator call (SGD's, and LARS's with
    its per-layer learning rates); ``states`` are momenta, or (momentum, float32 master) with
    ``multi_precision``."""
    n = len(weights)
    # tuples: hashable, so the parsed operator (and its inferred shapes) is cached
    common = {"num_weights": n, "lrs": tuple(lrs), "wds": tuple(wds), **kwargs}
    if not multi_precision:
        if momentum:
            args = [a for trio in zip(weights, grads, states) for a in trio]
            nd.multi_sgd_mom_update(*args, out=weights, **common)
        else:
            args = [a for pair in zip(weights, grads) for a in pair]
            nd.multi_sgd_update(*args, out=weights, **common)
    elif momentum:
        args = [a for w, g, s in zip(weights, grads, states) for a in (w, g, s[0], s[1])]
        nd.multi_mp_sgd_mom_update(*args, out=weights, **common)
    else:
        args = [a for w, g, s in zip(weights, grads, states) for a in (w, g, s[1])]
        nd.multi_mp_sgd_update(*args, out=weights, **common)


def _sgd_each(
    weights: list,
    grads: list,
    states: list,
    lrs: list,
    wds: list,
    kwargs: dict[str, Any],
    lazy: bool,
    multi_precision: bool,
) -> None:
    """Update each weight with its own ``sgd_*update`` call (sparse weights or gradients; SGD's
    and LARS's); a None state means no momentum."""
    for weight, grad, state, lr, wd in zip(weights, grads, states, lrs, wds):
        if not multi_precision:
            if state is not None:
                nd.sgd_mom_update(weight, grad, state, out=weight, lr=lr, wd=wd,
                                  lazy_update=lazy, **kwargs)  # fmt: skip
            else:
                kw = {k: v for k, v in kwargs.items() if k != "momentum"}
                nd.sgd_update(weight, grad, out=weight, lr=lr, wd=wd, lazy_update=lazy, **kw)
        elif state[0] is not None:
            nd.mp_sgd_mom_update(
                weight, grad, state[0], state[1], out=weight, lr=lr, wd=wd, **kwargs
            )
        else:
            kw = {k: v for k, v in kwargs.items() if k != "momentum"}
            nd.mp_sgd_update(weight, grad, state[1], out=weight, lr=lr, wd=wd, **kw)
