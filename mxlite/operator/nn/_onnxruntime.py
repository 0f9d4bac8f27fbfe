"""onnxruntime (the ``[onnx]`` extra) as a library of CPU kernels: its MLAS products run the
INT8 layers' integer sums (``_int8_gemm``) and, where they are faster, float32 convolutions of
inference forwards (:class:`ConvSession`, chosen per shape by ``_conv_algo``).

Design note
-----------
Each kernel is a small ONNX graph whose fixed weight is a constant of the graph, so that
onnxruntime packs it once when the session is made; the session is kept while the weight is
unchanged (the caller's cache). Each session runs on ``kernel_threads()`` threads of its own,
which sleep between calls: onnxruntime's one shared pool spins after every call and took the
cores from NumPy's kernels between them (see ``_conv_algo``'s design note for the figures).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..parallel import num_threads

__all__ = ["modules", "require", "session", "ConvSession"]


@functools.lru_cache(maxsize=1)
def modules() -> Any:
    """``(onnxruntime, onnx.helper, onnx.numpy_helper, onnx.TensorProto)``, or None when the
    ``[onnx]`` extra is not installed."""
    try:
        import onnxruntime
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        return None
    return onnxruntime, helper, numpy_helper, TensorProto


def require(setting: str) -> None:
    """Raise ImportError, naming the extra, where ``setting`` (an environment variable's
    value that forces onnxruntime) cannot be honoured."""
    if modules() is None:
        raise ImportError(f"{setting} needs onnxruntime and onnx: pip install mxlite[onnx]")


def session(nodes: list, inputs: list, outputs: list, constants: list) -> Any:
    """An onnxruntime session (CPU) of the graph ``nodes`` (opset 13) with ``constants``
    (``onnx`` tensors) as its initializers, on the kernel threads, which sleep between
    calls."""
    ort, helper, _, _ = modules()
    graph = helper.make_graph(nodes, "mxlite_kernel", inputs, outputs, constants)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    opts = ort.SessionOptions()
    opts.log_severity_level = 3  # its warnings are about its own graph rewrites
    opts.intra_op_num_threads = max(1, num_threads())
    opts.inter_op_num_threads = 1
    # spinning workers would take the cores from the other kernels between calls
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(model.SerializeToString(), opts, providers=["CPUExecutionProvider"])


class ConvSession:
    """A float32 N-D convolution (channels first, any stride, dilation, padding and groups) with
    a fixed weight ``w (F, C/groups, *kernel)``, optionally followed by the fused epilogue of
    mxlite's inference graphs: ``+ residual``, then ``relu``. ``bias`` is an input of each
    call, not a constant, so a refolded bias needs no new session."""

    def __init__(self, w: np.ndarray, geom: Any, bias: bool, residual: bool, relu: bool) -> None:
        self._session = _conv_session(w, geom, bias, residual, relu)

    def __call__(self, x: np.ndarray, bias: Any, residual: Any, out: np.ndarray) -> np.ndarray:
        """The output, written into ``out`` (float32, channels first, its full shape)."""
        feed = {"x": np.ascontiguousarray(x)}
        if bias is not None:
            feed["b"] = np.ascontiguousarray(bias, np.float32)
        if residual is not None:
            feed["z"] = np.ascontiguousarray(residual)
        if not _writable_apart(out, feed.values()):
            out[...] = self._session.run(None, feed)[0]
            return out
        # written in place: a new output array would cost its page faults and a copy per call
        binding = self._session.io_binding()
        for name, value in feed.items():
            binding.bind_cpu_input(name, value)
        binding.bind_output("y", "cpu", 0, np.float32, out.shape, out.ctypes.data)
        self._session.run_with_iobinding(binding)
        return out


def _conv_session(w: np.ndarray, geom: Any, bias: bool, residual: bool, relu: bool) -> Any:
    """A session of the convolution by ``w`` and its epilogue."""
    _, helper, numpy_helper, tp = modules()
    nd = len(geom.kernel)
    channels = w.shape[1] * geom.groups
    inputs = [helper.make_tensor_value_info("x", tp.FLOAT, ["n", channels, *"dhw"[-nd:]])]
    conv_in = ["x", "w"]
    if bias:
        inputs.append(helper.make_tensor_value_info("b", tp.FLOAT, [w.shape[0]]))
        conv_in.append("b")
    nodes = [
        helper.make_node(
            "Conv",
            conv_in,
            ["y0"],
            kernel_shape=list(geom.kernel),
            strides=list(geom.stride),
            dilations=list(geom.dilate),
            pads=list(geom.pad) * 2,
            group=geom.groups,
        )
    ]
    if residual:
        inputs.append(helper.make_tensor_value_info("z", tp.FLOAT, None))
        nodes.append(helper.make_node("Add", ["y0", "z"], ["y1"]))
    if relu:
        nodes.append(helper.make_node("Relu", [nodes[-1].output[0]], ["y2"]))
    nodes[-1].output[0] = "y"
    weight = numpy_helper.from_array(np.ascontiguousarray(w), "w")
    outputs = [helper.make_tensor_value_info("y", tp.FLOAT, None)]
    return session(nodes, inputs, outputs, [weight])


def _writable_apart(out: Any, inputs: Any) -> bool:
    return (
        isinstance(out, np.ndarray)
        and out.dtype == np.float32
        and out.flags.c_contiguous
        and out.flags.writeable
        and not any(np.shares_memory(out, a) for a in inputs)
    )
