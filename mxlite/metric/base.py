"""The machinery behind ``mx.metric``: ``EvalMetric``, the registry, ``create``,
``CompositeEvalMetric``, ``CustomMetric`` and ``np``.

Policy. A metric accumulates ``sum_metric`` and ``num_inst`` over ``update(labels, preds)``
calls; ``get()`` returns ``(name, sum_metric / num_inst)`` (NaN before any update). Each also
keeps ``global_sum_metric`` / ``global_num_inst``, which ``reset_local()`` leaves alone (so a
Speedometer can reset the running numbers every few batches while the epoch total survives) and
``get_global()`` reads. Labels and predictions are lists of NDArrays (a single NDArray is
wrapped); the numbers are computed on NumPy copies (``asnumpy()``), as MXNet 1.9.1 does.

State: the registry (lowercased name -> class), filled at import; :func:`register` and
:func:`alias` add to it. ``get_config()`` and :func:`create` round-trip a metric.

Example::

    >>> import mxlite as mx
    >>> acc = mx.metric.create("acc")
    >>> acc.update([mx.nd.array([0, 1, 1])], [mx.nd.array([[0.3, 0.7], [0, 1], [0.4, 0.6]])])
    >>> name, value = acc.get()
    >>> print(name, value)
    accuracy 0.6666666666666666
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy

from ..base import ShapeError, fill_doc, numeric_types
from ..registry import Registry

# What EvalMetric's methods and check_label_shapes document alike, written once.
_doc = fill_doc(
    labels_preds="""labels : list of `NDArray`
    The labels of the data.
preds : list of `NDArray`
    Predicted values.""",
    result="""Returns
-------
names : list of str
   Name of the metrics.
values : list of float
   Value of the evaluations.""",
)

# The shared tail of the metrics' Parameters sections.
_NAMES_DOC = """
    name : str
        Name of this metric instance for display.
    output_names : list of str, or None
        Name of predictions that should be used when updating with update_dict. By default
        include all predictions.
    label_names : list of str, or None
        Name of labels that should be used when updating with update_dict. By default include
        all labels."""


# What F1, MCC and PearsonCorrelation say of their ``average`` argument; ``{what}`` names the
# score ("F1 scores" ...) and ``{one}`` a single one ("F1 score" ...).
_AVERAGE_DOC = """
    average : str, default 'macro'
        Strategy to be used for aggregating across mini-batches.
            "macro": average the {what} for each batch.
            "micro": compute a single {one} across all batches.
    """


def names_init(default_name: str) -> Callable[..., None]:
    """The ``__init__`` of a metric whose only arguments are MXNet's naming ones: ``name``
    (defaulting to ``default_name``), ``output_names`` and ``label_names``; it keeps global
    statistics."""

    def __init__(
        self,
        name: str = default_name,
        output_names: list[str] | None = None,
        label_names: list[str] | None = None,
    ) -> None:
        self._init_kept(name, output_names, label_names)

    return __init__


def average_init(default_name: str) -> Callable[..., None]:
    """The ``__init__`` of F1, MCC and PearsonCorrelation: :func:`names_init`'s arguments and
    ``average``, which the class's ``_set_average`` takes before the base class resets it."""

    def __init__(
        self,
        name: str = default_name,
        output_names: list[str] | None = None,
        label_names: list[str] | None = None,
        average: str = "macro",
    ) -> None:
        self._set_average(average)
        self._init_kept(name, output_names, label_names)

    return __init__


def _is_array(x: Any) -> bool:
    from ..ndarray import NDArray

    return isinstance(x, (NDArray, numpy.ndarray))


def _as_numpy(x: Any) -> numpy.ndarray:
    """The values of an NDArray (or a NumPy array, accepted too) as a NumPy array."""
    return x if isinstance(x, numpy.ndarray) else x.asnumpy()


@_doc
def check_label_shapes(
    labels: Any, preds: Any, wrap: bool = False, shape: bool = False
) -> tuple[Any, Any]:
    """Helper function for checking shape of label and prediction.

    Parameters
    ----------
    {labels_preds}
    wrap : boolean
        If True, wrap labels/preds in a list if they are single NDArray
    shape : boolean
        If True, check the shape of labels and preds; Otherwise only check their length.
    """
    if shape:
        label_shape, pred_shape = tuple(labels.shape), tuple(preds.shape)
    else:
        label_shape, pred_shape = len(labels), len(preds)
    if label_shape != pred_shape:
        raise ShapeError(
            f"Shape of labels {label_shape} does not match shape of predictions {pred_shape}"
        )
    if wrap:
        if _is_array(labels):
            labels = [labels]
        if _is_array(preds):
            preds = [preds]
    return labels, preds


class EvalMetric:
    """Base class for all evaluation metrics.

    This is a base class that provides common metric interfaces. One should not use this class
    directly, but instead create new metric classes that extend it.

    Parameters
    ----------"""

    __doc__ = (__doc__ or "") + _NAMES_DOC

    def __init__(
        self,
        name: str,
        output_names: list[str] | None = None,
        label_names: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._has_global_stats = kwargs.pop("has_global_stats", False)
        self._kwargs = kwargs
        self.reset()

    def _init_kept(
        self,
        name: str,
        output_names: list[str] | None,
        label_names: list[str] | None,
        **options: Any,
    ) -> None:
        """``__init__`` for a metric that keeps global statistics, with its own arguments
        ``options`` kept in its config (``get_config``) and as attributes of the same names."""
        EvalMetric.__init__(
            self,
            name,
            output_names=output_names,
            label_names=label_names,
            has_global_stats=True,
            **options,
        )
        vars(self).update(options)

    def __str__(self) -> str:
        return f"EvalMetric: {dict(self.get_name_value())}"

    def get_config(self) -> dict[str, Any]:
        """Save configurations of metric. Can be recreated from configs with
        metric.create(``**config``)."""
        config = self._kwargs.copy()
        config.update(
            {
                "metric": self.__class__.__name__,
                "name": self.name,
                "output_names": self.output_names,
                "label_names": self.label_names,
            }
        )
        return config

    def update_dict(self, label: dict[str, Any], pred: dict[str, Any]) -> None:
        """Update the internal evaluation with named label and pred.

        Parameters
        ----------
        labels : OrderedDict of str -> NDArray
            name to array mapping for labels.
        preds : OrderedDict of str -> NDArray
            name to array mapping of predicted outputs.
        """
        if self.output_names is not None:
            pred_list = [pred[name] for name in self.output_names]
        else:
            pred_list = list(pred.values())
        if self.label_names is not None:
            label_list = [label[name] for name in self.label_names]
        else:
            label_list = list(label.values())
        self.update(label_list, pred_list)

    @_doc
    def update(self, labels: Any, preds: Any) -> None:
        """Updates the internal evaluation result.

        Parameters
        ----------
        {labels_preds}
        """
        raise NotImplementedError()

    def reset(self) -> None:
        """Resets the internal evaluation result to initial state."""
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self) -> None:
        """Resets the local portion of the internal evaluation results to initial state."""
        self.num_inst = 0
        self.sum_metric = 0.0

    def _add(self, value: Any, count: Any) -> None:
        """Adds to the local and the global sums at once."""
        self.sum_metric += value
        self.global_sum_metric += value
        self.num_inst += count
        self.global_num_inst += count

    @_doc
    def get(self) -> tuple[Any, Any]:
        """Gets the current evaluation result.

        {result}
        """
        if self.num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, self.sum_metric / self.num_inst)

    @_doc
    def get_global(self) -> tuple[Any, Any]:
        """Gets the current global evaluation result.

        {result}
        """
        if not self._has_global_stats:
            return self.get()
        if self.global_num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, self.global_sum_metric / self.global_num_inst)

    @staticmethod
    def _zip(name: Any, value: Any) -> list[tuple[str, Any]]:
        if not isinstance(name, list):
            name = [name]
        if not isinstance(value, list):
            value = [value]
        return list(zip(name, value))

    def get_name_value(self) -> list[tuple[str, Any]]:
        """Returns zipped name and value pairs.

        Returns
        -------
        list of tuples
            A (name, value) tuple list.
        """
        return self._zip(*self.get())

    def get_global_name_value(self) -> list[tuple[str, Any]]:
        """Returns zipped name and value pairs for global results.

        Returns
        -------
        list of tuples
            A (name, value) tuple list.
        """
        if not self._has_global_stats:
            return self.get_name_value()
        return self._zip(*self.get_global())


_REGISTRY = Registry(EvalMetric, "metric", "mx.metric")


def register(klass: type, name: str | None = None) -> type:
    """Register a metric class to the metric factory, under ``name`` (default: the class
    name), lowercased."""
    return _REGISTRY.register(klass, name)


alias = _REGISTRY.alias


def create(metric: Any, *args: Any, **kwargs: Any) -> EvalMetric:
    """Creates evaluation metric from metric names or instances of EvalMetric or a custom
    metric function.

    Parameters
    ----------
    metric : str or callable
        Specifies the metric to create. This argument must be one of the below:

        - Name of a metric.
        - An instance of `EvalMetric`.
        - A list, each element of which is a metric or a metric name.
        - An evaluation function that computes custom metric for a given batch of labels and
          predictions.
    *args : list
        Additional arguments to metric constructor. Only used when metric is str.
    **kwargs : dict
        Additional arguments to metric constructor. Only used when metric is str

    Examples
    --------
    >>> import mxlite as mx
    >>> mx.metric.create(["acc", "f1"]).get()
    (['accuracy', 'f1'], [nan, nan])
    """
    if callable(metric):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    return _REGISTRY.create(metric, *args, **kwargs)


@register
@alias("composite")
class CompositeEvalMetric(EvalMetric):
    """Manages multiple evaluation metrics.

    Parameters
    ----------
    metrics : list of EvalMetric
        List of child metrics."""

    __doc__ = (__doc__ or "") + _NAMES_DOC

    def __init__(
        self,
        metrics: list[Any] | None = None,
        name: str = "composite",
        output_names: list[str] | None = None,
        label_names: list[str] | None = None,
    ) -> None:
        self.metrics: list[EvalMetric] = []
        super().__init__(
            name, output_names=output_names, label_names=label_names, has_global_stats=True
        )
        self.metrics = [create(i) for i in (metrics or [])]

    def add(self, metric: Any) -> None:
        """Adds a child metric.

        Parameters
        ----------
        metric
            A metric instance.
        """
        self.metrics.append(create(metric))

    def get_metric(self, index: int) -> Any:
        """Returns a child metric.

        Parameters
        ----------
        index : int
            Index of child metric in the list of metrics.
        """
        try:
            return self.metrics[index]
        except IndexError:
            # MXNet 1.9.1 returns (not raises) this error; callers may test for it.
            return ValueError(f"Metric index {index} is out of range 0 and {len(self.metrics)}")

    def update_dict(self, labels: dict[str, Any], preds: dict[str, Any]) -> None:
        if self.label_names is not None:
            labels = OrderedDict([i for i in labels.items() if i[0] in self.label_names])
        if self.output_names is not None:
            preds = OrderedDict([i for i in preds.items() if i[0] in self.output_names])
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels: Any, preds: Any) -> None:
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self) -> None:
        for metric in self.metrics:
            metric.reset()

    def reset_local(self) -> None:
        for metric in self.metrics:
            metric.reset_local()

    @staticmethod
    def _collect(pairs: list[tuple[Any, Any]]) -> tuple[list[str], list[Any]]:
        names: list[str] = []
        values: list[Any] = []
        for name, value in pairs:
            names.extend([name] if isinstance(name, str) else name)
            values.extend([value] if isinstance(value, numeric_types) else value)
        return (names, values)

    def get(self) -> tuple[list[str], list[Any]]:
        return self._collect([m.get() for m in self.metrics])

    def get_global(self) -> tuple[list[str], list[Any]]:
        return self._collect([m.get_global() for m in self.metrics])

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        config.update({"metrics": [i.get_config() for i in self.metrics]})
        return config


@register
class CustomMetric(EvalMetric):
    """Computes a customized evaluation metric.

    The `feval` function can return a `tuple` of (sum_metric, num_inst) or return an `int`
    sum_metric.

    Parameters
    ----------
    feval : callable(label, pred)
        Customized evaluation function.
    name : str, optional
        The name of the metric. (the default is None).
    allow_extra_outputs : bool, optional
        If true, the prediction outputs can have extra outputs. This is useful in RNN, where
        the states are also produced in outputs for forwarding. (the default is False).
    output_names : list of str, or None
        Name of predictions that should be used when updating with update_dict.
    label_names : list of str, or None
        Name of labels that should be used when updating with update_dict.
    """

    def __init__(
        self,
        feval: Callable[[Any, Any], Any],
        name: str | None = None,
        allow_extra_outputs: bool = False,
        output_names: list[str] | None = None,
        label_names: list[str] | None = None,
    ) -> None:
        if name is None:
            name = feval.__name__
            if "<" in name:
                name = f"custom({name})"
        super().__init__(
            name,
            feval=feval,
            allow_extra_outputs=allow_extra_outputs,
            output_names=output_names,
            label_names=label_names,
            has_global_stats=True,
        )
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels: Any, preds: Any) -> None:
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        for pred, label in zip(preds, labels):
            reval = self._feval(_as_numpy(label), _as_numpy(pred))
            if isinstance(reval, tuple):
                self._add(*reval)
            else:
                self._add(reval, 1)

    def get_config(self) -> dict[str, Any]:
        raise NotImplementedError("CustomMetric cannot be serialized")


def np(
    numpy_feval: Callable[[Any, Any], Any],
    name: str | None = None,
    allow_extra_outputs: bool = False,
) -> CustomMetric:
    """Creates a custom evaluation metric that receives its inputs as numpy arrays.

    Parameters
    ----------
    numpy_feval : callable(label, pred)
        Custom evaluation function that receives labels and predictions for a minibatch as
        numpy arrays and returns the corresponding custom metric as a floating point number.
    name : str, optional
        Name of the custom metric.
    allow_extra_outputs : bool, optional
        Whether prediction output is allowed to have extra outputs. This is useful in cases
        like RNN where states are also part of output which can then be fed back to the RNN in
        the next step. By default, extra outputs are not allowed.

    Returns
    -------
    CustomMetric
        The metric, named after `numpy_feval` unless `name` is given.
    """

    def feval(label: Any, pred: Any) -> Any:
        return numpy_feval(label, pred)

    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)
