"""``mx.contrib.quantization``: the graph pass's rules (smart/full modes, reuse of quantize
nodes, dequantize before float consumers, offline parameters, calibration names), the Module
and Gluon entry points, the collectors, and errors at the call. MXNet's own results are in
test_quantization_golden.py."""

from __future__ import annotations

import json
import logging
import os

import numpy as np
import pytest

import mxlite as mx
from mxlite.contrib import quantization as q


def _nodes(sym: mx.sym.Symbol) -> dict[str, dict]:
    return {n["name"]: n for n in json.loads(sym.tojson())["nodes"]}


def _conv_net() -> mx.sym.Symbol:
    data = mx.sym.var("data")
    c = mx.sym.Convolution(data, kernel=(1, 1), num_filter=4, name="conv")
    r = mx.sym.Activation(c, act_type="relu", name="relu")
    s = mx.sym.sigmoid(r, name="sig")  # no quantized form: a float consumer
    total = mx.sym.flatten(r, name="flat") + mx.sym.reshape(s, (0, -1), name="rs")
    return mx.sym.FullyConnected(total, num_hidden=3, name="fc")


def test_quantize_symbol_inserts_quantize_requantize_and_dequantize() -> None:
    qsym, calib = q._quantize_symbol(_conv_net(), mx.cpu(), offline_params=["conv_weight"])
    nodes = _nodes(qsym)
    assert nodes["data_quantize"]["op"] == "_contrib_quantize_v2"
    assert nodes["data_quantize"]["attrs"] == {"out_type": "int8"}
    assert nodes["quantized_conv"]["op"] == "_contrib_quantized_conv"
    assert nodes["requantize_conv"]["attrs"] == {"out_type": "int8"}
    # smart mode: relu lies between conv and fc (through flat and the sum), so it is
    # quantized; the float sigmoid reads it through a dequantize
    assert nodes["quantized_relu"]["op"] == "_contrib_quantized_act"
    assert nodes["sig"]["inputs"] == [[list(nodes).index("relu_dequantize"), 0, 0]]
    # the sum's float input (a reshape) gets a quantize named by its output index
    assert nodes["rs_0_quantize"]["attrs"] == {"out_type": "int8"}
    # offline parameters become variables; the others are quantized in the graph
    assert "conv_weight_quantize" in qsym.list_arguments()
    assert nodes["conv_bias_quantize"]["op"] == "_contrib_quantize_v2"
    assert calib[:3] == ["data", "conv_bias", "conv_output"]


def test_smart_mode_leaves_float_what_no_two_must_nodes_surround() -> None:
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=4, name="fc")
    relu = mx.sym.Activation(fc, act_type="relu", name="relu")  # after fc, before nothing
    nodes = _nodes(q._quantize_symbol(relu, mx.cpu())[0])
    assert nodes["relu"]["op"] == "Activation"
    assert nodes["relu"]["inputs"] == [[list(nodes).index("fc_dequantize"), 0, 0]]
    nodes = _nodes(q._quantize_symbol(relu, mx.cpu(), quantize_mode="full")[0])
    assert nodes["quantized_relu"]["op"] == "_contrib_quantized_act"
    assert "relu_dequantize" in nodes


def test_one_quantize_node_serves_every_user_of_an_entry() -> None:
    data = mx.sym.var("data")
    a = mx.sym.FullyConnected(data, num_hidden=2, name="fa")
    b = mx.sym.FullyConnected(data, num_hidden=2, name="fb")
    qsym, _ = q._quantize_symbol(mx.sym.Group([a, b]), mx.cpu())
    nodes = json.loads(qsym.tojson())["nodes"]
    assert [n["name"] for n in nodes].count("data_quantize") == 1


def test_excluded_names_and_operators_stay_float() -> None:
    sym = _conv_net()
    qsym, _ = q._quantize_symbol(sym, mx.cpu(), excluded_symbols=["conv"])
    assert "quantized_conv" not in _nodes(qsym)
    qsym, _ = q._quantize_symbol(sym, mx.cpu(), excluded_operators=["FullyConnected"])
    assert "quantized_fc" not in _nodes(qsym) and "quantized_conv" in _nodes(qsym)


def test_operators_say_which_parameters_have_a_quantized_form() -> None:
    data = mx.sym.var("data")
    tanh = mx.sym.Activation(data, act_type="tanh", name="t")
    pool = mx.sym.Pooling(tanh, kernel=(2, 2), pool_type="sum", name="p")
    fc = mx.sym.FullyConnected(pool, num_hidden=2, name="fc")
    qsym, _ = q._quantize_symbol(fc, mx.cpu(), quantize_mode="full")
    nodes = _nodes(qsym)
    assert nodes["t"]["op"] == "Activation" and nodes["p"]["op"] == "Pooling"
    # Pooling lists its output names: the quantize node is named by it
    assert nodes["p_output_quantize"]["inputs"] == [[list(nodes).index("p"), 0, 0]]


def test_calib_table_sets_ranges_as_c_floats() -> None:
    qsym, calib = q._quantize_symbol(_conv_net(), mx.cpu())
    table = {name: (np.float32(-0.5), np.array([1.25], np.float32)) for name in calib}
    nodes = _nodes(q._calibrate_quantized_sym(qsym, table))
    assert nodes["requantize_conv"]["attrs"]["min_calib_range"] == "-0.500000"
    assert nodes["data_quantize"]["attrs"]["max_calib_range"] == "1.250000"
    assert "min_calib_range" not in _nodes(qsym)["requantize_conv"].get("attrs", {})


def _model() -> tuple[mx.sym.Symbol, dict, dict, mx.io.NDArrayIter]:
    data = mx.sym.var("data")
    c = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv")
    fc = mx.sym.FullyConnected(mx.sym.Activation(c, act_type="relu", name="relu"),
                               num_hidden=3, name="fc")  # fmt: skip
    sym = mx.sym.SoftmaxOutput(fc, name="softmax")
    rng = np.random.RandomState(0)
    args = {"conv_weight": rng.randn(4, 3, 3, 3) * 0.3, "conv_bias": rng.randn(4) * 0.1,
            "fc_weight": rng.randn(3, 64) * 0.2, "fc_bias": rng.randn(3) * 0.1}  # fmt: skip
    args = {k: mx.nd.array(v) for k, v in args.items()}
    x = rng.uniform(-1, 1, (8, 3, 4, 4)).astype(np.float32)
    return sym, args, {}, mx.io.NDArrayIter(x, np.zeros(8), batch_size=4)


def _forward(qsym: mx.sym.Symbol, qargs: dict, it: mx.io.NDArrayIter) -> np.ndarray:
    it.reset()
    feed = {"data": next(it).data[0], "softmax_label": mx.nd.zeros((4,))}
    return qsym.bind(mx.cpu(), {**feed, **qargs}).forward()[0].asnumpy()


def test_quantize_graph_then_calib_graph_equals_quantize_model() -> None:
    sym, args, aux, it = _model()
    want, wargs, _ = q.quantize_model(sym, args, aux, calib_mode="naive", calib_data=it,
                                      quantize_mode="full")  # fmt: skip
    qsym, _, _, collector = q.quantize_graph(sym, args, aux, calib_mode="naive",
                                             quantize_mode="full")  # fmt: skip
    mod = mx.mod.Module(sym, context=mx.cpu())
    it.reset()
    mod.bind(it.provide_data, it.provide_label, for_training=False)
    mod.set_params(args, aux)
    q._collect_layer_statistics(mod, it, collector)
    got, gargs, _ = q.calib_graph(qsym, args, aux, collector, calib_mode="naive", logger=None)
    assert got.tojson() == want.tojson()
    np.testing.assert_array_equal(_forward(got, gargs, it), _forward(want, wargs, it))


def test_customize_calibration_takes_the_users_collector() -> None:
    sym, args, aux, it = _model()

    class Fixed:
        min_max_dict = {"conv_output": (-1.0, 2.0)}

        def collect(self, name: bytes, arr: object) -> None:
            pass

    qsym, _, _, collector = q.quantize_graph(sym, args, aux, calib_mode="customize",
                                             LayerOutputCollector=Fixed())  # fmt: skip
    got, _, _ = q.calib_graph(qsym, args, aux, collector, calib_mode="customize", logger=None)
    assert _nodes(got)["requantize_conv"]["attrs"]["max_calib_range"] == "2.000000"


def test_quantize_model_mkldnn_runs_the_backend_before_and_after(monkeypatch) -> None:
    sym, args, aux, it = _model()
    calls = []
    real = mx.sym.Symbol.get_backend_symbol

    def spy(self: mx.sym.Symbol, backend: str) -> mx.sym.Symbol:
        calls.append(backend)
        return real(self, backend)

    monkeypatch.setattr(mx.sym.Symbol, "get_backend_symbol", spy)
    q.quantize_model_mkldnn(sym, args, aux, calib_mode="none")
    assert calls == ["MKLDNN_QUANTIZE", "MKLDNN_QUANTIZE"]
    # quantize_net_v2 on the CPU: before quantize_graph and after calibration
    net = mx.gluon.nn.Dense(3, in_units=4)
    net.initialize()
    calls.clear()
    it = mx.io.NDArrayIter(np.ones((4, 4), np.float32), batch_size=2)
    qnet = q.quantize_net_v2(net, calib_data=it, calib_mode="naive", quantized_dtype="int8")
    assert calls == ["MKLDNN_QUANTIZE", "MKLDNN_QUANTIZE"]
    assert qnet(mx.nd.ones((2, 4))).shape == (2, 3)


def test_entropy_calibration_keeps_outputs_near_float() -> None:
    sym, args, aux, it = _model()
    qsym, qargs, _ = q.quantize_model(sym, args, aux, calib_mode="entropy", calib_data=it,
                                      logger=logging.getLogger("quant-test"))  # fmt: skip
    want = _forward(sym, args, it)
    np.testing.assert_allclose(_forward(qsym, qargs, it), want, atol=0.05)


def test_quantized_lstm_binds_with_begin_states_of_unknown_batch() -> None:
    # MXNet's test_quantize_model_with_forward (sym4): the zero begin states learn their
    # batch from the quantized FullyConnected's output, through quantize_v2
    data = mx.sym.var("data")
    outputs, _ = mx.rnn.LSTMCell(num_hidden=8, prefix="l_").unroll(2, data)
    sym = mx.sym.Group(outputs)
    mod = mx.mod.Module(sym, label_names=None)
    mod.bind([("data", (3, 2, 5))], for_training=False)
    mod.init_params()
    args, aux = mod.get_params()
    qsym, qargs, qaux = q.quantize_model(
        sym, args, aux, calib_mode="none", quantize_mode="full",
        excluded_op_names=["elemwise_add", "elemwise_mul"])  # fmt: skip
    qmod = mx.mod.Module(qsym, label_names=None)
    qmod.bind([("data", (3, 2, 5))], for_training=False)
    qmod.set_params(qargs, qaux)
    qmod.forward(mx.io.DataBatch([mx.nd.ones((3, 2, 5))], []), is_train=False)
    assert [o.shape for o in qmod.get_outputs()] == [(3, 8), (3, 8)]


def test_data_iter_wrapper_reads_a_dataloader() -> None:
    x = np.arange(2 * 3 * 4 * 4, dtype=np.float32).reshape(2, 3, 4, 4)
    ds = mx.gluon.data.ArrayDataset(x, np.zeros(2, np.float32))
    it, shapes = q._as_data_iter(mx.gluon.data.DataLoader(ds, batch_size=2))
    assert [d.name for d in shapes] == ["data", "data0"]
    assert shapes[0].shape == (2, 3, 4, 4) and it.batch_size == 2
    del it.provide_data[-1]  # as quantize_net_v2 does for inputs the net does not take
    (batch,) = list(it)
    assert len(batch.data) == 1


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"quantized_dtype": "int4"}, "quantized_dtype int4"),
        ({"quantize_granularity": "row-wise"}, "quantize_granularity row-wise"),
        ({"excluded_sym_names": "conv"}, "excluded_sym_names must be a list"),
        ({"calib_mode": "naive"}, "calib_data must be provided"),
        ({"calib_mode": "naive", "calib_data": [1]}, "must be of DataIter type"),
        ({"calib_mode": "best", "calib_data": mx.io.NDArrayIter(np.zeros((4, 3, 4, 4)))},
         "unknown calibration mode best"),
    ],
)  # fmt: skip
def test_quantize_model_refuses_bad_arguments(kwargs: dict, match: str) -> None:
    sym, args, aux, _ = _model()
    with pytest.raises(ValueError, match=match):
        q.quantize_model(sym, args, aux, **kwargs)


def test_module_names_of_mxnet() -> None:
    assert mx.contrib.quant is mx.contrib.quantization
    assert q.stats is not None  # scipy.stats, as MXNet's module imports it
    assert q._LIB is mx.base._LIB and q.check_call is mx.base.check_call  # importable
    with pytest.raises(mx.base.NotInMxliteError, match="_LIB.MXQuantizeSymbol.*no C library"):
        q._LIB.MXQuantizeSymbol  # noqa: B018


def test_quantize_params_of_an_all_zero_bias_are_mxnets_127() -> None:
    # MXNet's int8 quantize of a zero range computes 0 * inf and writes 127; the range, 0,
    # makes the value 0 again wherever it is read with its range
    qsym, _ = q._quantize_symbol(_model()[0], mx.cpu(), offline_params=["fc_bias"])
    got = q._quantize_params(qsym, {"fc_bias": mx.nd.zeros((3,))}, {})
    assert got["fc_bias_quantize"].asnumpy().tolist() == [127, 127, 127]
    assert got["fc_bias_quantize_max"].asnumpy().tolist() == [0.0]


def test_lstm_is_quantized_with_asymmetric_data_as_mxnet() -> None:
    # the graph MXNet 1.9.1 writes for this symbol (its oneDNN build quantizes LSTMs)
    d, p, s, c = (mx.sym.var(n) for n in ("data", "p", "s", "c"))
    r = mx.sym.RNN(d, p, s, c, state_size=4, num_layers=1, mode="lstm", name="rnn")
    fc = mx.sym.FullyConnected(d, num_hidden=2, name="fc", flatten=False)
    qsym, calib = q._quantize_symbol(mx.sym.Group([r, fc]), mx.cpu(), quantize_mode="full",
                                     offline_params=["fc_weight"])  # fmt: skip
    nodes = json.loads(qsym.tojson())["nodes"]
    assert [(n["op"], n["name"]) for n in nodes if n["op"] != "null"] == [
        ("_contrib_quantize_asym", "data_quantize"),
        ("_contrib_quantized_rnn", "quantized_rnn"),
        ("_contrib_quantize_v2", "fc_bias_quantize"),
        ("_contrib_quantized_fully_connected", "quantized_fc"),
        ("_contrib_requantize", "requantize_fc"),
        ("_contrib_dequantize", "fc_dequantize"),
    ]
    rnn = nodes[5]
    assert rnn["attrs"]["quantized"] == "true"
    assert rnn["inputs"] == [[1, 0, 0], [2, 0, 0], [3, 0, 0], [4, 0, 0], [1, 1, 0], [1, 2, 0]]
    assert calib == ["data", "fc_bias", "fc_output"]


def test_calibrated_quantized_lstm_runs_near_float() -> None:
    data = mx.sym.var("data")
    r = mx.sym.RNN(data, mx.sym.var("p"), mx.sym.var("s"), mx.sym.var("c"), state_size=4,
                   num_layers=1, mode="lstm", name="rnn")  # fmt: skip
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (3, 2, 5)).astype(np.float32)
    args = {"p": mx.nd.array(rng.uniform(-0.3, 0.3, 4 * 4 * (5 + 4 + 2))),
            "s": mx.nd.zeros((1, 2, 4)), "c": mx.nd.zeros((1, 2, 4))}  # fmt: skip
    it = mx.io.NDArrayIter({"data": x}, batch_size=3)  # time-major: one "batch" of 3 steps
    qsym, qargs, _ = q.quantize_model(r, args, {}, label_names=None, calib_mode="naive",
                                      calib_data=it, quantize_mode="full")  # fmt: skip
    feed = {"data": mx.nd.array(x), **qargs}
    got = qsym.bind(mx.cpu(), feed).forward()[0].asnumpy()
    want = r.bind(mx.cpu(), {"data": mx.nd.array(x), **args}).forward()[0].asnumpy()
    np.testing.assert_allclose(got, want, atol=0.02)


@pytest.mark.parametrize(
    "entry, first",
    [(q.quantize_model, "Quantizing symbol"), (q.quantize_graph, "Quantizing graph")],
)
def test_a_logger_turns_on_verbose_quantization_and_names_the_step(
    entry, first, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MXNET_QUANTIZATION_VERBOSE", raising=False)
    sym, args, aux, _ = _model()
    logger = logging.getLogger("quant-log-test")
    with caplog.at_level(logging.INFO, logger="quant-log-test"):
        entry(sym, args, aux, calib_mode="none", logger=logger)
    messages = [r.getMessage() for r in caplog.records]
    assert messages[0] == first and messages[-1] == "Quantizing parameters"
    assert os.environ.get("MXNET_QUANTIZATION_VERBOSE") == "1"
