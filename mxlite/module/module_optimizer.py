"""Module's optimizer: installing it (with its KVStore, as ``init_optimizer``'s work), sharing
it, its states files, and the update step.

A part of :class:`~.module.Module` (its base class), in a file of its own; it works on the
module's state, described in ``module.py``'s design note: the executor group, the master
parameters, the store and the updater.
"""

from __future__ import annotations

import warnings
from typing import Any

from .. import optimizer as opt
from ..base import MXNetError
from ..fileio import atomic_write
from ..model import (
    _create_kvstore,
    _initialize_kvstore,
    _update_params,
    _update_params_on_kvstore,
)
from .checks import _check_state

__all__ = ["OptimizerMixin"]


class OptimizerMixin:
    """The optimizer methods of :class:`~.module.Module`."""

    def _init_optimizer(
        self, kvstore: Any, optimizer: Any, optimizer_params: Any, force_init: bool
    ) -> None:
        if self._params_dirty:
            self._sync_params_from_devices()
        store, update_on_store, rescale_grad, idx2name = self._store_and_indexing(kvstore)
        param_names = self._exec_group.param_names
        if isinstance(optimizer, str):
            optimizer_params = dict(optimizer_params)
            if "rescale_grad" not in optimizer_params:
                optimizer_params["rescale_grad"] = rescale_grad
            optimizer = opt.create(
                optimizer, sym=self.symbol, param_idx2name=idx2name, **optimizer_params
            )
        else:
            if not isinstance(optimizer, opt.Optimizer):
                raise MXNetError(
                    "init_optimizer: argument 'optimizer' must be a name or an Optimizer, "
                    f"got {type(optimizer).__name__}."
                )
            if optimizer.rescale_grad != rescale_grad:
                warnings.warn(
                    "Optimizer created manually outside Module but rescale_grad is not "
                    f"normalized to 1.0/batch_size/num_workers ({optimizer.rescale_grad} vs. "
                    f"{rescale_grad}). Is this intended?",
                    stacklevel=3,
                )
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name.copy()
        self._optimizer = optimizer
        self._kvstore = store
        self._update_on_kvstore = update_on_store
        self._updater = None
        if store is not None:
            if self._compression_params:
                store.set_gradient_compression(self._compression_params)
            if update_on_store:
                store.set_optimizer(optimizer)
            _initialize_kvstore(
                store, self._exec_group.param_arrays, self._arg_params, param_names, update_on_store
            )
        if not update_on_store:
            self._updater = opt.get_updater(optimizer)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def _store_and_indexing(self, kvstore: Any) -> tuple[Any, bool, float, dict[int, str]]:
        """The store ``kvstore`` makes and whether it updates the parameters, the gradient
        scale ``1 / (batch_size * workers of a dist_sync store)``, and the optimizer's index to
        name map: a parameter's index on the store, else ``index * num_device + device``."""
        num_device = len(self._context)
        store, update_on_store = _create_kvstore(kvstore, num_device, self._arg_params or {})
        batch_size = self._exec_group.batch_size
        if store is not None and "dist" in store.type and "_sync" in store.type:
            batch_size *= store.num_workers
        param_names = self._exec_group.param_names
        idx2name: dict[int, str] = {}
        if update_on_store:
            idx2name.update(enumerate(param_names))
        else:
            for k in range(num_device):
                idx2name.update({i * num_device + k: n for i, n in enumerate(param_names)})
        return store, update_on_store, 1.0 / batch_size, idx2name

    def borrow_optimizer(self, shared_module: Any) -> None:
        """Borrows optimizer from a shared module. Used in bucketing, where exactly the same
        optimizer (esp. kvstore) is used.

        Parameters
        ----------
        shared_module : Module
        """
        if not shared_module.optimizer_initialized:
            raise MXNetError("borrow_optimizer: the shared module has no optimizer yet.")
        self._optimizer = shared_module._optimizer
        self._kvstore = shared_module._kvstore
        self._update_on_kvstore = shared_module._update_on_kvstore
        self._updater = shared_module._updater
        self.optimizer_initialized = True

    def save_optimizer_states(self, fname: str) -> None:
        """Saves optimizer (updater) state to a file.

        Parameters
        ----------
        fname : str
            Path to output states file.
        """
        _check_state(self, "save_optimizer_states", "optimizer_initialized")
        if self._update_on_kvstore:
            self._kvstore.save_optimizer_states(fname)
        else:
            with atomic_write(fname, "wb", "Module.save_optimizer_states") as f:
                f.write(self._updater.get_states())

    def load_optimizer_states(self, fname: str) -> None:
        """Loads optimizer (updater) state from a file.

        Parameters
        ----------
        fname : str
            Path to input states file.
        """
        _check_state(self, "load_optimizer_states", "optimizer_initialized")
        if self._update_on_kvstore:
            self._kvstore.load_optimizer_states(fname)
            return
        with open(fname, "rb") as f:
            self._updater.set_states(f.read())

    def update(self) -> None:
        """Updates parameters according to the installed optimizer and the gradients computed
        in the previous forward-backward batch."""
        _check_state(self, "update", "binded", "params_initialized", "optimizer_initialized")
        self._params_dirty = True
        group = self._exec_group
        if self._update_on_kvstore:
            _update_params_on_kvstore(
                group.param_arrays, group.grad_arrays, self._kvstore, group.param_names
            )
        else:
            _update_params(
                group.param_arrays,
                group.grad_arrays,
                updater=self._updater,
                num_device=len(self._context),
                kvstore=self._kvstore,
                param_names=group.param_names,
            )
