"""Gluon's Estimator: ``fit`` runs epochs or batches of a DataLoader through a
BatchProcessor, calling the event handlers around each batch and epoch; ``evaluate`` runs the
validation data through the same machinery."""

from __future__ import annotations

import copy
import logging
import sys
import warnings
from typing import Any

from .... import metric as _metric
from ....context import Context, cpu, gpu, num_gpus
from ...data import DataLoader
from ...loss import Loss
from ...trainer import Trainer
from .batch_processor import BatchProcessor
from .event_handler import (
    BatchBegin,
    BatchEnd,
    EpochBegin,
    EpochEnd,
    GradientUpdateHandler,
    LoggingHandler,
    MetricHandler,
    StoppingHandler,
    TrainBegin,
    TrainEnd,
    ValidationHandler,
    _check_event_handlers,
)
from .utils import _check_handler_metric_ref, _check_metrics, _suggest_metric_for_loss

__all__ = ["Estimator"]


def _require_loader(data: Any, see: str) -> None:
    if not isinstance(data, DataLoader):
        raise ValueError(
            "Estimator only support input as Gluon DataLoader. Alternatively, you can "
            f"transform your DataIter or any NDArray into Gluon DataLoader. Refer to {see}"
        )


class Estimator:
    """Estimator Class for easy model training

    Parameters
    ----------
    net : gluon.Block
        The model used for training.
    loss : gluon.loss.Loss
        Loss (objective) function to calculate during training.
    train_metrics : EvalMetric or list of EvalMetric
        Training metrics for evaluating models on training dataset.
    val_metrics : EvalMetric or list of EvalMetric
        Validation metrics for evaluating models on validation dataset.
    initializer : Initializer
        Initializer to initialize the network.
    trainer : Trainer
        Trainer to apply optimizer on network parameters.
    context : Context or list of Context
        Device(s) to run the training on.
    val_net : gluon.Block
        The model used for validation (the training network when None).
    val_loss : gluon.loss.loss
        Loss (objective) function to calculate during validation (the training loss when None).
    batch_processor: BatchProcessor
        BatchProcessor provides customized fit_batch() and evaluate_batch() methods
    """

    logger: Any = None

    def __init__(
        self,
        net: Any,
        loss: Any,
        train_metrics: Any = None,
        val_metrics: Any = None,
        initializer: Any = None,
        trainer: Any = None,
        context: Any = None,
        val_net: Any = None,
        val_loss: Any = None,
        batch_processor: Any = None,
    ) -> None:
        self.net = net
        self.loss = self._check_loss(loss)
        self._train_metrics = _check_metrics(train_metrics)
        self._val_metrics = _check_metrics(val_metrics)
        self._add_default_training_metrics()
        self._add_validation_metrics()
        self.val_loss = self.loss if val_loss is None else self._check_loss(val_loss)
        self.val_net = self.net if val_net is None else val_net
        self.logger = logging.Logger(name="Estimator", level=logging.INFO)
        self.logger.addHandler(logging.StreamHandler(sys.stdout))
        self.context = self._check_context(context)
        self._initialize(initializer)
        self.trainer = self._check_trainer(trainer)
        self.batch_processor = self._check_batch_processor(batch_processor)
        self.max_epoch = self.max_batch = None
        self.batch_axis = 0

    @staticmethod
    def _check_loss(loss: Any) -> Any:
        if not isinstance(loss, Loss):
            raise ValueError(f"loss must be a Loss, refer to gluon.loss.Loss:{loss}")
        return loss

    @staticmethod
    def _check_context(context: Any) -> list:
        gpus = [gpu(i) for i in range(num_gpus())]
        if not context:
            if len(gpus) > 1:
                warnings.warn(
                    "You have multiple GPUs, gpu(0) will be used by default.To utilize all "
                    "your GPUs, specify context as a list of gpus, e.g. context=[mx.gpu(0), "
                    "mx.gpu(1)] ",
                    stacklevel=2,
                )
            return [gpus[0]] if gpus else [cpu()]
        if isinstance(context, Context):
            context = [context]
        elif not (isinstance(context, list) and all(isinstance(c, Context) for c in context)):
            raise ValueError(
                "context must be a Context or a list of Context, for example mx.cpu() or "
                f"[mx.gpu(0), mx.gpu(1)], refer to mxnet.Context:{context}"
            )
        for ctx in context:
            if ctx not in gpus and not str(ctx).startswith("cpu"):
                # AssertionError, as MXNet 1.9.1 (its callers test for it)
                raise AssertionError(
                    f"{ctx} is not available, please make sure your context is in one of: "
                    f"mx.cpu(), {', '.join(str(g) for g in gpus)}"
                )
        return context

    @staticmethod
    def _check_batch_processor(batch_processor: Any) -> Any:
        if batch_processor is None:
            return BatchProcessor()
        fit = getattr(batch_processor, "fit_batch", None)
        evaluate = getattr(batch_processor, "evaluate_batch", None)
        if not callable(fit) or not callable(evaluate):
            raise ValueError(
                "Customized Batch Processor must contain fit_batch() and evaluate_batch() methods"
            )
        return batch_processor

    def _initialize(self, initializer: Any) -> None:
        if not self._is_initialized():
            self.net.initialize(init=initializer, ctx=self.context) if initializer else (
                self.net.initialize(ctx=self.context)
            )
        elif initializer:
            warnings.warn(
                "Network already fully initialized, skipping initialization. You don't need to "
                "pass initializer if you already initialized your net. You can use "
                "net.initialize(init=your_initializer, force_reinit=True)to force re-initialize.",
                stacklevel=2,
            )

    def _check_trainer(self, trainer: Any) -> Any:
        if not trainer:
            warnings.warn(
                "No trainer specified, default SGD optimizer with learning rate 0.001 is used.",
                stacklevel=2,
            )
            return Trainer(self.net.collect_params(), "sgd", {"learning_rate": 0.001})
        if not isinstance(trainer, Trainer):
            raise ValueError(
                f"Trainer must be a Gluon Trainer instance, refer to gluon.Trainer:{trainer}"
            )
        return trainer

    def _is_initialized(self) -> bool:
        params = self.net.collect_params()
        for name in params:
            try:
                params[name].list_ctx()
            except RuntimeError:
                return False
        return True

    def _add_default_training_metrics(self) -> None:
        if not self._train_metrics:
            suggested = _suggest_metric_for_loss(self.loss)
            if suggested:
                self._train_metrics = [suggested]
            self._train_metrics.append(_metric.Loss(self.loss.name.rstrip("1234567890")))
        for m in self._train_metrics:
            m.name = "training " + m.name

    def _add_validation_metrics(self) -> None:
        if not self._val_metrics:
            self._val_metrics = [copy.deepcopy(m) for m in self._train_metrics]
        for m in self._val_metrics:
            if "training" in m.name:
                m.name = m.name.replace("training", "validation")
            else:
                m.name = "validation " + m.name

    @property
    def train_metrics(self) -> list:
        return self._train_metrics

    @property
    def val_metrics(self) -> list:
        return self._val_metrics

    def evaluate(self, val_data: Any, batch_axis: int = 0, event_handlers: Any = None) -> None:
        """Evaluate model on validation data (metrics in ``val_metrics``).

        Parameters
        ----------
        val_data : DataLoader
            Validation data loader with data and labels.
        batch_axis : int, default 0
            Batch axis to split the validation data into devices.
        event_handlers : EventHandler or list of EventHandler
            List of :py:class:`EventHandlers` to apply during validation.
        """
        _require_loader(val_data, "gluon.data.DataLoader")
        for m in self.val_metrics:
            m.reset()
        handlers = self._prepare_default_validation_handlers(event_handlers)
        _, epoch_begin, batch_begin, batch_end, epoch_end, _ = self._categorize_handlers(handlers)
        step = self.batch_processor.evaluate_batch
        self._epoch(val_data, step, batch_axis, epoch_begin, batch_begin, batch_end, False)
        for h in epoch_end:
            h.epoch_end(self)

    def fit(
        self,
        train_data: Any,
        val_data: Any = None,
        epochs: int | None = None,
        event_handlers: Any = None,
        batches: int | None = None,
        batch_axis: int = 0,
    ) -> None:
        """Trains the model with a given :py:class:`DataLoader` for a specified number of
        epochs or batches (exactly one of them).

        Parameters
        ----------
        train_data : DataLoader
            Training data loader with data and labels.
        val_data : DataLoader, default None
            Validation data loader with data and labels.
        epochs : int, default None
            Number of epochs to iterate on the training data.
        event_handlers : EventHandler or list of EventHandler
            List of :py:class:`EventHandlers` to apply during training.
        batches : int, default None
            Number of batches to iterate on the training data.
        batch_axis : int, default 0
            Batch axis to split the training data into devices.
        """
        _require_loader(train_data, "gluon.data.dataloader")
        if (not epochs) == (not batches):
            raise ValueError(
                "Fit only support exactly one type of iteration, train by number of epochs or "
                "number of batches.Please specify one and only one of: epochs or batches."
            )
        self.max_epoch = epochs
        self.max_batch = batches
        self.batch_axis = batch_axis
        handlers = self._prepare_default_handlers(val_data, event_handlers)
        train_begin, epoch_begin, batch_begin, batch_end, epoch_end, train_end = (
            self._categorize_handlers(handlers)
        )
        for h in train_begin:
            h.train_begin(self)
        step = self.batch_processor.fit_batch
        while True:
            self._epoch(train_data, step, batch_axis, epoch_begin, batch_begin, batch_end, True)
            if any([h.epoch_end(self) for h in epoch_end]):
                break
        for h in train_end:
            h.train_end(self)

    def _epoch(self, data, step, batch_axis, epoch_begin, batch_begin, batch_end, stoppable):
        """One pass over ``data``: ``step`` (the batch processor's fit or evaluate) on each
        batch between the epoch-begin, batch-begin and batch-end handlers; with ``stoppable``,
        the pass ends at a batch whose batch-end handlers return True."""
        for h in epoch_begin:
            h.epoch_begin(self)
        for batch in data:
            for h in batch_begin:
                h.batch_begin(self, batch=batch)
            _, label, pred, loss = step(self, batch, batch_axis)
            stop = [
                h.batch_end(self, batch=batch, pred=pred, label=label, loss=loss) for h in batch_end
            ]
            if stoppable and any(stop):
                return

    def _with_defaults(self, event_handlers: Any, defaults: list, known: set) -> list:
        handlers = _check_event_handlers(event_handlers)
        mixing = bool(handlers) and bool(defaults)
        handlers.extend(defaults)
        if mixing:
            for h in handlers:
                _check_handler_metric_ref(h, known)
        handlers.sort(key=lambda h: getattr(h, "priority", 0))
        return handlers

    def _prepare_default_handlers(self, val_data: Any, event_handlers: Any) -> list:
        given = _check_event_handlers(event_handlers)

        def missing(cls: type) -> bool:
            return not any(isinstance(h, cls) for h in given)

        defaults: list = [StoppingHandler(self.max_epoch, self.max_batch)]
        if missing(GradientUpdateHandler):
            defaults.append(GradientUpdateHandler())
        if missing(MetricHandler):
            defaults.append(MetricHandler(metrics=self.train_metrics))
        if missing(ValidationHandler) and val_data:
            defaults.append(ValidationHandler(val_data=val_data, eval_fn=self.evaluate))
        if missing(LoggingHandler):
            defaults.append(LoggingHandler(metrics=self.train_metrics))
        return self._with_defaults(given, defaults, set(self.train_metrics + self.val_metrics))

    def _prepare_default_validation_handlers(self, event_handlers: Any) -> list:
        given = _check_event_handlers(event_handlers)
        defaults: list = []
        if not any(isinstance(h, MetricHandler) for h in given):
            defaults.append(MetricHandler(metrics=self.val_metrics))
        if not any(isinstance(h, LoggingHandler) for h in given):
            defaults.append(LoggingHandler(metrics=self.val_metrics))
        return self._with_defaults(given, defaults, set(self.val_metrics))

    @staticmethod
    def _categorize_handlers(event_handlers: list) -> tuple:
        kinds = (TrainBegin, EpochBegin, BatchBegin, BatchEnd, EpochEnd, TrainEnd)
        return tuple([h for h in event_handlers if isinstance(h, k)] for k in kinds)
