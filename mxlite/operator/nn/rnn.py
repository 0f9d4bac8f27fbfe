"""``RNN``: MXNet 1.9.1's fused multi-layer recurrent network (rnn_relu, rnn_tanh, lstm, gru).

Design note
-----------
Arguments are ``data`` (TNC), ``parameters`` (one flat vector), ``state``, ``state_cell``
(lstm only) and ``sequence_length`` (with ``use_sequence_length``). The flat vector is packed
as MXNet and cuDNN pack it: first every weight, layer by layer and direction by direction
(``i2h`` of shape (G*H, input), ``h2h`` of shape (G*H, H or P), and with ``projection_size``
``h2r`` of shape (P, H)), then every bias the same way (``i2h`` then ``h2h``, G*H each). Gate
order is i, f, g, o for LSTM and r, z, n for GRU, whose reset gate multiplies the recurrent
term *after* its matrix product: n = tanh(W_in x + b_in + r * (W_hn h + b_hn)).

Forward loops over time only: the input projection of a whole layer is one matrix product,
and each step adds one (N, H) x (H, G*H) product. Everything backward needs (gate
activations, the state after every step, each layer's input and dropout mask) goes into a
hidden fourth output, ``reserve`` (MXNet's reserve space), whose layout :func:`_layout`
computes from the shapes alone. Backward is BPTT with the same loop and never reruns forward,
so a dropout mask drawn in forward is the one backward uses.

With ``use_sequence_length`` a step t >= length[b] keeps batch b's state and writes zeros to
the output, as cuDNN's unpacked layout does; the reverse direction of b starts at
length[b] - 1. ``lstm_state_clip_min/max`` clip the cell state after each step (NaN goes to
the minimum with ``lstm_state_clip_nan``); the gradient is zero where a value was clipped.
MXNet's CPU kernels support neither option nor training with a projection (they are cuDNN
features); here they work on every device.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base import DTypeError, ParamError, ShapeError
from ...context import Context
from ...resource import ResourceRequest
from ..param import Param, field
from ..registry import Operator, OperatorProperty, register, shape_assign
from ..req import OpReq, assign
from .activation import check_float

_NULL, _WRITE = OpReq.NULL, OpReq.WRITE  # quicker than OpReq.X (req.py)

__all__ = ["RNNParam"]

_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


class RNNParam(Param):
    state_size: int = field(low=0, doc="size of the state for each layer")
    num_layers: int = field(low=0, doc="number of stacked layers")
    bidirectional: bool = field(default=False, doc="whether to use bidirectional recurrent layers")
    mode: str = field(
        choices=("rnn_relu", "rnn_tanh", "lstm", "gru"), doc="the type of RNN to compute"
    )
    p: float = field(
        default=0.0,
        low=0.0,
        high=1.0,
        doc="drop rate of the dropout on the outputs of each RNN layer, except the last layer.",
    )
    state_outputs: bool = field(default=False, doc="Whether to have the states as symbol outputs.")
    projection_size: int | None = field(default=None, doc="size of project size")
    lstm_state_clip_min: float | None = field(
        default=None,
        typename="double or None",
        doc="Minimum clip value of LSTM states. This option must be used together with "
        "lstm_state_clip_max.",
    )
    lstm_state_clip_max: float | None = field(
        default=None,
        typename="double or None",
        doc="Maximum clip value of LSTM states. This option must be used together with "
        "lstm_state_clip_min.",
    )
    lstm_state_clip_nan: bool = field(
        default=False,
        doc="Whether to stop NaN from propagating in state by clipping it to min/max. If "
        "clipping range is not specified, this option is ignored.",
    )
    use_sequence_length: bool = field(
        default=False,
        doc="If set to true, this layer takes in an extra input parameter `sequence_length` to "
        "specify variable length sequence",
    )


# ---------------------------------------------------------------------------------------------
# Layouts of the flat parameter vector and of the reserve space.


class _Dims:
    """The sizes one call works with (T, N, C from data; the rest from the parameters)."""

    def __init__(self, param: RNNParam, T: int, N: int, C: int) -> None:
        self.T, self.N, self.C = T, N, C
        self.L, self.D = param.num_layers, 2 if param.bidirectional else 1
        self.H = param.state_size
        self.P = param.projection_size
        self.Hout = self.P if self.P is not None else self.H  # the recurrent state's width
        self.G = _GATES[param.mode]
        self.mode = param.mode
        self.dropout = param.p > 0 and self.L > 1

    def in_size(self, layer: int) -> int:
        return self.C if layer == 0 else self.D * self.Hout


def _param_layout(d: _Dims) -> tuple[dict[tuple, tuple[int, tuple[int, ...]]], int]:
    """Offsets and shapes of every weight and bias in the flat vector, and its total size."""
    table: dict[tuple, tuple[int, tuple[int, ...]]] = {}
    off = 0
    gh = d.G * d.H
    for layer in range(d.L):
        for direc in range(d.D):
            shapes = [("wx", (gh, d.in_size(layer))), ("wh", (gh, d.Hout))]
            if d.P is not None:
                shapes.append(("wr", (d.P, d.H)))
            for name, shape in shapes:
                table[(name, layer, direc)] = (off, shape)
                off += shape[0] * shape[1]
    for layer in range(d.L):
        for direc in range(d.D):
            for name in ("bx", "bh"):
                table[(name, layer, direc)] = (off, (gh,))
                off += gh
    return table, off


def _layout(d: _Dims) -> tuple[dict[tuple, tuple[int, tuple[int, ...]]], int]:
    """Offsets and shapes of what forward keeps for backward in the reserve output."""
    table: dict[tuple, tuple[int, tuple[int, ...]]] = {}
    off = 0
    T, N = d.T, d.N

    def put(key: tuple, shape: tuple[int, ...]) -> None:
        nonlocal off
        table[key] = (off, shape)
        off += math.prod(shape)

    for layer in range(d.L):
        if layer > 0:
            put(("x", layer), (T, N, d.in_size(layer)))  # the layer's input, after dropout
            if d.dropout:
                put(("mask", layer), (T, N, d.in_size(layer)))
        for direc in range(d.D):
            put(("h", layer, direc), (T, N, d.Hout))  # the state after each step
            if d.mode in ("lstm", "gru"):
                put(("gates", layer, direc), (T, N, d.G * d.H))
            if d.mode == "lstm":
                put(("c", layer, direc), (T, N, d.H))
                if d.P is not None:
                    put(("hr", layer, direc), (T, N, d.H))  # h before the projection
            if d.mode == "gru":
                put(("hn", layer, direc), (T, N, d.H))  # W_hn h + b_hn
    return table, off


# reserve spaces up to this many elements (16 MiB of float32) are kept by the forward
_KEPT_RESERVE = 1 << 22


def _keeps_reserve(d: _Dims) -> bool:
    """Whether the reserve output holds the whole reserve space: with dropout between layers
    (backward must reuse forward's masks) or where it is small (d2l's language models: a
    second forward in backward made training 1.3x slower). Otherwise it is a token of one
    element (MXNet keeps its reserve inside the operator, outside the memory plan) and
    backward recomputes the reserve from the inputs, exactly, at the cost of a second
    forward."""
    return bool(d.dropout) or _layout(d)[1] <= _KEPT_RESERVE


def _views(flat: Any, table: dict) -> dict[tuple, Any]:
    return {k: flat[o : o + math.prod(s)].reshape(s) for k, (o, s) in table.items()}


def _step_product(xp: Any, dtype: Any) -> Any:
    """The 2-D matrix product of one time step, ``f(a, b, out=c)``: NumPy's ``dot`` for float32
    and float64 (the same BLAS call as ``matmul``, bit for bit, without the ufunc machinery:
    1.1 against 2.1 us for 32x32 matrices), else ``matmul``."""
    return xp.dot if xp is np and dtype in (np.float32, np.float64) else xp.matmul


def _sigmoid(xp: Any, x: Any) -> Any:
    with np.errstate(over="ignore"):
        return 1 / (1 + xp.exp(-x))


# ---------------------------------------------------------------------------------------------
# The operator.


class _RNNOp(Operator):
    def _clip(self, c: Any) -> Any:
        """Clip the cell state in place as cuDNN does."""
        p = self.prop.param
        lo, hi = p.lstm_state_clip_min, p.lstm_state_clip_max
        if lo is None or hi is None:
            return c
        if p.lstm_state_clip_nan:
            c[self.xp.isnan(c)] = lo
        return self.xp.clip(c, lo, hi, out=c)

    def _steps(self, d: _Dims, direc: int) -> range:
        return range(d.T) if direc == 0 else range(d.T - 1, -1, -1)

    def forward(self, op_ctx, in_data, req, out_data, aux):
        xp, p = self.xp, self.prop.param
        x = in_data[0]
        T, N, C = x.shape
        d = _Dims(p, T, N, C)
        lstm = d.mode == "lstm"
        w = _views(in_data[1], _param_layout(d)[0])
        h0 = in_data[2]
        c0 = in_data[3] if lstm else None
        seq = in_data[-1] if p.use_sequence_length else None
        table, size = _layout(d)
        flat = out_data[-1]
        if flat.size != size:  # a token reserve: work in a scratch buffer (see _keeps_reserve)
            flat = xp.empty((size,), x.dtype)
        res = _views(flat, table)
        masks = None
        if seq is not None:
            lens = xp.asarray(seq).astype(np.int64)
            masks = (xp.arange(T)[:, None] < lens[None, :])[:, :, None].astype(x.dtype)
        hy = xp.empty((d.L * d.D, N, d.Hout), x.dtype)
        cy = xp.empty((d.L * d.D, N, d.H), x.dtype) if lstm else None
        inp = x
        for layer in range(d.L):
            if layer > 0:
                if d.dropout and op_ctx.is_train:
                    rng = op_ctx.requested[0].get_random()
                    keep = xp.asarray(rng.random(inp.shape, dtype=np.float32)) >= p.p
                    mask = res[("mask", layer)]
                    xp.multiply(keep, x.dtype.type(1.0 / (1.0 - p.p)), out=mask, casting="unsafe")
                    inp = inp * mask
                elif d.dropout:
                    res[("mask", layer)][...] = 1
                res[("x", layer)][...] = inp
            y = out_data[0]  # the last layer writes its states straight into the output
            if layer < d.L - 1 or req[0] != _WRITE or y is None or y.dtype != x.dtype:
                y = xp.empty((T, N, d.D * d.Hout), x.dtype)
            for direc in range(d.D):
                k = layer * d.D + direc
                cell = self._layer_forward(d, layer, direc, inp, w, res, h0[k], c0, masks)
                hs = res[("h", layer, direc)]
                y[:, :, direc * d.Hout : (direc + 1) * d.Hout] = hs if masks is None else hs * masks
                hy[k] = hs[-1] if direc == 0 else hs[0]  # the state after the last step
                if lstm:
                    cy[k] = cell
            inp = y
        assign(out_data[0], req[0], inp)
        if p.state_outputs:
            assign(out_data[1], req[1], hy)
            if lstm:
                assign(out_data[2], req[2], cy)

    def _layer_forward(self, d, layer, direc, inp, w, res, h0, c0, masks):
        """Run one direction of one layer, filling the reserve; return the last cell state."""
        xp, T, N, H = self.xp, d.T, d.N, d.H
        key = (layer, direc)
        wx, wh = w[("wx", *key)], w[("wh", *key)]
        xw = (inp.reshape(T * N, -1) @ wx.T).reshape(T, N, -1) + w[("bx", *key)]
        bh = w[("bh", *key)]
        hs = res[("h", *key)]
        h = h0
        c = None
        if d.mode == "lstm":
            c = c0[layer * d.D + direc]
            gates, cs = res[("gates", *key)], res[("c", *key)]
            wr = w.get(("wr", *key))
            hrs = res.get(("hr", *key))
        elif d.mode == "gru":
            gates, hns = res[("gates", *key)], res[("hn", *key)]
        if d.mode in ("rnn_tanh", "rnn_relu") and masks is None:
            # each step in place in its row of the reserve: h_t = act(h_{t-1} Wh^T + (xw_t + bh))
            xw += bh
            mm, whT = _step_product(xp, wh.dtype), wh.T
            for t in self._steps(d, direc):
                ht = hs[t]
                mm(h, whT, out=ht)
                ht += xw[t]
                if d.mode == "rnn_tanh":
                    xp.tanh(ht, out=ht)
                else:
                    xp.maximum(ht, 0, out=ht)
                h = ht
            return c
        for t in self._steps(d, direc):
            hw = h @ wh.T + bh
            a = xw[t] + hw
            if d.mode == "lstm":
                g = gates[t]
                g[:, : 2 * H] = _sigmoid(xp, a[:, : 2 * H])
                g[:, 2 * H : 3 * H] = xp.tanh(a[:, 2 * H : 3 * H])
                g[:, 3 * H :] = _sigmoid(xp, a[:, 3 * H :])
                c_new = g[:, H : 2 * H] * c + g[:, :H] * g[:, 2 * H : 3 * H]
                c_new = self._clip(c_new)
                h_new = g[:, 3 * H :] * xp.tanh(c_new)
                if wr is not None:
                    hrs[t] = h_new
                    h_new = h_new @ wr.T
                if masks is not None:
                    c_new = masks[t] * c_new + (1 - masks[t]) * c
                cs[t] = c_new
                c = cs[t]
            elif d.mode == "gru":
                g = gates[t]
                g[:, : 2 * H] = _sigmoid(xp, a[:, : 2 * H])
                hns[t] = hw[:, 2 * H :]
                g[:, 2 * H :] = xp.tanh(xw[t][:, 2 * H :] + g[:, :H] * hw[:, 2 * H :])
                z = g[:, H : 2 * H]
                h_new = (1 - z) * g[:, 2 * H :] + z * h
            elif d.mode == "rnn_tanh":
                h_new = xp.tanh(a)
            else:
                h_new = xp.maximum(a, 0)
            if masks is not None:
                h_new = masks[t] * h_new + (1 - masks[t]) * h
            hs[t] = h_new
            h = hs[t]
        return c

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux):
        xp, p = self.xp, self.prop.param
        x = in_data[0]
        T, N, C = x.shape
        d = _Dims(p, T, N, C)
        lstm = d.mode == "lstm"
        ptable, _ = _param_layout(d)
        w = _views(in_data[1], ptable)
        dflat = xp.zeros(in_data[1].shape, x.dtype)
        dw = _views(dflat, ptable)
        table, size = _layout(d)
        flat = out_data[-1]
        if flat.size != size:
            # no reserve was kept: rerun the (deterministic, dropout-free) forward to rebuild it
            flat = xp.empty((size,), x.dtype)
            outs = [None] * (len(out_data) - 1) + [flat]
            self.forward(op_ctx, in_data, [_NULL] * len(out_data), outs, aux)
        res = _views(flat, table)
        h0 = in_data[2]
        c0 = in_data[3] if lstm else None
        masks = None
        if p.use_sequence_length:
            lens = xp.asarray(in_data[-1]).astype(np.int64)
            masks = (xp.arange(T)[:, None] < lens[None, :])[:, :, None].astype(x.dtype)
        dh0 = xp.zeros_like(h0)
        dc0 = xp.zeros_like(c0) if lstm else None
        dhy = out_grad[1] if p.state_outputs else None
        dcy = out_grad[2] if p.state_outputs and lstm else None
        dy = out_grad[0]
        for layer in range(d.L - 1, -1, -1):
            inp = x if layer == 0 else res[("x", layer)]
            # the data's gradient only where asked for (d2l's one-hot input needs none)
            dinp = xp.zeros(inp.shape, x.dtype) if layer > 0 or req[0] != _NULL else None
            for direc in range(d.D):
                k = layer * d.D + direc
                dy_d = dy[:, :, direc * d.Hout : (direc + 1) * d.Hout]
                dh = dhy[k].copy() if dhy is not None else xp.zeros((N, d.Hout), x.dtype)
                dc = None
                if lstm:
                    dc = dcy[k].copy() if dcy is not None else xp.zeros((N, d.H), x.dtype)
                dh, dc = self._layer_backward(
                    d, layer, direc, inp, dinp, dy_d, dh, dc, w, dw, res, h0[k], c0, masks
                )
                dh0[k] = dh
                if lstm:
                    dc0[k] = dc
            if layer > 0:
                if d.dropout:
                    dinp *= res[("mask", layer)]
                dy = dinp
            elif req[0] != _NULL:
                assign(in_grad[0], req[0], dinp)
        if req[1] != _NULL:
            assign(in_grad[1], req[1], dflat)
        if req[2] != _NULL:
            assign(in_grad[2], req[2], dh0)
        if lstm and req[3] != _NULL:
            assign(in_grad[3], req[3], dc0)
        if p.use_sequence_length and req[-1] != _NULL:
            assign(in_grad[-1], req[-1], 0)

    def _layer_backward(self, d, layer, direc, inp, dinp, dy, dh, dc, w, dw, res, h0, c0, masks):
        """BPTT through one direction of one layer; accumulate weight and input gradients and
        return the gradients of the initial states."""
        xp, T, N, H = self.xp, d.T, d.N, d.H
        key = (layer, direc)
        k = layer * d.D + direc
        clip = None
        p = self.prop.param
        if p.lstm_state_clip_min is not None and p.lstm_state_clip_max is not None:
            clip = (p.lstm_state_clip_min, p.lstm_state_clip_max)
        wh = w[("wh", *key)]
        hs = res[("h", *key)]
        steps = list(self._steps(d, direc))
        # the state each step started from
        hprev = xp.empty(hs.shape, hs.dtype)
        hprev[steps[0]] = h0
        if direc == 0:
            hprev[1:] = hs[:-1]
        else:
            hprev[:-1] = hs[1:]
        dgx = xp.empty((T, N, d.G * H), dy.dtype)  # gradient of the input-side pre-activations
        dgh = dgx if d.mode != "gru" else xp.empty_like(dgx)  # and of the recurrent side
        if d.mode == "lstm":
            gates, cs = res[("gates", *key)], res[("c", *key)]
            cprev = xp.empty_like(cs)
            cprev[steps[0]] = c0[k]
            if direc == 0:
                cprev[1:] = cs[:-1]
            else:
                cprev[:-1] = cs[1:]
            wr = w.get(("wr", *key))
            hrs = res.get(("hr", *key))
            dhnew_all = xp.empty((T, N, d.Hout), dy.dtype) if wr is not None else None
        elif d.mode == "gru":
            gates, hns = res[("gates", *key)], res[("hn", *key)]
        if d.mode in ("rnn_tanh", "rnn_relu") and masks is None:
            # the activation's derivative for every step at once, then per step in place:
            # dgx_t = (dh + dy_t) * act'(h_t), dh = dgx_t Wh
            fac = 1 - hs * hs if d.mode == "rnn_tanh" else (hs > 0).astype(hs.dtype)
            dh = dh.copy()
            mm = _step_product(xp, wh.dtype)
            for t in reversed(steps):
                da = dgx[t]
                xp.add(dh, dy[t], out=da)
                da *= fac[t]
                mm(da, wh, out=dh)
        else:
            for t in reversed(steps):
                m = masks[t] if masks is not None else None
                g_tot = dh + dy[t]
                dh_new = g_tot if m is None else m * g_tot
                dh_keep = None if m is None else (1 - m) * dh
                if d.mode == "lstm":
                    g = gates[t]
                    i, f, gg, o = g[:, :H], g[:, H : 2 * H], g[:, 2 * H : 3 * H], g[:, 3 * H :]
                    if wr is not None:
                        dhnew_all[t] = dh_new
                        dh_new = dh_new @ wr
                    tc = xp.tanh(cs[t])
                    dc_new = dc if m is None else m * dc
                    dc_new = dc_new + dh_new * o * (1 - tc * tc)
                    if clip is not None:  # no gradient where the cell state was clipped
                        dc_new = dc_new * ((cs[t] > clip[0]) & (cs[t] < clip[1]))
                    da = dgx[t]
                    da[:, :H] = dc_new * gg * i * (1 - i)
                    da[:, H : 2 * H] = dc_new * cprev[t] * f * (1 - f)
                    da[:, 2 * H : 3 * H] = dc_new * i * (1 - gg * gg)
                    da[:, 3 * H :] = dh_new * tc * o * (1 - o)
                    dc = dc_new * f if m is None else dc_new * f + (1 - m) * dc
                    dh = da @ wh
                elif d.mode == "gru":
                    g = gates[t]
                    r, z, n = g[:, :H], g[:, H : 2 * H], g[:, 2 * H :]
                    dn = dh_new * (1 - z) * (1 - n * n)
                    da = dgx[t]
                    da[:, :H] = dn * hns[t] * r * (1 - r)
                    da[:, H : 2 * H] = dh_new * (hprev[t] - n) * z * (1 - z)
                    da[:, 2 * H :] = dn
                    dgh[t, :, : 2 * H] = da[:, : 2 * H]
                    dgh[t, :, 2 * H :] = dn * r
                    dh = dh_new * z + dgh[t] @ wh
                else:
                    h = hs[t]
                    if d.mode == "rnn_tanh":
                        dgx[t] = dh_new * (1 - h * h)
                    else:
                        dgx[t] = dh_new * (h > 0)
                    dh = dgx[t] @ wh
                if dh_keep is not None:
                    dh = dh + dh_keep
        gx2 = dgx.reshape(T * N, -1)
        gh2 = dgh.reshape(T * N, -1)
        dw[("wx", *key)][...] = gx2.T @ inp.reshape(T * N, -1)
        # (NumPy: the reduction behind ndarray.sum's Python wrapper)
        dw[("bx", *key)][...] = (np.add.reduce if xp is np else xp.sum)(gx2, axis=0)
        dw[("wh", *key)][...] = gh2.T @ hprev.reshape(T * N, -1)
        # the two biases share their gradient unless GRU keeps the recurrent side apart
        dw[("bh", *key)][...] = dw[("bx", *key)] if dgh is dgx else xp.sum(gh2, axis=0)
        if d.mode == "lstm" and wr is not None:
            dw[("wr", *key)][...] = dhnew_all.reshape(T * N, -1).T @ hrs.reshape(T * N, -1)
        if dinp is not None:
            dinp += (gx2 @ w[("wx", *key)]).reshape(dinp.shape)
        return dh, dc


# ---------------------------------------------------------------------------------------------
# The property.


@register("RNN", aliases=("_npx_rnn",))
class RNNProp(OperatorProperty):
    """Fused recurrent layers (rnn_relu, rnn_tanh, lstm, gru) over TNC data."""

    lists_output_names = True

    lists_input_names = True

    param_class = RNNParam
    quantizable = "must"

    def quantized_op(self, granularity: str) -> tuple[str, dict[str, str]] | None:
        """Fact for quantization: an LSTM has a quantized form (MXNet's oneDNN build), marked
        ``quantized='true'``."""
        if self.param.mode != "lstm":
            return None
        return "_contrib_quantized_rnn", {"quantized": "true"}

    def asym_quantize_input(self, index: int) -> bool:
        """Fact for quantization: the data goes through ``quantize_asym`` (uint8)."""
        return index == 0

    def avoid_quantize_input(self, index: int, granularity: str) -> bool:
        """Fact for quantization: the parameters and the begin states stay float."""
        return index in (1, 2, 3)

    def avoid_dequantize_output(self, index: int) -> bool:
        """Fact for quantization: the quantized LSTM's outputs are float."""
        return True

    def __init__(self, param: Any = None, attrs: dict[str, str] | None = None) -> None:
        p = param
        if p is not None:
            where = "RNN"
            if p.p >= 1:
                raise ParamError(f"{where}: argument 'p' must be in [0, 1), got {p.p}.")
            if p.projection_size is not None:
                if p.mode != "lstm":
                    raise ParamError(
                        f"{where}: argument 'projection_size' needs mode='lstm', got mode="
                        f"{p.mode!r}."
                    )
                if p.projection_size > p.state_size or p.projection_size < 1:
                    raise ParamError(
                        f"{where}: argument 'projection_size' must be in [1, state_size="
                        f"{p.state_size}], got {p.projection_size}."
                    )
            lo, hi = p.lstm_state_clip_min, p.lstm_state_clip_max
            if lo is not None or hi is not None:
                if p.mode != "lstm":
                    raise ParamError(
                        f"{where}: argument 'lstm_state_clip_min' needs mode='lstm', got "
                        f"mode={p.mode!r}."
                    )
                if lo is None or hi is None or hi < lo:
                    raise ParamError(
                        f"{where}: arguments 'lstm_state_clip_min' and 'lstm_state_clip_max' "
                        f"must be given together with min <= max, got {lo} and {hi}."
                    )
        super().__init__(param, attrs)

    def list_arguments(self) -> list[str]:
        args = ["data", "parameters", "state"]
        if self.param.mode == "lstm":
            args.append("state_cell")
        if self.param.use_sequence_length:
            args.append("sequence_length")
        return args

    def list_outputs(self) -> list[str]:
        outs = ["output"]
        if self.param.state_outputs:
            outs.append("state_output")
            if self.param.mode == "lstm":
                outs.append("statecell_output")
        return [*outs, "reserve"]

    def num_visible_outputs(self) -> int:
        return self.num_outputs() - 1

    def infer_shape(self, in_shape, out_shape=None):
        self.check_num_inputs(in_shape)
        data = in_shape[0]
        if data is None or len(data) == 0:
            return None
        if len(data) != 3:
            raise ShapeError(
                f"{self.where()}: argument 'data' must be 3-D (sequence length, batch, input "
                f"size), got shape {tuple(data)}."
            )
        T, N, C = data
        p = self.param
        d = _Dims(p, T, N, C)
        ins = list(in_shape)
        ins[1] = shape_assign(self, "argument", "parameters", ins[1], (_param_layout(d)[1],))
        ins[2] = shape_assign(self, "argument", "state", ins[2], (d.L * d.D, N, d.Hout))
        if p.mode == "lstm":
            ins[3] = shape_assign(self, "argument", "state_cell", ins[3], (d.L * d.D, N, d.H))
        if p.use_sequence_length:
            ins[-1] = shape_assign(self, "argument", "sequence_length", ins[-1], (N,))
        if 0 in data:
            return ins, [None] * self.num_outputs(), []
        outs = [(T, N, d.D * d.Hout)]
        if p.state_outputs:
            outs.append((d.L * d.D, N, d.Hout))
            if p.mode == "lstm":
                outs.append((d.L * d.D, N, d.H))
        outs.append((_layout(d)[1],) if _keeps_reserve(d) else (1,))
        return ins, outs, []

    def infer_type(self, in_type, out_type=None):
        names = self.list_arguments()
        dt = in_type[0]
        if dt is None:
            return None
        check_float(self, "data", dt)
        ins = list(in_type)
        for i, t in enumerate(in_type):
            if self.param.use_sequence_length and i == len(names) - 1:
                ins[i] = dt if t is None else t
            elif t is None:
                ins[i] = dt
            elif np.dtype(t) != np.dtype(dt):
                raise DTypeError(
                    f"{self.where()}: argument {names[i]!r} has dtype {np.dtype(t).name}; "
                    f"expected {np.dtype(dt).name} like 'data'."
                )
        return ins, [dt] * self.num_outputs(), []

    def forward_resource(self, in_shape):
        return [ResourceRequest.RANDOM] if self.param.p > 0 else []

    def is_train_dependent(self) -> bool:
        return self.param.p > 0

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        return [*out_grad[:-1], *in_data, out_data[-1]]

    def create_operator(self, ctx: Context) -> Operator:
        return _RNNOp(self, ctx.xp)
