"""mx.notebook: the pandas log of a Module's training, the live charts on bokeh's API (a
stand-in module records the calls), and the clear error without the optional libraries."""

from __future__ import annotations

import sys
import types
from typing import Any

import numpy as np
import pytest

import mxlite as mx
from mxlite.notebook import callback as nbcb


def _fit(**callbacks: Any) -> None:
    rng = np.random.RandomState(0)
    x, y = rng.rand(16, 4).astype("float32"), rng.randint(0, 2, 16).astype("float32")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2),
                               name="softmax")  # fmt: skip
    mod = mx.mod.Module(net)
    it = mx.io.NDArrayIter(x, y, batch_size=4)
    mod.fit(it, eval_data=mx.io.NDArrayIter(x, y, batch_size=4), num_epoch=2, **callbacks)


def test_pandas_logger_records_train_eval_and_epochs() -> None:
    pytest.importorskip("pandas")
    log = nbcb.PandasLogger(batch_size=4, frequent=2)
    _fit(**log.callback_args())
    train, ev, epoch = log.train_df, log.eval_df, log.epoch_df
    assert list(train["minibatch_count"]) == [0, 2, 0, 2] and list(train["epoch"]) == [0, 0, 1, 1]
    assert {"accuracy", "batches_per_sec", "records_per_sec", "elapsed"} <= set(train.columns)
    assert len(ev) == 2 and len(epoch) == 2 and "epoch_time" in epoch.columns
    assert set(log.all_dataframes) == {"train", "eval", "epoch"}


class _Glyph:
    def __init__(self) -> None:
        self.visible = True


class _Figure:
    def __init__(self, **kw: Any) -> None:
        self.kw, self.glyphs = kw, []
        self.legend = types.SimpleNamespace(location=None)
        self.yaxis = types.SimpleNamespace(axis_label=None)

    def line(self, xs: list, ys: list, **kw: Any) -> _Glyph:
        self.glyphs.append(("line", xs, ys, kw))
        return _Glyph()

    def scatter(self, xs: list, ys: list, **kw: Any) -> _Glyph:
        self.glyphs.append(("scatter", xs, ys, kw))
        return _Glyph()


@pytest.fixture
def fake_bokeh(monkeypatch: pytest.MonkeyPatch) -> list:
    calls: list = []
    bokeh = types.ModuleType("bokeh")
    io = types.ModuleType("bokeh.io")
    io.output_notebook = lambda: calls.append("output_notebook")
    io.push_notebook = lambda handle: calls.append(("push", handle))
    plotting = types.ModuleType("bokeh.plotting")
    plotting.figure = _Figure
    plotting.show = lambda fig, notebook_handle: calls.append("show") or "HANDLE"
    bokeh.io, bokeh.plotting = io, plotting
    for name, mod in (("bokeh", bokeh), ("bokeh.io", io), ("bokeh.plotting", plotting)):
        monkeypatch.setitem(sys.modules, name, mod)
    return calls


def test_learning_curve_draws_the_metric(fake_bokeh: list) -> None:
    pytest.importorskip("pandas")
    curve = nbcb.LiveLearningCurve("accuracy", display_freq=0, frequent=1)
    assert fake_bokeh[:2] == ["output_notebook", "show"] and curve.handle == "HANDLE"
    log = nbcb.PandasLogger(batch_size=4)
    _fit(**nbcb.args_wrapper(curve, log))
    assert len(curve.x_axis_val1) == 8 and len(curve.y_axis_val2) == 2
    assert ("push", "HANDLE") in fake_bokeh and mx.notebook.bokeh is sys.modules["bokeh"]
    assert curve.fig.yaxis.axis_label == "accuracy"


def test_missing_libraries_name_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("bokeh", "bokeh.io", "pandas"):
        monkeypatch.setitem(sys.modules, name, None)  # as if not installed
    assert mx.notebook.bokeh is mx.notebook.Bokeh_Failed_To_Import
    assert nbcb.pd is nbcb.Pandas_Failed_To_Import
    with pytest.raises(ImportError, match=r"pandas.*mxlite\[notebook\]"):
        nbcb.PandasLogger(batch_size=4)
    with pytest.raises(ImportError, match=r"bokeh.*mxlite\[notebook\]"):
        mx.notebook.bokeh.io.output_notebook()
