"""Modules written in Python (``mx.mod.PythonModule``, ``mx.mod.PythonLossModule``), as MXNet
1.9.1: the Module interface with no parameters, for a computation (typically a loss on
scores) written with NDArray operations. A subclass fills in ``_compute_output_shapes``,
``forward``, ``backward`` and ``get_outputs``/``get_input_grads``; in a SequentialModule, a
PythonLossModule takes the scores of the module before it and hands their gradient back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from .. import ndarray as nd
from ..base import MXNetError
from ..initializer import Uniform
from .base_module import BaseModule

__all__ = ["PythonModule", "PythonLossModule"]


class PythonModule(BaseModule):
    """A convenient module class that implements many of the module APIs as
    empty functions.

    Parameters
    ----------
    data_names : list of str
        Names of the data expected by the module.
    label_names : list of str
        Names of the labels expected by the module. Could be ``None`` if the
        module does not need labels.
    output_names : list of str
        Names of the outputs.
    logger : Logger, optional
        Default the ``logging`` module.
    """

    def __init__(
        self,
        data_names: list[str],
        label_names: list[str] | None,
        output_names: list[str],
        logger: Any = logging,
    ) -> None:
        super().__init__(logger=logger)
        self._data_names = list(data_names) if isinstance(data_names, tuple) else data_names
        self._label_names = list(label_names) if isinstance(label_names, tuple) else label_names
        self._output_names = output_names
        self._data_shapes: Any = None
        self._output_shapes: Any = None

    @property
    def data_shapes(self) -> Any:
        """A list of (name, shape) pairs specifying the data inputs to this module."""
        return self._data_shapes

    @property
    def label_shapes(self) -> Any:
        """A list of (name, shape) pairs specifying the label inputs to this module."""
        return self._label_shapes

    @property
    def output_shapes(self) -> Any:
        """A list of (name, shape) pairs specifying the outputs of this module."""
        return self._output_shapes

    def get_params(self) -> tuple[dict, dict]:
        """Gets parameters: ``({}, {})`` unless a subclass has some."""
        return {}, {}

    def init_params(
        self,
        initializer: Any = Uniform(0.01),  # noqa: B008  (MXNet's default object)
        arg_params: dict | None = None,
        aux_params: dict | None = None,
        allow_missing: bool = False,
        force_init: bool = False,
        allow_extra: bool = False,
    ) -> None:
        """Initializes the parameters and auxiliary states. By default this function
        does nothing. Subclass should override this method if contains parameters."""

    def update(self) -> None:
        """Updates parameters; nothing to do unless a subclass has parameters."""

    def update_metric(self, eval_metric: Any, labels: list[Any], pre_sliced: bool = False) -> None:
        """Evaluates and accumulates evaluation metric on outputs of the last forward
        computation (nothing when the module was bound without labels).

        Parameters
        ----------
        eval_metric : EvalMetric
        labels : list of NDArray
            Typically ``data_batch.label``.
        """
        if self._label_shapes is None:
            return
        if pre_sliced:
            raise RuntimeError("PythonModule does not support presliced labels")
        eval_metric.update(labels, self.get_outputs())

    def _bind(
        self, data_shapes: Any, label_shapes: Any, force_rebind: bool, shared_module: Any
    ) -> None:
        """Records the input shapes (their names must be ``data_names`` and ``label_names``)
        and computes the output shapes; ``shared_module`` is ignored, ``grad_req`` must be
        'write'."""
        if self._grad_req != "write":
            raise MXNetError(
                f"PythonModule.bind: grad_req must be 'write', got {self._grad_req!r}."
            )
        got = [x[0] for x in data_shapes]
        if got != self._data_names:
            raise MXNetError(
                f"PythonModule.bind: data_shapes name {got}; the module expects {self._data_names}."
            )
        self._data_shapes = data_shapes
        self._label_shapes = label_shapes
        if label_shapes is not None:
            got = [x[0] for x in label_shapes]
            if self._label_names is None or got != self._label_names:
                raise MXNetError(
                    f"PythonModule.bind: label_shapes name {got}; the module expects "
                    f"{self._label_names}."
                )
        # as MXNet: ``binded`` stays False (SequentialModule keeps its own)
        self._output_shapes = self._compute_output_shapes()

    def _compute_output_shapes(self) -> list[tuple[str, tuple]]:
        """The (name, shape) of each output, from ``data_shapes`` and ``label_shapes``; a
        subclass implements it."""
        raise NotImplementedError()

    def init_optimizer(
        self,
        kvstore: Any = "local",
        optimizer: Any = "sgd",
        optimizer_params: Any = (("learning_rate", 0.01),),
        force_init: bool = False,
    ) -> None:
        """Installs and initializes optimizers. By default we do nothing. Subclass should
        override this method if needed."""


class PythonLossModule(PythonModule):
    """A loss written in Python: its output is its input (the scores), and backward gives
    the gradient of the loss with respect to the scores.

    Parameters
    ----------
    name : str
        Names of the module. The outputs will be named `[name + '_output']`.
    data_names : list of str
        Defaults to ``['data']``. Names of the data expected by this module.
        Should be a list of only one name.
    label_names : list of str
        Default ``['softmax_label']``. Names of the labels expected by the module.
        Should be a list of only one name.
    logger : Logger, optional
        Default the ``logging`` module.
    grad_func : function
        Optional. If not ``None``, should be a function that takes `scores`
        and `labels`, both of type `NDArray`, and return the gradients with
        respect to the scores according to this loss function. The return
        value could be a numpy array or an `NDArray`.
    """

    def __init__(
        self,
        name: str = "pyloss",
        data_names: Any = ("data",),
        label_names: Any = ("softmax_label",),
        logger: Any = logging,
        grad_func: Callable[[Any, Any], Any] | None = None,
    ) -> None:
        super().__init__(data_names, label_names, [name + "_output"], logger=logger)
        self._name = name
        if len(data_names) != 1 or len(label_names) != 1:
            raise MXNetError(
                "PythonLossModule: data_names and label_names must name one input each, got "
                f"{list(data_names)} and {list(label_names)}."
            )
        if grad_func is not None and not callable(grad_func):
            raise MXNetError(
                f"PythonLossModule: grad_func must be callable, got {type(grad_func).__name__}."
            )
        self._scores: Any = None
        self._labels: Any = None
        self._scores_grad: Any = None
        self._grad_func = grad_func

    def _compute_output_shapes(self) -> list[tuple[str, tuple]]:
        """The output is the scores: the shape of the data."""
        return [(self._name + "_output", self._data_shapes[0][1])]

    def forward(self, data_batch: Any, is_train: bool | None = None) -> None:
        """Keep a reference to the scores (and, when training, the labels) for backward.

        Parameters
        ----------
        data_batch : DataBatch
            Could be anything with similar API implemented.
        is_train : bool
            Default is ``None``, which means `is_train` takes the value of ``self.for_training``.
        """
        self._scores = data_batch.data[0]
        if is_train is None:
            is_train = self.for_training
        if is_train:
            self._labels = data_batch.label[0]

    def get_outputs(self, merge_multi_context: bool = True) -> list[Any]:
        """The scores given to the last forward.

        Parameters
        ----------
        merge_multi_context : bool
            Should always be ``True``, because we do not use multiple contexts for computing.
        """
        _one_context("get_outputs", merge_multi_context)
        return [self._scores]

    def backward(self, out_grads: Any = None) -> None:
        """Compute the gradient with respect to the scores.

        Parameters
        ----------
        out_grads : NDArray or list of NDArray, optional
            Must be None: a loss module is the end of the graph.
        """
        if out_grads is not None:
            raise MXNetError(
                "PythonLossModule.backward: For a loss module, out_grads should be None"
            )
        if not self.for_training:
            raise MXNetError("PythonLossModule.backward: the module is not bound for training.")
        self._backward_impl()

    def _backward_impl(self) -> None:
        """Store the gradient of the loss with respect to ``self._scores`` in
        ``self._scores_grad``, from ``grad_func`` (or a subclass's override)."""
        if self._grad_func is None:
            raise NotImplementedError()
        grad = self._grad_func(self._scores, self._labels)
        self._scores_grad = grad if isinstance(grad, nd.NDArray) else nd.array(grad)

    def get_input_grads(self, merge_multi_context: bool = True) -> list[Any]:
        """The gradient with respect to the scores, from the last backward.

        Parameters
        ----------
        merge_multi_context : bool
            Should always be ``True`` because we do not use multiple context for computation.
        """
        _one_context("get_input_grads", merge_multi_context)
        return [self._scores_grad]

    def install_monitor(self, mon: Any) -> None:
        """Installs monitor on all executors (a Python module has none)."""
        raise NotImplementedError()


def _one_context(what: str, merge_multi_context: bool) -> None:
    if merge_multi_context is not True:
        raise MXNetError(
            f"PythonLossModule.{what}: merge_multi_context must be True (one context only)."
        )
