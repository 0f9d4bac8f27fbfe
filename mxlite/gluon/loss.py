"""Losses (``mx.gluon.loss``), as MXNet 1.9.1's.

Every loss is a :class:`HybridBlock` returning one value per sample (the mean over every axis
but ``batch_axis``, unless the loss says otherwise), scaled by the global ``weight`` and by a
broadcastable ``sample_weight``.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .. import ndarray
from ..util import is_np_array
from .hybrid_block import HybridBlock
from .parameter import GluonCheckError

__all__ = [
    "Loss",
    "L2Loss",
    "L1Loss",
    "SigmoidBinaryCrossEntropyLoss",
    "SigmoidBCELoss",
    "SoftmaxCrossEntropyLoss",
    "SoftmaxCELoss",
    "KLDivLoss",
    "CTCLoss",
    "HuberLoss",
    "HingeLoss",
    "SquaredHingeLoss",
    "LogisticLoss",
    "TripletLoss",
    "PoissonNLLLoss",
    "CosineEmbeddingLoss",
    "SDMLLoss",
]


# The parameters every loss but CTCLoss documents; appended to (or set into) their docstrings.
_WEIGHT_DOC = """weight : float or None
        Global scalar weight for loss.
    batch_axis : int, default 0
        The axis that represents mini-batch.
    """


def _apply_weighting(F: Any, loss: Any, weight: Any = None, sample_weight: Any = None) -> Any:
    """Scale ``loss`` by ``sample_weight`` (broadcast) and the number ``weight``."""
    if sample_weight is not None:
        loss = loss * sample_weight if is_np_array() else F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        if not isinstance(weight, numbers.Number):
            raise GluonCheckError("weight must be a number")
        loss = loss * weight
    return loss


def _reshape_like(F: Any, x: Any, y: Any) -> Any:
    """``x`` reshaped to the shape of ``y``."""
    if F is ndarray:
        return x.reshape(y.shape)
    return F.npx.reshape_like(x, y) if is_np_array() else F.reshape_like(x, y)


class Loss(HybridBlock):
    """Base class for loss.

    Parameters
    ----------
    """

    __doc__ = (__doc__ or "") + _WEIGHT_DOC

    def __init__(self, weight: float | None, batch_axis: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}(batch_axis={self._batch_axis}, w={self._weight})"

    def hybrid_forward(self, F: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        """Overrides to construct symbolic graph for this `Block`."""
        raise NotImplementedError

    def _mean(self, F: Any, loss: Any) -> Any:
        if is_np_array():  # MXNet averages over every axis but the first in NumPy mode
            if F is ndarray:
                return F.np.mean(loss, axis=tuple(range(1, loss.ndim)))
            return F.npx.batch_flatten(loss).mean(axis=1)
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class _PointwiseLoss(Loss):
    """A loss computed from ``pred`` and ``label`` (reshaped to ``pred``) element by element,
    then weighted and averaged per sample."""

    def _pointwise(self, F: Any, pred: Any, label: Any) -> Any:
        raise NotImplementedError

    def _global_weight(self) -> Any:
        return self._weight

    def hybrid_forward(self, F: Any, pred: Any, label: Any, sample_weight: Any = None) -> Any:
        label = _reshape_like(F, label, pred)
        loss = self._pointwise(F, pred, label)
        loss = _apply_weighting(F, loss, self._global_weight(), sample_weight)
        return self._mean(F, loss)


class _MarginLoss(Loss):
    """A loss whose only parameter besides ``weight`` and ``batch_axis`` is ``margin``."""

    def __init__(
        self, margin: float = 1, weight: float | None = None, batch_axis: int = 0, **kwargs: Any
    ) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin


class L2Loss(_PointwiseLoss):
    r"""Calculates the mean squared error between `label` and `pred`:
    :math:`L = \frac{1}{2} \sum_i \vert {label}_i - {pred}_i \vert^2.`

    Parameters
    ----------
    """

    __doc__ = (__doc__ or "") + _WEIGHT_DOC

    def __init__(self, weight: float = 1.0, batch_axis: int = 0, **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)

    def _pointwise(self, F: Any, pred: Any, label: Any) -> Any:
        return F.np.square(label - pred) if is_np_array() else F.square(label - pred)

    def _global_weight(self) -> Any:
        return self._weight / 2


class L1Loss(_PointwiseLoss):
    r"""Calculates the mean absolute error between `label` and `pred`:
    :math:`L = \sum_i \vert {label}_i - {pred}_i \vert.`

    Parameters
    ----------
    """

    __doc__ = (__doc__ or "") + _WEIGHT_DOC

    def __init__(self, weight: float | None = None, batch_axis: int = 0, **kwargs: Any) -> None:
        super().__init__(weight, batch_axis, **kwargs)

    def _pointwise(self, F: Any, pred: Any, label: Any) -> Any:
        return F.np.abs(label - pred) if is_np_array() else F.abs(label - pred)


class SigmoidBinaryCrossEntropyLoss(Loss):
    r"""The cross-entropy loss for binary classification (alias: ``SigmoidBCELoss``).

    BCE loss is useful when training logistic regression. If `from_sigmoid` is False (default),
    this loss computes the sigmoid of `pred` itself, in a numerically stable way.

    Parameters
    ----------
    from_sigmoid : bool, default is `False`
        Whether the input is from the output of sigmoid. Set this to false will make
        the loss calculate sigmoid and BCE together, which is more numerically
        stable through log-sum-exp trick.
    """

    __doc__ = (__doc__ or "") + _WEIGHT_DOC

    def __init__(
        self,
        from_sigmoid: bool = False,
        weight: float | None = None,
        batch_axis: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(
        self, F: Any, pred: Any, label: Any, sample_weight: Any = None, pos_weight: Any = None
    ) -> Any:
        label = _reshape_like(F, label, pred)
        if is_np_array():
            relu, act, mul, log = F.npx.relu, F.npx.activation, F.np.multiply, F.np.log
            softplus = act(-F.np.abs(pred), act_type="softrelu")
        else:
            relu, act, mul, log = F.relu, F.Activation, F.broadcast_mul, F.log
            softplus = act(-F.abs(pred), act_type="softrelu")
        if not self._from_sigmoid:
            if pos_weight is None:
                loss = relu(pred) - pred * label + softplus
            else:
                log_weight = 1 + mul(pos_weight - 1, label)
                loss = pred - pred * label + log_weight * (softplus + relu(-pred))
        else:
            eps = 1e-12
            if pos_weight is None:
                loss = -(log(pred + eps) * label + log(1.0 - pred + eps) * (1.0 - label))
            else:
                loss = -(
                    mul(log(pred + eps) * label, pos_weight) + log(1.0 - pred + eps) * (1.0 - label)
                )
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._mean(F, loss)


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class SoftmaxCrossEntropyLoss(Loss):
    r"""Computes the softmax cross entropy loss (alias: ``SoftmaxCELoss``).

    Parameters
    ----------
    axis : int, default -1
        The axis to sum over when computing softmax and entropy.
    sparse_label : bool, default True
        Whether label is an integer array instead of probability distribution.
    from_logits : bool, default False
        Whether input is a log probability (usually from log_softmax) instead
        of unnormalized numbers.
    """

    __doc__ = (__doc__ or "") + _WEIGHT_DOC

    def __init__(
        self,
        axis: int = -1,
        sparse_label: bool = True,
        from_logits: bool = False,
        weight: float | None = None,
        batch_axis: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F: Any, pred: Any, label: Any, sample_weight: Any = None) -> Any:
        np_mode = is_np_array()
        log_softmax = F.npx.log_softmax if np_mode else F.log_softmax
        if not self._from_logits:
            pred = log_softmax(pred, self._axis)
        if self._sparse_label:
            pick = F.npx.pick if np_mode else F.pick
            loss = -pick(pred, label, axis=self._axis, keepdims=True)
        else:
            label = _reshape_like(F, label, pred)
            loss = -(pred * label).sum(axis=self._axis, keepdims=True)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._mean(F, loss)


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class KLDivLoss(Loss):
    r"""The Kullback-Leibler divergence loss,
    :math:`L = \sum_i {label}_i * \big[\log({label}_i) - {pred}_i\big]`.

    Parameters
    ----------
    from_logits : bool, default is `True`
        Whether the input is log probability (usually from log_softmax) instead
        of unnormalized numbers.
    axis : int, default -1
        The dimension along with to compute softmax. Only used when `from_logits`
        is False.
    """

    __doc__ = (__doc__ or "") + _WEIGHT_DOC

    def __init__(
        self,
        from_logits: bool = True,
        axis: int = -1,
        weight: float | None = None,
        batch_axis: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def hybrid_forward(self, F: Any, pred: Any, label: Any, sample_weight: Any = None) -> Any:
        if not self._from_logits:
            pred = F.log_softmax(pred, self._axis)
        loss = label * (F.log(label + 1e-12) - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.sum(loss, axis=self._batch_axis, exclude=True)


class CTCLoss(Loss):
    r"""Connectionist Temporal Classification Loss (the blank label is the last class).

    Parameters
    ----------
    layout : str, default 'NTC'
        Layout of prediction tensor. 'N', 'T', 'C' stands for batch size,
        sequence length, and alphabet_size respectively.
    label_layout : str, default 'NT'
        Layout of the labels. 'N', 'T' stands for batch size, and sequence
        length respectively.
    weight : float or None
        Global scalar weight for loss.
    """

    def __init__(
        self,
        layout: str = "NTC",
        label_layout: str = "NT",
        weight: float | None = None,
        **kwargs: Any,
    ) -> None:
        if layout not in ("NTC", "TNC"):
            raise GluonCheckError(
                f"Only 'NTC' and 'TNC' layouts for pred are supported. Got: {layout}"
            )
        if label_layout not in ("NT", "TN"):
            raise GluonCheckError(
                f"Only 'NT' and 'TN' layouts for label are supported. Got: {label_layout}"
            )
        self._layout = layout
        self._label_layout = label_layout
        super().__init__(weight, label_layout.find("N"), **kwargs)

    def hybrid_forward(
        self,
        F: Any,
        pred: Any,
        label: Any,
        pred_lengths: Any = None,
        label_lengths: Any = None,
        sample_weight: Any = None,
    ) -> Any:
        if self._layout == "NTC":
            pred = F.swapaxes(pred, 0, 1)
        if self._batch_axis == 1:
            label = F.swapaxes(label, 0, 1)
        inputs = [pred, label]
        if pred_lengths is not None:
            inputs.append(pred_lengths)
        if label_lengths is not None:
            inputs.append(label_lengths)
        loss = F.CTCLoss(
            *inputs,
            use_data_lengths=pred_lengths is not None,
            use_label_lengths=label_lengths is not None,
            blank_label="last",
        )
        return _apply_weighting(F, loss, self._weight, sample_weight)


class HuberLoss(_PointwiseLoss):
    r"""Calculates smoothed L1 loss that is equal to L1 loss if absolute error
    exceeds rho but is equal to L2 loss otherwise. Also called SmoothedL1 loss.

    Parameters
    ----------
    rho : float, default 1
        Threshold for trimmed mean estimator.
    """

    __doc__ = (__doc__ or "") + _WEIGHT_DOC

    def __init__(
        self, rho: float = 1, weight: float | None = None, batch_axis: int = 0, **kwargs: Any
    ) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def _pointwise(self, F: Any, pred: Any, label: Any) -> Any:
        loss = F.abs(label - pred)
        return F.where(loss > self._rho, loss - 0.5 * self._rho, (0.5 / self._rho) * F.square(loss))


_HINGE_DOC = (
    """margin : float
        The margin in hinge loss. Defaults to 1.0
    """
    + _WEIGHT_DOC
)


class HingeLoss(_MarginLoss, _PointwiseLoss):
    r"""Calculates the hinge loss function often used in SVMs:
    :math:`L = \sum_i max(0, {margin} - {pred}_i \cdot {label}_i)`.

    Parameters
    ----------
    """

    __doc__ = (__doc__ or "") + _HINGE_DOC

    def _pointwise(self, F: Any, pred: Any, label: Any) -> Any:
        return F.relu(self._margin - pred * label)


class SquaredHingeLoss(_MarginLoss, _PointwiseLoss):
    r"""Calculates the soft-margin loss function used in SVMs:
    :math:`L = \sum_i max(0, {margin} - {pred}_i \cdot {label}_i)^2`.

    Parameters
    ----------
    """

    __doc__ = (__doc__ or "") + _HINGE_DOC

    def _pointwise(self, F: Any, pred: Any, label: Any) -> Any:
        return F.square(F.relu(self._margin - pred * label))


class LogisticLoss(_PointwiseLoss):
    r"""Calculates the logistic loss (for binary losses only):
    :math:`L = \sum_i \log(1 + \exp(- {pred}_i \cdot {label}_i))`.

    Parameters
    ----------
    """

    __doc__ = (__doc__ or "") + (
        _WEIGHT_DOC
        + """label_format : str, default 'signed'
        Can be either 'signed' or 'binary'. If the label_format is 'signed', all label values
        should be either -1 or 1. If the label_format is 'binary', all label values should be
        either 0 or 1.
    """
    )

    def __init__(
        self,
        weight: float | None = None,
        batch_axis: int = 0,
        label_format: str = "signed",
        **kwargs: Any,
    ) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._label_format = label_format
        if label_format not in ("signed", "binary"):
            raise ValueError(f"label_format can only be signed or binary, recieved {label_format}.")

    def _pointwise(self, F: Any, pred: Any, label: Any) -> Any:
        if self._label_format == "signed":
            label = (label + 1.0) / 2.0
        return F.relu(pred) - pred * label + F.Activation(-F.abs(pred), act_type="softrelu")


class TripletLoss(_MarginLoss):
    r"""Calculates triplet loss given three input tensors and a positive margin:
    :math:`L = \max(\Vert {pos}_i - {pred} \Vert^2 - \Vert {neg}_i - {pred} \Vert^2 + {margin},
    0)`.

    Parameters
    ----------
    margin : float
        Margin of separation between correct and incorrect pair.
    """

    __doc__ = (__doc__ or "") + _WEIGHT_DOC

    def hybrid_forward(self, F: Any, pred: Any, positive: Any, negative: Any) -> Any:
        positive = _reshape_like(F, positive, pred)
        negative = _reshape_like(F, negative, pred)
        loss = F.sum(
            F.square(positive - pred) - F.square(negative - pred),
            axis=self._batch_axis,
            exclude=True,
        )
        loss = F.relu(loss + self._margin)
        return _apply_weighting(F, loss, self._weight, None)


class PoissonNLLLoss(Loss):
    r"""For a target (Random Variable) in a Poisson distribution, the function calculates the
    Negative Log likelihood loss: :math:`L = \text{pred} - \text{target} * \log(\text{pred})
    + \log(\text{target!})`.

    Parameters
    ----------
    from_logits : boolean, default True
        indicating whether log(predicted) value has already been computed. If True, the loss
        is computed as :math:`\exp(\text{pred}) - \text{target} * \text{pred}`, and if False,
        then loss is computed as :math:`\text{pred} - \text{target} * \log(\text{pred}+
        \text{epsilon})`.
    """

    __doc__ = (__doc__ or "") + (
        _WEIGHT_DOC
        + """compute_full: boolean, default False
        Indicates whether to add an approximation(Stirling factor) for the Factorial term in
        the formula for the loss.
    """
    )

    def __init__(
        self,
        weight: float | None = None,
        from_logits: bool = True,
        batch_axis: int = 0,
        compute_full: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._compute_full = compute_full

    def hybrid_forward(
        self, F: Any, pred: Any, target: Any, sample_weight: Any = None, epsilon: float = 1e-08
    ) -> Any:
        target = _reshape_like(F, target, pred)
        if self._from_logits:
            loss = F.exp(pred) - target * pred
        else:
            loss = pred - target * F.log(pred + epsilon)
        if self._compute_full:
            stirling = target * F.log(target) - target + 0.5 * F.log(2 * target * np.pi)
            loss = loss + stirling * (target > 1)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.mean(loss)


class CosineEmbeddingLoss(Loss):
    r"""For a target label 1 or -1, vectors input1 and input2, the function computes the
    cosine distance between the vectors: :math:`1 - \cos(x_1, x_2)` for label 1 and
    :math:`\max(0, \cos(x_1, x_2) - {margin})` for label -1.

    Parameters
    ----------
    """

    __doc__ = (__doc__ or "") + (
        _WEIGHT_DOC
        + """margin : float
        Margin of separation between correct and incorrect pair.
    """
    )

    def __init__(
        self, weight: float | None = None, batch_axis: int = 0, margin: float = 0, **kwargs: Any
    ) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(
        self, F: Any, input1: Any, input2: Any, label: Any, sample_weight: Any = None
    ) -> Any:
        input1 = _reshape_like(F, input1, input2)
        label = label.reshape((-1, 1))
        cos_sim = self._cosine_similarity(F, input1, input2)
        y_1 = label == 1
        y_minus_1 = label == -1
        cos_sim_a = (1 - cos_sim) * y_1
        zero = F.array([0]) if F is ndarray else F.zeros((1, 1))
        cos_sim_b = F.broadcast_maximum(zero, y_minus_1 * (cos_sim - self._margin))
        loss = cos_sim_a + cos_sim_b
        return _apply_weighting(F, loss, self._weight, sample_weight)

    def _cosine_similarity(self, F: Any, x: Any, y: Any, axis: int = -1) -> Any:
        x_norm = F.norm(x, axis=axis).reshape((-1, 1))
        y_norm = F.norm(y, axis=axis).reshape((-1, 1))
        x_dot_y = F.sum(x * y, axis=axis).reshape((-1, 1))
        eps = F.array([1e-12]) if F is ndarray else F.full((1, 1), 1e-12)
        return x_dot_y / F.broadcast_maximum(x_norm * y_norm, eps)


class SDMLLoss(Loss):
    r"""Calculates Batchwise Smoothed Deep Metric Learning (SDML) Loss given two input tensors
    and a smoothing weight. Each row of ``x1`` is paired with the same row of ``x2``; the
    other rows of the batch serve as negatives.

    Parameters
    ----------
    smoothing_parameter : float
        Probability mass to be distributed over the minibatch. Must be < 1.0.
    """

    __doc__ = (__doc__ or "") + _WEIGHT_DOC

    def __init__(
        self,
        smoothing_parameter: float = 0.3,
        weight: float = 1.0,
        batch_axis: int = 0,
        **kwargs: Any,
    ) -> None:
        super().__init__(weight, batch_axis, **kwargs)
        self.kl_loss = KLDivLoss(from_logits=True)
        self.smoothing_parameter = smoothing_parameter

    def _compute_distances(self, x1: Any, x2: Any) -> Any:
        if x1.shape != x2.shape:
            raise GluonCheckError(
                f"SDMLLoss: x1 and x2 must have the same shape, got {x1.shape} and {x2.shape}."
            )
        batch_size, dim = x1.shape
        x1_ = x1.expand_dims(1).broadcast_to([batch_size, batch_size, dim])
        x2_ = x2.expand_dims(0).broadcast_to([batch_size, batch_size, dim])
        return ((x1_ - x2_) ** 2).sum(axis=2)

    def _compute_labels(self, F: Any, batch_size: int) -> Any:
        gold = F.eye(batch_size)
        smooth = self.smoothing_parameter
        return gold * (1 - smooth) + (1 - gold) * smooth / (batch_size - 1)

    def _loss(self, F: Any, x1: Any, x2: Any) -> Any:
        labels = self._compute_labels(F, x1.shape[0])
        distances = self._compute_distances(x1, x2)
        log_probabilities = F.log_softmax(-distances, axis=1)
        return self.kl_loss(log_probabilities, labels.as_in_context(distances.context))

    def hybrid_forward(self, F: Any, x1: Any, x2: Any) -> Any:
        """Needs NDArrays: the batch size decides the labels (as in MXNet)."""
        return self._loss(F, x1, x2)
