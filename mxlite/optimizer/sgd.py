"""SGD (with momentum and multi-precision) and its alias ccSGD, as MXNet 1.9.1.

As in MXNet, dense weights update through the fused ``multi_sgd_update`` family (one
operator for the up to ``aggregate_num`` weights of an aggregated Updater call, or for one
weight); sparse weights or gradients take ``sgd_update``/``sgd_mom_update`` (and their
``mp_`` forms) one weight at a time, with ``lazy_update``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, ClassVar

from .. import ndarray as nd
from .optimizer import _FusedOptimizer, register

__all__ = ["SGD", "ccSGD"]


class _MomentumState:
    """SGD's, NAG's and Signum's state: a momentum buffer of the weight's dtype, or None when
    ``momentum`` is 0."""

    momentum: float

    def create_state(self, index: Any, weight: Any) -> Any:
        if self.momentum == 0.0:
            return None
        return nd.zeros(weight.shape, weight.context, dtype=weight.dtype)


@register
class SGD(_MomentumState, _FusedOptimizer):
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

    def _update_impl(
        self, index: Any, weight: Any, grad: Any, state: Any, multi_precision: bool = False
    ) -> None:
        _sgd_step(self, index, weight, grad, state, multi_precision)

    def _sgd_momentum(self) -> float:
        """The momentum of this step (LARS corrects it for a changed learning rate)."""
        return self.momentum


@register
class ccSGD(SGD):  # noqa: N801  (MXNet's name)
    """[DEPRECATED] Same as :class:`SGD`."""


def _sgd_step(
    opt: Any,
    index: Any,
    weight: Any,
    grad: Any,
    state: Any,
    multi_precision: bool,
    rates: Callable | None = None,
) -> None:
    """SGD's update (and LARS's) of one weight or an aggregated list: dense weights through
    one ``multi_*sgd*`` operator call, as MXNet; sparse weights or gradients one
    ``sgd_*update`` call each. ``rates(indices, weights, grads, lrs, wds, dense)`` gives the
    learning rates and weight decays to use (LARS's per-layer rates)."""
    indices, weights, grads, states, lrs, wds = opt._begin_all(index, weight, grad, state)
    kwargs: dict[str, Any] = {"rescale_grad": opt.rescale_grad}
    if opt.momentum > 0:
        kwargs["momentum"] = opt._sgd_momentum()
    opt._clip_kwargs(kwargs)
    dense = all(w.stype == "default" and g.stype == "default" for w, g in zip(weights, grads))
    if rates is not None:
        lrs, wds = rates(indices, weights, grads, lrs, wds, dense)
    if dense:
        _multi_sgd(weights, grads, states, lrs, wds, kwargs, opt.momentum > 0, multi_precision)
    else:
        _sgd_each(weights, grads, states, lrs, wds, kwargs, opt.lazy_update, multi_precision)


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
