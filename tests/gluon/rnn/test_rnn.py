"""mx.gluon.rnn against MXNet 1.9.1 (golden file of tools/golden/cases/gluon_rnn.py): parameter
names, outputs, states and input gradients of fused layers and unrolled cells, imperative and
hybridized; plus the behaviour MXNet's own tests check less directly."""

import numpy as np
import pytest

import mxlite as mx
from mxlite import autograd
from mxlite.gluon import rnn

from ...golden_file import load
from . import rnn_cases

ARRAYS = load("gluon/rnn/golden/rnn.npz")


def close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("hybrid", [False, True])
@pytest.mark.parametrize("k", range(len(rnn_cases.CASES)))
def test_against_mxnet(k, hybrid):
    ctor, _, kind = rnn_cases.CASES[k]
    case, layer = ARRAYS.cases[str(k)], kind == "layer"
    x = mx.nd.array(ARRAYS[f"{k}/x"])
    net = rnn_cases.make(mx, ctor, x, layer)
    assert list(net.collect_params().keys()) == case["params"]
    assert list(net._collect_params_with_prefix().keys()) == case["structural"]
    if hybrid:
        net.hybridize()
    got, rows = rnn_cases.runs(mx, net, x, ctor, layer)
    assert rows == case["runs"]
    want = {key: a for key, a in ARRAYS.arrays(str(k)).items() if key != "x"}
    assert sorted(got) == sorted(want)
    for key, a in want.items():
        close(got[key], a)


def test_layer_without_states_returns_the_output_only_and_checks_state_shapes():
    layer = rnn.GRU(3, input_size=2)
    layer.initialize()
    out = layer(mx.nd.ones((4, 2, 2)))
    assert isinstance(out, mx.nd.NDArray) and out.shape == (4, 2, 3)
    with pytest.raises(ValueError, match="Invalid recurrent state shape"):
        layer(mx.nd.ones((4, 2, 2)), mx.nd.zeros((1, 5, 3)))
    with pytest.raises(mx.base.MXNetError, match="layout"):
        rnn.LSTM(3, layout="CTN")


def test_layer_deferred_input_size_when_nested_and_hybridized():
    net = mx.gluon.nn.HybridSequential()
    net.add(rnn.LSTM(4, num_layers=2, bidirectional=True, layout="NTC"), mx.gluon.nn.Dense(2))
    net.initialize()
    net.hybridize()
    assert net(mx.nd.ones((2, 5, 7))).shape == (2, 2)
    assert net[0].l0_i2h_weight.shape == (16, 7)
    assert net[0].r1_i2h_weight.shape == (16, 8)


def test_unfuse_gives_the_same_outputs():
    layer = rnn.LSTM(3, num_layers=2, bidirectional=True, input_size=4)
    layer.initialize(mx.init.Uniform(0.5))
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (5, 2, 4)))
    cells = layer._unfuse()
    out, _ = cells.unroll(5, x, layout="TNC", merge_outputs=True)
    close(out.asnumpy(), layer(x).asnumpy())


def test_modified_cell_cannot_be_called_directly():
    cell = rnn.LSTMCell(3)
    rnn.ZoneoutCell(cell, 0.5, 0.5)
    with pytest.raises(mx.base.MXNetError, match="modifier"):
        cell.begin_state(batch_size=2)
    with pytest.raises(mx.base.MXNetError, match="already modified"):
        rnn.ResidualCell(cell)
    with pytest.raises(NotImplementedError):
        rnn.BidirectionalCell(rnn.RNNCell(2), rnn.RNNCell(2))(mx.nd.ones((1, 2)), [])


def test_hybridized_cell_chain_sums_gradients_of_a_repeated_output():
    # a hybridized cell returns (h, [h]): one graph entry twice; both head gradients count
    cell = rnn.RNNCell(4, input_size=4)
    cell.initialize(mx.init.Uniform(0.5))
    x = mx.nd.array(np.random.RandomState(1).rand(2, 4))
    x.attach_grad()

    def grad():
        with autograd.record():
            o, s = cell(x, [mx.nd.ones((2, 4))])
            o, s = cell(o, s)
        o.backward()
        return x.grad.asnumpy().copy()

    want = grad()
    cell.hybridize()
    close(grad(), want)


def test_symbolic_unroll_names():
    cell = rnn.GRUCell(3, prefix="gru_")
    out, states = cell.unroll(2, mx.sym.var("data"), merge_outputs=True)
    assert "gru_t1_out_output" in out.get_internals().list_outputs()
    assert out.infer_shape(data=(4, 2, 5))[1] == [(4, 2, 3)]


def test_a_cell_that_cannot_step_refuses_zoneout_and_variational_state_dropout():
    from mxlite.gluon import contrib

    def bidirectional():
        return rnn.BidirectionalCell(rnn.RNNCell(2), rnn.RNNCell(2))

    stack = rnn.HybridSequentialRNNCell()
    stack.add(bidirectional())
    for cell in (bidirectional(), stack):
        with pytest.raises(
            mx.base.MXNetError,
            match=r"^ZoneoutCell: a bidirectional cell cannot take zoneout \(it cannot be "
            r"stepped\)\. Please add ZoneoutCell to the cells underneath instead\.$",
        ):
            rnn.ZoneoutCell(cell, 0.5, 0.5)
    with pytest.raises(
        mx.base.MXNetError,
        match=r"^VariationalDropoutCell: a bidirectional cell cannot take variational state "
        r"dropout\. Please add VariationalDropoutCell to the cells underneath instead\.$",
    ):
        contrib.rnn.VariationalDropoutCell(stack, drop_states=0.5)
    # without state dropout it needs no stepping
    assert (
        contrib.rnn.VariationalDropoutCell(bidirectional(), drop_inputs=0.5).drop_inputs_mask
        is None
    )


def test_stack_steps_its_cells_in_turn_and_refuses_a_bidirectional_one():
    stack = rnn.SequentialRNNCell()
    stack.add(rnn.LSTMCell(3, input_size=2))
    stack.add(rnn.GRUCell(4, input_size=3))
    stack.initialize()
    out, states = stack(mx.nd.ones((1, 2)), stack.begin_state(batch_size=1))
    assert out.shape == (1, 4)
    assert [s.shape for s in states] == [(1, 3), (1, 3), (1, 4)]
    stack.add(rnn.BidirectionalCell(rnn.RNNCell(2), rnn.RNNCell(2)))
    with pytest.raises(
        mx.base.MXNetError,
        match=r"^SequentialRNNCell: a BidirectionalCell cannot be stepped; use unroll\.$",
    ):
        stack(mx.nd.ones((1, 2)), states + [None, None])


def test_unroll_splits_a_symbol_into_steps_and_refuses_a_grouped_one():
    cell = rnn.RNNCell(2, prefix="r_")
    outputs, _ = cell.unroll(3, mx.sym.Variable("x"), layout="NTC", merge_outputs=False)
    assert len(outputs) == 3
    grouped = mx.sym.Group([mx.sym.Variable("a"), mx.sym.Variable("b")])
    with pytest.raises(
        mx.base.MXNetError,
        match=r"^unroll doesn't allow grouped symbol as input\. Please convert to list with "
        r"list\(inputs\) first or let unroll handle splitting\.$",
    ):
        cell.unroll(2, grouped, merge_outputs=False)
