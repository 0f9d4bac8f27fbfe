"""BaseModule: the training loop (fit), evaluation (score) and prediction shared by modules.

Design note
-----------
A module is a state machine: ``bind`` (allocate executors for given input shapes), then
``init_params``, then ``init_optimizer``; the flags ``binded``, ``params_initialized`` and
``optimizer_initialized`` record how far it got. Subclasses (Module, BucketingModule,
SequentialModule) implement those steps plus forward/backward/update; everything here is
written against that interface only, as MXNet 1.9.1's BaseModule is, and logs the same lines
(``Epoch[0] Train-accuracy=0.912500``, ``Epoch[0] Time cost=1.234``,
``Epoch[0] Validation-accuracy=...``).

Organisation: one class, one concern (the small checks it shares with the subclasses are in
``checks.py``): the high-level API (``fit``, ``score``, ``predict`` and their iterators), then the
interface the subclasses implement (symbol and names, parameters, computation). The set-up
steps ``bind``, ``init_params`` and ``init_optimizer`` are its base class ``SetupSteps`` in
``setup_steps.py``: their checks written once, the work done by each subclass's ``_bind``,
``_init_params`` and ``_init_optimizer``.
"""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from .. import metric
from .. import ndarray as nd
from ..base import MXNetError, _as_list
from ..callback import BatchEndParam
from ..context import cpu
from ..initializer import Uniform
from ..io import DataBatch, DataIter
from ..model import _load_params_file
from .checks import _check_input_names as _check_input_names  # MXNet has these here
from .checks import _check_names_match as _check_names_match
from .checks import _check_state
from .checks import _parse_data_desc as _parse_data_desc
from .setup_steps import SetupSteps

__all__ = ["BaseModule"]


class BaseModule(SetupSteps):
    """The base class of modules: computation that can be bound, initialised, run and trained.

    Parameters
    ----------
    logger : Logger, optional
        Where progress is logged; default the ``logging`` module.
    """

    # the names a subclass keeps for data_names and output_names (Module, PythonModule); the
    # containers ask their modules instead
    _data_names: list[str]
    _output_names: list[str]

    def __init__(self, logger: Any = logging) -> None:
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol: Any = None
        self._label_shapes: Any = None
        self._total_exec_bytes = 0

    # ---- high-level API --------------------------------------------------------------------

    def forward_backward(self, data_batch: DataBatch) -> None:
        """A convenient function that calls both ``forward`` and ``backward``."""
        self.forward(data_batch, is_train=True)
        self.backward()

    def score(
        self,
        eval_data: DataIter,
        eval_metric: Any,
        num_batch: int | None = None,
        batch_end_callback: Any = None,
        score_end_callback: Any = None,
        reset: bool = True,
        epoch: int = 0,
        sparse_row_id_fn: Any = None,
    ) -> list[tuple[str, float]]:
        """Run prediction on ``eval_data`` and evaluate the performance according to
        the given ``eval_metric``.

        Parameters
        ----------
        eval_data : DataIter
            Evaluation data to run prediction on.
        eval_metric : EvalMetric or list of EvalMetrics
            Evaluation metric to use.
        num_batch : int, optional
            Number of batches to run. Defaults to ``None``, indicating run until the
            ``DataIter`` finishes.
        batch_end_callback : function, optional
            Could also be a list of functions.
        score_end_callback : function, optional
            Could also be a list of functions.
        reset : bool, optional
            Default ``True``, indicating whether we should reset ``eval_data`` before starting
            evaluating.
        epoch : int, optional
            Default 0. For compatibility, this will be passed to callbacks (if any).
        sparse_row_id_fn : callable, optional
            Accepted for compatibility; there is no sparse storage here.

        Returns
        -------
        list of (str, float)
            The metric names and values.
        """
        _check_state(self, "score", "binded", "params_initialized")
        batches = self._forward_batches(eval_data, num_batch, reset, sparse_row_id_fn)
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)
        eval_metric.reset()
        actual_num_batch = 0
        for nbatch, eval_batch in batches:
            if isinstance(eval_batch, list):
                self.update_metric(eval_metric, [eb.label for eb in eval_batch], pre_sliced=True)
            else:
                self.update_metric(eval_metric, eval_batch.label)
            if batch_end_callback is not None:
                params = BatchEndParam(epoch, nbatch, eval_metric, locals())
                for callback in _as_list(batch_end_callback):
                    callback(params)
            actual_num_batch += 1
        if score_end_callback:
            params = BatchEndParam(epoch, actual_num_batch, eval_metric, locals())
            for callback in _as_list(score_end_callback):
                callback(params)
        return eval_metric.get_global_name_value()

    def _forward_batches(
        self, eval_data: DataIter, num_batch: int | None, reset: bool, sparse_row_id_fn: Any
    ) -> Iterator[tuple[int, DataBatch]]:
        """``(nbatch, batch)`` for the first ``num_batch`` batches of ``eval_data`` (reset
        first if ``reset``), each prepared and run forward for inference before it is given."""
        if reset:
            eval_data.reset()
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            yield nbatch, eval_batch

    def iter_predict(
        self,
        eval_data: DataIter,
        num_batch: int | None = None,
        reset: bool = True,
        sparse_row_id_fn: Any = None,
    ) -> Iterator[tuple[list, int, DataBatch]]:
        """Iterate over predictions: yields ``(outputs, nbatch, batch)`` with the padding
        removed from the outputs.

        Parameters
        ----------
        eval_data : DataIter
            Evaluation data to run prediction on.
        num_batch : int, optional
            Default is ``None``, indicating running all the batches in the data iterator.
        reset : bool, optional
            Default is ``True``, indicating whether we should reset the data iter before start
            doing prediction.
        sparse_row_id_fn : callable, optional
            Accepted for compatibility.
        """
        _check_state(self, "iter_predict", "binded", "params_initialized")
        for nbatch, eval_batch in self._forward_batches(
            eval_data, num_batch, reset, sparse_row_id_fn
        ):
            pad = eval_batch.pad or 0
            outputs = [out[0 : out.shape[0] - pad] for out in self.get_outputs()]
            yield outputs, nbatch, eval_batch

    def predict(
        self,
        eval_data: Any,
        num_batch: int | None = None,
        merge_batches: bool = True,
        reset: bool = True,
        always_output_list: bool = False,
        sparse_row_id_fn: Any = None,
    ) -> Any:
        """Run prediction and collect the outputs.

        Parameters
        ----------
        eval_data : DataIter or NDArray or numpy array
            Evaluation data to run prediction on.
        num_batch : int, optional
            Defaults to ``None``, indicates running all the batches in the data iterator.
        merge_batches : bool, optional
            Defaults to ``True``, see above for return values.
        reset : bool, optional
            Defaults to ``True``, indicates whether we should reset the data iter before doing
            prediction.
        always_output_list : bool, optional
            Defaults to ``False``, see above for return values.
        sparse_row_id_fn : callable, optional
            Accepted for compatibility.

        Returns
        -------
        list of NDArray or list of list of NDArray
            Prediction results: with ``merge_batches`` one NDArray per output (just the
            NDArray when there is one output, unless ``always_output_list``); otherwise one
            list of outputs per batch.
        """
        _check_state(self, "predict", "binded", "params_initialized")
        if isinstance(eval_data, (nd.NDArray, np.ndarray)):
            if isinstance(eval_data, np.ndarray):
                eval_data = nd.array(eval_data)
            self.forward(DataBatch([eval_data]))
            return self.get_outputs()[0]
        if not isinstance(eval_data, DataIter):
            raise MXNetError(
                f"predict: argument 'eval_data' must be an NDArray or a DataIter, "
                f"got {type(eval_data).__name__}."
            )
        output_list = []
        for _, eval_batch in self._forward_batches(eval_data, num_batch, reset, sparse_row_id_fn):
            pad = eval_batch.pad or 0
            output_list.append([out[0 : out.shape[0] - pad].copy() for out in self.get_outputs()])
        if not output_list:
            return output_list
        if not merge_batches:
            return output_list
        num_outputs = len(output_list[0])
        if any(len(out) != num_outputs for out in output_list):
            raise MXNetError(
                "predict: cannot merge batches, as num of outputs is not the same in "
                "mini-batches. Maybe bucketing is used?"
            )
        merged = [
            nd.concat(*[out[i] for out in output_list], dim=0) if len(output_list) > 1
            else output_list[0][i]
            for i in range(num_outputs)
        ]  # fmt: skip
        if num_outputs == 1 and not always_output_list:
            return merged[0]
        return merged

    def fit(
        self,
        train_data: DataIter,
        eval_data: DataIter | None = None,
        eval_metric: Any = "acc",
        epoch_end_callback: Any = None,
        batch_end_callback: Any = None,
        kvstore: Any = "local",
        optimizer: Any = "sgd",
        optimizer_params: Any = (("learning_rate", 0.01),),
        eval_end_callback: Any = None,
        eval_batch_end_callback: Any = None,
        initializer: Any = None,
        arg_params: dict | None = None,
        aux_params: dict | None = None,
        allow_missing: bool = False,
        force_rebind: bool = False,
        force_init: bool = False,
        begin_epoch: int = 0,
        num_epoch: int | None = None,
        validation_metric: Any = None,
        monitor: Any = None,
        sparse_row_id_fn: Any = None,
    ) -> None:
        """Train the module parameters.

        Parameters
        ----------
        train_data : DataIter
            Train DataIter.
        eval_data : DataIter
            If not ``None``, will be used as validation set and the performance
            after each epoch will be evaluated.
        eval_metric : str or EvalMetric
            Defaults to 'accuracy'. The performance measure used to display during training.
        epoch_end_callback : function or list of functions
            Each callback will be called with the current `epoch`, `symbol`, `arg_params`
            and `aux_params`.
        batch_end_callback : function or list of function
            Each callback will be called with a `BatchEndParam`.
        kvstore : str or KVStore
            Defaults to 'local'.
        optimizer : str or Optimizer
            Defaults to 'sgd'.
        optimizer_params : dict
            Defaults to ``(('learning_rate', 0.01),)``. The parameters for
            the optimizer constructor.
        eval_end_callback : function or list of function
            These will be called at the end of each full evaluation, with the metrics over
            the entire evaluation set.
        eval_batch_end_callback : function or list of function
            These will be called at the end of each mini-batch during evaluation.
        initializer : Initializer
            The initializer is called to initialize the module parameters when they are
            not already initialized; default ``Uniform(0.01)``.
        arg_params : dict
            Defaults to ``None``, if not ``None``, should be existing parameters from a trained
            model or loaded from a checkpoint (previously saved model).
        aux_params : dict
            Defaults to ``None``. Similar to `arg_params`, except for auxiliary states.
        allow_missing : bool
            Defaults to ``False``. Indicates whether to allow missing parameters when
            `arg_params` and `aux_params` are not ``None``.
        force_rebind : bool
            Defaults to ``False``. Whether to force rebinding the executors if already bound.
        force_init : bool
            Defaults to ``False``. Indicates whether to force initialization even if the
            parameters are already initialized.
        begin_epoch : int
            Defaults to 0. Indicates the starting epoch.
        num_epoch : int
            Number of epochs for training.
        validation_metric : str or EvalMetric, optional
            The metric of ``eval_data``; defaults to ``eval_metric``.
        monitor : Monitor, optional
            Installed on the executors; ``tic``/``toc_print`` around every batch.
        sparse_row_id_fn : callable, optional
            Accepted for compatibility.
        """
        if num_epoch is None:
            raise MXNetError("fit: please specify number of epochs (argument 'num_epoch').")
        if initializer is None:
            initializer = Uniform(0.01)
        self.bind(
            data_shapes=train_data.provide_data,
            label_shapes=train_data.provide_label,
            for_training=True,
            force_rebind=force_rebind,
        )
        if monitor is not None:
            self.install_monitor(monitor)
        self.init_params(
            initializer=initializer,
            arg_params=arg_params,
            aux_params=aux_params,
            allow_missing=allow_missing,
            force_init=force_init,
        )
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer, optimizer_params=optimizer_params)
        if validation_metric is None:
            validation_metric = eval_metric
        if not isinstance(eval_metric, metric.EvalMetric):
            eval_metric = metric.create(eval_metric)

        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            self._fit_epoch_begin(epoch, train_data)
            nbatch = 0
            data_iter = iter(train_data)
            end_of_batch = False
            next_data_batch = next(data_iter)
            eval_name_vals: list = []
            while not end_of_batch:
                data_batch = next_data_batch
                if monitor is not None:
                    monitor.tic()
                self.forward_backward(data_batch)
                self.update()
                if isinstance(data_batch, list):
                    labels = [db.label for db in data_batch]
                    self.update_metric(eval_metric, labels, pre_sliced=True)
                else:
                    self.update_metric(eval_metric, data_batch.label)
                try:
                    next_data_batch = next(data_iter)
                    self.prepare(next_data_batch, sparse_row_id_fn=sparse_row_id_fn)
                except StopIteration:
                    end_of_batch = True
                if monitor is not None:
                    monitor.toc_print()
                if end_of_batch:
                    eval_name_vals = self._fit_train_values(eval_metric)
                if batch_end_callback is not None:
                    params = BatchEndParam(epoch, nbatch, eval_metric, locals())
                    for callback in _as_list(batch_end_callback):
                        callback(params)
                nbatch += 1
            for name, val in eval_name_vals:
                self.logger.info("Epoch[%d] Train-%s=%f", epoch, name, val)
            toc = time.time()
            self.logger.info("Epoch[%d] Time cost=%.3f", epoch, (toc - tic))

            # sync the devices' parameters into the module's copies for the callbacks
            arg_params, aux_params = self.get_params()
            self.set_params(arg_params, aux_params)
            if epoch_end_callback is not None:
                for callback in _as_list(epoch_end_callback):
                    callback(epoch, self.symbol, arg_params, aux_params)
            if eval_data:
                res = self.score(
                    eval_data,
                    validation_metric,
                    score_end_callback=eval_end_callback,
                    batch_end_callback=eval_batch_end_callback,
                    epoch=epoch,
                )
                for name, val in res:
                    self.logger.info("Epoch[%d] Validation-%s=%f", epoch, name, val)
            train_data.reset()

    def _fit_epoch_begin(self, epoch: int, train_data: DataIter) -> None:
        """Hook of :meth:`fit`, before an epoch's first batch (SVRGModule refreshes its full
        gradients here)."""

    def _fit_train_values(self, eval_metric: Any) -> list[tuple[str, float]]:
        """Hook of :meth:`fit`: the training metric values logged at the end of an epoch."""
        return eval_metric.get_global_name_value()

    # ---- symbol and names ------------------------------------------------------------------

    @property
    def data_names(self) -> list[str]:
        """A list of names for data required by this module."""
        return _kept(self, "_data_names")

    @property
    def output_names(self) -> list[str]:
        """A list of names for the outputs of this module."""
        return _kept(self, "_output_names")

    @property
    def data_shapes(self) -> list:
        """A list of (name, shape) pairs specifying the data inputs to this module."""
        raise NotImplementedError()

    @property
    def label_shapes(self) -> list | None:
        """A list of (name, shape) pairs specifying the label inputs to this module (None
        when it was bound without labels, or none of its modules takes them)."""
        _check_state(self, "label_shapes", "binded")
        return self._label_shapes

    @property
    def output_shapes(self) -> list:
        """A list of (name, shape) pairs specifying the outputs of this module."""
        raise NotImplementedError()

    @property
    def symbol(self) -> Any:
        """Gets the symbol associated with this module."""
        return self._symbol

    # ---- parameters ------------------------------------------------------------------------

    def get_params(self) -> tuple[dict, dict]:
        """Gets parameters, those are potentially copies of the actual parameters used
        to do computation on the device."""
        raise NotImplementedError()

    def set_params(
        self,
        arg_params: dict,
        aux_params: dict,
        allow_missing: bool = False,
        force_init: bool = True,
        allow_extra: bool = False,
    ) -> None:
        """Assigns parameter and aux state values.

        Parameters
        ----------
        arg_params : dict
            Dictionary of name to value (`NDArray`) mapping.
        aux_params : dict
            Dictionary of name to value (`NDArray`) mapping.
        allow_missing : bool
            If ``True``, params could contain missing values, and the initializer will be
            called to fill those missing params.
        force_init : bool
            If ``True``, will force re-initialize even if already initialized.
        allow_extra : boolean, optional
            Whether allow extra parameters that are not needed by symbol.
        """
        if allow_missing and self._assigns_params:
            if self.params_initialized and not force_init:
                warnings.warn(
                    "Parameters already initialized and force_init=False. set_params call ignored.",
                    stacklevel=2,
                )
                return
            self._assign_params(arg_params, aux_params, force_init, allow_extra)
            self._params_dirty = True
            self.params_initialized = True
            return
        self.init_params(
            initializer=None,
            arg_params=arg_params,
            aux_params=aux_params,
            allow_missing=allow_missing,
            force_init=force_init,
            allow_extra=allow_extra,
        )

    # Modules that can take values without the initializer (Module, BucketingModule) set
    # this and implement _assign_params; set_params then assigns what allow_missing lets in.
    _assigns_params = False

    def _assign_params(
        self, arg_params: dict, aux_params: dict, force_init: bool, allow_extra: bool
    ) -> None:
        raise NotImplementedError

    def save_params(self, fname: str) -> None:
        """Saves model parameters to file (keys ``arg:<name>`` and ``aux:<name>``).

        Parameters
        ----------
        fname : str
            Path to output param file.
        """
        arg_params, aux_params = self.get_params()
        save_dict = {f"arg:{k}": v.as_in_context(cpu()) for k, v in arg_params.items()}
        save_dict.update({f"aux:{k}": v.as_in_context(cpu()) for k, v in aux_params.items()})
        nd.save(fname, save_dict)

    def load_params(self, fname: str) -> None:
        """Loads model parameters from file.

        Parameters
        ----------
        fname : str
            Path to input param file.
        """
        self.set_params(*_load_params_file(fname, strict=True))

    def get_states(self, merge_multi_context: bool = True) -> list:
        """Gets states from all devices (none by default)."""
        _check_state(self, "get_states", "binded", "params_initialized")
        return []

    def set_states(self, states: Any = None, value: Any = None) -> None:
        """Sets value for states (none by default)."""
        _check_state(self, "set_states", "binded", "params_initialized")

    def install_monitor(self, mon: Any) -> None:
        """Installs monitor on all executors."""
        raise NotImplementedError()

    def prepare(self, data_batch: Any, sparse_row_id_fn: Any = None) -> None:
        """Prepares the module for processing a data batch (nothing to do without sparse
        storage)."""
        if sparse_row_id_fn is not None:
            self.logger.warning("sparse_row_id_fn is ignored: there is no sparse storage.")

    # ---- computation -----------------------------------------------------------------------

    def forward(self, data_batch: DataBatch, is_train: bool | None = None) -> None:
        """Forward computation."""
        raise NotImplementedError()

    def backward(self, out_grads: Any = None) -> None:
        """Backward computation."""
        raise NotImplementedError()

    def get_outputs(self, merge_multi_context: bool = True) -> list:
        """Gets outputs of the previous forward computation."""
        raise NotImplementedError()

    def get_input_grads(self, merge_multi_context: bool = True) -> list:
        """Gets the gradients to the inputs, computed in the previous backward computation."""
        raise NotImplementedError()

    def update(self) -> None:
        """Updates parameters according to the installed optimizer and the gradients
        computed in the previous forward-backward batch."""
        raise NotImplementedError()

    def update_metric(self, eval_metric: Any, labels: Any, pre_sliced: bool = False) -> None:
        """Evaluates and accumulates evaluation metric on outputs of the last forward
        computation."""
        raise NotImplementedError()


def _kept(module: BaseModule, attr: str) -> Any:
    """The value a module kind keeps in ``attr``; a subclass that keeps none has not
    implemented the property (NotImplementedError, as MXNet's abstract one raises)."""
    try:
        return getattr(module, attr)
    except AttributeError:
        raise NotImplementedError(
            f"{type(module).__name__} does not implement {attr[1:]}"
        ) from None
