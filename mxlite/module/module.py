"""Module: a symbol bound on one or more contexts, with its parameters and optimizer.

Design note
-----------
The module keeps the master copy of the parameters on the CPU (``_arg_params``,
``_aux_params``) and the working copies in its :class:`DataParallelExecutorGroup`.
``_params_dirty`` says the working copies moved on (after ``update``), so ``get_params``
syncs first. On one device, or with ``kvstore=None``, ``update`` applies the updater to each
device's copy with the index ``param_index * num_device + device``, which is how MXNet 1.9.1
indexes updater states without a store. Otherwise an ``mx.kv`` store (``'local'`` by default
on several devices; any ``dist_*`` type, or a KVStore object) sums the gradients and, unless
``mx.model._create_kvstore`` decides otherwise, updates each parameter once, keyed by its
name, as MXNet does; either way MXNet's ``.states`` files load here and ours load there. For
``dist_sync`` types the gradients are rescaled by ``1 / (batch_size * num_workers)``.

Organisation: one class, one concern (MXNet's own module.py is longer), in sections:
construction and checkpoints, names and shapes, parameters, binding, computation; the
optimizer (installing it, its states files, ``update``) is its base class ``OptimizerMixin``
in ``module_optimizer.py``. The public ``bind``, ``init_params`` and ``init_optimizer`` with
their checks are every module's (``setup_steps.py``); the work is here, in ``_bind`` and
``_init_params``. ``backward``, ``get_outputs`` and the other methods that hand on to the
executor group are ``DelegatingModule``'s (``delegating.py``), which BucketingModule shares.
"""

from __future__ import annotations

import logging
from typing import Any

from .. import model as _model
from .. import ndarray as nd
from ..base import MXNetError
from ..context import Context, cpu
from ..initializer import InitDesc
from .checks import _check_inputs, _check_state, _parse_data_desc
from .delegating import DelegatingModule
from .executor_group import DataParallelExecutorGroup
from .module_optimizer import OptimizerMixin
from .setup_steps import SHAPES_DOC
from .sparse_params import pull_all_rows, pull_rows

__all__ = ["Module"]


class Module(OptimizerMixin, DelegatingModule):
    """Module is a basic module that wrap a `Symbol`. It is functionally the same
    as the `FeedForward` model, except under the module API.

    Parameters
    ----------
    symbol : Symbol
    data_names : list of str
        Defaults to `('data')` for a typical model used in image classification.
    label_names : list of str
        Defaults to `('softmax_label')` for a typical model used in image classification.
    logger : Logger
        Defaults to `logging`.
    context : Context or list of Context
        Defaults to ``mx.cpu()``.
    work_load_list : list of number
        Default ``None``, indicating uniform workload.
    fixed_param_names: list of str
        Default ``None``, indicating no network parameters are fixed.
    state_names : list of str
        States are similar to data and label, but not provided by data iterator.
        Instead they are initialized to 0 and can be set by `set_states()`.
    group2ctxs : dict of str to context or list of context, or list of dict of str to context
        Default is `None`. Accepted; every node runs on its executor's context.
    compression_params : dict
        Gradient compression for the KVStore ('device' and 'dist_*' types), e.g.
        ``{'type': '2bit', 'threshold': 0.5}``.
    """

    def __init__(
        self,
        symbol: Any,
        data_names: Any = ("data",),
        label_names: Any = ("softmax_label",),
        logger: Any = logging,
        context: Any = None,
        work_load_list: list[float] | None = None,
        fixed_param_names: list[str] | None = None,
        state_names: list[str] | None = None,
        group2ctxs: Any = None,
        compression_params: dict | None = None,
    ) -> None:
        super().__init__(logger=logger)
        if context is None:
            context = cpu()
        if isinstance(context, Context):
            context = [context]
        self._context = list(context)
        if work_load_list is None:
            work_load_list = [1] * len(self._context)
        if len(work_load_list) != len(self._context):
            raise MXNetError(
                f"Module: work_load_list has {len(work_load_list)} entries for "
                f"{len(self._context)} contexts."
            )
        self._work_load_list = list(work_load_list)
        self._group2ctxs = group2ctxs
        self._symbol = symbol
        data_names, label_names, state_names, fixed_param_names = _check_inputs(
            symbol, data_names, label_names, state_names, fixed_param_names
        )
        arg_names = symbol.list_arguments()
        input_names = data_names + label_names + state_names
        self._param_names = [x for x in arg_names if x not in input_names]
        self._fixed_param_names = fixed_param_names
        self._aux_names = symbol.list_auxiliary_states()
        self._data_names = data_names
        self._label_names = label_names
        self._state_names = state_names
        self._output_names = symbol.list_outputs()
        self._arg_params: dict | None = None
        self._aux_params: dict | None = None
        self._params_dirty = False
        self._compression_params = compression_params
        self._optimizer: Any = None
        self._kvstore: Any = None
        self._update_on_kvstore = False
        self._updater: Any = None
        self._preload_opt_states: str | None = None
        self._grad_req: Any = None
        self._exec_group: DataParallelExecutorGroup | None = None
        self._data_shapes: Any = None

    @staticmethod
    def load(prefix: str, epoch: int, load_optimizer_states: bool = False, **kwargs: Any) -> Module:
        """Creates a model from previously saved checkpoint.

        Parameters
        ----------
        prefix : str
            path prefix of saved model files. You should have
            "prefix-symbol.json", "prefix-xxxx.params", and
            optionally "prefix-xxxx.states", where xxxx is the
            epoch number.
        epoch : int
            epoch to load.
        load_optimizer_states : bool
            whether to load optimizer states. Checkpoint needs
            to have been made with save_optimizer_states=True.
        **kwargs
            The other arguments of :class:`Module`.
        """
        sym, args, auxs = _model.load_checkpoint(prefix, epoch)
        mod = Module(symbol=sym, **kwargs)
        mod._arg_params = args
        mod._aux_params = auxs
        mod.params_initialized = True
        if load_optimizer_states:
            mod._preload_opt_states = f"{prefix}-{int(epoch):04d}.states"
        return mod

    def save_checkpoint(
        self,
        prefix: str,
        epoch: int,
        save_optimizer_states: bool = False,
        remove_amp_cast: bool = True,
    ) -> None:
        """Saves current progress to checkpoint.
        Use `mx.callback.module_checkpoint` as `epoch_end_callback` to save during training.

        Parameters
        ----------
        prefix : str
            The file prefix to checkpoint to.
        epoch : int
            The current epoch number.
        save_optimizer_states : bool
            Whether to save optimizer states to continue training.
        remove_amp_cast : bool, optional
            Whether to remove the amp_cast and amp_multicast operators, before saving the model.
        """
        self._symbol.save(f"{prefix}-symbol.json", remove_amp_cast=remove_amp_cast)
        param_name = f"{prefix}-{int(epoch):04d}.params"
        self.save_params(param_name)
        logging.info('Saved checkpoint to "%s"', param_name)
        if save_optimizer_states:
            state_name = f"{prefix}-{int(epoch):04d}.states"
            self.save_optimizer_states(state_name)
            logging.info('Saved optimizer state to "%s"', state_name)

    @property
    def _delegate(self) -> DataParallelExecutorGroup | None:
        return self._exec_group

    def _reset_bind(self) -> None:
        self.binded = False
        self._exec_group = None
        self._data_shapes = None
        self._label_shapes = None

    # ---- names and shapes ------------------------------------------------------------------

    @property
    def label_names(self) -> list[str]:
        """A list of names for labels required by this module."""
        return self._label_names

    @property
    def data_shapes(self) -> list:
        """Gets data shapes (a list of DataDesc)."""
        _check_state(self, "data_shapes", "binded")
        return self._data_shapes

    @property
    def output_shapes(self) -> list:
        """Gets output shapes: a list of (name, shape) pairs."""
        _check_state(self, "output_shapes", "binded")
        return self._exec_group.get_output_shapes()

    # ---- parameters ------------------------------------------------------------------------

    def get_params(self) -> tuple[dict, dict]:
        """Gets current parameters: ``(arg_params, aux_params)``, dicts of name to NDArray."""
        _check_state(self, "get_params", "binded", "params_initialized")
        if self._params_dirty:
            self._sync_params_from_devices()
        return self._arg_params, self._aux_params

    _warn_ignored_init_params = True
    _optimizer_set_note = "ignoring..."

    def _init_params(
        self, initializer: Any, arg_params: dict | None, aux_params: dict | None,
        allow_missing: bool, force_init: bool, allow_extra: bool,
    ) -> None:  # fmt: skip

        def _impl(name: Any, arr: Any, cache: dict | None) -> None:
            if cache is not None:
                if name in cache:
                    if cache[name] is not arr:
                        src = cache[name]
                        if not isinstance(src, nd.NDArray):
                            src = nd.array(src)
                        if src.shape != arr.shape:
                            raise MXNetError(
                                f"init_params: parameter {str(name)!r} has shape {src.shape}; "
                                f"the module needs {arr.shape}."
                            )
                        src.copyto(arr)
                    return
                if not allow_missing:
                    raise MXNetError(f"init_params: {str(name)} is not presented")
            if initializer is not None:
                initializer(name, arr)

        attrs = self._symbol.attr_dict()
        for name, arr in sorted(self._arg_params.items()):
            _impl(InitDesc(name, attrs.get(name, None)), arr, arg_params)
        for name, arr in sorted(self._aux_params.items()):
            _impl(InitDesc(name, attrs.get(name, None)), arr, aux_params)
        self.params_initialized = True
        self._params_dirty = False
        self._exec_group.set_params(self._arg_params, self._aux_params, allow_extra=allow_extra)

    _assigns_params = True

    def _assign_params(
        self, arg_params: dict, aux_params: dict, force_init: bool, allow_extra: bool
    ) -> None:
        self._exec_group.set_params(arg_params, aux_params, allow_extra=allow_extra)

    def _sync_params_from_devices(self) -> None:
        self._exec_group.get_params(self._arg_params, self._aux_params)
        if self._kvstore and self._update_on_kvstore:
            pull_all_rows(self._kvstore, self._arg_params)
        self._params_dirty = False

    def prepare(self, data_batch: Any, sparse_row_id_fn: Any = None) -> None:
        """Prepares the module for processing a data batch.

        For modules that contain `row_sparse` parameters in KVStore, it pulls the rows of
        those parameters that ``sparse_row_id_fn`` names: ``update()`` updates the copy in
        the KVStore only, and ``prepare`` brings the rows the next batch needs.

        Parameters
        ----------
        data_batch : DataBatch
            The current batch of data for forward computation.
        sparse_row_id_fn : A callback function
            Takes `data_batch` and returns a dict of str -> NDArray: the row ids to pull for
            each `row_sparse` parameter, by name.
        """
        _check_state(self, "prepare", "binded")
        if sparse_row_id_fn is not None:
            on_store = self._update_on_kvstore if self._kvstore else False
            pull_rows(self._kvstore, on_store, self._exec_group, data_batch, sparse_row_id_fn)

    # ---- binding ---------------------------------------------------------------------------

    def _bind(
        self, data_shapes: Any, label_shapes: Any, force_rebind: bool, shared_module: Any
    ) -> None:
        if force_rebind:
            self._reset_bind()
        if not self.for_training and self.inputs_need_grad:
            raise MXNetError("bind: inputs_need_grad=True needs for_training=True.")
        self._data_shapes, self._label_shapes = _parse_data_desc(
            self.data_names, self.label_names, data_shapes, label_shapes
        )
        shared_group = None
        if shared_module is not None:
            if not (
                isinstance(shared_module, Module)
                and shared_module.binded
                and shared_module.params_initialized
            ):
                raise MXNetError(
                    "bind: shared_module must be a bound Module with initialized parameters."
                )
            shared_group = shared_module._exec_group
        self._exec_group = DataParallelExecutorGroup(
            self._symbol,
            self._context,
            self._work_load_list,
            self._data_shapes,
            self._label_shapes,
            self._param_names,
            self.for_training,
            self.inputs_need_grad,
            shared_group,
            logger=self.logger,
            fixed_param_names=self._fixed_param_names,
            grad_req=self._grad_req,
            group2ctxs=self._group2ctxs,
            state_names=self._state_names,
        )
        self._total_exec_bytes = self._exec_group._total_exec_bytes
        if shared_module is not None:
            self.params_initialized = True
            self._arg_params = shared_module._arg_params
            self._aux_params = shared_module._aux_params
        elif self.params_initialized:
            # re-binding (or loaded from a checkpoint): push the kept values to the devices
            self._exec_group.set_params(self._arg_params, self._aux_params)
        else:
            group = self._exec_group
            self._arg_params = {  # of the executors' storage types (row_sparse weights)
                name: nd.zeros(arrs[0].shape, dtype=arrs[0].dtype, stype=arrs[0].stype)
                for name, arrs in zip(self._param_names, group.param_arrays)
            }
            self._aux_params = {
                name: nd.zeros(arrs[0].shape, dtype=arrs[0].dtype)
                for name, arrs in zip(self._aux_names, group.aux_arrays)
            }
        if shared_module is not None and shared_module.optimizer_initialized:
            self.borrow_optimizer(shared_module)
        self.binded = True

    @SHAPES_DOC
    def reshape(self, data_shapes: Any, label_shapes: Any = None) -> None:
        """Reshapes the module for new input shapes.

        Parameters
        ----------
        {shapes}
        """
        _check_state(self, "reshape", "binded")
        self._data_shapes, self._label_shapes = _parse_data_desc(
            self.data_names, self.label_names, data_shapes, label_shapes
        )
        self._exec_group.reshape(self._data_shapes, self._label_shapes)

    # ---- computation -----------------------------------------------------------------------

    def forward(self, data_batch: Any, is_train: bool | None = None) -> None:
        """Forward computation. It supports data batches with different shapes, such as
        different batch sizes or different image sizes (the module is reshaped).

        Parameters
        ----------
        data_batch : DataBatch
            Could be anything with similar API implemented.
        is_train : bool
            Default is ``None``, which means ``is_train`` takes the value of
            ``self.for_training``.
        """
        _check_state(self, "forward", "binded", "params_initialized")
        curr = tuple(d.shape for d in self._data_shapes)
        new = tuple(d.shape for d in data_batch.data)
        if curr != new:
            from ..io import DataDesc

            provided = getattr(data_batch, "provide_data", None)
            if provided:
                new_dshape = provided
            else:
                new_dshape = [
                    DataDesc(d.name, s, d.dtype, d.layout) for d, s in zip(self._data_shapes, new)
                ]
            provided = getattr(data_batch, "provide_label", None)
            if provided:
                new_lshape = provided
            elif getattr(data_batch, "label", None) and self._label_shapes:
                new_lshape = [
                    DataDesc(d.name, j.shape, d.dtype, d.layout)
                    for d, j in zip(self._label_shapes, data_batch.label)
                ]
            else:
                new_lshape = None
            self.reshape(new_dshape, new_lshape)
        self._exec_group.forward(data_batch, is_train)

    def update_metric(self, eval_metric: Any, labels: Any, pre_sliced: bool = False) -> None:
        """Evaluates and accumulates evaluation metric on outputs of the last forward
        computation.

        Parameters
        ----------
        eval_metric : EvalMetric
            Evaluation metric to use.
        labels : list of NDArray if `pre_sliced` parameter is set to `False`,
            list of lists of NDArray otherwise. Typically `data_batch.label`.
        pre_sliced: bool
            Whether the labels are already sliced per device (default: False).
        """
        self._exec_group.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon: Any) -> None:
        """Installs monitor on all executors."""
        _check_state(self, "install_monitor", "binded")
        self._exec_group.install_monitor(mon)
