"""``mx.onnx.mx2onnx``: the export half of ``mx.onnx`` (MXNet 1.9.1's module path):
``export_model`` walks a symbol and writes an ONNX file, ``get_operator_support`` lists the
operators an opset can express. The walk is ``_export.py``; each operator's translation is
registered with the operator (``translations/``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..fileio import atomic_write
from ._lib import MIN_OPSET, newest_opset, require_onnx

__all__ = ["export_model", "get_operator_support"]


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
