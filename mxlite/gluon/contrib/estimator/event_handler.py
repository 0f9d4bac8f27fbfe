"""Event handlers of the Estimator: each handler subclasses the events it reacts to
(TrainBegin, EpochBegin, BatchBegin, BatchEnd, EpochEnd, TrainEnd); a BatchEnd or EpochEnd
handler returning True stops training. Handlers run in ``priority`` order (lowest first)."""

from __future__ import annotations

import os
import time
import warnings
from typing import Any

import numpy as np

from .... import metric as _metric
from ....base import MXNetError
from .utils import _check_metrics

__all__ = [
    "TrainBegin", "TrainEnd", "EpochBegin", "EpochEnd", "BatchBegin", "BatchEnd",
    "StoppingHandler", "MetricHandler", "ValidationHandler", "LoggingHandler",
    "CheckpointHandler", "EarlyStoppingHandler", "GradientUpdateHandler",
]  # fmt: skip


class EventHandler:
    pass


def _check_event_handlers(handlers: Any) -> list:
    if isinstance(handlers, EventHandler):
        return [handlers]
    handlers = list(handlers or [])
    if not all(isinstance(h, EventHandler) for h in handlers):
        raise ValueError(
            f"handlers must be an EventHandler or a list of EventHandler, got: {handlers}"
        )
    return handlers


class TrainBegin(EventHandler):
    def train_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        pass


class TrainEnd(EventHandler):
    def train_end(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        pass


class EpochBegin(EventHandler):
    def epoch_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        pass


class EpochEnd(EventHandler):
    def epoch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> bool:
        return False


class BatchBegin(EventHandler):
    def batch_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        pass


class BatchEnd(EventHandler):
    def batch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> bool:
        return False


class StoppingHandler(TrainBegin, BatchEnd, EpochEnd):
    """Stop conditions: the maximum number of epochs or batches.

    Parameters
    ----------
    max_epoch : int, default None
        Number of maximum epochs to train.
    max_batch : int, default None
        Number of maximum batches to train.
    """

    def __init__(self, max_epoch: int | None = None, max_batch: int | None = None) -> None:
        self.max_epoch = max_epoch
        self.max_batch = max_batch
        self.current_batch = 0
        self.current_epoch = 0
        self.stop_training = False

    def train_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        self.max_epoch = estimator.max_epoch
        self.max_batch = estimator.max_batch
        self.current_batch = 0
        self.current_epoch = 0

    def batch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> bool:
        self.current_batch += 1
        if self.current_batch == self.max_batch:
            self.stop_training = True
        return self.stop_training

    def epoch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> bool:
        self.current_epoch += 1
        if self.current_epoch == self.max_epoch:
            self.stop_training = True
        return self.stop_training


class MetricHandler(EpochBegin, BatchEnd):
    """Resets the metrics at each epoch's start and updates them after each batch (a Loss
    metric from the loss, the others from label and prediction).

    Parameters
    ----------
    metrics : List of EvalMetrics
        Metrics to be updated at batch end.
    priority : scalar
        Priority level of the MetricHandler.
    """

    def __init__(self, metrics: Any, priority: float = -1000) -> None:
        self.metrics = _check_metrics(metrics)
        self.priority = priority

    def epoch_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        for m in self.metrics:
            m.reset()

    def batch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        for m in self.metrics:
            if isinstance(m, _metric.Loss):
                m.update(0, kwargs["loss"])
            else:
                m.update(kwargs["label"], kwargs["pred"])


class ValidationHandler(TrainBegin, BatchEnd, EpochEnd):
    """Validation handler that evaluates model on validation dataset every
    ``epoch_period`` epochs and/or every ``batch_period`` batches.

    Parameters
    ----------
    val_data : DataLoader
        Validation data set to run evaluation.
    eval_fn : function
        A function defines how to run evaluation and calculate loss and metrics.
    epoch_period : int, default 1
        How often to run validation at epoch end.
    batch_period : int, default None
        How often to run validation at batch end.
    priority : scalar, default -1000
        Priority level of the ValidationHandler.
    event_handlers : EventHandler or list of EventHandlers
        List of EventHandler to run during validation.
    """

    def __init__(
        self,
        val_data: Any,
        eval_fn: Any,
        epoch_period: int | None = 1,
        batch_period: int | None = None,
        priority: float = -1000,
        event_handlers: Any = None,
    ) -> None:
        self.val_data = val_data
        self.eval_fn = eval_fn
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.current_batch = 0
        self.current_epoch = 0
        self.priority = priority
        self.event_handlers = event_handlers

    def _evaluate(self, estimator: Any) -> None:
        self.eval_fn(
            val_data=self.val_data,
            batch_axis=estimator.batch_axis,
            event_handlers=self.event_handlers,
        )

    def train_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        self.current_batch = 0
        self.current_epoch = 0

    def batch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        self.current_batch += 1
        if self.batch_period and self.current_batch % self.batch_period == 0:
            self._evaluate(estimator)

    def epoch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        self.current_epoch += 1
        if self.epoch_period and self.current_epoch % self.epoch_period == 0:
            self._evaluate(estimator)


def _metric_text(metrics: list) -> str:
    return ", ".join("{}: {:.4f}".format(*m.get()) for m in metrics)


class LoggingHandler(TrainBegin, TrainEnd, EpochBegin, EpochEnd, BatchBegin, BatchEnd):
    """Basic Logging Handler that applies to every Gluon estimator by default.

    Parameters
    ----------
    log_interval: int or str, default 'epoch'
        Logging interval during training: 'epoch', or an int (every that many batches).
    metrics : list of EvalMetrics
        Metrics to be logged.
    priority : scalar, default np.inf
        Priority level of the LoggingHandler (it runs last).
    """

    def __init__(self, log_interval: Any = "epoch", metrics: Any = None, priority=np.inf):
        if not isinstance(log_interval, int) and log_interval != "epoch":
            raise ValueError("log_interval must be either an integer or string 'epoch'")
        self.metrics = _check_metrics(metrics)
        self.batch_index = 0
        self.current_epoch = 0
        self.processed_samples = 0
        self.priority = priority
        self.log_interval = log_interval
        self.log_interval_time = 0.0

    def train_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        self.train_start = time.time()
        trainer = estimator.trainer
        estimator.logger.info(
            "Training begin: using optimizer %s with current learning rate %.4f ",
            type(trainer.optimizer).__name__,
            trainer.learning_rate,
        )
        if estimator.max_epoch:
            estimator.logger.info("Train for %d epochs.", estimator.max_epoch)
        else:
            estimator.logger.info("Train for %d batches.", estimator.max_batch)
        self.current_epoch = 0
        self.batch_index = 0
        self.processed_samples = 0
        self.log_interval_time = 0.0

    def train_end(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        spent = time.time() - self.train_start
        msg = f"Train finished using total {int(spent)}s with {self.current_epoch} epochs. "
        estimator.logger.info((msg + _metric_text(self.metrics)).rstrip(", "))

    def batch_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(self.log_interval, int):
            self.batch_start = time.time()

    def batch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(self.log_interval, int):
            self.log_interval_time += time.time() - self.batch_start
            self.processed_samples += kwargs["batch"][0].shape[0]
            if self.batch_index % self.log_interval == 0:
                msg = (
                    f"[Epoch {self.current_epoch}][Batch {self.batch_index}][Samples "
                    f"{self.processed_samples}] time/interval: {self.log_interval_time:.3f}s "
                )
                self.log_interval_time = 0.0
                estimator.logger.info((msg + _metric_text(self.metrics)).rstrip(", "))
        self.batch_index += 1

    def epoch_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        self.epoch_start = time.time()
        if any("training" in m.name for m in self.metrics):
            estimator.logger.info(
                "[Epoch %d] Begin, current learning rate: %.4f",
                self.current_epoch,
                estimator.trainer.learning_rate,
            )
        else:
            estimator.logger.info("Validation Begin")

    def epoch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        spent = time.time() - self.epoch_start
        msg = f"[Epoch {self.current_epoch}] Finished in {spent:.3f}s, "
        estimator.logger.info((msg + _metric_text(self.metrics)).rstrip(", "))
        self.current_epoch += 1
        self.batch_index = 0


def _monitor_op(monitor: Any, mode: str, who: str) -> Any:
    if mode not in ("auto", "min", "max"):
        warnings.warn(
            f"{who} mode {mode} is unknown, fallback to auto mode.", RuntimeWarning, stacklevel=2
        )
        mode = "auto"
    if mode == "min":
        return np.less
    if mode == "max":
        return np.greater
    # MXNet 1.9.1's 'auto' test is always true: it always picks 'greater'
    warnings.warn(
        f"`greater` operator will be used to determine if {monitor.get()[0]} has improved. "
        "Please specify `mode='min'` to use the `less` operator. Specify `mode='max' to "
        "disable this warning.`",
        stacklevel=2,
    )
    return np.greater


class EarlyStoppingHandler(TrainBegin, EpochEnd, TrainEnd):
    """Early stop training if monitored value is not improving

    Parameters
    ----------
    monitor: EvalMetric
        The metric to monitor (one of estimator.train_metrics or estimator.val_metrics).
    min_delta: float, default 0
        Minimal change in monitored value to be considered as an improvement.
    patience: int, default 0
        Number of epochs to wait for improvement before terminate training.
    mode: str, default 'auto'
        One of {auto, min, max}.
    baseline: float
        Baseline value to compare the monitored value with.
    """

    def __init__(
        self,
        monitor: Any,
        min_delta: float = 0,
        patience: int = 0,
        mode: str = "auto",
        baseline: float | None = None,
    ) -> None:
        if not isinstance(monitor, _metric.EvalMetric):
            raise ValueError(
                "Please provide one of the metric objects from estimator.train_metrics and "
                "estimator.val_metrics as monitor."
            )
        if isinstance(monitor, _metric.CompositeEvalMetric):
            raise ValueError(
                "CompositeEvalMetric is not supported for EarlyStoppingHandler, please "
                "specify a simple metric instead."
            )
        self.monitor = monitor
        self.baseline = baseline
        self.patience = patience
        self.monitor_op = _monitor_op(monitor, mode, "EarlyStopping")
        self.min_delta = min_delta if self.monitor_op is np.greater else -min_delta
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False

    def train_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        self.wait = 0
        self.stopped_epoch = 0
        self.current_epoch = 0
        self.stop_training = False
        if self.baseline is not None:
            self.best = self.baseline
        else:
            self.best = np.inf if self.monitor_op is np.less else -np.inf

    def epoch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> bool:
        name, value = self.monitor.get()
        if np.isnan(value):
            warnings.warn(
                RuntimeWarning(
                    f"{name} is not updated, make sure you pass one of the metric objects "
                    "from estimator.train_metrics and estimator.val_metrics as monitor."
                ),
                stacklevel=2,
            )
        elif self.monitor_op(value - self.min_delta, self.best):
            self.best = value
            self.wait = 0
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = self.current_epoch
                self.stop_training = True
        self.current_epoch += 1
        return self.stop_training

    def train_end(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        if self.stopped_epoch > 0:
            estimator.logger.info(
                "[Epoch %d] EarlyStoppingHanlder: early stopping due to %s not improving",
                self.stopped_epoch,
                self.monitor.get()[0],
            )


class GradientUpdateHandler(BatchEnd):
    """Steps the trainer at each batch end, by the number of samples in the batch's losses.

    Parameters
    ----------
    priority : scalar, default -2000
        Priority level of the gradient update handler (it runs first).
    """

    def __init__(self, priority: float = -2000) -> None:
        self.priority = priority

    def batch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        loss = kwargs["loss"]
        losses = loss if isinstance(loss, list) else [loss]
        estimator.trainer.step(sum(v.shape[0] for v in losses))


class CheckpointHandler(TrainBegin, BatchEnd, EpochEnd):
    """Save the model (``save_parameters``) and trainer states (``save_states``) every
    ``epoch_period`` epochs or ``batch_period`` batches, as
    ``<model_prefix>-epoch<E>batch<B>.params``/``.states``, keeping the newest
    ``max_checkpoints``; with ``save_best``, also ``<model_prefix>-best`` when ``monitor``
    improves. The symbol (``-symbol.json``) is saved once for a hybridized network.

    Parameters
    ----------
    model_dir : str
        File directory to save all the model related files including model architecture,
        model parameters, and trainer states.
    model_prefix : str default 'model'
        Prefix to add for all checkpoint file names.
    monitor: EvalMetric, default None
        The metric to monitor, to decide whether the model has improved.
    verbose: int, default 0
        Verbosity mode, 1 means inform user every time a checkpoint is saved
    save_best: bool, default False
        If True, monitor must not be None, the handler will save the best model.
    mode: str, default 'auto'
        One of {auto, min, max}.
    epoch_period: int, default 1
        Epoch intervals between saving the network.
    batch_period: int, default None
        Batch intervals between saving the network.
    max_checkpoints : int, default 5
        Maximum number of latest checkpoints to keep.
    resume_from_checkpoint : bool, default False
        Whether to resume training from the newest checkpoint in model_dir.
    """

    def __init__(
        self,
        model_dir: str,
        model_prefix: str = "model",
        monitor: Any = None,
        verbose: int = 0,
        save_best: bool = False,
        mode: str = "auto",
        epoch_period: int | None = 1,
        batch_period: int | None = None,
        max_checkpoints: int = 5,
        resume_from_checkpoint: bool = False,
    ) -> None:
        self.monitor = monitor
        self.verbose = verbose
        os.makedirs(model_dir, exist_ok=True)
        self.model_dir = model_dir
        self.model_prefix = model_prefix
        self.save_best = save_best
        if save_best and not isinstance(monitor, _metric.EvalMetric):
            raise ValueError(
                "To save best model only, please provide one of the metric objects from "
                "estimator.train_metrics and estimator.val_metrics as monitor."
            )
        self.epoch_period = epoch_period
        self.batch_period = batch_period
        self.current_batch = 0
        self.current_epoch = 0
        self.max_checkpoints = max_checkpoints
        self.resume_from_checkpoint = resume_from_checkpoint
        self.saved_checkpoints: list = []
        self.trained_epoch = self.trained_batch = -1
        if save_best:
            self.monitor_op = _monitor_op(monitor, mode, "ModelCheckpoint")

    def train_begin(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        self.current_epoch = 0
        self.current_batch = 0
        if self.save_best:
            self.best = np.inf if self.monitor_op is np.less else -np.inf
        if self.resume_from_checkpoint:
            if (estimator.max_batch and (not self.batch_period or self.epoch_period)) or (
                estimator.max_epoch and (not self.epoch_period or self.batch_period)
            ):
                raise ValueError(
                    "To use resume from checkpoint, you must only specify the same type of "
                    "period you used for training (epoch_period when training by epochs and "
                    "batch_period None, or the other way round)."
                )
            self._resume_from_checkpoint(estimator)

    def batch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        if self.current_batch == 0:
            self._save_symbol(estimator)
        if self.batch_period and (self.current_batch + 1) % self.batch_period == 0:
            self._save_checkpoint(estimator)
        self.current_batch += 1

    def epoch_end(self, estimator: Any, *args: Any, **kwargs: Any) -> None:
        if self.epoch_period and (self.current_epoch + 1) % self.epoch_period == 0:
            self._save_checkpoint(estimator)
        self.current_epoch += 1

    def _save_checkpoint(self, estimator: Any) -> None:
        if self.resume_from_checkpoint:
            epoch = self.current_epoch + self.trained_epoch + 1
            batch = self.current_batch + self.trained_batch + (0 if estimator.max_epoch else 1)
        else:
            epoch, batch = self.current_epoch, self.current_batch
        prefix = f"{self.model_prefix}-epoch{epoch}batch{batch}"
        self._save_params_and_trainer(estimator, prefix)
        if self.verbose > 0:
            estimator.logger.info(
                "[Epoch %d] CheckpointHandler: trained total %d batches, saving model at %s "
                "with prefix: %s",
                self.current_epoch,
                self.current_batch + 1,
                self.model_dir,
                prefix,
            )
        if self.save_best:
            self._save_best(estimator)

    def _save_best(self, estimator: Any) -> None:
        name, value = self.monitor.get()
        if np.isnan(value):
            warnings.warn(
                RuntimeWarning(
                    f"Skipping save best because {name} is not updated, make sure you pass one "
                    "of the metric objects estimator.train_metrics and estimator.val_metrics "
                    "as monitor"
                ),
                stacklevel=3,
            )
        elif self.monitor_op(value, self.best):
            prefix = self.model_prefix + "-best"
            self._save_params_and_trainer(estimator, prefix)
            self.best = value
            if self.verbose > 0:  # as MXNet, the line shows the new value twice
                estimator.logger.info(
                    "[Epoch %d] CheckpointHandler: %s improved from %0.5f to %0.5f, updating "
                    "best model at %s with prefix: %s",
                    self.current_epoch, name, self.best, value, self.model_dir, prefix,
                )  # fmt: skip
        elif self.verbose > 0:
            estimator.logger.info(
                "[Epoch %d] CheckpointHandler: %s did not improve from %0.5f, skipping "
                "updating best model", self.current_batch, name, self.best,
            )  # fmt: skip

    def _save_symbol(self, estimator: Any) -> None:
        symbol_file = os.path.join(self.model_dir, self.model_prefix + "-symbol.json")
        graph = getattr(estimator.net, "_cached_graph", None)
        if graph:
            graph[1].save(symbol_file)
        else:
            estimator.logger.info(
                "Model architecture(symbol file) is not saved, please use HybridBlock to "
                "construct your model, and call net.hybridize() before passing to Estimator "
                "in order to save model architecture as %s.",
                symbol_file,
            )

    def _save_params_and_trainer(self, estimator: Any, prefix: str) -> None:
        estimator.net.save_parameters(os.path.join(self.model_dir, prefix + ".params"))
        estimator.trainer.save_states(os.path.join(self.model_dir, prefix + ".states"))
        if "best" in prefix:
            return
        self.saved_checkpoints.append(prefix)
        if len(self.saved_checkpoints) > self.max_checkpoints:
            old = self.saved_checkpoints.pop(0)
            for fname in os.listdir(self.model_dir):
                if fname.startswith(old + "."):
                    os.remove(os.path.join(self.model_dir, fname))

    def _resume_from_checkpoint(self, estimator: Any) -> None:
        """Load the newest checkpoint (the highest epoch, then the highest batch within it)
        and shorten the estimator's ``max_epoch``/``max_batch`` by what it trained. As in
        MXNet, the checkpoints already there are not counted against ``max_checkpoints``."""
        prefix = self.model_prefix + "-epoch"
        self.trained_epoch = _find_max_iteration(self.model_dir, prefix, "epoch", "batch")
        prefix += str(self.trained_epoch)
        self.trained_batch = _find_max_iteration(self.model_dir, prefix, "batch", ".params")
        if self.trained_epoch == -1:
            msg = "CheckpointHandler: No checkpoint found, training from scratch for "
            if estimator.max_batch:
                msg += f"{estimator.max_batch} batches"
            else:
                msg += f"{estimator.max_epoch} epochs"
            estimator.logger.info(msg)
            return
        msg = (
            f"CheckpointHandler: Checkpoint resumed from epoch {self.trained_epoch} batch "
            f"{self.trained_batch}, continue to train for "
        )
        if estimator.max_epoch:
            estimator.max_epoch = _left_to_train(
                self.trained_epoch, estimator.max_epoch, "epoch", estimator.max_epoch
            )
            msg += f"{estimator.max_epoch} epochs "
        if estimator.max_batch:
            # MXNet's message names the trained batch here, where the epoch one names the maximum
            estimator.max_batch = _left_to_train(
                self.trained_batch, estimator.max_batch, "batch", self.trained_batch
            )
            msg += f"{estimator.max_batch} batches "
        name = f"{self.model_prefix}-epoch{self.trained_epoch}batch{self.trained_batch}"
        files = [os.path.join(self.model_dir, name + ext) for ext in (".params", ".states")]
        for path in files:
            if not os.path.exists(path):
                raise MXNetError(
                    f"CheckpointHandler: Failed to load checkpoint, {path} does not exist"
                )
        estimator.net.load_parameters(files[0], ctx=estimator.context)
        estimator.trainer.load_states(files[1])
        estimator.logger.warning(msg)


def _left_to_train(trained: int, most: int, unit: str, shown: int) -> int:
    """How many epochs (or batches) are left after a checkpoint taken at ``trained`` of
    ``most``; a checkpoint at the last one is an error (its message shows ``shown``)."""
    if trained >= most - 1:
        raise ValueError(
            f"Found checkpoint with maximum number of {unit} {shown} reached, please specify "
            "resume_from_checkpoint=False (default value) if you wan to train from scratch."
        )
    return most - trained - 1


def _find_max_iteration(folder: str, prefix: str, start: str, end: str) -> int:
    """The highest number between ``start`` and ``end`` in the names of the ``.params`` files
    of ``folder`` that begin with ``prefix``; -1 when there is none."""
    max_iter = -1
    for fname in os.listdir(folder):
        if fname.startswith(prefix) and ".params" in fname:
            try:
                value = int(fname[fname.find(start) + len(start) : fname.find(end)])
            except ValueError:
                raise ValueError(
                    "Error parsing checkpoint file, please check your checkpoints have the "
                    "format: {model_name}-epoch{epoch_number}batch{batch_number}.params, there "
                    "should also be a .states file for each .params file "
                ) from None
            max_iter = max(max_iter, value)
    return max_iter
