"""``mx.contrib.onnx``: MXNet 1.9.1's old ONNX paths, each with MXNet's deprecation advice
as a warning; the work is done by :mod:`mxlite.onnx`."""

from __future__ import annotations

import warnings
from typing import Any

from ... import onnx as _onnx
from . import onnx2mx as onnx2mx

__all__ = ["export_model", "import_model", "get_model_metadata", "import_to_gluon"]

_IMPORT_ADVICE = (
    "Please be advised that importing ONNX models into MXNet is going to be deprecated in the "
    "upcoming MXNet v1.10 release. The following apis will be deleted: "
    "mxnet.contrib.onnx.import_model/get_model_metadata/import_to_gluon."
)


def export_model(*args: Any, **kwargs: Any) -> str:
    """The old path of :func:`mxlite.onnx.export_model` (same arguments)."""
    warnings.warn(
        "Calling mxnet.contrib.onnx.export_model: the ONNX module has been moved to mxnet.onnx "
        "and mxnet.onnx.export_model is the preferred path. The current path will be "
        "deprecated in the upcoming MXNet v1.10 release.",
        DeprecationWarning,
        stacklevel=2,
    )
    return _onnx.export_model(*args, **kwargs)


def import_model(model_file: str) -> tuple[Any, dict, dict]:
    """Imports the ONNX model file into an MXNet symbol and parameters:
    ``(sym, arg_params, aux_params)``; see :func:`mxlite.onnx.import_model`."""
    warnings.warn(_IMPORT_ADVICE, DeprecationWarning, stacklevel=2)
    return _onnx.import_model(model_file)


def get_model_metadata(model_file: str) -> dict[str, Any]:
    """Input and output names and shapes of an ONNX model file; see
    :func:`mxlite.onnx.get_model_metadata`."""
    warnings.warn(_IMPORT_ADVICE, DeprecationWarning, stacklevel=2)
    return _onnx.get_model_metadata(model_file)


def import_to_gluon(model_file: str, ctx: Any) -> Any:
    """Imports the ONNX model file as a Gluon ``SymbolBlock``; see
    :func:`onnx2mx.import_to_gluon.import_to_gluon`."""
    warnings.warn(_IMPORT_ADVICE, DeprecationWarning, stacklevel=2)
    return import_to_gluon_(model_file, ctx)


# MXNet's names of the same functions without the deprecation advice
export_model_ = _onnx.export_model
import_model_ = _onnx.import_model
get_model_metadata_ = _onnx.get_model_metadata
import_to_gluon_ = onnx2mx.import_to_gluon.import_to_gluon
