"""The computation methods of the modules that hand their computation on to one object:
Module to its executor group, BucketingModule to the current bucket's Module. Both answer
``backward``, ``get_outputs``, ``get_input_grads``, ``get_states`` and ``set_states`` with the
same arguments, so each method is written once here: the module's state check, then the
object's method.
"""

from __future__ import annotations

from typing import Any

from .base_module import BaseModule
from .checks import _check_state

__all__ = ["DelegatingModule"]


class DelegatingModule(BaseModule):
    """A module whose computation is done by ``_delegate``, once bound."""

    @property
    def _delegate(self) -> Any:
        """The object doing the computation."""
        raise NotImplementedError()

    def backward(self, out_grads: Any = None) -> None:
        """Backward computation.

        Parameters
        ----------
        out_grads : NDArray or list of NDArray, optional
            Gradient on the outputs to be propagated back.
            This parameter is only needed when bind is called
            on outputs that are not a loss function.
        """
        _check_state(self, "backward", "binded", "params_initialized")
        self._delegate.backward(out_grads=out_grads)

    def get_outputs(self, merge_multi_context: bool = True) -> list:
        """Gets outputs of the previous forward computation.

        Parameters
        ----------
        merge_multi_context : bool
            Default is ``True``. In the case when data-parallelism is used, the outputs
            will be collected from multiple devices. A ``True`` value indicate that we
            should merge the collected results so that they look like from a single
            executor.
        """
        _check_state(self, "get_outputs", "binded", "params_initialized")
        return self._delegate.get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context: bool = True) -> list:
        """Gets the gradients with respect to the inputs of the module.

        Parameters
        ----------
        merge_multi_context : bool
            Default is ``True``; merge the per-device gradients along the batch axis.
        """
        _check_state(self, "get_input_grads", "binded", "params_initialized")
        return self._delegate.get_input_grads(merge_multi_context=merge_multi_context)

    def get_states(self, merge_multi_context: bool = True) -> list:
        """Gets states from all devices (per device; merging is not supported)."""
        _check_state(self, "get_states", "binded", "params_initialized")
        return self._delegate.get_states(merge_multi_context=merge_multi_context)

    def set_states(self, states: Any = None, value: Any = None) -> None:
        """Sets value for states. Only one of the states & value can be specified."""
        _check_state(self, "set_states", "binded", "params_initialized")
        self._delegate.set_states(states, value)
