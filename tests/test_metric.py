"""Tests of mx.metric against MXNet 1.9.1 (tests/golden/init_metric.npz, made by
tools/golden/cases/init_metric.py from the same batches) and of its own contracts."""

from __future__ import annotations

import math
from collections import OrderedDict
from typing import Any

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import ParamError, ShapeError

from . import init_metric_cases as C
from .golden_file import load


@pytest.fixture(scope="module")
def golden() -> dict[str, Any]:
    return load("golden/init_metric.npz").cases


@pytest.fixture(scope="module")
def ours(golden: dict) -> dict[str, Any]:
    return C.metric_cases(mx, golden["metric_inputs"])


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6)


@pytest.mark.parametrize("key", sorted(C.METRICS))
def test_metric_matches_mxnet(golden: dict, ours: dict, key: str) -> None:
    theirs = golden["metric"][key]
    mine = ours[key]
    for field in ("get2", "get_local", "get_global", "name_value"):
        assert _close(mine[field], theirs[field]), (field, mine[field], theirs[field])
    if "config" in theirs:
        assert mine["config"] == theirs["config"]


def _acc_batch() -> tuple[list, list]:
    label = mx.nd.array([0, 1, 1])
    pred = mx.nd.array([[0.3, 0.7], [0, 1.0], [0.4, 0.6]])
    return [label], [pred]


def test_get_is_nan_before_update_and_counts_accumulate() -> None:
    acc = mx.metric.Accuracy()
    assert math.isnan(acc.get()[1])
    acc.update(*_acc_batch())
    acc.update(*_acc_batch())
    assert (acc.num_inst, acc.sum_metric) == (6, 4)
    assert acc.get() == ("accuracy", pytest.approx(2 / 3))


def test_reset_local_keeps_global_and_reset_clears_both() -> None:
    acc = mx.metric.Accuracy()
    acc.update(*_acc_batch())
    acc.reset_local()
    assert acc.num_inst == 0 and acc.global_num_inst == 3
    assert acc.get_global_name_value() == [("accuracy", pytest.approx(2 / 3))]
    acc.reset()
    assert acc.global_num_inst == 0 and math.isnan(acc.get_global()[1])


def test_accuracy_axis_and_single_ndarray_inputs() -> None:
    acc = mx.metric.Accuracy(axis=0)
    acc.update(mx.nd.array([1, 0]), mx.nd.array([[0.1, 0.9], [0.8, 0.2]]))
    assert acc.get()[1] == 1.0
    with pytest.raises(ShapeError, match="Shape of labels 1 does not match .* 2"):
        acc.update([mx.nd.array([1, 0])], [mx.nd.zeros((2, 2))] * 2)


def test_update_dict_selects_names() -> None:
    acc = mx.metric.Accuracy(output_names=["out"], label_names=["lab"])
    labels = OrderedDict(lab=mx.nd.array([1, 1]), other=mx.nd.array([0, 0]))
    preds = OrderedDict(junk=mx.nd.array([[1, 0], [1, 0]]), out=mx.nd.array([[0, 1], [0, 1]]))
    acc.update_dict(labels, preds)
    assert acc.get()[1] == 1.0
    comp = mx.metric.CompositeEvalMetric(["acc"], output_names=["out"], label_names=["lab"])
    comp.update_dict(labels, preds)
    assert comp.get() == (["accuracy"], [1.0])


def test_create_by_name_alias_list_callable_and_config() -> None:
    assert isinstance(mx.metric.create("acc"), mx.metric.Accuracy)
    assert isinstance(mx.metric.create("top_k_acc", top_k=3), mx.metric.TopKAccuracy)
    assert isinstance(mx.metric.create("ce"), mx.metric.CrossEntropy)
    assert isinstance(mx.metric.create("nll_loss"), mx.metric.NegativeLogLikelihood)
    assert isinstance(mx.metric.create("pearsonr"), mx.metric.PearsonCorrelation)
    assert isinstance(mx.metric.create("composite"), mx.metric.CompositeEvalMetric)
    comp = mx.metric.create(["acc", mx.metric.F1()])
    assert [m.name for m in comp.metrics] == ["accuracy", "f1"]
    custom = mx.metric.create(lambda label, pred: 1.0)
    assert isinstance(custom, mx.metric.CustomMetric) and custom.name == "custom(<lambda>)"
    again = mx.metric.create(**mx.metric.TopKAccuracy(top_k=4).get_config())
    assert again.top_k == 4 and again.name == "top_k_accuracy_4_4"  # MXNet appends twice too
    with pytest.raises(ParamError, match="nosuchmetric is not registered"):
        mx.metric.create("nosuchmetric")


def test_register_custom_metric() -> None:
    @mx.metric.register
    @mx.metric.alias("always_one_t")
    class AlwaysOneT(mx.metric.EvalMetric):
        def __init__(self) -> None:
            super().__init__("one")

        def update(self, labels: Any, preds: Any) -> None:
            self.sum_metric += 1
            self.num_inst += 1

    for name in ("alwaysonet", "always_one_t"):
        metric = mx.metric.create(name)
        metric.update([], [])
        assert metric.get() == ("one", 1.0)


def test_custom_metric_tuple_return_and_extra_outputs() -> None:
    def feval(label: np.ndarray, pred: np.ndarray) -> tuple[float, int]:
        return float((label == pred.argmax(axis=1)).sum()), len(label)

    metric = mx.metric.CustomMetric(feval, allow_extra_outputs=True)
    label, pred = _acc_batch()
    metric.update(label, pred + [mx.nd.zeros((3, 2))])
    assert metric.get() == ("feval", pytest.approx(2 / 3))
    with pytest.raises(NotImplementedError):
        metric.get_config()


def test_np_metric_receives_numpy_arrays() -> None:
    seen = []

    def rmse(label: Any, pred: Any) -> float:
        seen.append((type(label), type(pred)))
        return float(np.sqrt(((label - pred) ** 2).mean()))

    metric = mx.metric.np(rmse, name="my-rmse")
    metric.update([mx.nd.array([1.0, 2.0])], [mx.nd.array([1.0, 4.0])])
    assert seen == [(np.ndarray, np.ndarray)]
    assert metric.get() == ("my-rmse", pytest.approx(math.sqrt(2.0)))


def test_perplexity_ignores_label_and_checks_shapes() -> None:
    metric = mx.metric.Perplexity(ignore_label=-1)
    pred = mx.nd.array([[0.5, 0.5], [0.25, 0.75], [0.9, 0.1]])
    metric.update([mx.nd.array([0, 1, -1])], [pred])
    assert metric.num_inst == 2
    assert metric.get()[1] == pytest.approx(math.exp(-(math.log(0.5) + math.log(0.75)) / 2))
    with pytest.raises(ShapeError, match="Perplexity"):
        metric.update([mx.nd.array([0, 1])], [pred])


def test_loss_metric_averages_elements() -> None:
    metric = mx.metric.Loss()
    metric.update(None, mx.nd.array([[1.0, 2.0], [3.0, 6.0]]))
    assert metric.get() == ("loss", 3.0)


def test_f1_and_mcc_reject_more_than_two_classes() -> None:
    for cls in (mx.metric.F1, mx.metric.MCC):
        with pytest.raises(mx.MXNetError, match=f"{cls.__name__} currently only supports binary"):
            cls().update([mx.nd.array([0, 1, 2])], [mx.nd.zeros((3, 2))])
    with pytest.raises(ParamError, match="F1.*average"):
        mx.metric.F1(average="weighted")


def test_topk_requires_k_above_one_and_names_itself() -> None:
    assert mx.metric.TopKAccuracy(top_k=5).name == "top_k_accuracy_5"
    with pytest.raises(ParamError, match="TopKAccuracy.*top_k"):
        mx.metric.TopKAccuracy(top_k=1)


def test_str_and_composite_get_metric() -> None:
    comp = mx.metric.create(["acc", "mse"])
    assert isinstance(comp.get_metric(1), mx.metric.MSE)
    assert isinstance(comp.get_metric(5), ValueError)  # returned, not raised, as in MXNet
    assert str(mx.metric.MAE()).startswith("EvalMetric: {'mae': nan")
