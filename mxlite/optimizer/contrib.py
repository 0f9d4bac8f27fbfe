"""``mx.optimizer.contrib``: MXNet's contributed optimizers (GroupAdaGrad)."""

from __future__ import annotations

from typing import Any

from .. import ndarray as nd
from ..base import ParamError
from .adaptive import _clipped
from .optimizer import Optimizer, register

__all__ = ["GroupAdaGrad"]


@register
class GroupAdaGrad(Optimizer):
    """AdaGrad with one learning rate per row of each (2-D) weight.

    This optimizer updates each weight by::

        grad = clip(grad * rescale_grad, clip_gradient)
        history += mean(square(grad), axis=1, keepdims=True)
        div = grad / sqrt(history + float_stable_eps)
        weight -= div * lr

    Weight decay is not supported.

    Parameters
    ----------
    eps: float, optional
        Initial value of the history accumulator. Avoids division by 0.
    """

    def __init__(self, eps: float = 1e-5, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index: Any, weight: nd.NDArray) -> nd.NDArray:
        if len(weight.shape) != 2:
            raise ParamError(
                f"GroupAdaGrad.create_state: weight {index!r} must be 2-D, got shape "
                f"{weight.shape}."
            )
        kwargs = {}
        stype = getattr(weight, "stype", "default")
        if stype != "default":
            kwargs["stype"] = stype
        return nd.zeros((weight.shape[0], 1), weight.context, **kwargs)

    def update(self, index: Any, weight: nd.NDArray, grad: nd.NDArray, state: Any) -> None:
        lr, wd = self._begin(index)
        if wd != 0:
            raise ParamError(f"GroupAdaGrad.update: weight decay is not supported, got wd={wd}.")
        if getattr(grad, "stype", "default") == "row_sparse":
            kwargs = {"epsilon": self.float_stable_eps, "rescale_grad": self.rescale_grad}
            if self.clip_gradient:
                kwargs["clip_gradient"] = self.clip_gradient
            nd.contrib.group_adagrad_update(weight, grad, state, out=weight, lr=lr, **kwargs)
            return
        grad = _clipped(grad * self.rescale_grad, self.clip_gradient)
        state[:] += nd.mean(nd.square(grad), axis=1, keepdims=True)
        weight[:] -= lr * grad / nd.sqrt(state + self.float_stable_eps)
