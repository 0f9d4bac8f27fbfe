"""Visualization callbacks of ``mx.notebook`` (MXNet 1.9.1's ``notebook.callback``).

:class:`PandasLogger` records the metrics of a training run into three pandas DataFrames
(``train`` every ``frequent`` batches, ``eval`` at each evaluation, ``epoch`` times);
:class:`LiveLearningCurve` and :class:`LiveTimeSeries` draw bokeh charts in a notebook that
update as training runs. Each object's ``callback_args()`` gives the keyword arguments of
``fit`` that install its callbacks; :func:`args_wrapper` joins those of several objects.

pandas and bokeh are optional (``pip install mxlite[notebook]``): ``pd`` here is pandas, or the
stand-in ``Pandas_Failed_To_Import``, whose use raises an ImportError naming the extra.
"""

from __future__ import annotations

import datetime
import importlib
import time
from collections import defaultdict
from typing import Any

__all__ = ["PandasLogger", "LiveBokehChart", "LiveTimeSeries", "LiveLearningCurve",
           "args_wrapper"]  # fmt: skip


class _Missing(type):
    """The type of a stand-in for an optional library that is not installed: any attribute
    read raises an ImportError that names the library and the extra that installs it."""

    library = ""

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise ImportError(
            f"mx.notebook needs {cls.library} for this ({cls.library}.{name}); install it with "
            "`pip install mxlite[notebook]` (pandas and bokeh)."
        )


class Pandas_Failed_To_Import(metaclass=_Missing):  # noqa: N801  (MXNet's name)
    """What ``pd`` is when pandas is not installed."""

    library = "pandas"


class _BokehMissing(metaclass=_Missing):
    library = "bokeh"


def _optional(module: str, stand_in: type) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        return stand_in


def __getattr__(name: str) -> Any:
    if name == "pd":  # imported on first use: pandas is slow to import
        return _optional("pandas", Pandas_Failed_To_Import)
    raise AttributeError(f"module 'mxlite.notebook.callback' has no attribute {name!r}")


def _pd() -> Any:
    return _optional("pandas", Pandas_Failed_To_Import)


def _bokeh(sub: str = "") -> Any:
    return _optional("bokeh" + (f".{sub}" if sub else ""), _BokehMissing)


def _add_new_columns(dataframe: Any, metrics: dict) -> None:
    """Add the keys of ``metrics`` that ``dataframe`` lacks as (empty) columns."""
    for col in set(metrics) - set(dataframe.columns):
        dataframe[col] = None


def _extend(base: list, new: list) -> None:
    """Copy the end of ``new`` (the part longer than ``base``) onto ``base``."""
    base.extend(new[len(base) :])


class PandasLogger:
    """Logs statistics about training run into Pandas dataframes.
    Records three separate dataframes: train, eval, epoch.

    Parameters
    ----------
    batch_size : int
        batch_size of data
    frequent : int, default 50
        How many training mini-batches between calculations. (Eval data is stored once per
        epoch over the entire eval data set.)
    """

    def __init__(self, batch_size: int, frequent: int = 50) -> None:
        pd = _pd()
        self.batch_size = batch_size
        self.frequent = frequent
        self._dataframes = {"train": pd.DataFrame(), "eval": pd.DataFrame(),
                            "epoch": pd.DataFrame()}  # fmt: skip
        self.last_time = time.time()
        self.start_time = datetime.datetime.now()
        self.last_epoch_time = datetime.datetime.now()

    @property
    def train_df(self) -> Any:
        """The metrics of training mini-batches, logged every ``frequent`` batches."""
        return self._dataframes["train"]

    @property
    def eval_df(self) -> Any:
        """The validation scores calculated at the end of each epoch."""
        return self._dataframes["eval"]

    @property
    def epoch_df(self) -> Any:
        """The timing of each epoch."""
        return self._dataframes["epoch"]

    @property
    def all_dataframes(self) -> dict[str, Any]:
        """Return a dict of dataframes"""
        return self._dataframes

    def elapsed(self) -> datetime.timedelta:
        """The time since training started."""
        return datetime.datetime.now() - self.start_time

    def append_metrics(self, metrics: dict, df_name: str) -> None:
        """Append a row of ``metrics`` (name -> value) to the dataframe ``df_name``."""
        dataframe = self._dataframes[df_name]
        _add_new_columns(dataframe, metrics)
        dataframe.loc[len(dataframe)] = metrics

    def train_cb(self, param: Any) -> None:
        """Callback function for training."""
        if param.nbatch % self.frequent == 0:
            self._process_batch(param, "train")

    def eval_cb(self, param: Any) -> None:
        """Callback function for evaluation"""
        self._process_batch(param, "eval")

    def _process_batch(self, param: Any, dataframe: str) -> None:
        """Log the metrics of ``param`` (resetting them) and the speed into ``dataframe``."""
        now = time.time()
        metrics: dict[str, Any] = {}
        if param.eval_metric is not None:
            metrics = dict(param.eval_metric.get_name_value())
            param.eval_metric.reset()
        try:
            speed = self.frequent / (now - self.last_time)
        except ZeroDivisionError:
            speed = float("inf")
        # as MXNet: these two names are the other way round
        metrics["batches_per_sec"] = speed * self.batch_size
        metrics["records_per_sec"] = speed
        metrics["elapsed"] = self.elapsed()
        metrics["minibatch_count"] = param.nbatch
        metrics["epoch"] = param.epoch
        self.append_metrics(metrics, dataframe)
        self.last_time = now

    def epoch_cb(self, *args: Any) -> None:
        """Callback function after each epoch: records the epoch's time."""
        now = datetime.datetime.now()
        self.append_metrics({"elapsed": self.elapsed(), "epoch_time": now - self.last_epoch_time},
                            "epoch")  # fmt: skip
        self.last_epoch_time = now

    def callback_args(self) -> dict[str, Any]:
        """The keyword arguments of ``fit`` that install the callbacks, e.g.
        ``model.fit(X=train, eval_data=test, **pdlogger.callback_args())``."""
        return {"batch_end_callback": self.train_cb, "eval_end_callback": self.eval_cb,
                "epoch_end_callback": self.epoch_cb}  # fmt: skip


class LiveBokehChart:
    """Callback object that renders a bokeh chart in a jupyter notebook that gets updated as
    the training run proceeds (an abstract base class: subclasses define the chart).

    Parameters
    ----------
    pandas_logger : PandasLogger or None
        Collects the data (one is made when None).
    metric_name : str
        The metric to draw.
    display_freq : int, default 10
        Seconds between updates of the chart.
    batch_size, frequent : int
        For the PandasLogger made when none is given.
    """

    def __init__(
        self,
        pandas_logger: PandasLogger | None,
        metric_name: str | None,
        display_freq: int = 10,
        batch_size: int | None = None,
        frequent: int = 50,
    ) -> None:
        self.pandas_logger = pandas_logger or PandasLogger(batch_size=batch_size,
                                                           frequent=frequent)  # fmt: skip
        self.display_freq = display_freq
        self.last_update = time.time()
        self.metric_name = metric_name
        _bokeh("io").output_notebook()
        self.handle = self.setup_chart()

    def setup_chart(self) -> Any:
        """Render a bokeh object and return a handle to it."""
        raise NotImplementedError("Incomplete base class: LiveBokehChart must be sub-classed")

    def update_chart_data(self) -> None:
        """Update the bokeh object with new data."""
        raise NotImplementedError("Incomplete base class: LiveBokehChart must be sub-classed")

    def interval_elapsed(self) -> bool:
        """Whether it is time to update the plot."""
        return time.time() - self.last_update > self.display_freq

    def _push_render(self) -> None:
        _bokeh("io").push_notebook(handle=self.handle)
        self.last_update = time.time()

    def _do_update(self) -> None:
        self.update_chart_data()
        self._push_render()

    def batch_cb(self, param: Any) -> None:
        """Callback function after a completed batch."""
        if self.interval_elapsed():
            self._do_update()

    def eval_cb(self, param: Any) -> None:
        """Callback function after an evaluation (always updates)."""
        self._do_update()

    def callback_args(self) -> dict[str, Any]:
        """The keyword arguments of ``fit`` that install the callbacks."""
        return {"batch_end_callback": self.batch_cb, "eval_end_callback": self.eval_cb}


class LiveTimeSeries(LiveBokehChart):
    """Plot a value against the elapsed time during live learning.

    Parameters
    ----------
    **fig_params
        Passed to ``bokeh.plotting.figure``.
    """

    def __init__(self, **fig_params: Any) -> None:
        self.fig = _bokeh("plotting").figure(x_axis_type="datetime",
                                             x_axis_label="Elapsed time", **fig_params)  # fmt: skip
        super().__init__(None, None)

    def setup_chart(self) -> Any:
        self.start_time = datetime.datetime.now()
        self.x_axis_val: list = []
        self.y_axis_val: list = []
        self.fig.line(self.x_axis_val, self.y_axis_val)
        return _bokeh("plotting").show(self.fig, notebook_handle=True)

    def elapsed(self) -> datetime.timedelta:
        """The time since the chart was made."""
        return datetime.datetime.now() - self.start_time

    def update_chart_data(self, value: float) -> None:  # type: ignore[override]
        self.x_axis_val.append(self.elapsed())
        self.y_axis_val.append(value)
        self._push_render()


class LiveLearningCurve(LiveBokehChart):
    """Draws a learning curve with training & validation metrics over time as the network
    trains.

    Parameters
    ----------
    metric_name : str
        The metric to draw.
    display_freq : int, default 10
        Seconds between updates of the chart.
    frequent : int, default 50
        Training batches between points.
    """

    def __init__(self, metric_name: str, display_freq: int = 10, frequent: int = 50) -> None:
        self.frequent = frequent
        self.start_time = datetime.datetime.now()
        self._data: dict[str, dict[str, list]] = {"train": {"elapsed": []},
                                                  "eval": {"elapsed": []}}  # fmt: skip
        # as MXNet: ``frequent`` lands in the batch_size argument
        super().__init__(None, metric_name, display_freq, frequent)

    def setup_chart(self) -> Any:
        plotting = _bokeh("plotting")
        self.fig = plotting.figure(x_axis_type="datetime", x_axis_label="Training time")
        self.x_axis_val1: list = []
        self.y_axis_val1: list = []
        self.train1 = self.fig.line(self.x_axis_val1, self.y_axis_val1, line_dash="dotted",
                                    alpha=0.3, legend_label="train")  # fmt: skip
        self.train2 = self.fig.scatter(
            self.x_axis_val1, self.y_axis_val1, size=1.5, line_alpha=0.3, fill_alpha=0.3,
            legend_label="train",
        )  # fmt: skip
        self.train2.visible = False  # turned on once there are many points
        self.x_axis_val2: list = []
        self.y_axis_val2: list = []
        self.valid1 = self.fig.line(self.x_axis_val2, self.y_axis_val2, line_color="green",
                                    line_width=2, legend_label="validation")  # fmt: skip
        self.valid2 = self.fig.scatter(self.x_axis_val2, self.y_axis_val2, line_color="green",
                                       line_width=2)  # fmt: skip
        self.fig.legend.location = "bottom_right"
        self.fig.yaxis.axis_label = self.metric_name
        return plotting.show(self.fig, notebook_handle=True)

    def batch_cb(self, param: Any) -> None:
        if param.nbatch % self.frequent == 0:
            self._process_batch(param, "train")
        if self.interval_elapsed():
            self._do_update()

    def eval_cb(self, param: Any) -> None:
        self._process_batch(param, "eval")
        self._do_update()

    def _process_batch(self, param: Any, df_name: str) -> None:
        """Record the metrics of ``param`` (resetting them) under ``df_name``."""
        metrics: dict[str, Any] = {}
        if param.eval_metric is not None:
            metrics = dict(param.eval_metric.get_name_value())
            param.eval_metric.reset()
        metrics["elapsed"] = datetime.datetime.now() - self.start_time
        for key, value in metrics.items():
            self._data[df_name].setdefault(key, []).append(value)

    def update_chart_data(self) -> None:
        for df_name, xs, ys in (("train", self.x_axis_val1, self.y_axis_val1),
                                ("eval", self.x_axis_val2, self.y_axis_val2)):  # fmt: skip
            data = self._data[df_name]
            if data["elapsed"]:
                _extend(xs, data["elapsed"])
                _extend(ys, data[self.metric_name])
        if len(self._data["eval"]) > 10:
            self.train1.visible = False
            self.train2.visible = True


def args_wrapper(*args: Any) -> dict[str, list]:
    """The ``fit`` keyword arguments of several callback objects (PandasLogger,
    LiveLearningCurve, ...): each argument gets the list of their callbacks."""
    out: dict[str, list] = defaultdict(list)
    for cb in args:
        for k, v in cb.callback_args().items():
            out[k].append(v)
    return dict(out)
