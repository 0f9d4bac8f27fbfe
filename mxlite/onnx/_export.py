"""``export_model``'s argument handling: symbols and parameters from objects or files, input
shapes and types, dynamic axes, the opset; then the walk (``_walk.py``) and the model."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ._lib import newest_opset, require_onnx
from ._walk import ExportError, build_graph

__all__ = ["export_to_proto", "load_params", "load_symbol"]

# ONNX operators whose ONNX Runtime kernels (1.2x-1.32) stop at opset 21
ORT_OLD_KERNELS = frozenset(
    {"MaxRoiPool", "RandomUniform", "RandomNormal", "RandomUniformLike", "RandomNormalLike"}
)
ORT_OPSET = 21


def load_params(params: Any, func: str = "export_model") -> dict[str, np.ndarray]:
    """Parameters from a ``.params`` file, a dict, or ``[arg_params, aux_params]``, as NumPy
    arrays keyed by name (``arg:``/``aux:`` prefixes dropped)."""
    from .. import ndarray as nd

    if isinstance(params, (str, os.PathLike)):
        params = nd.load(os.fspath(params))
        if not isinstance(params, dict):
            raise ExportError(f"{func}: the params file holds a list; expected named arrays.")
    elif isinstance(params, (list, tuple)):
        if len(params) != 2 or not all(isinstance(p, dict) for p in params):
            raise ExportError(
                f"{func}: argument 'params' as a list must be [arg_params, aux_params]; got a "
                f"list of {len(params)}."
            )
        params = {**params[0], **params[1]}
    elif not isinstance(params, dict):
        raise ExportError(
            f"{func}: argument 'params' must be a file name, a dict or [arg_params, "
            f"aux_params]; got {type(params).__name__}."
        )
    out = {}
    for key, value in params.items():
        name = key.split(":", 1)[1] if key.startswith(("arg:", "aux:")) else key
        out[name] = value.asnumpy() if hasattr(value, "asnumpy") else np.asarray(value)
    return out


def load_symbol(sym: Any) -> Any:
    from .. import symbol

    if isinstance(sym, (str, os.PathLike)):
        return symbol.load(os.fspath(sym))
    if isinstance(sym, symbol.Symbol):
        return sym
    raise ExportError(
        f"export_model: argument 'sym' must be a Symbol or a symbol JSON file name; got "
        f"{type(sym).__name__}."
    )


def _shapes_types(in_shapes: Any, in_types: Any) -> tuple[list[tuple], list[np.dtype]]:
    if in_shapes is None:
        raise ExportError(
            "export_model: argument 'in_shapes' is required, e.g. [(1, 3, 224, 224)]."
        )
    if isinstance(in_shapes, tuple) and all(isinstance(d, (int, np.integer)) for d in in_shapes):
        in_shapes = [in_shapes]
    shapes = [tuple(s) for s in in_shapes]
    for s in shapes:
        if not all(isinstance(d, (int, np.integer)) and d > 0 for d in s):
            raise ExportError(
                f"export_model: argument 'in_shapes' must hold tuples of positive ints; got {s}."
            )
    if not isinstance(in_types, list):
        in_types = [in_types] * len(shapes)
    try:
        types = [np.dtype(t) for t in in_types]
    except TypeError as exc:
        raise ExportError(f"export_model: argument 'in_types': {exc}") from None
    return shapes, types


def _dynamic_masks(
    shapes: list[tuple], dynamic: bool, dynamic_input_shapes: Any
) -> list[tuple[bool, ...]] | None:
    if not dynamic:
        if dynamic_input_shapes is not None:
            raise ExportError(
                "export_model: argument 'dynamic_input_shapes' is given but dynamic=False; set "
                "dynamic=True to enable dynamic input shapes."
            )
        return None
    if dynamic_input_shapes is None:
        return [tuple(True for _ in s) for s in shapes]
    if len(dynamic_input_shapes) != len(shapes):
        raise ExportError(
            f"export_model: argument 'dynamic_input_shapes' has {len(dynamic_input_shapes)} "
            f"shape(s); in_shapes has {len(shapes)}."
        )
    masks = []
    for s, d in zip(shapes, dynamic_input_shapes):
        if len(s) != len(d):
            raise ExportError(
                f"export_model: dynamic input shape {tuple(d)} and input shape {s} differ in "
                "dimensionality."
            )
        masks.append(tuple(x is None for x in d))
    return masks


def export_to_proto(
    sym: Any,
    params: Any,
    in_shapes: Any,
    in_types: Any,
    verbose: bool = False,
    dynamic: bool = False,
    dynamic_input_shapes: Any = None,
    run_shape_inference: bool = False,
    opset_version: int | None = None,
) -> Any:
    """The ONNX ``ModelProto`` of a model; see :func:`mxlite.onnx.export_model`."""
    onnx = require_onnx()
    from onnx import helper, shape_inference

    newest = newest_opset()
    opset = newest if opset_version is None else int(opset_version)
    if not 13 <= opset <= newest:
        raise ExportError(
            f"export_model: argument 'opset_version' must be between 13 and {newest}; got {opset}."
        )
    sym = load_symbol(sym)
    params = load_params(params)
    shapes, types = _shapes_types(in_shapes, in_types)
    masks = _dynamic_masks(shapes, dynamic, dynamic_input_shapes)
    graph = build_graph(sym, params, shapes, types, masks, opset, verbose)
    if (
        opset_version is None
        and opset > ORT_OPSET
        and any(n.op_type in ORT_OLD_KERNELS for n in graph.node)
    ):
        # by default, a graph that ONNX Runtime could not run at the newest opset gets the
        # newest one it runs
        opset = ORT_OPSET
        graph = build_graph(sym, params, shapes, types, masks, opset, verbose)
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", opset)],
        producer_name="mxlite",
        producer_version="1.9.1",
    )
    model.ir_version = min(model.ir_version, _ir_for_opset(onnx, opset))
    if run_shape_inference:
        model = shape_inference.infer_shapes(model)
    return model


def _ir_for_opset(onnx: Any, opset: int) -> int:
    # the newest IR version released with this opset, so that older runtimes load the file
    table = getattr(onnx.helper, "VERSION_TABLE", [])
    irs = [row[1] for row in table if row[2] == opset]
    return min(irs) if irs else onnx.IR_VERSION
