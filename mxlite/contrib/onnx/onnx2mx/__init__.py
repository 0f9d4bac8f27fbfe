"""``mx.contrib.onnx.onnx2mx``: MXNet 1.9.1's module path of the ONNX importer, mapped onto
``mx.onnx`` (which does the work): ``import_model`` (``import_model``,
``get_model_metadata``), ``import_to_gluon`` and ``import_onnx`` (``GraphProto``, the
importer of one graph, and ``convert_map``, its table of ONNX operators)."""

from . import import_model as import_model
from . import import_onnx as import_onnx
from . import import_to_gluon as import_to_gluon

__all__ = ["import_model", "import_onnx", "import_to_gluon"]
