"""The two optimizers behind :class:`SVRGModule`: ``_AssignmentOptimizer`` writes the pushed
gradient into the stored value (so a KVStore key ``<name>_full`` accumulates the full
gradient), and ``_SVRGOptimizer`` sends keys whose name contains ``full`` to it and every other
key to the user's optimizer."""

from __future__ import annotations

from typing import Any

from ... import optimizer as opt
from ...base import MXNetError

__all__ = ["_AssignmentOptimizer", "_SVRGOptimizer"]

# the parameters of the Optimizer base class; the rest belong to the wrapped optimizer only
_BASE_PARAMS = (
    "rescale_grad",
    "param_idx2name",
    "wd",
    "clip_gradient",
    "learning_rate",
    "lr_scheduler",
    "sym",
    "begin_num_update",
    "multi_precision",
    "param_dict",
)


@opt.register
class _AssignmentOptimizer(opt.Optimizer):
    """Assigns the gradient to the weight (accumulates full gradients in a KVStore)."""

    def update(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        weight[:] = grad


@opt.register
class _SVRGOptimizer(opt.Optimizer):
    """Wraps ``default_optimizer`` and an :class:`_AssignmentOptimizer`, choosing by key name.

    Parameters
    ----------
    default_optimizer: str or Optimizer
        Optimizer passed-in when invoke on mx.mod.init_optimizer in SVRGModule
    """

    def __init__(self, default_optimizer: Any, **kwargs: Any) -> None:
        base = {k: v for k, v in kwargs.items() if k in _BASE_PARAMS}
        super().__init__(**base)
        if isinstance(default_optimizer, str):
            self.default_opt = opt.create(default_optimizer, **kwargs)
        else:
            self.default_opt = default_optimizer
        self.aux_opt = opt.create(_AssignmentOptimizer.__name__)

    @staticmethod
    def _check_params(**kwargs: Any) -> dict:
        """The keyword arguments that the Optimizer base class takes."""
        return {k: v for k, v in kwargs.items() if k in _BASE_PARAMS}

    def _check_index(self, index: Any) -> str:
        """The parameter name of ``index`` (an int key or already a name)."""
        if index in self.idx2name.values():
            return index
        if index not in self.idx2name:
            raise MXNetError(
                f"_SVRGOptimizer: index {index!r} is neither a known parameter name nor a key "
                "of param_idx2name."
            )
        return self.idx2name[index]

    def update(self, index: Any, weight: Any, grad: Any, state: Any) -> None:
        """Assign for ``*_full`` keys, else update with the default optimizer."""
        if "full" in self._check_index(index):
            self.aux_opt.update(index, weight, grad, state)
        else:
            self.default_opt.update(index, weight, grad, state)

    def create_state(self, index: Any, weight: Any) -> Any:
        if "full" in self._check_index(index):
            return self.aux_opt.create_state(index, weight)
        return self.default_opt.create_state(index, weight)
