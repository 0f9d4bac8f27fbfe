"""Adaptive optimizers: Adam, AdaGrad, AdaDelta, RMSProp (plain and centered), Adamax, Nadam,
Ftrl, FTML, as MXNet 1.9.1.

Adam, RMSProp, Ftrl and FTML run one fused operator per update; AdaGrad, AdaDelta, Adamax and
Nadam are written with NDArray arithmetic as in MXNet (each step is still an engine
operation). Attribute names are MXNet's: they are the pickled state format.
"""

from __future__ import annotations

import math
from typing import Any

from .. import ndarray as nd
from .optimizer import Optimizer, register

__all__ = ["Adam", "AdaGrad", "AdaDelta", "RMSProp", "Adamax", "Nadam", "Ftrl", "FTML"]


def _zeros_like(weight: Any, same_dtype: bool = True) -> Any:
    if same_dtype:
        return nd.zeros(weight.shape, weight.context, dtype=weight.dtype)
    return nd.zeros(weight.shape, weight.context)


def _clipped(grad: Any, clip: float | None) -> Any:
    return nd.clip(grad, -clip, clip) if clip is not None else grad


class _Moments(Optimizer):
    """An optimizer that keeps moments of the gradient (Adam, Adamax, Nadam, FTML): ``beta1``
    and ``beta2``, a (first, second) moment state per weight, and the update count ``t``."""

    def __init__(self, beta1: float, beta2: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.beta1 = beta1
        self.beta2 = beta2

    def create_state(self, index: Any, weight: Any) -> Any:
        return (_zeros_like(weight), _zeros_like(weight))

    def _begin_t(self, index: Any) -> tuple[float, float, int]:
        """:meth:`_begin`, and the number of updates of ``index`` so far (this one included)."""
        lr, wd = self._begin(index)
        return lr, wd, self._index_update_count[index]


@register
class Adam(_Moments):
    """The Adam optimizer (Kingma and Ba), bias correction folded into the learning rate.

    Parameters
    ----------
    learning_rate : float, default 0.001
    beta1 : float, default 0.9
        Exponential decay rate for the first moment estimates.
    beta2 : float, default 0.999
        Exponential decay rate for the second moment estimates.
    epsilon : float, default 1e-8
        Small value to avoid division by 0.
    lazy_update : bool, default True
        With a row_sparse gradient, update only the rows it holds (and their mean and
        variance), as MXNet does.
    """

    def __init__(
        self,
        learning_rate: float = 0.001,
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float = 1e-8,
        lazy_update: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(beta1, beta2, learning_rate=learning_rate, **kwargs)
        self.epsilon = epsilon
        self.lazy_update = lazy_update

    def update(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        lr, wd, t = self._begin_t(index)
        lr *= math.sqrt(1.0 - self.beta2**t) / (1.0 - self.beta1**t)
        kwargs = self._clip_kwargs(
            {
                "beta1": self.beta1,
                "beta2": self.beta2,
                "epsilon": self.epsilon,
                "rescale_grad": self.rescale_grad,
            }
        )
        mean, var = state
        nd.adam_update(weight, grad, mean, var, out=weight, lr=lr, wd=wd,
                       lazy_update=self.lazy_update, **kwargs)  # fmt: skip


@register
class AdaGrad(Optimizer):
    """The AdaGrad optimizer (Duchi et al.).

    Parameters
    ----------
    eps : float, default 1e-7
        Small value to avoid division by 0.
    """

    def __init__(self, eps: float = 1e-7, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index: Any, weight: Any) -> Any:
        return _zeros_like(weight, same_dtype=False)

    def update(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        lr, wd = self._begin(index)
        history = state
        if grad.stype == "row_sparse":  # MXNet's fused sparse kernel: only the rows held
            kwargs = {"epsilon": self.float_stable_eps, "rescale_grad": self.rescale_grad}
            if self.clip_gradient:
                kwargs["clip_gradient"] = self.clip_gradient
            nd.sparse.adagrad_update(weight, grad, history, out=weight, lr=lr, wd=wd, **kwargs)
            return
        grad = _clipped(grad * self.rescale_grad, self.clip_gradient)
        history[:] += nd.square(grad)
        div = grad / nd.sqrt(history + self.float_stable_eps)
        weight[:] += (div + weight * wd) * -lr


@register
class RMSProp(Optimizer):
    """The RMSProp optimizer; ``centered=True`` is Graves' version (``rmspropalex_update``).

    Parameters
    ----------
    learning_rate : float, default 0.001
    gamma1 : float, default 0.9
        Decay factor of the moving average of squared gradients.
    gamma2 : float, default 0.9
        Momentum factor of the centered version.
    epsilon : float, default 1e-8
        Small value to avoid division by 0.
    centered : bool, default False
        Use the centered version.
    clip_weights : float, optional
        Clip weights to ``[-clip_weights, clip_weights]``.
    """

    def __init__(
        self,
        learning_rate: float = 0.001,
        gamma1: float = 0.9,
        gamma2: float = 0.9,
        epsilon: float = 1e-8,
        centered: bool = False,
        clip_weights: float | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1 = gamma1
        self.gamma2 = gamma2
        self.centered = centered
        self.epsilon = epsilon
        self.clip_weights = clip_weights

    def create_state(self, index: Any, weight: Any) -> Any:
        n = 3 if self.centered else 1
        return tuple(_zeros_like(weight, same_dtype=False) for _ in range(n))

    def update(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        lr, wd = self._begin(index)
        kwargs: dict[str, Any] = {
            "gamma1": self.gamma1,
            "epsilon": self.epsilon,
            "rescale_grad": self.rescale_grad,
        }
        if self.centered:
            kwargs["gamma2"] = self.gamma2
        self._clip_kwargs(kwargs)
        if self.clip_weights:
            kwargs["clip_weights"] = self.clip_weights
        if not self.centered:
            (n,) = state
            nd.rmsprop_update(weight, grad, n, out=weight, lr=lr, wd=wd, **kwargs)
        else:
            n, g, delta = state
            nd.rmspropalex_update(weight, grad, n, g, delta, out=weight, lr=lr, wd=wd, **kwargs)


@register
class AdaDelta(Optimizer):
    """The AdaDelta optimizer (Zeiler).

    Parameters
    ----------
    rho : float, default 0.90
        Decay rate for both squared gradients and delta.
    epsilon : float, default 1e-5
        Small value to avoid division by 0.
    """

    def __init__(self, rho: float = 0.90, epsilon: float = 1e-5, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def create_state(self, index: Any, weight: Any) -> Any:
        return (_zeros_like(weight, False), _zeros_like(weight, False))

    def update(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        wd = self._get_wd(index)
        self._update_count(index)
        # as MXNet: the caller's gradient is rescaled in place
        grad *= self.rescale_grad
        grad = _clipped(grad, self.clip_gradient)
        acc_g, acc_delta = state
        acc_g[:] *= self.rho
        acc_g[:] += (1.0 - self.rho) * grad * grad
        current_delta = nd.sqrt(acc_delta + self.epsilon) / nd.sqrt(acc_g + self.epsilon) * grad
        acc_delta[:] *= self.rho
        acc_delta[:] += (1.0 - self.rho) * current_delta * current_delta
        weight[:] -= current_delta + wd * weight


@register
class Ftrl(Optimizer):
    """The Ftrl optimizer (McMahan et al.), ``ftrl_update``.

    Parameters
    ----------
    lamda1 : float, default 0.01
        L1 regularization coefficient.
    learning_rate : float, default 0.1
    beta : float, default 1
        Per-coordinate learning rate correlation parameter.
    """

    def __init__(
        self, lamda1: float = 0.01, learning_rate: float = 0.1, beta: float = 1, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.lamda1 = lamda1
        self.beta = beta
        self.lr = learning_rate

    def create_state(self, index: Any, weight: Any) -> Any:
        return (_zeros_like(weight, False), _zeros_like(weight, False))

    def update(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        lr, wd = self._begin(index)
        kwargs = self._clip_kwargs(
            {"lamda1": self.lamda1, "beta": self.beta, "rescale_grad": self.rescale_grad}
        )
        z, n = state
        nd.ftrl_update(weight, grad, z, n, out=weight, lr=lr, wd=wd, **kwargs)


@register
class Adamax(_Moments):
    """The AdaMax optimizer, Adam with the infinity norm.

    Parameters
    ----------
    learning_rate : float, default 0.002
    beta1 : float, default 0.9
    beta2 : float, default 0.999
    """

    def __init__(
        self, learning_rate: float = 0.002, beta1: float = 0.9, beta2: float = 0.999, **kwargs: Any
    ) -> None:
        super().__init__(beta1, beta2, learning_rate=learning_rate, **kwargs)

    def update(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        lr, wd, t = self._begin_t(index)
        lr /= 1.0 - self.beta1**t
        grad = _clipped(grad * self.rescale_grad + wd * weight, self.clip_gradient)
        m_t, u_t = state
        m_t[:] *= self.beta1
        m_t[:] += (1.0 - self.beta1) * grad
        u_t[:] = nd.maximum(self.beta2 * u_t, nd.abs(grad))
        weight[:] -= lr * m_t / u_t


@register
class Nadam(_Moments):
    """The Nesterov Adam optimizer (Dozat).

    Parameters
    ----------
    learning_rate : float, default 0.001
    beta1 : float, default 0.9
    beta2 : float, default 0.999
    epsilon : float, default 1e-8
    schedule_decay : float, default 0.004
        Exponential decay rate for the momentum schedule.
    """

    def __init__(
        self,
        learning_rate: float = 0.001,
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float = 1e-8,
        schedule_decay: float = 0.004,
        **kwargs: Any,
    ) -> None:
        super().__init__(beta1, beta2, learning_rate=learning_rate, **kwargs)
        self.epsilon = epsilon
        self.schedule_decay = schedule_decay
        # one schedule for all parameters, as in MXNet
        self.m_schedule = 1.0

    def update(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        lr, wd, t = self._begin_t(index)
        grad = _clipped(grad * self.rescale_grad + wd * weight, self.clip_gradient)
        momentum_t = self.beta1 * (1.0 - 0.5 * pow(0.96, t * self.schedule_decay))
        momentum_t_1 = self.beta1 * (1.0 - 0.5 * pow(0.96, (t + 1) * self.schedule_decay))
        self.m_schedule = self.m_schedule * momentum_t
        m_schedule_next = self.m_schedule * momentum_t_1
        m_t, v_t = state
        m_t[:] *= self.beta1
        m_t[:] += (1.0 - self.beta1) * grad
        v_t[:] *= self.beta2
        v_t[:] += (1.0 - self.beta2) * grad * grad
        grad_prime = grad / (1.0 - self.m_schedule)
        m_t_prime = m_t / (1.0 - m_schedule_next)
        v_t_prime = v_t / (1.0 - pow(self.beta2, t))
        m_t_bar = (1.0 - momentum_t) * grad_prime + momentum_t_1 * m_t_prime
        weight[:] -= lr * m_t_bar / (nd.sqrt(v_t_prime) + self.epsilon)


@register
class FTML(_Moments):
    """The FTML optimizer (Zheng and Kwok), ``ftml_update``.

    Parameters
    ----------
    beta1 : float, default 0.6
    beta2 : float, default 0.999
    epsilon : float, default 1e-8
    """

    def __init__(
        self, beta1: float = 0.6, beta2: float = 0.999, epsilon: float = 1e-8, **kwargs: Any
    ) -> None:
        super().__init__(beta1, beta2, **kwargs)
        self.epsilon = epsilon

    def create_state(self, index: Any, weight: Any) -> Any:
        return (_zeros_like(weight), _zeros_like(weight), _zeros_like(weight))

    def update(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        lr, wd, t = self._begin_t(index)
        kwargs = self._clip_kwargs(
            {
                "beta1": self.beta1,
                "beta2": self.beta2,
                "epsilon": self.epsilon,
                "rescale_grad": self.rescale_grad,
                "t": t,
            },
            key="clip_grad",
        )
        prev_d, prev_v, prev_z = state
        nd.ftml_update(weight, grad, prev_d, prev_v, prev_z, out=weight, lr=lr, wd=wd, **kwargs)
