"""``mx.contrib.onnx``: MXNet 1.9.1's old ONNX paths, each with MXNet's deprecation advice
as a warning; the work is done by :mod:`mxlite.onnx`."""

from __future__ import annotations

import warnings
from typing import Any

from ... import onnx as _onnx
from ...base import NOT_YET as _NOT_YET
from ...base import absent_names as _absent_names

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
    """Imports the ONNX model file as a Gluon ``SymbolBlock``.

    Parameters
    ----------
    model_file : str
        ONNX model file name
    ctx : Context or list of Context
        Loads the model into one or many context(s).

    Returns
    -------
    sym_block : :class:`~mxlite.gluon.SymbolBlock`
        A SymbolBlock object representing the given model file.
    """
    warnings.warn(_IMPORT_ADVICE, DeprecationWarning, stacklevel=2)
    from ... import gluon, symbol
    from ...base import MXNetError

    try:
        block_cls = gluon.SymbolBlock
    except (AttributeError, MXNetError):
        raise MXNetError(
            "import_to_gluon: mxlite.gluon has no SymbolBlock yet; use import_model and bind "
            "the symbol, or wrap it in mx.mod.Module."
        ) from None
    sym, arg_params, aux_params = _onnx.import_model(model_file)
    known = {**arg_params, **aux_params}
    inputs = [symbol.var(n) for n in sym.list_inputs() if n not in known]
    net = block_cls(sym, inputs)
    net.collect_params().load_dict(known, ctx=ctx)
    return net


# MXNet's names of the same functions without the deprecation advice
export_model_ = _onnx.export_model
import_model_ = _onnx.import_model
get_model_metadata_ = _onnx.get_model_metadata
import_to_gluon_ = import_to_gluon

# MXNet's names here that mxlite lacks, and why (tests/test_mxnet_names.py)
__getattr__ = _absent_names(
    "mxnet.contrib.onnx",
    {
        "onnx2mx": _NOT_YET,
    },
)
