"""Callbacks for training loops (``mx.callback``), as MXNet 1.9.1's.

Batch-end callbacks take one ``BatchEndParam(epoch, nbatch, eval_metric, locals)``; epoch-end
callbacks take ``(epoch, symbol, arg_params, aux_params)``. Everything is reported through the
root ``logging`` logger with MXNet's exact line formats, so log scrapers written for MXNet keep
working, e.g. ``Epoch[0] Batch [50-100]\\tSpeed: 1234.56 samples/sec\\taccuracy=0.912500``.

``BatchEndParam`` is ``mx.model``'s, as in MXNet, and handed on here; ``do_checkpoint`` saves
through ``mx.model``.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from typing import Any

from .base import ParamError
from .model import BatchEndParam as BatchEndParam
from .model import save_checkpoint

__all__ = [
    "BatchEndParam",
    "module_checkpoint",
    "do_checkpoint",
    "log_train_metric",
    "Speedometer",
    "ProgressBar",
    "LogValidationMetricsCallback",
]


def module_checkpoint(
    mod: Any, prefix: str, period: int = 1, save_optimizer_states: bool = False
) -> Callable[..., None]:
    """Callback to checkpoint Module to prefix every epoch.

    Parameters
    ----------
    mod : subclass of BaseModule
        The module to checkpoint.
    prefix : str
        The file prefix for this checkpoint.
    period : int
        How many epochs to wait before checkpointing. Defaults to 1.
    save_optimizer_states : bool
        Indicates whether or not to save optimizer states for continued training.

    Returns
    -------
    callback : function
        The callback function that can be passed as iter_end_callback to fit.
    """

    def save(epoch: int, sym: Any, arg: Any, aux: Any) -> None:
        mod.save_checkpoint(prefix, epoch, save_optimizer_states)

    return _every_period(period, save)


def _every_period(period: int, save: Callable[[int, Any, Any, Any], None]) -> Callable[..., None]:
    """The epoch-end callback of the checkpoint makers: ``save(epoch, symbol, arg_params,
    aux_params)`` after every ``period``-th epoch (at least 1), ``epoch`` counted from 1 as the
    checkpoint files number them."""
    period = int(max(1, period))

    def _callback(iter_no: int, sym: Any = None, arg: Any = None, aux: Any = None) -> None:
        if (iter_no + 1) % period == 0:
            save(iter_no + 1, sym, arg, aux)

    return _callback


def do_checkpoint(prefix: str, period: int = 1) -> Callable[[int, Any, Any, Any], None]:
    """A callback that saves a model checkpoint every few epochs.

    Each checkpoint is made up of a couple of binary files: a model description file and a
    parameters (weights and biases) file. The model description file is named
    `prefix`-symbol.json and the parameters file is named `prefix`-`epoch_number`.params

    Parameters
    ----------
    prefix : str
        Prefix for the checkpoint filenames.
    period : int, optional
        Interval (number of epochs) between checkpoints. Default `period` is 1.

    Returns
    -------
    callback : function
        A callback function that can be passed as `epoch_end_callback` to fit.
    """
    period = int(max(1, period))

    def _callback(iter_no: int, sym: Any, arg: Any, aux: Any) -> None:
        if (iter_no + 1) % period == 0:
            save_checkpoint(prefix, iter_no + 1, sym, arg, aux)

    return _callback


def log_train_metric(period: int, auto_reset: bool = False) -> Callable[[Any], None]:
    """Callback to log the training evaluation result every period.

    Parameters
    ----------
    period : int
        The number of batch to log the training evaluation metric.
    auto_reset : bool
        Reset the metric after each log.

    Returns
    -------
    callback : function
        The callback function that can be passed as iter_epoch_callback to fit.
    """

    def _callback(param: Any) -> None:
        if param.nbatch % period == 0 and param.eval_metric is not None:
            for name, value in param.eval_metric.get_name_value():
                logging.info(
                    "Iter[%d] Batch[%d] Train-%s=%f", param.epoch, param.nbatch, name, value
                )
            if auto_reset:
                param.eval_metric.reset_local()

    return _callback


class Speedometer:
    """Logs training speed and evaluation metrics periodically.

    Parameters
    ----------
    batch_size: int
        Batch size of data.
    frequent: int
        Specifies how frequently training speed and evaluation metrics must be logged.
        Default behavior is to log once every 50 batches.
    auto_reset : bool
        Reset the evaluation metrics after each log.

    Examples
    --------
    >>> import mxlite as mx
    >>> speedometer = mx.callback.Speedometer(batch_size=32, frequent=10)
    """

    def __init__(self, batch_size: int, frequent: int = 50, auto_reset: bool = True) -> None:
        if int(frequent) < 1:
            raise ParamError(f"Speedometer: argument 'frequent' must be >= 1, got {frequent}")
        self.batch_size = batch_size
        self.frequent = frequent
        self.init = False
        self.tic = 0.0
        self.last_count = 0
        self.auto_reset = auto_reset

    def __call__(self, param: Any) -> None:
        """Callback to Show speed."""
        count = param.nbatch
        if self.last_count > count:
            # A smaller batch number means a new epoch: start timing afresh.
            self.init = False
        self.last_count = count
        if not self.init:
            self.init = True
            self.tic = time.time()
            return
        if count % self.frequent != 0:
            return
        try:
            speed = self.frequent * self.batch_size / (time.time() - self.tic)
        except ZeroDivisionError:
            speed = float("inf")
        if param.eval_metric is not None:
            name_value = param.eval_metric.get_name_value()
            pairs = sum(name_value, ())
            if self.auto_reset:
                param.eval_metric.reset_local()
                msg = "Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec"
                msg += "\t%s=%f" * len(name_value)
                logging.info(msg, param.epoch, count - self.frequent, count, speed, *pairs)
            else:
                msg = "Epoch[%d] Batch [0-%d]\tSpeed: %.2f samples/sec"
                msg += "\t%s=%f" * len(name_value)
                logging.info(msg, param.epoch, count, speed, *pairs)
        else:
            logging.info("Iter[%d] Batch [%d]\tSpeed: %.2f samples/sec", param.epoch, count, speed)
        self.tic = time.time()


class ProgressBar:
    """Displays a progress bar, indicating the percentage of batches processed within each
    epoch.

    Parameters
    ----------
    total: int
        total number of batches per epoch
    length: int
        number of chars to define maximum length of progress bar

    Examples
    --------
    >>> import mxlite as mx
    >>> progress_bar = mx.callback.ProgressBar(total=2)
    """

    def __init__(self, total: int, length: int = 80) -> None:
        if total <= 0:
            raise ParamError(f"ProgressBar: argument 'total' must be > 0, got {total}")
        self.bar_len = length
        self.total = total

    def __call__(self, param: Any) -> None:
        """Callback to Show progress bar."""
        count = param.nbatch
        filled_len = int(round(self.bar_len * count / float(self.total)))
        percents = math.ceil(100.0 * count / float(self.total))
        prog_bar = "=" * filled_len + "-" * (self.bar_len - filled_len)
        logging.info("[%s] %s%s\r", prog_bar, percents, "%")


class LogValidationMetricsCallback:
    """Just logs the eval metrics at the end of an epoch."""

    def __call__(self, param: Any) -> None:
        if not param.eval_metric:
            return
        for name, value in param.eval_metric.get_name_value():
            logging.info("Epoch[%d] Validation-%s=%f", param.epoch, name, value)
