"""mx.rnn cells: unrolled graphs against real MXNet's, fused against unfused, weight packing."""

import json

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError

from ..golden_file import load
from .cell_cases import SHAPES, build, run


def _golden():
    gold = load("rnn/golden/rnn_cells.npz")
    return gold.cases, gold, gold.__getitem__


@pytest.mark.parametrize("name", list(SHAPES))
def test_unroll_matches_mxnet(name):
    meta, index, get = _golden()
    case = meta[name]
    cell, sym = build(mx, name)
    assert sym.list_arguments() == case["arguments"]
    assert sym.list_outputs() == case["outputs"]
    if case["begin_state_names"] is not None:
        assert [s.name for s in cell.begin_state()] == case["begin_state_names"]
    args = {n: mx.nd.array(get(f"{name}/arg/{n}")) for n in case["arguments"]}
    outs, grads = run(mx, name, sym, args)
    assert [list(o.shape) for o in outs] == case["out_shapes"]
    for i, o in enumerate(outs):
        np.testing.assert_allclose(o.asnumpy(), get(f"{name}/out/{i}"), rtol=1e-4, atol=1e-5)
    if case["grads"]:
        for n in case["arguments"]:
            if f"{name}/grad/{n}" in index:
                np.testing.assert_allclose(
                    grads[n].asnumpy(), get(f"{name}/grad/{n}"), rtol=1e-4, atol=1e-5
                )


def _run(sym, args):
    ex = sym.bind(mx.cpu(), {n: args[n] for n in sym.list_arguments()})
    return [o.asnumpy() for o in ex.forward()]


@pytest.mark.parametrize(
    "mode,bidirectional", [("lstm", True), ("gru", False), ("rnn_tanh", True), ("rnn_relu", False)]
)
def test_fused_equals_unfused_stack(mode, bidirectional):
    T, N, C, H, L = 3, 2, 4, 3, 2
    fused = mx.rnn.FusedRNNCell(H, num_layers=L, mode=mode, bidirectional=bidirectional,
                                prefix="f_")  # fmt: skip
    stack = fused.unfuse()
    data = mx.sym.Variable("data")
    f_out, _ = fused.unroll(T, data, layout="TNC", merge_outputs=True,
                            begin_state=fused.begin_state(func=mx.sym.Variable))  # fmt: skip
    s_out, _ = stack.unroll(T, data, layout="TNC", merge_outputs=True,
                            begin_state=stack.begin_state(func=mx.sym.Variable))  # fmt: skip
    shapes, _, _ = f_out.infer_shape(
        data=(T, N, C), **{s.name: (L * (1 + bidirectional), N, H)
                           for s in fused.begin_state(func=mx.sym.Variable)})  # fmt: skip
    rng = np.random.default_rng(0)
    fused_args = {
        n: mx.nd.array(rng.uniform(-0.5, 0.5, s)) for n, s in zip(f_out.list_arguments(), shapes)
    }
    # every begin state zero on both sides: the fused and unfused states have other layouts
    for n in fused_args:
        if "begin_state" in n:
            fused_args[n][:] = 0
    stack_args = stack.pack_weights(fused.unpack_weights(fused_args))
    for n in s_out.list_arguments():
        if "begin_state" in n:
            stack_args[n] = mx.nd.zeros((N, H))
    expect = _run(s_out, stack_args)[0]
    got = _run(f_out, fused_args)[0]
    assert got.shape == (T, N, H * (1 + bidirectional))
    np.testing.assert_allclose(got, expect, rtol=1e-5, atol=1e-6)


def test_fused_pack_unpack_round_trip():
    cell = mx.rnn.FusedRNNCell(3, num_layers=2, mode="lstm", bidirectional=True, prefix="x_")
    out, _ = cell.unroll(2, mx.sym.Variable("data"), layout="TNC",
                         begin_state=cell.begin_state(func=mx.sym.Variable))  # fmt: skip
    n_params = out.infer_shape_partial(data=(2, 1, 5))[0][1][0]
    flat = mx.nd.array(np.arange(n_params, dtype=np.float32))
    unpacked = cell.unpack_weights({"x_parameters": flat, "other": mx.nd.ones((1,))})
    assert "x_parameters" not in unpacked and "other" in unpacked
    assert unpacked["x_l0_i2h_i_weight"].shape == (3, 5)
    assert unpacked["x_l1_i2h_f_weight"].shape == (3, 6)
    assert unpacked["x_r1_h2h_o_bias"].shape == (3,)
    assert len(unpacked) == 1 + 2 * 2 * 2 * 4 * 2
    packed = cell.pack_weights(unpacked)
    assert set(packed) == {"x_parameters", "other"}
    np.testing.assert_array_equal(packed["x_parameters"].asnumpy(), flat.asnumpy())


@pytest.mark.parametrize("make", [lambda: mx.rnn.LSTMCell(3, prefix="c_"),
                                  lambda: mx.rnn.GRUCell(3, prefix="c_"),
                                  lambda: mx.rnn.RNNCell(3, prefix="c_")])  # fmt: skip
def test_step_cell_pack_unpack_round_trip(make):
    cell = make()
    gates = len(cell._gate_names)
    rng = np.random.default_rng(1)
    args = {
        "c_i2h_weight": mx.nd.array(rng.normal(size=(3 * gates, 4))),
        "c_i2h_bias": mx.nd.array(rng.normal(size=(3 * gates,))),
        "c_h2h_weight": mx.nd.array(rng.normal(size=(3 * gates, 3))),
        "c_h2h_bias": mx.nd.array(rng.normal(size=(3 * gates,))),
    }
    unpacked = cell.unpack_weights(args)
    assert len(unpacked) == 4 * gates
    gate = cell._gate_names[-1]
    np.testing.assert_array_equal(
        unpacked[f"c_i2h{gate}_weight"].asnumpy(), args["c_i2h_weight"].asnumpy()[-3:]
    )
    packed = cell.pack_weights(unpacked)
    assert set(packed) == set(args)
    for n, v in args.items():
        np.testing.assert_array_equal(packed[n].asnumpy(), v.asnumpy())


def test_params_shared_between_cells():
    params = mx.rnn.RNNParams("shared_")
    a = mx.rnn.LSTMCell(3, prefix="a_", params=params)
    b = mx.rnn.LSTMCell(3, prefix="b_", params=params)
    x = mx.sym.Variable("x")
    out_a, _ = a(x, a.begin_state())
    out_b, _ = b(out_a, b.begin_state())
    weights = [n for n in out_b.list_arguments() if n.endswith("weight")]
    assert weights == ["shared_i2h_weight", "shared_h2h_weight"]


def test_sequential_params_and_child_params_conflict():
    # as in MXNet: a step cell uses its own container while it is built, so a stack given
    # params refuses it
    stack = mx.rnn.SequentialRNNCell(params=mx.rnn.RNNParams("s_"))
    with pytest.raises(MXNetError, match="SequentialRNNCell.add.*not both"):
        stack.add(mx.rnn.GRUCell(2, prefix="g_"))
    stack.add(mx.rnn.DropoutCell(0.5))
    assert stack.state_info == []


def test_bidirectional_params_and_child_params_conflict():
    # the same rule for both children of a BidirectionalCell given params; children with
    # their own containers share them into the pair's
    with pytest.raises(MXNetError, match="BidirectionalCell: give params.*not both"):
        mx.rnn.BidirectionalCell(
            mx.rnn.GRUCell(2, prefix="l_"), mx.rnn.GRUCell(2, prefix="r_"),
            params=mx.rnn.RNNParams("b_"),
        )  # fmt: skip
    bi = mx.rnn.BidirectionalCell(mx.rnn.GRUCell(2, prefix="l_"), mx.rnn.GRUCell(2, prefix="r_"))
    assert sorted(bi.params._params) == sorted(
        f"{s}_{g}_{k}" for s in "lr" for g in ("i2h", "h2h") for k in ("weight", "bias")
    )


def test_fused_ntc_warning_points_at_the_unroll_call():
    cell = mx.rnn.FusedRNNCell(4, prefix="f_")
    with pytest.warns(UserWarning, match="NTC layout detected") as record:
        cell.unroll(3, mx.sym.Variable("data"), layout="NTC")
    assert record[0].filename == __file__


def test_lstm_forget_bias_initializer_attr():
    cell = mx.rnn.LSTMCell(4, prefix="l_", forget_bias=2.0)
    out, _ = cell(mx.sym.Variable("x"), cell.begin_state())
    attrs = out.attr_dict()["l_i2h_bias"]
    assert json.loads(attrs["__init__"]) == ["lstmbias", {"forget_bias": 2.0}]


def test_begin_state_layout_and_modified_cell():
    cell = mx.rnn.GRUCell(4, prefix="g_")
    (state,) = cell.begin_state()
    assert state.attr("__layout__") == "NC"
    mx.rnn.ZoneoutCell(cell, zoneout_states=0.1)
    with pytest.raises(MXNetError, match="GRUCell.begin_state.*modifier"):
        cell.begin_state()


def test_bad_input_errors():
    cell = mx.rnn.LSTMCell(3)
    with pytest.raises(MXNetError, match="unroll.*inputs"):
        cell.unroll(3, None)
    with pytest.raises(MXNetError, match="unroll.*inputs.*2 steps.*length=3"):
        cell.unroll(3, [mx.sym.Variable("a"), mx.sym.Variable("b")])
    with pytest.raises(MXNetError, match="FusedRNNCell.*mode"):
        mx.rnn.FusedRNNCell(3, mode="lstmm")
    with pytest.raises(MXNetError, match="DropoutCell.*dropout"):
        mx.rnn.DropoutCell("0.5")
    with pytest.raises(MXNetError, match="ZoneoutCell.*FusedRNNCell"):
        mx.rnn.ZoneoutCell(mx.rnn.FusedRNNCell(3))
    bi = mx.rnn.BidirectionalCell(mx.rnn.GRUCell(2, prefix="l_"), mx.rnn.GRUCell(2, prefix="r_"))
    with pytest.raises(MXNetError, match="ZoneoutCell.*BidirectionalCell"):
        mx.rnn.ZoneoutCell(bi)
    with pytest.raises(NotImplementedError):
        mx.rnn.FusedRNNCell(3)(mx.sym.Variable("x"), [])


def test_default_begin_state_binds_and_runs():
    cell = mx.rnn.LSTMCell(4, prefix="lstm_")
    out, _ = cell.unroll(3, mx.sym.Variable("data"), merge_outputs=True)
    ex = out.simple_bind(mx.cpu(), data=(2, 3, 5))
    assert ex.forward()[0].shape == (2, 3, 4)


def test_cell_docs_share_the_prefix_and_params_text():
    rnn = mx.rnn
    cases = [(rnn.RNNCell, "rnn_"), (rnn.LSTMCell, "lstm_"), (rnn.GRUCell, "gru_"),
             (rnn.ConvLSTMCell, "ConvLSTM_"), (rnn.DropoutCell, "dropout_")]  # fmt: skip
    for cls, default in cases:
        assert "{" not in cls.__doc__ and f"default ``'{default}'``" in cls.__doc__
        assert "Container for weight sharing between cells. Created if None." in cls.__doc__
    assert "i.e. if `params` are being created and not reused" in rnn.FusedRNNCell.__doc__
    lstm = rnn.LSTMCell(3, prefix="l_")
    assert lstm.state_info == [{"shape": (0, 3), "__layout__": "NC"}] * 2
    assert lstm.state_info[0] is not lstm.state_info[1]


def test_stack_steps_its_cells_in_turn_and_refuses_a_bidirectional_one():
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(3, prefix="a_"))
    stack.add(mx.rnn.GRUCell(2, prefix="b_"))
    states = [mx.sym.Variable(f"s{i}") for i in range(3)]
    out, next_states = stack(mx.sym.Variable("x"), states)
    assert out.name == "b_t0_out"
    assert [s.name for s in next_states] == ["a_t0_out", "a_t0_state", "b_t0_out"]
    stack.add(mx.rnn.BidirectionalCell(mx.rnn.GRUCell(2, prefix="l_"), mx.rnn.GRUCell(2)))
    with pytest.raises(
        MXNetError,
        match=r"^SequentialRNNCell: a stack holding a BidirectionalCell cannot be stepped; "
        r"use unroll\.$",
    ):
        stack(mx.sym.Variable("x"), states + [None, None])


def test_unroll_splits_a_symbol_into_steps_and_refuses_a_grouped_one():
    cell = mx.rnn.RNNCell(2, prefix="r_")
    outputs, _ = cell.unroll(3, mx.sym.Variable("x"), layout="NTC", merge_outputs=False)
    assert [o.name for o in outputs] == ["r_t0_out", "r_t1_out", "r_t2_out"]
    grouped = mx.sym.Group([mx.sym.Variable("a"), mx.sym.Variable("b")])
    with pytest.raises(
        MXNetError,
        match=r"^unroll: argument 'inputs' is a grouped Symbol; pass list\(inputs\) or a "
        r"single Symbol with a time axis\.$",
    ):
        cell.unroll(2, grouped)


def test_cells_that_only_unroll_refuse_a_step():
    x = mx.sym.Variable("x")
    with pytest.raises(NotImplementedError, match=r"^FusedRNNCell cannot be stepped\. Please"):
        mx.rnn.FusedRNNCell(3)(x, [])
    bi = mx.rnn.BidirectionalCell(mx.rnn.GRUCell(2, prefix="l_"), mx.rnn.GRUCell(2, prefix="r_"))
    with pytest.raises(NotImplementedError, match=r"^Bidirectional cannot be stepped\. Please"):
        bi(x, [])
    with pytest.raises(NotImplementedError, match=r"^BaseRNNCell does not define one step$"):
        mx.rnn.BaseRNNCell()(x, [])
