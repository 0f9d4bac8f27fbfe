"""``mx.model.FeedForward``: MXNet's first training API (deprecated there for Module, still in
old scripts), as MXNet 1.9.1 runs it.

It lives here and ``mx.model`` hands it out on first use, because it needs ``mx.callback``,
which imports ``mx.model``. Training goes through an executor manager
(``mx.executor_manager``: one executor per context on a slice of each batch) and the KVStore
helpers of ``mx.model``, with the optimizer made from a name getting ``rescale_grad =
1 / batch_size``; checkpoints are MXNet's ``prefix-symbol.json`` + ``prefix-%04d.params``.

For example (tests/test_feedforward.py runs this)::

    fc = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    model = mx.model.FeedForward(mx.sym.SoftmaxOutput(fc, name="softmax"), num_epoch=1)
    model.fit(np.ones((4, 3), "float32"), np.array([0, 1, 0, 1]))
    model.predict(np.ones((2, 3), "float32")).shape     # (2, 2)
"""

from __future__ import annotations

import logging
import time
import warnings
from typing import Any

import numpy as np

from . import io
from . import metric as metric_mod
from . import ndarray as nd
from . import optimizer as opt
from . import symbol as sym
from .base import mx_real_t
from .callback import LogValidationMetricsCallback
from .context import Context, cpu
from .executor_manager import DataParallelExecutorManager, _check_arguments, _load_data
from .initializer import Uniform
from .io import DataDesc
from .model import (
    BatchEndParam,
    _create_kvstore,
    _initialize_kvstore,
    _update_params,
    _update_params_on_kvstore,
    load_checkpoint,
    save_checkpoint,
)
from .optimizer import get_updater

try:  # as MXNet: a scikit-learn estimator where scikit-learn is installed
    from sklearn.base import BaseEstimator as _Base
except ImportError:
    _Base = object

__all__ = ["FeedForward"]


def _multiple_callbacks(callbacks: Any, *args: Any, **kwargs: Any) -> None:
    """Call ``callbacks``: None, one callable or a list of them."""
    if isinstance(callbacks, list):
        for cb in callbacks:
            cb(*args, **kwargs)
    elif callbacks:
        callbacks(*args, **kwargs)


def _evaluate(manager: Any, epoch: int, eval_data: Any, eval_metric: Any, end_cb: Any,
              batch_cb: Any) -> None:  # fmt: skip
    eval_metric.reset()
    eval_data.reset()
    total = 0
    for i, batch in enumerate(eval_data):
        manager.load_data_batch(batch)
        manager.forward(is_train=False)
        manager.update_metric(eval_metric, batch.label)
        if batch_cb is not None:
            _multiple_callbacks(batch_cb, BatchEndParam(
                epoch=epoch, nbatch=i, eval_metric=eval_metric, locals=locals()))  # fmt: skip
        total += 1
    if end_cb is not None:
        _multiple_callbacks(end_cb, BatchEndParam(
            epoch=epoch, nbatch=total, eval_metric=eval_metric, locals=locals()))  # fmt: skip
    eval_data.reset()


class FeedForward(_Base):
    """Model class of MXNet for training and predicting feedforward nets.
    This class is designed for a single-data single output supervised network.

    Parameters
    ----------
    symbol : Symbol
        The symbol configuration of computation network (or a function of the bucket key
        that returns one).
    ctx : Context or list of Context, optional
        The device context of training and prediction.
    num_epoch : int, optional
        Training parameter, number of training epochs(epochs).
    epoch_size : int, optional
        Number of batches in a epoch. In default, it is set to
        ``ceil(num_train_examples / batch_size)``.
    optimizer : str or Optimizer, optional, default 'sgd'
        Training parameter, name or optimizer object for training.
    initializer : initializer function, optional, default Uniform(0.01)
        Training parameter, the initialization scheme used.
    numpy_batch_size : int, optional, default 128
        The batch size of training data. Only needed when input array is numpy.
    arg_params : dict of str to NDArray, optional
        Model parameter, dict of name to NDArray of net's weights.
    aux_params : dict of str to NDArray, optional
        Model parameter, dict of name to NDArray of net's auxiliary states.
    allow_extra_params : bool, optional, default False
        Whether ``arg_params`` and ``aux_params`` may hold parameters the symbol does not
        need (they are dropped).
    begin_epoch : int, optional, default 0
        The beginning training epoch.
    kwargs : dict
        The additional keyword arguments passed to optimizer.
    """

    __module__ = "mxlite.model"  # MXNet's home of the class (see the module docstring)

    def __init__(
        self,
        symbol: Any,
        ctx: Any = None,
        num_epoch: int | None = None,
        epoch_size: int | None = None,
        optimizer: Any = "sgd",
        initializer: Any = Uniform(0.01),  # noqa: B008  (MXNet's default object)
        numpy_batch_size: int = 128,
        arg_params: dict[str, Any] | None = None,
        aux_params: dict[str, Any] | None = None,
        allow_extra_params: bool = False,
        begin_epoch: int = 0,
        **kwargs: Any,
    ) -> None:
        warnings.warn(
            "\033[91mmxnet.model.FeedForward has been deprecated. "
            "Please use mxnet.mod.Module instead.\033[0m",
            DeprecationWarning,
            stacklevel=2,
        )
        if isinstance(symbol, sym.Symbol):
            self.symbol, self.sym_gen = symbol, None
        elif callable(symbol):
            self.symbol, self.sym_gen = None, symbol
        else:
            raise TypeError(
                "FeedForward: argument 'symbol' must be a Symbol or a function of the bucket "
                f"key returning one, got {type(symbol).__name__}."
            )
        self.arg_params = arg_params
        self.aux_params = aux_params
        self.allow_extra_params = allow_extra_params
        self.argument_checked = False
        if self.sym_gen is None:
            self._check_arguments()
        if ctx is None:
            ctx = [cpu()]
        elif isinstance(ctx, Context):
            ctx = [ctx]
        self.ctx = ctx
        self.num_epoch = num_epoch
        self.epoch_size = epoch_size
        self.kwargs = kwargs.copy()
        self.optimizer = optimizer
        self.initializer = initializer
        self.numpy_batch_size = numpy_batch_size
        self._pred_exec: Any = None
        self.begin_epoch = begin_epoch

    def _check_arguments(self) -> None:
        """Check the symbol's names once; with ``allow_extra_params``, drop the given
        parameters it does not have."""
        if self.argument_checked:
            return
        self.argument_checked = True
        _check_arguments(self.symbol)
        if self.allow_extra_params:
            if self.arg_params:
                names = set(self.symbol.list_arguments())
                self.arg_params = {k: v for k, v in self.arg_params.items() if k in names}
            if self.aux_params:
                names = set(self.symbol.list_auxiliary_states())
                self.aux_params = {k: v for k, v in self.aux_params.items() if k in names}

    @staticmethod
    def _is_data_arg(name: str) -> bool:
        """Check if name is a data argument."""
        return name.endswith("data") or name.endswith("label")

    def _init_params(self, inputs: list[Any], overwrite: bool = False) -> tuple:
        """Allocate the parameters and auxiliary states; keep the values given (unless
        ``overwrite``) and initialize the others."""
        inputs = [x if isinstance(x, DataDesc) else DataDesc(*x) for x in inputs]
        shapes = {x.name: x.shape for x in inputs}
        arg_shapes, _, aux_shapes = self.symbol.infer_shape(**shapes)
        arg_dtypes, _, aux_dtypes = self.symbol.infer_type(**{x.name: x.dtype for x in inputs})
        arg_names = self.symbol.list_arguments()
        param_names = [k for k in arg_names if k not in shapes]
        aux_names = self.symbol.list_auxiliary_states()
        arg_params = {
            k: nd.zeros(shape=s, dtype=t)
            for k, s, t in zip(arg_names, arg_shapes, arg_dtypes)
            if k in param_names
        }
        aux_params = {k: nd.zeros(shape=s, dtype=t)
                      for k, s, t in zip(aux_names, aux_shapes, aux_dtypes)}  # fmt: skip
        for new, given in ((arg_params, self.arg_params), (aux_params, self.aux_params)):
            for k, v in new.items():
                if given and k in given and not overwrite:
                    v[:] = given[k][:]
                else:
                    self.initializer(k, v)
        self.arg_params = arg_params
        self.aux_params = aux_params
        return arg_names, list(param_names), aux_names

    def __getstate__(self) -> dict:
        this = self.__dict__.copy()
        this["_pred_exec"] = None
        return this

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def _init_predictor(self, input_shapes: list[Any], type_dict: dict | None = None) -> None:
        """Bind (once per input shape) the executor that predict and score run on the first
        context."""
        shapes = {name: arr.shape for name, arr in self.arg_params.items()}
        shapes.update(dict(input_shapes))
        if self._pred_exec is not None:
            arg_shapes, _, _ = self.symbol.infer_shape(**shapes)
            if arg_shapes == [x.shape for x in self._pred_exec.arg_arrays]:
                return
        pred_exec = self.symbol.simple_bind(self.ctx[0], grad_req="null", type_dict=type_dict,
                                            **shapes)  # fmt: skip
        pred_exec.copy_params_from(self.arg_params, self.aux_params)
        _check_arguments(self.symbol)
        self._pred_exec = pred_exec

    def _init_iter(self, X: Any, y: Any, is_train: bool) -> Any:
        """A data iterator over ``X`` (and ``y``): ``X`` itself when it is one."""
        if isinstance(X, (np.ndarray, nd.NDArray)):
            if y is None:
                if is_train:
                    raise ValueError("y must be specified when X is numpy.ndarray")
                y = np.zeros(X.shape[0])
            if not isinstance(y, (np.ndarray, nd.NDArray)):
                raise TypeError("y must be ndarray when X is numpy.ndarray")
            if X.shape[0] != y.shape[0]:
                raise ValueError("The numbers of data points and labels not equal")
            if y.ndim == 2 and y.shape[1] == 1:
                y = y.flatten()
            if y.ndim != 1:
                raise ValueError("Label must be 1D or 2D (with 2nd dimension being 1)")
            batch = min(X.shape[0], self.numpy_batch_size)
            if is_train:
                return io.NDArrayIter(X, y, batch, shuffle=True, last_batch_handle="roll_over")
            return io.NDArrayIter(X, y, batch, shuffle=False)
        if not isinstance(X, io.DataIter):
            raise TypeError("X must be DataIter, NDArray or numpy.ndarray")
        return X

    def _init_eval_iter(self, eval_data: Any) -> Any:
        """An iterator over ``eval_data``: an iterator, or a (data, label) pair."""
        if eval_data is None:
            return eval_data
        if isinstance(eval_data, (tuple, list)) and len(eval_data) == 2:
            if eval_data[0] is None:
                raise ValueError("Eval data is NONE")
            if eval_data[1] is None and isinstance(eval_data[0], io.DataIter):
                return eval_data[0]
            x, y = (np.array(a) if isinstance(a, list) else a for a in eval_data)
            return self._init_iter(x, y, is_train=True)
        if not isinstance(eval_data, io.DataIter):
            raise TypeError(
                "Eval data must be DataIter, or NDArray/numpy.ndarray/list pair (i.e. "
                "tuple/list of length 2)"
            )
        return eval_data

    def _prepare_prediction(self, X: Any, reset: bool) -> tuple[Any, list[Any]]:
        X = self._init_iter(X, None, is_train=False)
        if reset:
            X.reset()
        type_dict = {key: value.dtype for key, value in self.arg_params.items()}
        for x in X.provide_data:
            type_dict[x[0]] = x.dtype if isinstance(x, DataDesc) else mx_real_t
        self._init_predictor(X.provide_data, type_dict)
        return X, [self._pred_exec.arg_dict[x[0]] for x in X.provide_data]

    def predict(
        self, X: Any, num_batch: int | None = None, return_data: bool = False, reset: bool = True
    ) -> Any:
        """Run the prediction, always only use one device.

        Parameters
        ----------
        X : mxnet.DataIter
        num_batch : int or None
            The number of batch to run. Go though all batches if ``None``.
        return_data : bool, optional
            Also return the data and labels the predictions were made from.
        reset : bool, optional
            Reset the iterator first.

        Returns
        -------
        y : numpy.ndarray or a list of numpy.ndarray if the network has multiple outputs.
            The predicted value of the output.
        """
        X, data_arrays = self._prepare_prediction(X, reset)
        outs = self._pred_exec.outputs
        output_list: list[list] = [[] for _ in outs]
        data_list: list[list] = [[] for _ in X.provide_data]
        label_list: list[list] = [[] for _ in X.provide_label]
        for i, batch in enumerate(X):
            _load_data(batch, data_arrays)
            self._pred_exec.forward(is_train=False)
            real_size = X.batch_size - batch.pad
            for o_list, o_nd in zip(output_list, self._pred_exec.outputs):
                o_list.append(o_nd[0:real_size].asnumpy())
            if return_data:
                for j, x in enumerate(batch.data):
                    data_list[j].append(x[0:real_size].asnumpy())
                for j, x in enumerate(batch.label):
                    label_list[j].append(x[0:real_size].asnumpy())
            if num_batch is not None and i + 1 == num_batch:
                break

        def joined(lists: list[list]) -> Any:
            arrays = [np.concatenate(x) for x in lists]
            return arrays[0] if len(arrays) == 1 else arrays

        if return_data:
            return joined(output_list), joined(data_list), joined(label_list)
        return joined(output_list)

    def score(
        self,
        X: Any,
        eval_metric: Any = "acc",
        num_batch: int | None = None,
        batch_end_callback: Any = None,
        reset: bool = True,
    ) -> float:
        """Run the model given an input and calculate the score
        as assessed by an evaluation metric.

        Parameters
        ----------
        X : mxnet.DataIter
        eval_metric : metric.metric
            The metric for calculating score.
        num_batch : int or None
            The number of batches to run. Go though all batches if ``None``.

        Returns
        -------
        s : float
            The final score.
        """
        if not isinstance(eval_metric, metric_mod.EvalMetric):
            eval_metric = metric_mod.create(eval_metric)
        X, data_arrays = self._prepare_prediction(X, reset)
        for i, batch in enumerate(X):
            if num_batch is not None and i == num_batch:
                break
            _load_data(batch, data_arrays)
            self._pred_exec.forward(is_train=False)
            eval_metric.update(batch.label, self._pred_exec.outputs)
            if batch_end_callback is not None:
                _multiple_callbacks(batch_end_callback, BatchEndParam(
                    epoch=0, nbatch=i, eval_metric=eval_metric, locals=locals()))  # fmt: skip
        return eval_metric.get()[1]

    def fit(
        self,
        X: Any,
        y: Any = None,
        eval_data: Any = None,
        eval_metric: Any = "acc",
        epoch_end_callback: Any = None,
        batch_end_callback: Any = None,
        kvstore: Any = "local",
        logger: Any = None,
        work_load_list: list[float] | None = None,
        monitor: Any = None,
        eval_end_callback: Any = LogValidationMetricsCallback(),  # noqa: B008  (MXNet's)
        eval_batch_end_callback: Any = None,
    ) -> None:
        """Fit the model.

        Parameters
        ----------
        X : DataIter, or numpy.ndarray/NDArray
            Training data. If `X` is a `DataIter`, the name or (if name not available)
            the position of its outputs should match the corresponding variable
            names defined in the symbolic graph.
        y : numpy.ndarray/NDArray, optional
            Training set label; required when ``X`` is an array (1D, or 2D with one column).
        eval_data : DataIter or numpy.ndarray/list/NDArray pair
            If eval_data is numpy.ndarray/list/NDArray pair,
            it should be ``(valid_data, valid_label)``.
        eval_metric : metric.EvalMetric or str or callable
            The evaluation metric.
        epoch_end_callback : callable(epoch, symbol, arg_params, aux_states)
            A callback that is invoked at end of each epoch (e.g. ``mx.callback.do_checkpoint``).
        batch_end_callback : callable(BatchEndParams)
            A callback that is invoked at end of each batch for purposes of printing.
        kvstore : KVStore or str, optional, default 'local'
            The KVStore or a string kvstore type.
        logger : logging logger, optional
            When not specified, default logger will be used.
        work_load_list : list of float or int, optional
            The list of work load for different devices, in the same order as `ctx`.
        monitor : Monitor, optional
            Installed on the executors.
        eval_end_callback, eval_batch_end_callback : callable, optional
            Called at the end of the evaluation and after each evaluation batch.
        """
        train_data = self._init_iter(X, y, is_train=True)
        eval_data = self._init_eval_iter(eval_data)
        if self.sym_gen:
            self.symbol = self.sym_gen(train_data.default_bucket_key)
            self._check_arguments()
        self.kwargs["sym"] = self.symbol
        arg_names, param_names, aux_names = self._init_params(
            list(train_data.provide_data) + list(train_data.provide_label)
        )
        if not isinstance(eval_metric, metric_mod.EvalMetric):
            eval_metric = metric_mod.create(eval_metric)
        kvstore, update_on_kvstore = _create_kvstore(kvstore, len(self.ctx), self.arg_params)
        optimizer = self._fit_optimizer(train_data, kvstore, update_on_kvstore, param_names)
        logger = logging if logger is None else logger
        manager = DataParallelExecutorManager(
            symbol=self.symbol, sym_gen=self.sym_gen, ctx=self.ctx, train_data=train_data,
            param_names=param_names, arg_names=arg_names, aux_names=aux_names,
            work_load_list=work_load_list, logger=logger,
        )  # fmt: skip
        if monitor:
            manager.install_monitor(monitor)
        arg_params, aux_params = self.arg_params, self.aux_params  # updated in place
        manager.set_params(arg_params, aux_params)
        updater = None
        if update_on_kvstore:
            kvstore.set_optimizer(optimizer)
        else:
            updater = get_updater(optimizer)
        if kvstore:
            _initialize_kvstore(kvstore, manager.param_arrays, arg_params, manager.param_names,
                                update_on_kvstore)  # fmt: skip
        train_data.reset()
        epoch_size = self.epoch_size
        for epoch in range(self.begin_epoch, self.num_epoch):
            tic = time.time()
            eval_metric.reset()
            nbatch = 0
            while True:  # an epoch of epoch_size batches may span several passes over the data
                do_reset = True
                for data_batch in train_data:
                    manager.load_data_batch(data_batch)
                    if monitor is not None:
                        monitor.tic()
                    manager.forward(is_train=True)
                    manager.backward()
                    if update_on_kvstore:
                        _update_params_on_kvstore(manager.param_arrays, manager.grad_arrays,
                                                  kvstore, manager.param_names)  # fmt: skip
                    else:
                        _update_params(manager.param_arrays, manager.grad_arrays, updater=updater,
                                       num_device=len(self.ctx), kvstore=kvstore,
                                       param_names=manager.param_names)  # fmt: skip
                    if monitor is not None:
                        monitor.toc_print()
                    manager.update_metric(eval_metric, data_batch.label)
                    nbatch += 1
                    if batch_end_callback is not None:
                        _multiple_callbacks(
                            batch_end_callback,
                            BatchEndParam(
                                epoch=epoch, nbatch=nbatch, eval_metric=eval_metric, locals=locals()
                            ),
                        )
                    if epoch_size is not None and nbatch >= epoch_size:
                        do_reset = False
                        break
                if do_reset:
                    logger.info("Epoch[%d] Resetting Data Iterator", epoch)
                    train_data.reset()
                if epoch_size is None or nbatch >= epoch_size:
                    break
            logger.info("Epoch[%d] Time cost=%.3f", epoch, time.time() - tic)
            if epoch_end_callback or epoch + 1 == self.num_epoch:
                manager.copy_to(arg_params, aux_params)
            _multiple_callbacks(epoch_end_callback, epoch, self.symbol, arg_params, aux_params)
            if eval_data:
                _evaluate(manager, epoch, eval_data, eval_metric, eval_end_callback,
                          eval_batch_end_callback)  # fmt: skip

    def _fit_optimizer(
        self, train_data: Any, kvstore: Any, update_on_kvstore: bool, param_names: list[str]
    ) -> opt.Optimizer:
        """The optimizer of :meth:`fit`: made from a name with ``rescale_grad`` = 1 / (batch
        size, times the workers of a synchronous dist store), or the one given; its index to
        name map is a parameter's index on the store, else ``index * num_device + device``."""
        n = len(self.ctx)
        if update_on_kvstore:
            param_idx2name = dict(enumerate(param_names))
        else:
            param_idx2name = {i * n + k: name for i, name in enumerate(param_names)
                              for k in range(n)}  # fmt: skip
        self.kwargs["param_idx2name"] = param_idx2name
        if isinstance(self.optimizer, str):
            batch_size = train_data.batch_size
            if kvstore and "dist" in kvstore.type and "_async" not in kvstore.type:
                batch_size *= kvstore.num_workers
            optimizer = opt.create(self.optimizer, rescale_grad=1.0 / batch_size, **self.kwargs)
        elif isinstance(self.optimizer, opt.Optimizer):
            optimizer = self.optimizer
            if not optimizer.idx2name:
                optimizer.idx2name = param_idx2name.copy()
        else:
            raise TypeError(
                "FeedForward.fit: 'optimizer' must be a name or an Optimizer, got "
                f"{type(self.optimizer).__name__}."
            )
        return optimizer

    def save(self, prefix: str, epoch: int | None = None, remove_amp_cast: bool = True) -> None:
        """Checkpoint the model into ``prefix-symbol.json`` and ``prefix-%04d.params``
        (``epoch`` defaults to ``num_epoch``).

        Parameters
        ----------
        prefix : str
            Prefix of model name.
        epoch : int, optional
            The epoch number in the file name.
        remove_amp_cast : bool, optional
            Whether to remove the amp_cast and amp_multicast operators, before saving the model.
        """
        if epoch is None:
            epoch = self.num_epoch
        if epoch is None:
            raise ValueError("FeedForward.save: give 'epoch' (the model has no num_epoch).")
        save_checkpoint(prefix, epoch, self.symbol, self.arg_params, self.aux_params,
                        remove_amp_cast=remove_amp_cast)  # fmt: skip

    @staticmethod
    def load(prefix: str, epoch: int, ctx: Any = None, **kwargs: Any) -> FeedForward:
        """Load model checkpoint from file.

        Parameters
        ----------
        prefix : str
            Prefix of model name.
        epoch : int
            epoch number of model we would like to load.
        ctx : Context or list of Context, optional
            The device context of training and prediction.
        kwargs : dict
            Other parameters for model, including `num_epoch`, optimizer and `numpy_batch_size`.

        Returns
        -------
        model : FeedForward
            The loaded model (``begin_epoch`` is ``epoch``).
        """
        symbol, arg_params, aux_params = load_checkpoint(prefix, epoch)
        return FeedForward(symbol, ctx=ctx, arg_params=arg_params, aux_params=aux_params,
                           begin_epoch=epoch, **kwargs)  # fmt: skip

    @staticmethod
    def create(
        symbol: Any,
        X: Any,
        y: Any = None,
        ctx: Any = None,
        num_epoch: int | None = None,
        epoch_size: int | None = None,
        optimizer: Any = "sgd",
        initializer: Any = Uniform(0.01),  # noqa: B008  (MXNet's default object)
        eval_data: Any = None,
        eval_metric: Any = "acc",
        epoch_end_callback: Any = None,
        batch_end_callback: Any = None,
        kvstore: Any = "local",
        logger: Any = None,
        work_load_list: list[float] | None = None,
        eval_end_callback: Any = LogValidationMetricsCallback(),  # noqa: B008  (MXNet's)
        eval_batch_end_callback: Any = None,
        **kwargs: Any,
    ) -> FeedForward:
        """Functional style to create a model: a :class:`FeedForward` made from ``symbol``,
        ``ctx``, ``num_epoch``, ``epoch_size``, ``optimizer``, ``initializer`` and ``kwargs``,
        fitted on ``X`` (and ``y``) with the other arguments (see :meth:`fit`)."""
        model = FeedForward(symbol, ctx=ctx, num_epoch=num_epoch, epoch_size=epoch_size,
                            optimizer=optimizer, initializer=initializer, **kwargs)  # fmt: skip
        model.fit(
            X, y, eval_data=eval_data, eval_metric=eval_metric,
            epoch_end_callback=epoch_end_callback, batch_end_callback=batch_end_callback,
            kvstore=kvstore, logger=logger, work_load_list=work_load_list,
            eval_end_callback=eval_end_callback, eval_batch_end_callback=eval_batch_end_callback,
        )  # fmt: skip
        return model
