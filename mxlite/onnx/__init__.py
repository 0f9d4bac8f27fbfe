"""``mx.onnx``: export MXNet models to ONNX (MXNet 1.9.1's ``mxnet.onnx``), and import them.

The package needs the ``onnx`` library (``pip install mxlite[onnx]``); it is imported when a
function here is first called, never by ``import mxlite``. Operators' translations are in
``translations/`` and registered into the operator registry by operator name.
"""

from __future__ import annotations

from typing import Any

from ..base import fill_doc
from . import mx2onnx as mx2onnx
from ._lib import newest_opset as newest_opset
from ._lib import require_onnx
from .mx2onnx import export_model as export_model
from .mx2onnx import get_operator_support as get_operator_support

__all__ = ["export_model", "get_operator_support", "import_model", "get_model_metadata"]

# the argument the import functions share, documented once
_doc = fill_doc(
    model_file="""Parameters
----------
model_file : str
    ONNX model file name""",
)


@_doc
def import_model(model_file: str) -> tuple[Any, dict, dict]:
    """Imports the ONNX model file, passed as a parameter, into MXNet symbol and parameters.

    {model_file}

    Returns
    -------
    sym : :class:`~mxlite.symbol.Symbol`
        MXNet symbol object
    arg_params : dict of ``str`` to :class:`~mxlite.ndarray.NDArray`
        Dict of converted parameters stored in ``mxnet.ndarray.NDArray`` format
    aux_params : dict of ``str`` to :class:`~mxlite.ndarray.NDArray`
        Dict of converted parameters stored in ``mxnet.ndarray.NDArray`` format
    """
    require_onnx()
    from ._import import import_model as _import_model

    return _import_model(model_file)


@_doc
def get_model_metadata(model_file: str) -> dict[str, Any]:
    """Returns the name and shape information of input and output tensors of the given ONNX
    model file.

    {model_file}

    Returns
    -------
    model_metadata : dict
        ``'input_tensor_data'``: list of (name, shape, ONNX dtype) of the inputs that are not
        initializers; ``'output_tensor_data'``: list of (name, shape) of the outputs.
    """
    require_onnx()
    from ._import import get_model_metadata as _get_model_metadata

    return _get_model_metadata(model_file)
