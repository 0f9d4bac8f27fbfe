"""``import_model`` and ``get_model_metadata``: the importer (``_importer.py``) run with the
full import table."""

from __future__ import annotations

from typing import Any

from ..base import MXNetError
from . import _import_ops, _import_rnn, _import_tensor  # noqa: F401  (fill the table)
from ._importer import Importer
from ._lib import require_onnx


def load_model(model_file: Any) -> Any:
    onnx = require_onnx()
    if isinstance(model_file, onnx.ModelProto):
        return model_file
    try:
        return onnx.load(model_file)
    except OSError as exc:
        raise MXNetError(f"import_model: cannot read {model_file!r}: {exc}") from exc


def import_model(model_file: Any) -> tuple[Any, dict, dict]:
    """ONNX file (or ModelProto) -> (sym, arg_params, aux_params); see mxlite.onnx."""
    model = load_model(model_file)
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    if opset < 13:
        raise MXNetError(
            f"import_model: the model uses opset {opset}; opset 13 or newer is supported "
            "(onnx.version_converter.convert_version can upgrade it)."
        )
    return Importer(model).run()


def get_model_metadata(model_file: Any) -> dict[str, Any]:
    """Input and output names and shapes of an ONNX model; see mxlite.onnx."""
    graph = load_model(model_file).graph
    params = {t.name for t in graph.initializer}

    def dims(vi: Any) -> tuple:
        return tuple(d.dim_value for d in vi.type.tensor_type.shape.dim)

    return {
        "input_tensor_data": [
            (i.name, dims(i), i.type.tensor_type.elem_type)
            for i in graph.input
            if i.name not in params
        ],
        "output_tensor_data": [(o.name, dims(o)) for o in graph.output],
    }
