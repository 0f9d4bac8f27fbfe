"""The classification metrics of ``mx.metric`` (Accuracy, TopKAccuracy, F1, MCC, PCC). Each
reads its inputs with ``asnumpy()`` and computes on NumPy, so every value equals MXNet's for
the same labels and predictions, including the odd corners kept on purpose (F1 and MCC with
``average='macro'`` average per ``update`` call; MAE, MSE and RMSE count one instance per
``update`` array, not per sample).
"""

from __future__ import annotations

import math
from typing import Any

import numpy

from ..base import MXNetError, ParamError, ShapeError
from .base import (
    _AVERAGE_DOC,
    _NAMES_DOC,
    EvalMetric,
    _as_numpy,
    alias,
    average_init,
    check_label_shapes,
    register,
)


@register
@alias("acc")
class Accuracy(EvalMetric):
    """Computes accuracy classification score: the fraction of predictions equal to labels.

    Parameters
    ----------
    axis : int, default=1
        The axis that represents classes"""

    __doc__ = (__doc__ or "") + _NAMES_DOC

    def __init__(
        self,
        axis: int = 1,
        name: str = "accuracy",
        output_names: list[str] | None = None,
        label_names: list[str] | None = None,
    ) -> None:
        self._init_kept(name, output_names, label_names, axis=axis)

    def update(self, labels: Any, preds: Any) -> None:
        """Updates the internal evaluation result.

        Parameters
        ----------
        labels : list of `NDArray`
            The labels of the data with class indices as values, one per sample.
        preds : list of `NDArray`
            Prediction values for samples. Each prediction value can either be the class
            index, or a vector of likelihoods for all classes.
        """
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            pred_np = _as_numpy(pred)
            if tuple(pred.shape) != tuple(label.shape):
                pred_np = numpy.argmax(pred_np, axis=self.axis)
            pred_flat = pred_np.astype("int32").ravel()
            label_flat = _as_numpy(label).astype("int32").ravel()
            check_label_shapes(label_flat, pred_flat)
            self._add((pred_flat == label_flat).sum(), len(pred_flat))


@register
@alias("top_k_accuracy", "top_k_acc")
class TopKAccuracy(EvalMetric):
    """Computes top k predictions accuracy: a prediction counts as right when the label is
    among the `top_k` classes with the highest scores.

    Parameters
    ----------
    top_k : int
        Whether targets are in top k predictions."""

    __doc__ = (__doc__ or "") + _NAMES_DOC

    def __init__(
        self,
        top_k: int = 1,
        name: str = "top_k_accuracy",
        output_names: list[str] | None = None,
        label_names: list[str] | None = None,
    ) -> None:
        self._init_kept(name, output_names, label_names, top_k=top_k)
        if self.top_k <= 1:
            raise ParamError(
                f"TopKAccuracy: argument 'top_k' must be > 1 (use Accuracy otherwise), got {top_k}"
            )
        self.name += f"_{self.top_k}"

    def update(self, labels: Any, preds: Any) -> None:
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            if len(pred.shape) > 2:
                raise ShapeError(
                    f"TopKAccuracy.update: predictions should be no more than 2 dims, got "
                    f"shape {tuple(pred.shape)}"
                )
            pred_label = numpy.argpartition(_as_numpy(pred).astype("float32"), -self.top_k)
            label_np = _as_numpy(label).astype("int32")
            check_label_shapes(label_np, pred_label)
            num_samples = pred_label.shape[0]
            if pred_label.ndim == 1:
                # MXNet 1.9.1 adds a 1-D case to the local sum only.
                self.sum_metric += (pred_label.ravel() == label_np.ravel()).sum()
            else:
                num_classes = pred_label.shape[1]
                for j in range(min(num_classes, self.top_k)):
                    hit = (pred_label[:, num_classes - 1 - j].ravel() == label_np.ravel()).sum()
                    self.sum_metric += hit
                    self.global_sum_metric += hit
            self.num_inst += num_samples
            self.global_num_inst += num_samples


class _BinaryCounts:
    """True/false positive/negative counts of a binary classifier, local and global."""

    _FIELDS = ("tp", "fp", "fn", "tn")

    def __init__(self) -> None:
        self.local = dict.fromkeys(self._FIELDS, 0)
        self.glob = dict.fromkeys(self._FIELDS, 0)

    def update(self, who: str, label: Any, pred: Any) -> None:
        pred_np = _as_numpy(pred)
        label_np = _as_numpy(label).astype("int32")
        pred_label = numpy.argmax(pred_np, axis=1)
        check_label_shapes(label_np, pred_np)
        if len(numpy.unique(label_np)) > 2:
            raise MXNetError(f"{who} currently only supports binary classification.")
        pred_true = (pred_label == 1).astype(numpy.int64)
        label_true = (label_np == 1).astype(numpy.int64)
        counts = {
            "tp": (pred_true * label_true).sum(),
            "fp": (pred_true * (1 - label_true)).sum(),
            "fn": ((1 - pred_true) * label_true).sum(),
            "tn": ((1 - pred_true) * (1 - label_true)).sum(),
        }
        for key, value in counts.items():
            self.local[key] += int(value)
            self.glob[key] += int(value)

    def reset_local(self) -> None:
        self.local = dict.fromkeys(self._FIELDS, 0)

    def reset(self) -> None:
        self.reset_local()
        self.glob = dict.fromkeys(self._FIELDS, 0)

    @staticmethod
    def total(c: dict[str, int]) -> int:
        return c["tp"] + c["fp"] + c["fn"] + c["tn"]

    @staticmethod
    def fscore(c: dict[str, int]) -> float:
        precision = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] > 0 else 0.0
        recall = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] > 0 else 0.0
        if precision + recall > 0:
            return 2 * precision * recall / (precision + recall)
        return 0.0

    @classmethod
    def matthewscc(cls, c: dict[str, int]) -> float:
        if not cls.total(c):
            return 0.0
        tp, fp, fn, tn = (float(c[k]) for k in ("tp", "fp", "fn", "tn"))
        denom = 1.0
        # A zero marginal is left out of the product (MXNet's convention) instead of giving 0/0.
        for t in (tp + fp, tp + fn, tn + fp, tn + fn):
            if t != 0.0:
                denom *= t
        return (tp * tn - fp * fn) / math.sqrt(denom)


class _BinaryMetric(EvalMetric):
    """F1 and MCC: a score of the binary counts, averaged per update ('macro') or over all
    samples ('micro')."""

    def _set_average(self, average: str) -> None:
        if average not in ("macro", "micro"):
            raise ParamError(
                f"{type(self).__name__}: argument 'average' must be 'macro' or 'micro', "
                f"got {average!r}"
            )
        self.average = average
        self._counts = _BinaryCounts()

    def _score(self, c: dict[str, int]) -> float:
        raise NotImplementedError

    def update(self, labels: Any, preds: Any) -> None:
        labels, preds = check_label_shapes(labels, preds, True)
        counts = self._counts
        for label, pred in zip(labels, preds):
            counts.update(type(self).__name__, label, pred)
        if self.average == "macro":
            self.sum_metric += self._score(counts.local)
            self.global_sum_metric += self._score(counts.glob)
            self.num_inst += 1
            self.global_num_inst += 1
            counts.reset()
        else:
            self.sum_metric = self._score(counts.local) * counts.total(counts.local)
            self.global_sum_metric = self._score(counts.glob) * counts.total(counts.glob)
            self.num_inst = counts.total(counts.local)
            self.global_num_inst = counts.total(counts.glob)

    def reset(self) -> None:
        self.sum_metric = 0.0
        self.num_inst = 0
        self.global_sum_metric = 0.0
        self.global_num_inst = 0
        self._counts.reset()

    def reset_local(self) -> None:
        self.sum_metric = 0.0
        self.num_inst = 0
        self._counts.reset_local()


@register
class F1(_BinaryMetric):
    """Computes the F1 score of a binary classification problem: the harmonic mean of
    precision and recall. The prediction's class is its argmax over axis 1.

    Parameters
    ----------"""

    __doc__ = (__doc__ or "") + _NAMES_DOC + _AVERAGE_DOC.format(what="F1 scores", one="F1 score")
    __init__ = average_init("f1")

    def _score(self, c: dict[str, int]) -> float:
        return self._counts.fscore(c)


@register
class MCC(_BinaryMetric):
    """Computes the Matthews Correlation Coefficient of a binary classification problem.

    Parameters
    ----------"""

    __doc__ = (__doc__ or "") + _NAMES_DOC + _AVERAGE_DOC.format(what="MCC", one="MCC")
    __init__ = average_init("mcc")

    def _score(self, c: dict[str, int]) -> float:
        return self._counts.matthewscc(c)


@register
class PCC(EvalMetric):
    """PCC is a multiclass equivalent for the Matthews correlation coefficient, computed from
    the K x K confusion matrix (K grows with the largest class seen).

    Parameters
    ----------"""

    __doc__ = (__doc__ or "") + _NAMES_DOC

    def __init__(
        self,
        name: str = "pcc",
        output_names: list[str] | None = None,
        label_names: list[str] | None = None,
        has_global_stats: bool = True,
    ) -> None:
        self.k = 2
        super().__init__(
            name=name,
            output_names=output_names,
            label_names=label_names,
            has_global_stats=has_global_stats,
        )

    def _grow(self, inc: int) -> None:
        self.lcm = numpy.pad(self.lcm, ((0, inc), (0, inc)), "constant")
        self.gcm = numpy.pad(self.gcm, ((0, inc), (0, inc)), "constant")
        self.k += inc

    @staticmethod
    def _calc_mcc(cmat: numpy.ndarray) -> float:
        n = cmat.sum()
        x = cmat.sum(axis=1)
        y = cmat.sum(axis=0)
        cov_xx = numpy.sum(x * (n - x))
        cov_yy = numpy.sum(y * (n - y))
        if cov_xx == 0 or cov_yy == 0:
            return float("nan")
        cov_xy = numpy.sum(cmat.diagonal() * n - x * y)
        return cov_xy / (cov_xx * cov_yy) ** 0.5

    def update(self, labels: Any, preds: Any) -> None:
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label_np = _as_numpy(label).astype("int32")
            pred_np = _as_numpy(pred)
            if pred_np.shape != label_np.shape:
                pred_np = pred_np.argmax(axis=1)
            else:
                pred_np = pred_np.astype("int32")
            n = int(max(pred_np.max(), label_np.max()))
            if n >= self.k:
                self._grow(n + 1 - self.k)
            bcm = numpy.zeros((self.k, self.k))
            numpy.add.at(bcm, (pred_np.ravel(), label_np.ravel()), 1)
            self.lcm += bcm
            self.gcm += bcm
        self.num_inst += 1
        self.global_num_inst += 1

    @property
    def sum_metric(self) -> float:  # type: ignore[override]
        return self._calc_mcc(self.lcm) * self.num_inst

    @sum_metric.setter
    def sum_metric(self, _: Any) -> None:
        pass  # derived from the confusion matrix; the base reset's assignment is ignored

    @property
    def global_sum_metric(self) -> float:  # type: ignore[override]
        return self._calc_mcc(self.gcm) * self.global_num_inst

    @global_sum_metric.setter
    def global_sum_metric(self, _: Any) -> None:
        pass

    def reset(self) -> None:
        self.global_num_inst = 0.0
        self.gcm = numpy.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self) -> None:
        self.num_inst = 0.0
        self.lcm = numpy.zeros((self.k, self.k))
