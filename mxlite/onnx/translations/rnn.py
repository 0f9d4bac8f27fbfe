"""ONNX translation of the fused ``RNN`` operator: one ONNX LSTM / GRU / RNN node per layer.

MXNet packs every weight of every layer and direction into one flat vector (weights first,
i2h then h2h, then the biases the same way); ONNX wants per-layer W [D, G*H, in],
R [D, G*H, H] and B [D, 2*G*H], with its own gate order: LSTM i, o, f, c (MXNet i, f, c, o)
and GRU z, r, h (MXNet r, z, n; ``linear_before_reset=1`` is MXNet's and cuDNN's GRU).
"""

from __future__ import annotations

import numpy as np

from ...operator.registry import register_onnx
from .._walk import NodeContext

_GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}
_ORDER = {"lstm": [0, 3, 1, 2], "gru": [1, 0, 2], "rnn_tanh": [0], "rnn_relu": [0]}
_OP = {"lstm": "LSTM", "gru": "GRU", "rnn_tanh": "RNN", "rnn_relu": "RNN"}


def _split(flat: np.ndarray, layers: int, dirs: int, gates: int, hidden: int, inputs: int):
    """Per (layer, direction): (Wx, Wh, bx, bh) views of the flat parameter vector."""
    gh = gates * hidden
    off = 0
    w = {}
    for layer in range(layers):
        size_in = inputs if layer == 0 else dirs * hidden
        for d in range(dirs):
            wx = flat[off : off + gh * size_in].reshape(gh, size_in)
            off += gh * size_in
            wh = flat[off : off + gh * hidden].reshape(gh, hidden)
            off += gh * hidden
            w[(layer, d)] = [wx, wh]
    for layer in range(layers):
        for d in range(dirs):
            w[(layer, d)] += [flat[off : off + gh], flat[off + gh : off + 2 * gh]]
            off += 2 * gh
    return w


def _reorder(a: np.ndarray, mode: str, hidden: int) -> np.ndarray:
    blocks = [a[g * hidden : (g + 1) * hidden] for g in range(_GATES[mode])]
    return np.concatenate([blocks[g] for g in _ORDER[mode]], axis=0)


@register_onnx("RNN")
def _rnn(ctx: NodeContext) -> None:
    p = ctx.param
    if p.projection_size is not None:
        raise ctx.fail("projection_size", "ONNX's LSTM has no projection.")
    if p.lstm_state_clip_min is not None or p.lstm_state_clip_max is not None:
        raise ctx.fail("lstm_state_clip_min/max", "ONNX's LSTM clip is symmetric and pre-gate.")
    if p.use_sequence_length:
        raise ctx.fail("use_sequence_length=True", "sequence lengths are not exported.")
    flat = ctx.values[1]
    if flat is None:
        raise ctx.fail(None, "its 'parameters' input must be a parameter (initializer).")
    mode, hidden, layers = p.mode, p.state_size, p.num_layers
    dirs = 2 if p.bidirectional else 1
    gates = _GATES[mode]
    weights = _split(flat, layers, dirs, gates, hidden, ctx.in_shapes[0][2])
    x = ctx.inputs[0]
    state = ctx.inputs[2]
    cell = ctx.inputs[3] if mode == "lstm" else None
    hs, cs = [], []
    attrs = {"hidden_size": hidden, "direction": "bidirectional" if dirs == 2 else "forward"}
    if mode == "gru":
        attrs["linear_before_reset"] = 1
    if mode.startswith("rnn_"):
        attrs["activations"] = ["Tanh" if mode == "rnn_tanh" else "Relu"] * dirs
    for layer in range(layers):
        ws = [weights[(layer, d)] for d in range(dirs)]
        w = ctx.const(np.stack([_reorder(v[0], mode, hidden) for v in ws]), f"W{layer}")
        r = ctx.const(np.stack([_reorder(v[1], mode, hidden) for v in ws]), f"R{layer}")
        b = ctx.const(
            np.stack(
                [
                    np.concatenate([_reorder(v[2], mode, hidden), _reorder(v[3], mode, hidden)])
                    for v in ws
                ]
            ),
            f"B{layer}",
        )

        ins = [x, w, r, b, "", _layer_state(ctx, state, layer, layers, dirs)]
        if cell is not None:
            ins.append(_layer_state(ctx, cell, layer, layers, dirs))
        outs = ctx.emit(_OP[mode], ins, 3 if mode == "lstm" else 2, **attrs)
        hs.append(outs[1])
        if mode == "lstm":
            cs.append(outs[2])
        # Y (T, D, N, H) -> (T, N, D*H), the next layer's input and the output
        y = ctx.op1("Transpose", [outs[0]], perm=[0, 2, 1, 3])
        last = layer == layers - 1
        x = ctx.op1("Reshape", [y, ctx.ints([0, 0, -1], "yshape")], ctx.out(0) if last else None)
    n_out = len(ctx.outputs)
    for k in range(1, n_out):
        ctx.alias(k, "")
    if p.state_outputs:
        ctx.outputs[1] = _join(ctx, hs, 1)
        if mode == "lstm":
            ctx.outputs[2] = _join(ctx, cs, 2)


def _layer_state(ctx: NodeContext, t: str, layer: int, layers: int, dirs: int) -> str:
    if layers == 1:
        return t
    starts, ends = ctx.ints([layer * dirs], "s0"), ctx.ints([(layer + 1) * dirs], "s1")
    return ctx.op1("Slice", [t, starts, ends, ctx.ints([0], "ax")])


def _join(ctx: NodeContext, parts: list[str], k: int) -> str:
    name = ctx.gb.fresh(f"{ctx.name}_state{k}")
    if len(parts) == 1:
        return ctx.op1("Identity", parts, name)
    return ctx.op1("Concat", parts, name, axis=0)
