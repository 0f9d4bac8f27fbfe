"""Checks shared by the Estimator and its event handlers."""

from __future__ import annotations

from typing import Any

from .... import metric as _metric
from ...loss import SoftmaxCrossEntropyLoss


def _check_metrics(metrics: Any) -> list:
    if isinstance(metrics, _metric.CompositeEvalMetric):
        return [m for sub in metrics.metrics for m in _check_metrics(sub)]
    if isinstance(metrics, _metric.EvalMetric):
        return [metrics]
    metrics = list(metrics or [])
    if not all(isinstance(m, _metric.EvalMetric) for m in metrics):
        raise ValueError(
            "metrics must be a Metric or a list of Metric, refer to mxnet.metric.EvalMetric: "
            f"{metrics}"
        )
    return metrics


def _check_handler_metric_ref(handler: Any, known_metrics: set) -> None:
    # every attribute whose name says 'metric' must hold metrics the estimator updates
    for attribute in dir(handler):
        if "metric" not in attribute:
            continue
        reference = getattr(handler, attribute)
        if not reference:
            continue
        for m in reference if isinstance(reference, list) else [reference]:
            if m not in known_metrics:
                raise ValueError(
                    f"Event handler {type(handler).__name__} refers to a metric instance {m} "
                    "outside of the known training and validation metrics. Please use the "
                    "metrics from estimator.train_metrics and estimator.val_metrics instead."
                )


def _suggest_metric_for_loss(loss: Any) -> Any:
    return _metric.Accuracy() if isinstance(loss, SoftmaxCrossEntropyLoss) else None
