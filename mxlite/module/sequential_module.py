"""SequentialModule: modules chained so that each one's outputs are the next one's data.

Design note
-----------
Each added module keeps its own executors and parameters. ``bind`` binds them in order, the
output shapes of one becoming the data shapes of the next (``auto_wiring`` renames them to
the next module's data names); every module after the first is bound with
``inputs_need_grad`` so ``backward`` can hand each module's input gradients to the one
before it. Labels go only to the modules added with ``take_labels=True``.
"""

from __future__ import annotations

import copy
import logging
from typing import Any

from ..base import MXNetError
from .base_module import BaseModule
from .checks import _check_state

__all__ = ["SequentialModule"]


class SequentialModule(BaseModule):
    """A SequentialModule is a container module that can chain multiple modules together.

    Parameters
    ----------
    logger : Logger
        Default is `logging`.
    """

    META_TAKE_LABELS = "take_labels"
    META_AUTO_WIRING = "auto_wiring"

    def __init__(self, logger: Any = logging) -> None:
        super().__init__(logger=logger)
        self._modules: list[BaseModule] = []
        self._metas: list[dict] = []
        self._data_shapes: Any = None
        self._meta_keys = {self.META_TAKE_LABELS, self.META_AUTO_WIRING}

    def add(self, module: BaseModule, **kwargs: Any) -> SequentialModule:
        """Add a module to the chain.

        Parameters
        ----------
        module : BaseModule
            The new module to add.
        kwargs : ``**keywords``
            All the keyword arguments are saved as meta information
            for the added module. The currently known meta includes

            - `take_labels`: indicating whether the module expect to
              take labels when doing computation. Note any module in
              the chain can take labels (not necessarily only the top
              most one), and they all take the same labels passed
              from the original data batch for the `SequentialModule`.
            - `auto_wiring`: give the outputs of the previous module the data names of this
              module.

        Returns
        -------
        self
            This function returns `self` to allow us to easily chain a
            series of `add` calls.
        """
        for key in kwargs:
            if key not in self._meta_keys:
                raise MXNetError(
                    f"SequentialModule.add: unknown meta {key!r}; expected one of "
                    f"{sorted(self._meta_keys)}."
                )
        self._modules.append(module)
        self._metas.append(kwargs)
        # the chain changed: everything has to be done again
        self.binded = False
        self.params_initialized = False
        self.optimizer_initialized = False
        return self

    @property
    def data_names(self) -> list[str]:
        """A list of names for data required by this module."""
        return self._modules[0].data_names if self._modules else []

    @property
    def output_names(self) -> list[str]:
        """A list of names for the outputs of this module."""
        return self._modules[-1].output_names if self._modules else []

    @property
    def data_shapes(self) -> list:
        """Gets data shapes (those of the first module)."""
        _check_state(self, "data_shapes", "binded")
        return self._modules[0].data_shapes

    @property
    def output_shapes(self) -> list:
        """Gets output shapes (those of the last module)."""
        _check_state(self, "output_shapes", "binded")
        return self._modules[-1].output_shapes

    def get_params(self) -> tuple[dict, dict]:
        """Gets current parameters of every module, merged."""
        _check_state(self, "get_params", "binded", "params_initialized")
        arg_params: dict = {}
        aux_params: dict = {}
        for module in self._modules:
            arg, aux = module.get_params()
            arg_params.update(arg)
            aux_params.update(aux)
        return arg_params, aux_params

    def _init_params(
        self, initializer: Any, arg_params: dict | None, aux_params: dict | None,
        allow_missing: bool, force_init: bool, allow_extra: bool,
    ) -> None:  # fmt: skip
        """Initializes parameters of every module; names must not repeat across modules."""
        for module in self._modules:
            module.init_params(
                initializer=initializer, arg_params=arg_params, aux_params=aux_params,
                allow_missing=allow_missing, force_init=force_init, allow_extra=allow_extra,
            )  # fmt: skip
        seen_arg: dict[str, int] = {}
        seen_aux: dict[str, int] = {}
        for i, module in enumerate(self._modules):
            arg, aux = module.get_params()
            for seen, names, what in ((seen_arg, arg, "arg"), (seen_aux, aux, "aux")):
                for name in names:
                    if name in seen:
                        raise MXNetError(
                            f"SequentialModule.init_params: duplicated {what} parameter name "
                            f"{name!r} in layer {i} ({type(module).__name__}), already used in "
                            f"layer {seen[name]}."
                        )
                    seen[name] = i

    def _bind(
        self, data_shapes: Any, label_shapes: Any, force_rebind: bool, shared_module: Any
    ) -> None:
        """Binds the modules in order, each one's output shapes the next one's data shapes."""
        if self.inputs_need_grad and not self.for_training:
            raise MXNetError("SequentialModule.bind: inputs_need_grad needs for_training.")
        if shared_module is not None:
            raise MXNetError("SequentialModule.bind: shared_module is not supported.")
        if not self._modules:
            raise MXNetError("SequentialModule.bind: add modules before binding.")
        self.binded = True
        self._label_shapes = label_shapes
        my_data_shapes = data_shapes
        anybody_needs_label = False
        for i, (module, meta) in enumerate(zip(self._modules, self._metas)):
            if meta.get(self.META_TAKE_LABELS, False):
                my_label_shapes = label_shapes
                anybody_needs_label = True
            else:
                my_label_shapes = None
            my_inputs_need_grad = bool(self.inputs_need_grad or (self.for_training and i > 0))
            if meta.get(self.META_AUTO_WIRING, False):
                names = module.data_names
                if len(names) != len(my_data_shapes):
                    raise MXNetError(
                        f"SequentialModule.bind: layer {i} takes {len(names)} data inputs, the "
                        f"previous layer gives {len(my_data_shapes)}."
                    )
                my_data_shapes = [(n, d[1]) for n, d in zip(names, my_data_shapes)]
            module.bind(
                data_shapes=my_data_shapes, label_shapes=my_label_shapes,
                for_training=self.for_training, inputs_need_grad=my_inputs_need_grad,
                force_rebind=force_rebind, shared_module=None, grad_req=self._grad_req,
            )  # fmt: skip
            my_data_shapes = module.output_shapes
        if not anybody_needs_label:
            self._label_shapes = None

    def _init_optimizer(
        self, kvstore: Any, optimizer: Any, optimizer_params: Any, force_init: bool
    ) -> None:
        """Installs and initializes optimizers of every module."""
        for module in self._modules:
            module.init_optimizer(
                kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params,
                force_init=force_init,
            )  # fmt: skip

    def forward(self, data_batch: Any, is_train: bool | None = None) -> None:
        """Forward computation through the chain."""
        _check_state(self, "forward", "binded", "params_initialized")
        data_batch = copy.copy(data_batch)
        for i, module in enumerate(self._modules):
            module.forward(data_batch, is_train=is_train)
            if i + 1 == len(self._modules):
                break
            data_batch.data = module.get_outputs()
            names = [x[0] for x in module.output_shapes]
            data_batch.provide_data = [(n, x.shape) for n, x in zip(names, data_batch.data)]

    def backward(self, out_grads: Any = None) -> None:
        """Backward computation through the chain, last module first."""
        _check_state(self, "backward", "binded", "params_initialized")
        for i in range(len(self._modules) - 1, -1, -1):
            module = self._modules[i]
            module.backward(out_grads=out_grads)
            if i == 0:
                break
            out_grads = module.get_input_grads()

    def update(self) -> None:
        """Updates parameters of every module."""
        _check_state(self, "update", "binded", "params_initialized", "optimizer_initialized")
        for module in self._modules:
            module.update()

    def get_outputs(self, merge_multi_context: bool = True) -> list:
        """Gets outputs from a previous forward computation (the last module's)."""
        _check_state(self, "get_outputs", "binded", "params_initialized")
        return self._modules[-1].get_outputs(merge_multi_context=merge_multi_context)

    def get_input_grads(self, merge_multi_context: bool = True) -> list:
        """Gets the gradients with respect to the inputs of the first module."""
        _check_state(self, "get_input_grads", "binded", "params_initialized")
        if not self.inputs_need_grad and not self._modules[0].inputs_need_grad:
            raise MXNetError("get_input_grads: bind with inputs_need_grad=True to get them.")
        return self._modules[0].get_input_grads(merge_multi_context=merge_multi_context)

    def update_metric(self, eval_metric: Any, labels: Any, pre_sliced: bool = False) -> None:
        """Updates the metric with the outputs of every module that takes labels."""
        _check_state(self, "update_metric", "binded", "params_initialized")
        for meta, module in zip(self._metas, self._modules):
            if meta.get(self.META_TAKE_LABELS, False):
                module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon: Any) -> None:
        """Installs monitor on all executors."""
        _check_state(self, "install_monitor", "binded")
        for module in self._modules:
            module.install_monitor(mon)
