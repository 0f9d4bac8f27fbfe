"""Unrolled cell graphs shared by tools/golden/cases/rnn_cells.py (real MXNet) and the tests,
and the run both make of them (:func:`run`).

Each builder takes the ``mx`` module (``mxnet`` or ``mxlite``) and returns the symbol to run:
the outputs (merged or per step) grouped with the flattened final states. Begin states are
``Variable``s (``begin_0``, ...) so the golden file can feed them values.
"""

from __future__ import annotations

from typing import Any

# name -> (data shape, layout)
SHAPES = {
    "rnn_tanh": ((2, 3, 3), "NTC"),
    "rnn_relu_list": ((2, 3, 3), "NTC"),
    "lstm_tnc": ((3, 2, 3), "TNC"),
    "gru_list": ((2, 3, 3), "NTC"),
    "stack": ((2, 3, 3), "NTC"),
    "bidir": ((2, 3, 3), "NTC"),
    "bidir_list": ((2, 3, 3), "NTC"),
    "residual": ((2, 3, 3), "NTC"),
    "zoneout_dropout": ((2, 3, 3), "NTC"),
    "fused_lstm_bi2": ((3, 2, 3), "TNC"),
    "fused_gru_ntc": ((2, 3, 3), "NTC"),
}
STOCHASTIC = {"zoneout_dropout"}


def _flatten(states: Any) -> list:
    if isinstance(states, (list, tuple)):
        return [s for sub in states for s in _flatten(sub)]
    return [states]


def _make_cell(mx: Any, name: str) -> tuple[Any, bool | None]:
    r = mx.rnn
    if name == "rnn_tanh":
        return r.RNNCell(3, prefix="rnn_"), True
    if name == "rnn_relu_list":
        return r.RNNCell(3, activation="relu", prefix="relu_"), False
    if name == "lstm_tnc":
        return r.LSTMCell(3, prefix="lstm_", forget_bias=0.5), True
    if name == "gru_list":
        return r.GRUCell(3, prefix="gru_"), False
    if name == "stack":
        cell = r.SequentialRNNCell()
        cell.add(r.LSTMCell(3, prefix="l0_"))
        cell.add(r.GRUCell(3, prefix="l1_"))
        return cell, True
    if name in ("bidir", "bidir_list"):
        cell = r.BidirectionalCell(
            r.LSTMCell(3, prefix="fw_"), r.GRUCell(3, prefix="bw_"), output_prefix="bi_"
        )
        return cell, name == "bidir"
    if name == "residual":
        return r.ResidualCell(r.GRUCell(3, prefix="res_")), True
    if name == "zoneout_dropout":
        cell = r.SequentialRNNCell()
        cell.add(r.ZoneoutCell(r.LSTMCell(3, prefix="z_"), 0.5, 0.5))
        cell.add(r.DropoutCell(0.5, prefix="d_"))
        cell.add(r.RNNCell(3, prefix="after_"))
        return cell, False
    if name == "fused_lstm_bi2":
        return r.FusedRNNCell(
            3, num_layers=2, mode="lstm", bidirectional=True, get_next_state=True,
            prefix="flstm_",
        ), True  # fmt: skip
    if name == "fused_gru_ntc":
        return r.FusedRNNCell(2, num_layers=2, mode="gru", get_next_state=True), False
    raise KeyError(name)


def build(mx: Any, name: str) -> tuple[Any, Any]:
    """Return (cell, symbol) for case ``name``."""
    shape, layout = SHAPES[name]
    with mx.name.NameManager():  # fresh auto-name counters: concat0 on both sides
        return _build(mx, name, shape, layout)


def run(mx: Any, name: str, sym: Any, args: dict) -> tuple[list, dict]:
    """``sym`` of case ``name`` bound to ``args`` (name -> NDArray) with gradients written, a
    forward (in training mode unless the case is stochastic) and then, in training mode, a
    backward from all-ones head gradients: the outputs and the gradients."""
    grads = {n: mx.nd.zeros(a.shape) for n, a in args.items()}
    ex = sym.bind(mx.cpu(), args, args_grad=grads)
    outs = ex.forward(is_train=name not in STOCHASTIC)
    if name not in STOCHASTIC:
        ex.backward([mx.nd.ones(o.shape) for o in outs])
    return outs, grads


def _build(mx: Any, name: str, shape: tuple, layout: str) -> tuple[Any, Any]:
    cell, merge = _make_cell(mx, name)
    begin = [mx.sym.Variable(f"begin_{i}") for i in range(len(cell.state_info))]
    outputs, states = cell.unroll(
        shape[layout.find("T")], mx.sym.Variable("data"), begin_state=begin, layout=layout,
        merge_outputs=merge,
    )  # fmt: skip
    outs = [outputs] if isinstance(outputs, mx.sym.Symbol) else list(outputs)
    return cell, mx.sym.Group(outs + _flatten(states))
