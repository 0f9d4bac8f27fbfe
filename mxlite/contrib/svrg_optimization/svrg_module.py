"""SVRGModule: a Module trained with stochastic variance-reduced gradients.

Every ``update_freq`` epochs the module snapshots its weights into a second module
(``_mod_aux``) and averages the gradient over the whole training set at that snapshot. Each
batch then steps along ``g(w) - g(w_snapshot) + full_gradient``: the batch gradient at the
current weights, corrected by the same batch's gradient at the snapshot. With a KVStore the
full gradients are summed over devices and workers under the keys ``<name>_full``.
"""

from __future__ import annotations

import logging
from typing import Any

from ... import ndarray as nd
from ... import optimizer as opt
from ...base import MXNetError
from ...module import Module
from .svrg_optimizer import _SVRGOptimizer

__all__ = ["SVRGModule"]


class SVRGModule(Module):
    """A Module that trains with SVRG (Johnson & Zhang, 2013).

    Parameters
    ----------
    symbol, data_names, label_names, logger, context, work_load_list, fixed_param_names,
    state_names, group2ctxs, compression_params
        As :class:`~mxlite.module.Module`.
    update_freq: int
        Specifies the number of times to update the full gradients to be used in the SVRG
        optimization.
    """

    def __init__(
        self,
        symbol: Any,
        data_names: Any = ("data",),
        label_names: Any = ("softmax_label",),
        logger: Any = logging,
        context: Any = None,
        work_load_list: Any = None,
        fixed_param_names: Any = None,
        state_names: Any = None,
        group2ctxs: Any = None,
        compression_params: Any = None,
        update_freq: int | None = None,
    ) -> None:
        module_args = (
            symbol, data_names, label_names, logger, context, work_load_list,
            fixed_param_names, state_names, group2ctxs, compression_params,
        )  # fmt: skip
        super().__init__(*module_args)
        if not isinstance(update_freq, int) or isinstance(update_freq, bool):
            raise TypeError(
                "update_freq in SVRGModule must be an integer to represent the frequency for "
                f"calculating full gradients, got {update_freq!r}"
            )
        if update_freq <= 0:
            raise ValueError(
                "update_freq in SVRGModule must be a positive integer to represent the "
                f"frequency for calculating full gradients, got {update_freq}"
            )
        self.update_freq = update_freq
        self._mod_aux = Module(*module_args)
        self._param_dict: list[dict[str, nd.NDArray]] | None = None
        self._ctx_len = len(self._context)

    def _reset_bind(self) -> None:
        super()._reset_bind()
        self._mod_aux._reset_bind()

    def reshape(self, data_shapes: Any, label_shapes: Any = None) -> None:
        """Reshapes both modules for new input shapes."""
        super().reshape(data_shapes, label_shapes=label_shapes)
        self._mod_aux.reshape(data_shapes, label_shapes=label_shapes)

    def _init_optimizer(
        self, kvstore: Any, optimizer: Any, optimizer_params: Any, force_init: bool
    ) -> None:
        """Installs an _SVRGOptimizer wrapping ``optimizer``; with a KVStore, also creates the
        ``<name>_full`` keys that accumulate the full gradients."""
        arg_params = self.get_params()[0]
        self._param_dict = [
            {k: nd.zeros(shape=v.shape, ctx=self._context[i]) for k, v in arg_params.items()}
            for i in range(self._ctx_len)
        ]
        svrg = self._create_optimizer(
            _SVRGOptimizer.__name__,
            default_opt=optimizer,
            kvstore=kvstore,
            optimizer_params=optimizer_params,
        )
        super()._init_optimizer(kvstore, svrg, optimizer_params, force_init)
        if self._kvstore:
            for idx, on_devs in enumerate(self._exec_group.param_arrays):
                name = self._exec_group.param_names[idx]
                self._kvstore.init(name + "_full", nd.zeros(shape=self._arg_params[name].shape))
                if self._update_on_kvstore:
                    self._kvstore.pull(name + "_full", on_devs, priority=-idx)

    def _create_optimizer(
        self, optimizer: str, default_opt: Any, kvstore: Any, optimizer_params: Any
    ) -> opt.Optimizer:
        """The _SVRGOptimizer, with an index-to-name map that also names the full-gradient
        keys."""
        _, _, rescale_grad, idx2name = self._store_and_indexing(kvstore)
        for key in self._param_dict[0]:
            idx2name[max(idx2name) + 1] = key + "_full"
        params = dict(optimizer_params)
        params.setdefault("rescale_grad", rescale_grad)
        params["default_optimizer"] = default_opt
        params["param_idx2name"] = idx2name
        return opt.create(optimizer, **params)

    def _bind(
        self, data_shapes: Any, label_shapes: Any, force_rebind: bool, shared_module: Any
    ) -> None:
        """Binds this module and, for training, the snapshot module."""
        super()._bind(data_shapes, label_shapes, force_rebind, shared_module)
        if self.for_training:
            self._mod_aux.bind(
                data_shapes, label_shapes, self.for_training, self.inputs_need_grad,
                force_rebind, shared_module, self._grad_req,
            )  # fmt: skip

    def forward(self, data_batch: Any, is_train: bool | None = None) -> None:
        """Forward on this module and, when training, on the snapshot module."""
        super().forward(data_batch, is_train)
        if is_train:
            self._mod_aux.forward(data_batch, is_train)

    def backward(self, out_grads: Any = None) -> None:
        """Backward on both modules."""
        super().backward(out_grads)
        if self._mod_aux.binded:
            self._mod_aux.backward(out_grads)

    def update(self) -> None:
        """Replaces the gradients by their SVRG estimate, then updates the parameters."""
        self._update_svrg_gradients()
        super().update()

    def update_full_grads(self, train_data: Any) -> None:
        """Snapshots the weights and averages their gradient over all of ``train_data``.

        Parameters
        ----------
        train_data: DataIter
            Train data iterator
        """
        if self._param_dict is None:
            raise MXNetError("SVRGModule.update_full_grads: call init_optimizer first.")
        names = self._exec_group.param_names
        arg, aux = self.get_params()
        self._mod_aux.set_params(arg_params=arg, aux_params=aux)
        for i in range(self._ctx_len):
            for name in names:
                self._param_dict[i][name][:] = 0
        train_data.reset()
        nbatch = 0
        padding = 0
        for batch in train_data:
            self._mod_aux.forward(batch, is_train=True)
            self._mod_aux.backward()
            nbatch += 1
            for ctx in range(self._ctx_len):
                for index, name in enumerate(names):
                    grads = self._mod_aux._exec_group.grad_arrays[index][ctx]
                    self._param_dict[ctx][name] = self._param_dict[ctx][name] + grads
            padding = batch.pad
        true_num_batch = nbatch - padding / train_data.batch_size
        for name in names:
            grad_list = []
            for i in range(self._ctx_len):
                self._param_dict[i][name] /= true_num_batch
                grad_list.append(self._param_dict[i][name])
            if self._kvstore:
                self._accumulate_kvstore(name, grad_list)

    def _accumulate_kvstore(self, key: str, value: list) -> None:
        """Sums the full gradients of ``key`` over devices and workers in the KVStore."""
        self._kvstore.push(key + "_full", value)
        barrier = getattr(self._kvstore, "_barrier", None) or self._kvstore.barrier
        barrier()
        self._kvstore.pull(key + "_full", value)
        self._allocate_gradients(key, value)

    def _allocate_gradients(self, key: str, value: list) -> None:
        for i in range(self._ctx_len):
            self._param_dict[i][key] = value[i] / self._ctx_len

    @staticmethod
    def _svrg_grads_update_rule(
        g_curr_batch_curr_weight: list,
        g_curr_batch_special_weight: list,
        g_special_weight_all_batch: list,
    ) -> list:
        """``g(w) - g(w_snapshot) + full_gradient``, written into the first list's arrays."""
        for index, grad in enumerate(g_curr_batch_curr_weight):
            grad -= g_curr_batch_special_weight[index]
            grad += g_special_weight_all_batch[index]
        return g_curr_batch_curr_weight

    def _update_svrg_gradients(self) -> None:
        if self._param_dict is None:
            raise MXNetError("SVRGModule.update: call init_optimizer first.")
        names = self._exec_group.param_names
        for ctx in range(self._ctx_len):
            for index, name in enumerate(names):
                g_reg = self._exec_group.grad_arrays[index][ctx]
                g_special = self._mod_aux._exec_group.grad_arrays[index][ctx]
                g_full = self._param_dict[ctx][name]
                g_reg -= g_special
                g_reg += g_full

    def _fit_epoch_begin(self, epoch: int, train_data: Any) -> None:
        """``fit`` refreshes the full gradients every ``update_freq`` epochs, as MXNet's does."""
        if epoch % self.update_freq == 0:
            self.update_full_grads(train_data)
        train_data.reset()

    def _fit_train_values(self, eval_metric: Any) -> list[tuple[str, float]]:
        """MXNet's SVRGModule.fit logs the metric's local values, not its global ones."""
        return eval_metric.get_name_value()

    def prepare(self, data_batch: Any, sparse_row_id_fn: Any = None) -> None:
        """Prepares both modules for ``data_batch``."""
        super().prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        self._mod_aux.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
