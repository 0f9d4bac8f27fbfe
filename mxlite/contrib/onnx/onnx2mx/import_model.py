"""``import_model`` and ``get_model_metadata`` at MXNet's old module path (without the
deprecation advice that ``mx.contrib.onnx``'s functions of the same names give); they are
``mx.onnx``'s."""

from ....onnx import get_model_metadata as get_model_metadata
from ....onnx import import_model as import_model

__all__ = ["import_model", "get_model_metadata"]
