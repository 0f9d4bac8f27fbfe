"""The regression, likelihood and loss metrics of ``mx.metric`` (Perplexity, MAE, MSE, RMSE,
CrossEntropy, NegativeLogLikelihood, PearsonCorrelation, Loss, Torch, Caffe), handed on by
``mx.metric``. Values are computed on NumPy copies of the inputs, as MXNet 1.9.1 does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy

from ..base import ShapeError
from .base import (
    _AVERAGE_DOC,
    _NAMES_DOC,
    EvalMetric,
    _as_numpy,
    alias,
    average_init,
    check_label_shapes,
    names_init,
    register,
)


@register
class Perplexity(EvalMetric):
    """Computes perplexity: ``exp`` of the mean negative log-probability of the labels.

    Parameters
    ----------
    ignore_label : int or None
        Index of invalid label to ignore when counting (required). If set to `None`, it will
        include all entries.
    axis : int (default -1)
        The axis from prediction that was used to compute softmax. By default use the last
        axis."""

    __doc__ = (__doc__ or "") + _NAMES_DOC

    def __init__(
        self,
        ignore_label: int | None,
        axis: int = -1,
        name: str = "perplexity",
        output_names: list[str] | None = None,
        label_names: list[str] | None = None,
    ) -> None:
        self._init_kept(name, output_names, label_names, ignore_label=ignore_label)
        self.axis = axis

    def update(self, labels: Any, preds: Any) -> None:
        if len(labels) != len(preds):
            raise ShapeError(
                f"Perplexity.update: {len(labels)} labels but {len(preds)} predictions"
            )
        loss = 0.0
        num = 0
        for label, pred in zip(labels, preds):
            pred_np = _as_numpy(pred)
            if label.size != pred_np.size / pred_np.shape[-1]:
                raise ShapeError(
                    f"Perplexity.update: shape mismatch: {tuple(label.shape)} vs. {pred_np.shape}"
                )
            label_np = _as_numpy(label).reshape(-1)
            moved = numpy.moveaxis(pred_np, self.axis, -1)
            if moved.shape[:-1] != label_np.shape:
                # MXNet picks with the flattened label, so pred must be 2-D.
                raise ShapeError(
                    f"Perplexity.update: predictions of shape {pred_np.shape} without axis "
                    f"{self.axis} must match the flattened label's shape {label_np.shape}"
                )
            classes = moved.shape[-1]
            # MXNet picks with mode='clip': an out-of-range label (e.g. -1) reads a class.
            index = numpy.clip(label_np.astype("int32"), 0, classes - 1)
            picked = numpy.take_along_axis(moved.reshape(-1, classes), index[:, None], axis=1)
            picked = picked.reshape(-1)
            if self.ignore_label is not None:
                ignore = (label_np == self.ignore_label).astype(picked.dtype)
                num -= int(ignore.sum())
                picked = picked * (1 - ignore) + ignore
            loss -= float(numpy.log(numpy.maximum(picked.dtype.type(1e-10), picked)).sum())
            num += picked.size
        self._add(loss, num)

    def get(self) -> tuple[str, float]:
        if self.num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, math.exp(self.sum_metric / self.num_inst))

    def get_global(self) -> tuple[str, float]:
        if self.global_num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, math.exp(self.global_sum_metric / self.global_num_inst))


def _as_columns(label: Any, pred: Any) -> tuple[numpy.ndarray, numpy.ndarray]:
    label_np, pred_np = _as_numpy(label), _as_numpy(pred)
    if label_np.ndim == 1:
        label_np = label_np.reshape(label_np.shape[0], 1)
    if pred_np.ndim == 1:
        pred_np = pred_np.reshape(pred_np.shape[0], 1)
    return label_np, pred_np


class _Regression(EvalMetric):
    """A per-array regression error; one instance per array, as MXNet counts it."""

    @staticmethod
    def _error(diff: numpy.ndarray) -> Any:
        raise NotImplementedError

    def update(self, labels: Any, preds: Any) -> None:
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label_np, pred_np = _as_columns(label, pred)
            self._add(self._error(label_np - pred_np), 1)


@register
class MAE(_Regression):
    """Computes Mean Absolute Error (MAE) loss.

    Parameters
    ----------"""

    __doc__ = (__doc__ or "") + _NAMES_DOC

    __init__ = names_init("mae")

    @staticmethod
    def _error(diff: numpy.ndarray) -> Any:
        return numpy.abs(diff).mean()


@register
class MSE(_Regression):
    """Computes Mean Squared Error (MSE) loss.

    Parameters
    ----------"""

    __doc__ = (__doc__ or "") + _NAMES_DOC

    __init__ = names_init("mse")

    @staticmethod
    def _error(diff: numpy.ndarray) -> Any:
        return (diff**2.0).mean()


@register
class RMSE(_Regression):
    """Computes Root Mean Squred Error (RMSE) loss.

    Parameters
    ----------"""

    __doc__ = (__doc__ or "") + _NAMES_DOC

    __init__ = names_init("rmse")

    @staticmethod
    def _error(diff: numpy.ndarray) -> Any:
        return numpy.sqrt((diff**2.0).mean())


def _eps_init(default_name: str) -> Callable[..., None]:
    """The ``__init__`` of CrossEntropy and NegativeLogLikelihood: ``eps`` and the naming
    arguments, ``name`` defaulting to ``default_name``."""

    def __init__(
        self,
        eps: float = 1e-12,
        name: str = default_name,
        output_names: list[str] | None = None,
        label_names: list[str] | None = None,
    ) -> None:
        self._init_kept(name, output_names, label_names, eps=eps)

    return __init__


class _LabelLogLoss(EvalMetric):
    """Sum of ``-log(p[label] + eps)`` over samples, divided by the number of samples."""

    def update(self, labels: Any, preds: Any) -> None:
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label_np = _as_numpy(label).ravel()
            pred_np = _as_numpy(pred)
            n = pred_np.shape[0]
            if label_np.shape[0] != n:
                raise ShapeError(
                    f"{type(self).__name__}.update: {label_np.shape[0]} labels for {n} predictions"
                )
            prob = pred_np[numpy.arange(n, dtype=numpy.int64), numpy.int64(label_np)]
            self._add((-numpy.log(prob + self.eps)).sum(), n)


@register
@alias("ce")
class CrossEntropy(_LabelLogLoss):
    """Computes Cross Entropy loss: the mean of ``-log(p[label] + eps)``.

    Parameters
    ----------
    eps : float
        Cross Entropy loss is undefined for predicted value is 0 or 1, so predicted values
        are added with the small constant."""

    __doc__ = (__doc__ or "") + _NAMES_DOC

    __init__ = _eps_init("cross-entropy")


@register
@alias("nll_loss")
class NegativeLogLikelihood(_LabelLogLoss):
    """Computes the negative log-likelihood loss: the mean of ``-log(p[label] + eps)``.

    Parameters
    ----------
    eps : float
        Negative log-likelihood loss is undefined for predicted value is 0, so predicted
        values are added with the small constant."""

    __doc__ = (__doc__ or "") + _NAMES_DOC

    __init__ = _eps_init("nll-loss")


@register
@alias("pearsonr")
class PearsonCorrelation(EvalMetric):
    """Computes Pearson correlation.

    Parameters
    ----------"""

    __doc__ = (
        (__doc__ or "")
        + _NAMES_DOC
        + _AVERAGE_DOC.format(what="pearsonr scores", one="pearsonr score")
    )
    __init__ = average_init("pearsonr")

    def _set_average(self, average: str) -> None:
        self.average = average

    def reset_micro(self) -> None:
        """Resets the running moments of the 'micro' average."""
        self._sse_p = 0.0
        self._mean_p = 0.0
        self._sse_l = 0.0
        self._mean_l = 0.0
        self._pred_nums = 0
        self._label_nums = 0
        self._conv = 0.0

    def reset(self) -> None:
        super().reset()
        if self.average == "micro":
            self.reset_micro()

    @staticmethod
    def update_variance(new_values: numpy.ndarray, *aggregate: Any) -> tuple[Any, Any, Any]:
        """One step of MXNet's batched running mean and sum of squared deviations."""
        count, mean, m_2 = aggregate
        count += len(new_values)
        delta = new_values - mean
        mean += numpy.sum(delta / count)
        delta_2 = new_values - mean
        m_2 += numpy.sum(delta * delta_2)
        return count, mean, m_2

    def update_cov(self, label: numpy.ndarray, pred: numpy.ndarray) -> None:
        """Adds the batch's co-deviation around the current means."""
        self._conv = self._conv + numpy.sum((label - self._mean_l) * (pred - self._mean_p))

    def update(self, labels: Any, preds: Any) -> None:
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            check_label_shapes(label, pred, False, True)
            label_np = _as_numpy(label).ravel().astype(numpy.float64)
            pred_np = _as_numpy(pred).ravel().astype(numpy.float64)
            if self.average == "macro":
                self._add(numpy.corrcoef(pred_np, label_np)[0, 1], 1)
                continue
            self.global_num_inst += 1
            self.num_inst += 1
            self._label_nums, self._mean_l, self._sse_l = self.update_variance(
                label_np, self._label_nums, self._mean_l, self._sse_l
            )
            self.update_cov(label_np, pred_np)
            self._pred_nums, self._mean_p, self._sse_p = self.update_variance(
                pred_np, self._pred_nums, self._mean_p, self._sse_p
            )

    def get(self) -> tuple[str, Any]:
        if self.num_inst == 0:
            return (self.name, float("nan"))
        if self.average == "macro":
            return (self.name, self.sum_metric / self.num_inst)
        n = self._label_nums
        denom = (n - 1) * numpy.sqrt(self._sse_p / (n - 1)) * numpy.sqrt(self._sse_l / (n - 1))
        return (self.name, self._conv / denom)


@register
class Loss(EvalMetric):
    """Dummy metric for directly printing loss: the mean of the predictions' elements.

    Parameters
    ----------"""

    __doc__ = (__doc__ or "") + _NAMES_DOC

    __init__ = names_init("loss")

    def update(self, _: Any, preds: Any) -> None:
        if not isinstance(preds, (list, tuple)):
            preds = [preds]
        for pred in preds:
            values = _as_numpy(pred)
            self._add(values.sum().item(), values.size)


@register
class Torch(Loss):
    """Dummy metric for torch criterions."""

    __init__ = names_init("torch")


@register
class Caffe(Loss):
    """Dummy metric for caffe criterions."""

    __init__ = names_init("caffe")
