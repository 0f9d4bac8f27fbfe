"""BucketingModule: one Module per bucket key, all sharing one set of parameters.

Design note
-----------
``sym_gen(bucket_key)`` gives each bucket's ``(symbol, data_names, label_names)``. The module
of ``default_bucket_key`` is bound first and owns the parameters and the optimizer; every
other bucket's Module is bound with ``shared_module`` set to it, so its executors take the
same parameter and gradient arrays (and memory) and borrow its updater. ``forward`` switches
to the batch's ``bucket_key`` (binding that bucket on first sight) and delegates.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from .. import model as _model
from .. import ndarray as nd
from .. import symbol as _sym
from ..base import MXNetError
from ..name import NameManager
from .checks import _check_inputs, _check_state
from .delegating import DelegatingModule
from .module import Module

__all__ = ["BucketingModule"]


class BucketingModule(DelegatingModule):
    """This module helps to deal efficiently with varying-length inputs.

    Parameters
    ----------
    sym_gen : function
        A function when called with a bucket key, returns a triple
        ``(symbol, data_names, label_names)``.
    default_bucket_key : str (or any python object)
        The key for the default bucket.
    logger, context, work_load_list, fixed_param_names, state_names, group2ctxs,
    compression_params
        As :class:`Module`, which each bucket is.
    """

    def __init__(
        self,
        sym_gen: Any,
        default_bucket_key: Any = None,
        logger: Any = logging,
        context: Any = None,
        work_load_list: list[float] | None = None,
        fixed_param_names: list[str] | None = None,
        state_names: list[str] | None = None,
        group2ctxs: Any = None,
        compression_params: dict | None = None,
    ) -> None:
        super().__init__(logger=logger)
        if default_bucket_key is None:
            raise MXNetError("BucketingModule: argument 'default_bucket_key' is required.")
        self._default_bucket_key = default_bucket_key
        self._sym_gen = sym_gen
        symbol, data_names, label_names = self._call_sym_gen(default_bucket_key)
        data_names, label_names, state_names, fixed_param_names = _check_inputs(
            symbol, data_names, label_names, state_names, fixed_param_names
        )
        self._module_kwargs = {
            "logger": logger,
            "context": context,
            "work_load_list": work_load_list,
            "fixed_param_names": fixed_param_names,
            "state_names": state_names,
            "group2ctxs": group2ctxs,
            "compression_params": compression_params,
        }
        self._buckets: dict[Any, Module] = {}
        self._curr_module: Module | None = None
        self._curr_bucket_key: Any = None
        self._params_dirty = False
        self._monitor: Any = None
        self._grad_req: Any = None

    def _call_sym_gen(self, *args: Any, **kwargs: Any) -> Any:
        with NameManager():
            return self._sym_gen(*args, **kwargs)

    def _new_module(self, bucket_key: Any) -> Module:
        symbol, data_names, label_names = self._call_sym_gen(bucket_key)
        return Module(symbol, data_names, label_names, **self._module_kwargs)

    @property
    def _delegate(self) -> Module | None:
        return self._curr_module

    def _reset_bind(self) -> None:
        self.binded = False
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None

    @property
    def data_names(self) -> list[str]:
        """A list of names for data required by this module."""
        if self.binded:
            return self._curr_module.data_names
        return list(self._call_sym_gen(self._default_bucket_key)[1])

    @property
    def output_names(self) -> list[str]:
        """A list of names for the outputs of this module."""
        if self.binded:
            return self._curr_module.output_names
        return self._call_sym_gen(self._default_bucket_key)[0].list_outputs()

    @property
    def data_shapes(self) -> list:
        """Get data shapes of the current bucket."""
        _check_state(self, "data_shapes", "binded")
        return self._curr_module.data_shapes

    @property
    def label_shapes(self) -> list | None:
        """Get label shapes of the current bucket."""
        _check_state(self, "label_shapes", "binded")
        return self._curr_module.label_shapes

    @property
    def output_shapes(self) -> list:
        """Gets output shapes of the current bucket."""
        _check_state(self, "output_shapes", "binded")
        return self._curr_module.output_shapes

    @property
    def symbol(self) -> Any:
        """The symbol of the current bucket."""
        _check_state(self, "symbol", "binded")
        return self._curr_module.symbol

    def get_params(self) -> tuple[dict, dict]:
        """Gets current parameters."""
        _check_state(self, "get_params", "binded", "params_initialized")
        self._curr_module._params_dirty = self._params_dirty
        params = self._curr_module.get_params()
        self._params_dirty = False
        return params

    _assigns_params = True

    def _assign_params(
        self, arg_params: dict, aux_params: dict, force_init: bool, allow_extra: bool
    ) -> None:
        self._curr_module.set_params(
            arg_params, aux_params, allow_missing=True, force_init=force_init,
            allow_extra=allow_extra,
        )  # fmt: skip

    def _init_params(
        self, initializer: Any, arg_params: dict | None, aux_params: dict | None,
        allow_missing: bool, force_init: bool, allow_extra: bool,
    ) -> None:  # fmt: skip
        self._curr_module.init_params(
            initializer=initializer, arg_params=arg_params, aux_params=aux_params,
            allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra,
        )  # fmt: skip
        self._params_dirty = False

    def _bind(
        self, data_shapes: Any, label_shapes: Any, force_rebind: bool, shared_module: Any
    ) -> None:
        """Binding for a `BucketingModule` means setting up the buckets and binding the
        executor for the default bucket key (``data_shapes`` and ``label_shapes`` are those of
        its symbol). Executors corresponding to other keys are bound afterwards with
        `switch_bucket`. ``shared_module`` is not supported."""
        arg_params = aux_params = None
        if self.params_initialized:
            curr = self._curr_module
            if curr is not None and curr.binded:
                arg_params, aux_params = self.get_params()
            elif curr is not None:  # loaded from a checkpoint, not yet bound
                arg_params, aux_params = curr._arg_params, curr._aux_params
        if force_rebind:
            self._reset_bind()
        if shared_module is not None:
            raise MXNetError("BucketingModule.bind: shared_module is not supported.")
        module = self._new_module(self._default_bucket_key)
        module.bind(
            data_shapes, label_shapes, self.for_training, self.inputs_need_grad,
            force_rebind=False, shared_module=None, grad_req=self._grad_req,
        )  # fmt: skip
        self._curr_module = module
        self._curr_bucket_key = self._default_bucket_key
        self._buckets = {self._default_bucket_key: module}
        self.binded = True
        if arg_params is not None:
            self.params_initialized = False
            self.set_params(arg_params, aux_params)

    def switch_bucket(self, bucket_key: Any, data_shapes: Any, label_shapes: Any = None) -> None:
        """Switches to a different bucket. This will change ``self.curr_module``.

        Parameters
        ----------
        bucket_key : str (or any python object)
            The key of the target bucket.
        data_shapes : list of (str, tuple)
            Typically ``data_batch.provide_data``.
        label_shapes : list of (str, tuple)
            Typically ``data_batch.provide_label``.
        """
        _check_state(self, "switch_bucket", "binded")
        if bucket_key not in self._buckets:
            default = self._buckets[self._default_bucket_key]
            module = self._new_module(bucket_key)
            module.bind(
                data_shapes, label_shapes, default.for_training, default.inputs_need_grad,
                force_rebind=False, shared_module=default, grad_req=self._grad_req,
            )  # fmt: skip
            if self._monitor is not None:
                module.install_monitor(self._monitor)
            self._buckets[bucket_key] = module
        self._curr_module = self._buckets[bucket_key]
        self._curr_bucket_key = bucket_key

    def _init_optimizer(
        self, kvstore: Any, optimizer: Any, optimizer_params: Any, force_init: bool
    ) -> None:
        """Installs the optimizer on the current bucket; every bucket shares it."""
        self._curr_module.init_optimizer(
            kvstore, optimizer, optimizer_params, force_init=force_init
        )
        for mod in self._buckets.values():
            if mod is not self._curr_module:
                mod.borrow_optimizer(self._curr_module)

    def prepare(self, data_batch: Any, sparse_row_id_fn: Any = None) -> None:
        """Binds the batch's bucket ahead of its forward (the current bucket is kept)."""
        _check_state(self, "prepare", "binded")
        original = self._curr_bucket_key
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data, data_batch.provide_label)
        self._curr_module.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        self.switch_bucket(original, None, None)

    def forward(self, data_batch: Any, is_train: bool | None = None) -> None:
        """Forward computation on the bucket of ``data_batch.bucket_key``."""
        _check_state(self, "forward", "binded", "params_initialized")
        key = data_batch.bucket_key
        if key is None:
            key = self._default_bucket_key
        self.switch_bucket(key, data_batch.provide_data, data_batch.provide_label)
        self._curr_module.forward(data_batch, is_train=is_train)

    def update(self) -> None:
        """Updates parameters according to installed optimizer and the gradient computed
        in the previous forward-backward cycle."""
        _check_state(self, "update", "binded", "params_initialized", "optimizer_initialized")
        self._params_dirty = True
        self._curr_module.update()

    def update_metric(self, eval_metric: Any, labels: Any, pre_sliced: bool = False) -> None:
        """Evaluates and accumulates evaluation metric on outputs of the last forward
        computation."""
        _check_state(self, "update_metric", "binded", "params_initialized")
        self._curr_module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon: Any) -> None:
        """Installs monitor on all executors"""
        _check_state(self, "install_monitor", "binded")
        self._monitor = mon
        for mod in self._buckets.values():
            mod.install_monitor(mon)

    def save_checkpoint(self, prefix: str, epoch: int, remove_amp_cast: bool = False) -> None:
        """Saves the parameters (``prefix-%04d.params``), each bucket's symbol
        (``prefix-<key>-symbol.json``) and the bucket keys (``prefix.buckets``).

        Parameters
        ----------
        prefix : str
            The file prefix to checkpoint to.
        epoch : int
            The current epoch number.
        """
        if not self._buckets:
            raise MXNetError(
                "BucketingModule.save_checkpoint: Empty BucketingModule cannot be saved"
            )
        self.save_params(f"{prefix}-{int(epoch):04d}.params")
        for key in self._buckets:
            symbol, _, _ = self._call_sym_gen(key)
            symbol.save(f"{prefix}-{key}-symbol.json", remove_amp_cast=remove_amp_cast)
        nd.save(f"{prefix}.buckets", nd.array(list(self._buckets.keys()), dtype=np.int32))

    @staticmethod
    def load(
        prefix: str, epoch: int, sym_gen: Any = None, default_bucket_key: Any = None, **kwargs: Any
    ) -> BucketingModule:
        """Creates a model from a checkpoint written by :meth:`save_checkpoint`.

        Parameters
        ----------
        prefix : str
            Path prefix of the saved model files.
        epoch : int
            Epoch to load.
        sym_gen : function
            The ``sym_gen`` used when saving.
        default_bucket_key : str (or any python object)
            The key for the default bucket.
        **kwargs
            The other arguments of :class:`BucketingModule`.
        """
        if sym_gen is None or default_bucket_key is None:
            raise MXNetError("BucketingModule.load: sym_gen and default_bucket_key are required.")
        keys = nd.load(f"{prefix}.buckets")[0].asnumpy().astype("int32").tolist()
        mod = BucketingModule(sym_gen, default_bucket_key, **kwargs)
        for key in keys:
            _, data_names, label_names = sym_gen(key)
            symbol = _sym.load(f"{prefix}-{key}-symbol.json")
            mod._buckets[key] = Module(symbol, data_names, label_names, **mod._module_kwargs)
            if key == default_bucket_key:
                mod._curr_module = mod._buckets[key]
        if mod._curr_module is None:
            raise MXNetError(
                f"BucketingModule.load: default_bucket_key {default_bucket_key!r} is not among "
                f"the saved buckets {keys}."
            )
        arg_params, aux_params = _model.load_params(prefix, epoch)
        mod._curr_module._arg_params = arg_params
        mod._curr_module._aux_params = aux_params
        mod._curr_module.params_initialized = True
        mod.params_initialized = True
        return mod
