"""Run an exported model in ONNX Runtime and mxlite on the same random inputs."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import MXNetError
from ._export import load_params, load_symbol


def mxlite_outputs(sym: Any, params: Any, inputs: dict[str, np.ndarray]) -> list[np.ndarray]:
    """The inference outputs of ``sym`` on ``inputs`` (labels of heads filled with zeros)."""
    from .. import ndarray as nd
    from ..context import cpu

    sym = load_symbol(sym)
    params = load_params(params)
    shapes = {k: v.shape for k, v in inputs.items()}
    shapes.update({k: v.shape for k, v in params.items() if k in sym.list_inputs()})
    arg_shapes, _, aux_shapes = sym.infer_shape(**shapes)
    args = {}
    for name, shape in zip(sym.list_arguments(), arg_shapes):
        value = inputs.get(name, params.get(name))
        if value is None:  # a label of an *Output head: not used at inference
            value = np.zeros(shape, np.float32)
        args[name] = nd.array(value, dtype=value.dtype)
    aux = {n: nd.array(params[n]) for n in sym.list_auxiliary_states()}
    exe = sym.bind(cpu(), args, aux_states=aux, grad_req="null")
    return [o.asnumpy() for o in exe.forward(is_train=False)]


def compare(
    sym: Any,
    params: Any,
    onnx_path: str,
    shapes: list[tuple],
    dtype: Any = "float32",
    seed: int = 0,
) -> tuple[float, float]:
    """(largest absolute difference, largest absolute output) of ONNX Runtime vs mxlite."""
    try:
        import onnxruntime as ort
    except ImportError as exc:
        raise MXNetError("--check needs onnxruntime: pip install mxlite[onnx]") from exc
    sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    if len(names) != len(shapes):
        raise MXNetError(f"compare: the model has inputs {names}; got {len(shapes)} shape(s).")
    rng = np.random.default_rng(seed)
    inputs = {n: rng.standard_normal(s).astype(dtype) for n, s in zip(names, shapes)}
    ours = mxlite_outputs(sym, params, inputs)
    theirs = sess.run(None, inputs)
    diff = max(float(np.max(np.abs(a - b), initial=0)) for a, b in zip(ours, theirs))
    scale = max(float(np.max(np.abs(a), initial=0)) for a in ours)
    return diff, scale
