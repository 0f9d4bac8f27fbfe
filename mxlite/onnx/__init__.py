"""``mx.onnx``: export MXNet models to ONNX (MXNet 1.9.1's ``mxnet.onnx``), and import them.

The package needs the ``onnx`` library (``pip install mxlite[onnx]``); it is imported when a
function here is first called, never by ``import mxlite``. Operators' translations are in
``translations/`` and registered into the operator registry by operator name.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import NOT_YET as _NOT_YET
from ..base import absent_names as _absent_names
from ..fileio import atomic_write
from ._lib import MIN_OPSET, require_onnx
from ._lib import newest_opset as newest_opset

__all__ = ["export_model", "get_operator_support", "import_model", "get_model_metadata"]


def get_operator_support(opset_version: int | None = None) -> list[str]:
    """Return a list of MXNet operators supported by the current/specified opset.

    Parameters
    ----------
    opset_version : int, optional
        The ONNX opset; default the newest supported.

    Returns
    -------
    list of str
        The operator names (aliases included), sorted.
    """
    require_onnx()
    from ..operator import registry
    from .translations import NEEDS_OPSET

    if opset_version is not None and opset_version < MIN_OPSET:
        return []
    opset = newest_opset() if opset_version is None else opset_version
    return sorted(
        name
        for name, cls in registry.all_ops().items()
        if callable(cls.onnx_translation()) and NEEDS_OPSET.get(cls.op_name, 0) <= opset
    )


def export_model(
    sym: Any,
    params: Any,
    in_shapes: Any = None,
    in_types: Any = np.float32,
    onnx_file_path: str = "model.onnx",
    verbose: bool = False,
    dynamic: bool = False,
    dynamic_input_shapes: Any = None,
    run_shape_inference: bool = False,
    input_type: Any = None,
    input_shape: Any = None,
    opset_version: int | None = None,
) -> str:
    """Exports the MXNet model file, passed as a parameter, into ONNX model.
    Accepts both symbol,parameter objects as well as json and params filepaths as input.

    Parameters
    ----------
    sym : str or symbol object
        Path to the json file or Symbol object
    params : str or dict or list of dict
        str - Path to the params file
        dict - params dictionary (Including both arg_params and aux_params)
        list - list of length 2 that contains arg_params and aux_params
    in_shapes : List of tuple
        Input shape of the model e.g [(1,3,224,224)]
    in_types : data type or list of data types
        Input data type e.g. np.float32, or [np.float32, np.int32]
    onnx_file_path : str
        Path where to save the generated onnx file
    verbose : Boolean
        If True will print logs of the model conversion
    dynamic: Boolean
        If True will allow for dynamic input shapes to the model
    dynamic_input_shapes: list of tuple
        Specifies the dynamic input_shapes. If None then all dimensions are set to None
    run_shape_inference : Boolean
        If True will run shape inference on the model
    input_type : data type or list of data types
        This is the old name of in_types. We keep this parameter name for backward compatibility
    input_shape : List of tuple
        This is the old name of in_shapes. We keep this parameter name for backward compatibility
    opset_version : int, optional
        The ONNX opset to write (13 or newer); default the newest supported.

    Returns
    -------
    onnx_file_path : str
        Onnx file path
    """
    require_onnx()
    from ._export import export_to_proto

    model = export_to_proto(
        sym,
        params,
        input_shape if input_shape is not None else in_shapes,
        input_type if input_type is not None else in_types,
        verbose=verbose,
        dynamic=dynamic,
        dynamic_input_shapes=dynamic_input_shapes,
        run_shape_inference=run_shape_inference,
        opset_version=opset_version,
    )
    with atomic_write(onnx_file_path, "wb", where="export_model") as f:
        f.write(model.SerializeToString())
    return onnx_file_path


def import_model(model_file: str) -> tuple[Any, dict, dict]:
    """Imports the ONNX model file, passed as a parameter, into MXNet symbol and parameters.

    Parameters
    ----------
    model_file : str
        ONNX model file name

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


def get_model_metadata(model_file: str) -> dict[str, Any]:
    """Returns the name and shape information of input and output tensors of the given ONNX
    model file.

    Parameters
    ----------
    model_file : str
        ONNX model file name

    Returns
    -------
    model_metadata : dict
        ``'input_tensor_data'``: list of (name, shape, ONNX dtype) of the inputs that are not
        initializers; ``'output_tensor_data'``: list of (name, shape) of the outputs.
    """
    require_onnx()
    from ._import import get_model_metadata as _get_model_metadata

    return _get_model_metadata(model_file)


# MXNet's names here that mxlite lacks, and why (tests/test_mxnet_names.py)
__getattr__ = _absent_names(
    "mxnet.onnx",
    {
        "mx2onnx": _NOT_YET,
    },
)
