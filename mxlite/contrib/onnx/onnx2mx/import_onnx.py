"""``GraphProto`` and ``convert_map`` at MXNet's old module path of the ONNX importer.

``GraphProto().from_onnx(graph, opset_version)`` imports one ONNX graph as MXNet's did, here
through mxlite's importer (``mx.onnx``; opset 13 or newer). ``convert_map`` is that importer's
table: ONNX operator name -> its translation. Its functions take mxlite's importer state, not
MXNet's ``(attrs, inputs, proto)``: code that only asks which operators are supported
(``op in convert_map``) works unchanged.
"""

from __future__ import annotations

from typing import Any

from ....onnx._import import get_model_metadata as _metadata
from ....onnx._import import import_model as _import_model
from ....onnx._importer import _IMPORTERS
from ....onnx._lib import require_onnx

__all__ = ["GraphProto", "convert_map"]

convert_map = _IMPORTERS


class GraphProto:
    """A helper class for turning an ONNX graph (``onnx.GraphProto``) into an MXNet symbol
    and its parameters."""

    def __init__(self) -> None:
        self.aux_dict: dict[str, Any] = {}
        self.arg_dict: dict[str, Any] = {}
        self.model_metadata: dict[str, Any] = {}
        self.opset_version = 0

    def _model(self, graph: Any, opset_version: int) -> Any:
        onnx = require_onnx()
        return onnx.helper.make_model(
            graph, opset_imports=[onnx.helper.make_opsetid("", int(opset_version))]
        )

    def from_onnx(self, graph: Any, opset_version: int) -> tuple[Any, dict, dict]:
        """Construct symbol from onnx graph.

        Parameters
        ----------
        graph : onnx protobuf object
            The loaded onnx graph
        opset_version : int
            The opset the graph was written for.

        Returns
        -------
        sym : Symbol
            The returned mxnet symbol
        arg_dict, aux_dict : dict of str to NDArray
            The parameters and auxiliary states, used as pretrained weights.
        """
        self.opset_version = opset_version
        self.model_metadata = self.get_graph_metadata(graph)
        sym, self.arg_dict, self.aux_dict = _import_model(self._model(graph, opset_version))
        return sym, self.arg_dict, self.aux_dict

    def get_graph_metadata(self, graph: Any) -> dict[str, Any]:
        """The names and shapes of the graph's inputs (those that are no initializer) and
        outputs: ``{'input_tensor_data': [(name, shape, type)], 'output_tensor_data':
        [(name, shape)]}``."""
        return _metadata(self._model(graph, max(self.opset_version, 13)))

    def graph_to_gluon(self, graph: Any, ctx: Any, opset_version: int) -> Any:
        """The graph as a Gluon ``SymbolBlock`` with its parameters on ``ctx``."""
        from .import_to_gluon import import_to_gluon

        return import_to_gluon(self._model(graph, opset_version), ctx)
