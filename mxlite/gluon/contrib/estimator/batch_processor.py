"""The per-batch work of an Estimator: split the batch over the contexts, forward, loss and
(for training) backward."""

from __future__ import annotations

from typing import Any

from .... import autograd
from ...utils import split_and_load

__all__ = ["BatchProcessor"]


class BatchProcessor:
    """The default batch processor of an Estimator; subclass it to change how a batch is
    fit or evaluated (``fit_batch`` and ``evaluate_batch`` return data, label, pred, loss)."""

    def _get_data_and_label(self, batch: Any, ctx: Any, batch_axis: int = 0) -> tuple:
        data = split_and_load(batch[0], ctx_list=ctx, batch_axis=batch_axis)
        label = split_and_load(batch[1], ctx_list=ctx, batch_axis=batch_axis)
        return data, label

    def evaluate_batch(self, estimator: Any, val_batch: Any, batch_axis: int = 0) -> tuple:
        """Evaluate the estimator model on a batch of validation data.

        Parameters
        ----------
        estimator : Estimator
            Reference to the estimator
        val_batch : tuple
            Data and label of a batch from the validation data loader.
        batch_axis : int, default 0
            Batch axis to split the validation data into devices.
        """
        data, label = self._get_data_and_label(val_batch, estimator.context, batch_axis)
        pred = [estimator.val_net(x) for x in data]
        loss = [estimator.val_loss(p, y) for p, y in zip(pred, label)]
        return data, label, pred, loss

    def fit_batch(self, estimator: Any, train_batch: Any, batch_axis: int = 0) -> tuple:
        """Trains the estimator model on a batch of training data (forward and backward; the
        GradientUpdateHandler steps the trainer).

        Parameters
        ----------
        estimator : Estimator
            Reference to the estimator
        train_batch : tuple
            Data and label of a batch from the training data loader.
        batch_axis : int, default 0
            Batch axis to split the training data into devices.
        """
        data, label = self._get_data_and_label(train_batch, estimator.context, batch_axis)
        with autograd.record():
            pred = [estimator.net(x) for x in data]
            loss = [estimator.loss(p, y) for p, y in zip(pred, label)]
        for value in loss:
            value.backward()
        return data, label, pred, loss
