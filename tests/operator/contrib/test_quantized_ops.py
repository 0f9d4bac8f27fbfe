"""BatchNormWithReLU, quantize_asym and the quantized_* operators against MXNet 1.9.1's CPU
(MKLDNN) build (tools/golden/cases/quant.py), and against the reference kernels' formulas where
that build cannot run an operator."""

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, MXNetError

from ...golden_file import load
from . import quant_cases

_GOLD = load("operator/contrib/golden/quant.npz")
_CASES = quant_cases.cases()


def _nd(a):
    return mx.nd.array(a, dtype=a.dtype)


def _run(op, ins, params):
    outs = getattr(mx.nd.contrib, op)(*[_nd(a) for a in ins.values()], **params)
    return outs if isinstance(outs, list) else [outs]


@pytest.mark.parametrize("case", _CASES, ids=[c[0] for c in _CASES])
def test_matches_mxnet(case):
    name, op, ins, params = case
    outs = _run(op, ins, params)
    want = _GOLD.outputs(name)
    assert len(want) == len(outs)
    for o, w in zip(outs, want):
        got = o.asnumpy()
        assert got.dtype == w.dtype and got.shape == w.shape
        if w.dtype == np.float32:
            np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-5)
        else:
            np.testing.assert_array_equal(got, w)


def test_symbol_inference():
    d, lo, hi = mx.sym.var("d"), mx.sym.var("lo"), mx.sym.var("hi")
    s = mx.sym.contrib.quantized_pooling(d, lo, hi, kernel=(2, 2), stride=(2, 2))
    assert s.list_arguments() == ["d", "lo", "hi"]
    assert s.list_outputs()[1].endswith("min_output")
    _, outs, _ = s.infer_shape(d=(2, 3, 6, 6))
    assert outs == [(2, 3, 3, 3), (1,), (1,)]
    _, touts, _ = s.infer_type(d="uint8")
    assert touts == [np.uint8, np.float32, np.float32]
    f = mx.sym.contrib.quantized_flatten(d, lo, hi)
    assert f.infer_shape(d=(2, 3, 4))[1][0] == (2, 12)
    w, b = mx.sym.var("w"), mx.sym.var("b")
    fc = mx.sym.contrib.quantized_fully_connected(d, w, b, *[mx.sym.var(f"r{i}") for i in range(6)],
                                                  num_hidden=5)  # fmt: skip
    assert fc.list_arguments()[3:] == ["r0", "r1", "r2", "r3", "r4", "r5"]
    shapes, outs, _ = fc.infer_shape(d=(2, 3, 4))
    assert shapes[:3] == [(2, 3, 4), (5, 12), (5,)] and outs[0] == (2, 5)
    types, touts, _ = fc.infer_type(d="uint8")
    assert types[1] == np.int8 and touts == [np.int32, np.float32, np.float32]
    conv = mx.sym.contrib.quantized_conv(d, w, lo, hi, lo, hi, num_filter=4, kernel=(3, 3),
                                         no_bias=True)  # fmt: skip
    assert conv.list_arguments() == ["d", "w", "lo", "hi"]
    assert conv.infer_shape(d=(1, 2, 5, 5))[0][1] == (4, 2, 3, 3)
    cat = mx.sym.contrib.quantized_concat(d, w, lo, hi, lo, hi, num_args=2, dim=0)
    assert cat.infer_shape(d=(2, 3), w=(4, 3))[1][0] == (6, 3)
    assert cat.infer_type(d="uint8", w="int8")[1][0] == np.int8
    mul = mx.sym.contrib.quantized_elemwise_mul(d, w, lo, hi, lo, hi, enable_float_output=True)
    assert len(mul.list_outputs()) == 1
    bn = mx.sym.contrib.BatchNormWithReLU(d, output_mean_var=True)
    assert [n.split("_")[-1] for n in bn.list_outputs()] == ["output", "mean", "var"]


def test_bad_input_errors():
    lo, hi = mx.nd.array([-1.0]), mx.nd.array([1.0])
    with pytest.raises(DTypeError, match="quantized_flatten"):
        mx.nd.contrib.quantized_flatten(mx.nd.ones((2, 3)), lo, hi)
    with pytest.raises(DTypeError, match="quantize_asym"):
        mx.nd.contrib.quantize_asym(mx.nd.ones((2, 3), dtype="int8"))
    with pytest.raises(DTypeError, match="weight"):
        mx.nd.contrib.quantized_fully_connected(
            mx.nd.ones((2, 3), dtype="int8"), mx.nd.ones((4, 3), dtype="uint8"), lo, hi, lo, hi,
            num_hidden=4, no_bias=True)  # fmt: skip
    with pytest.raises(DTypeError, match="lhs"):
        u8, i8 = mx.nd.ones((2,), dtype="uint8"), mx.nd.ones((2,), dtype="int8")
        mx.nd.contrib.quantized_elemwise_mul(u8, i8, lo, hi, lo, hi)
    with pytest.raises(MXNetError, match="one shape"):
        a, b = mx.nd.ones((2,), dtype="int8"), mx.nd.ones((3,), dtype="int8")
        mx.nd.contrib.quantized_elemwise_add(a, b, lo, hi, lo, hi)
    with pytest.raises(MXNetError, match="min_calib_range"):
        stats = [mx.nd.ones(2), mx.nd.zeros(2), mx.nd.zeros(2), mx.nd.ones(2)]
        mx.nd.contrib.quantized_batch_norm(mx.nd.ones((1, 2, 3), dtype="int8"), *stats, lo, hi)
    with pytest.raises(DTypeError, match="weight"):
        mx.nd.contrib.quantized_embedding(mx.nd.array([0]), mx.nd.ones((2, 3)), lo, hi,
                                          input_dim=2, output_dim=3)  # fmt: skip
    with pytest.raises(MXNetError, match="act_type"):
        mx.nd.contrib.quantized_act(mx.nd.ones((2,), dtype="int8"), lo, hi, act_type="tanh")
    with pytest.raises(MXNetError, match="pool_type"):
        mx.nd.contrib.quantized_pooling(mx.nd.ones((1, 1, 2, 2), dtype="int8"), lo, hi,
                                        kernel=(2, 2), pool_type="sum")  # fmt: skip


def test_quantize_asym_formula_and_dequantized_error():
    x = np.random.RandomState(0).randn(2, 3, 4, 5).astype(np.float32)
    q, scale, shift = [o.asnumpy() for o in mx.nd.contrib.quantize_asym(_nd(x))]
    s = np.float32(255) / (x.max() - x.min())
    assert scale[0] == pytest.approx(s) and shift[0] == pytest.approx(255 - x.max() * s)
    assert q.min() == 0 and q.max() == 255
    np.testing.assert_allclose((q - shift[0]) / scale[0], x, atol=0.5 / s + 1e-6)


def test_batch_norm_with_relu_gradient_is_masked_batch_norm():
    rng = np.random.RandomState(1)
    x, g, b = rng.randn(4, 3, 5), rng.rand(3) + 0.5, rng.randn(3)
    head = mx.nd.array(rng.randn(4, 3, 5))
    grads = []
    for fused in (True, False):
        ins = [mx.nd.array(a) for a in (x, g, b)]
        for a in ins:
            a.attach_grad()
        with mx.autograd.record():
            args = (*ins, mx.nd.zeros(3), mx.nd.ones(3))
            if fused:
                y = mx.nd.contrib.BatchNormWithReLU(*args, fix_gamma=False)
            else:
                y = mx.nd.relu(mx.nd.BatchNorm(*args, fix_gamma=False))
        y.backward(head)
        grads.append([a.grad.asnumpy() for a in ins])
    for a, b_ in zip(*grads):
        np.testing.assert_allclose(a, b_, rtol=1e-4, atol=1e-5)


def test_quantized_rnn_is_the_float_lstm_of_the_restored_data():
    # MXNet 1.9.1's int8 LSTM needs an MKLDNN CPU its own test fails on here: no golden file
    rng = np.random.RandomState(3)
    x = rng.uniform(-1, 1, (5, 2, 6)).astype(np.float32)
    kw = dict(state_size=4, num_layers=1, mode="lstm", state_outputs=True, bidirectional=True)
    n_par = mx.sym.RNN(mx.sym.var("x"), **kw).infer_shape(x=x.shape)[0][1][0]
    par = mx.nd.array(rng.uniform(-1, 1, n_par))
    h, c = mx.nd.array(rng.uniform(-1, 1, (2, 2, 4))), mx.nd.array(rng.uniform(-1, 1, (2, 2, 4)))
    q, scale, shift = mx.nd.contrib.quantize_asym(mx.nd.array(x))
    outs = mx.nd.contrib.quantized_rnn(q, par, h, c, scale, shift, **kw)
    assert [o.shape for o in outs] == [(5, 2, 8), (2, 2, 4), (2, 2, 4)]
    restored = (q.asnumpy().astype(np.float32) - shift.asnumpy()) / scale.asnumpy()
    want = mx.nd.RNN(mx.nd.array(restored), par, h, c, **kw)
    for o, w in zip(outs, want):
        np.testing.assert_allclose(o.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6)
    exact = mx.nd.RNN(mx.nd.array(x), par, h, c, **kw)[0].asnumpy()
    assert np.mean((outs[0].asnumpy() - exact) ** 2) < 1e-3
    with pytest.raises(MXNetError, match="lstm"):
        mx.nd.contrib.quantized_rnn(q, par, h, c, scale, shift, state_size=4, num_layers=1,
                                    mode="gru")  # fmt: skip


def test_graph_json_from_mxnet_loads_runs_and_saves():
    text = _GOLD.cases["graph"]["json"]
    sym = mx.sym.load_json(text)
    assert sym.list_arguments() == quant_cases.graph(mx).list_arguments()
    feed = {k: _nd(a) for k, a in quant_cases.graph_inputs().items()}
    outs = sym.bind(mx.cpu(), feed).forward()
    for i, o in enumerate(outs):
        want = _GOLD[f"graph/out{i}"]
        assert o.dtype == want.dtype
        np.testing.assert_allclose(o.asnumpy(), want, rtol=1e-6)
    again = mx.sym.load_json(sym.tojson())
    assert again.tojson() == sym.tojson()
