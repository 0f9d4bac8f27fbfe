"""Shared helpers of the ONNX tests: export a symbol, run it in ONNX Runtime and in mxlite."""

from __future__ import annotations

import numpy as np

import mxlite as mx


def data_names(sym: mx.sym.Symbol, params: dict) -> list[str]:
    return [n for n in sym.list_inputs() if n not in params and not n.endswith("_label")]


def export_and_compare(
    sym: mx.sym.Symbol,
    inputs: dict[str, np.ndarray],
    params: dict | None = None,
    path: str = "",
    dynamic_batch: bool = False,
    other_batch: dict[str, np.ndarray] | None = None,
    rtol: float = 1e-4,
    atol: float = 1e-5,
    opset: int | None = None,
) -> str:
    """Export ``sym`` and check ONNX Runtime's outputs against mxlite's on ``inputs`` (and, with
    a dynamic batch, on ``other_batch``); return the file's path."""
    import onnx
    import onnxruntime as ort

    from mxlite.onnx._check import mxlite_outputs

    params = params or {}
    names = data_names(sym, params)
    shapes = [inputs[n].shape for n in names]
    dyn = [(None, *s[1:]) for s in shapes] if dynamic_batch else None
    mx.onnx.export_model(
        sym, params, shapes, [inputs[n].dtype for n in names], path,
        dynamic=dynamic_batch, dynamic_input_shapes=dyn, opset_version=opset,
    )  # fmt: skip
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    for feed in [inputs] + ([other_batch] if other_batch else []):
        ref = mxlite_outputs(sym, params, feed)
        got = sess.run(None, {n: feed[n] for n in names})
        assert len(got) == len(ref)
        for a, b in zip(got, ref):
            assert a.shape == b.shape, (a.shape, b.shape)
            np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=rtol,
                                       atol=atol)  # fmt: skip
    return path


def import_and_compare(path: str, inputs: dict[str, np.ndarray], rtol=1e-4, atol=1e-5) -> None:
    """Import ``path`` into mxlite and check its outputs against ONNX Runtime's."""
    import onnxruntime as ort

    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    ref = sess.run(None, {n: inputs[n] for n in names})
    sym, arg_params, aux_params = mx.onnx.import_model(path)
    args = {**arg_params, **{n: mx.nd.array(inputs[n], dtype=inputs[n].dtype) for n in names}}
    exe = sym.bind(mx.cpu(), args, aux_states=aux_params, grad_req="null")
    got = exe.forward(is_train=False)
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a.asnumpy().astype(np.float64), b.astype(np.float64),
                                   rtol=rtol, atol=atol)  # fmt: skip
