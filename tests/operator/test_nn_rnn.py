"""Tests of the fused RNN operator against MXNet 1.9.1 golden values and finite differences."""

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, MXNetError, ParamError, ShapeError
from mxlite.operator import registry
from mxlite.operator.registry import OpContext
from mxlite.operator.req import OpReq
from tests.operator import opcheck
from tests.operator.opcheck import backward, forward, golden, numeric_grad, prop_of

_GOLD = golden("nn_rnn")
_META = [{"name": k, **c} for k, c in _GOLD.cases.items()]
_TOL = {"float32": dict(rtol=1e-4, atol=1e-5), "float64": dict(rtol=1e-6, atol=1e-8)}


def _case(meta):
    name = meta["name"]
    ins = [_GOLD[f"{name}/in{i}"] for i in range(meta["n_in"])]
    outs = [_GOLD[f"{name}/out{i}"] for i in range(meta["n_out"])]
    heads = [_GOLD[f"{name}/head{i}"] for i in range(meta["n_out"])]
    grads = [_GOLD[f"{name}/grad{i}"] for i in range(meta["n_in"])]
    return ins, outs, heads, grads


def _with_reserve(params, ins, heads):
    """Head gradients plus a zero one for the hidden reserve output."""
    outs = forward("RNN", ins, **params)
    return [*heads, np.zeros_like(outs[-1])]


@pytest.mark.parametrize("meta", _META, ids=[m["name"] for m in _META])
def test_forward_golden(meta):
    ins, outs, _, _ = _case(meta)
    got = forward("RNN", ins, is_train=True, **meta["params"])
    assert len(got) == len(outs) + 1  # the hidden reserve output
    for g, o in zip(got, outs):
        assert g.dtype == o.dtype
        np.testing.assert_allclose(g, o, **_TOL[meta["dtype"]])


@pytest.mark.parametrize("meta", _META, ids=[m["name"] for m in _META])
def test_backward_golden(meta):
    ins, _, heads, grads = _case(meta)
    params = meta["params"]
    got = backward("RNN", ins, _with_reserve(params, ins, heads), **params)
    for g, e in zip(got, grads):
        np.testing.assert_allclose(g, e, **_TOL[meta["dtype"]])


_NUMERIC = [
    dict(mode="lstm", state_size=3, num_layers=2, bidirectional=True, state_outputs=True),
    dict(mode="gru", state_size=3, num_layers=2, bidirectional=True, state_outputs=True),
    dict(mode="rnn_tanh", state_size=3, num_layers=1, state_outputs=True),
    dict(mode="rnn_relu", state_size=3, num_layers=2),
    dict(
        mode="lstm",
        state_size=4,
        num_layers=2,
        projection_size=2,
        bidirectional=True,
        state_outputs=True,
    ),
    dict(
        mode="lstm",
        state_size=3,
        num_layers=1,
        state_outputs=True,
        lstm_state_clip_min=-0.3,
        lstm_state_clip_max=0.3,
    ),
    dict(
        mode="lstm",
        state_size=3,
        num_layers=1,
        bidirectional=True,
        state_outputs=True,
        use_sequence_length=True,
    ),
    dict(
        mode="gru",
        state_size=2,
        num_layers=2,
        bidirectional=True,
        state_outputs=True,
        use_sequence_length=True,
    ),
]


def _inputs(params, shape=(3, 2, 2), seed=0, dtype=np.float64):
    prop = prop_of("RNN", **params)
    n = len(prop.list_arguments())
    in_shapes = prop.infer_shape([shape] + [None] * (n - 1))[0]
    rng = np.random.default_rng(seed)
    ins = [rng.uniform(-1, 1, s).astype(dtype) for s in in_shapes]
    if params.get("use_sequence_length"):
        ins[-1] = np.array([shape[0], 1][: shape[1]], dtype=dtype)
    return ins


@pytest.mark.parametrize("params", _NUMERIC, ids=range(len(_NUMERIC)))
def test_backward_numeric(params):
    ins = _inputs(params)
    outs = forward("RNN", ins, **params)
    rng = np.random.default_rng(1)
    heads = [rng.standard_normal(o.shape) for o in outs[:-1]] + [np.zeros_like(outs[-1])]
    got = backward("RNN", ins, heads, **params)
    want = numeric_grad("RNN", ins, heads, **params)
    n = len(ins) - (1 if params.get("use_sequence_length") else 0)
    for g, w in zip(got[:n], want[:n]):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7)


def test_sequence_length_semantics():
    params = dict(
        mode="gru",
        state_size=2,
        num_layers=1,
        bidirectional=True,
        state_outputs=True,
        use_sequence_length=True,
    )
    ins = _inputs(params, shape=(4, 2, 3))
    ins[-1] = np.array([4.0, 2.0])
    out, hy = forward("RNN", ins, **params)[:2]
    assert np.all(out[2:, 1] == 0)  # padding steps write zeros
    # batch item 1 alone with its two steps gives the same result
    short = dict(params, use_sequence_length=False)
    one = [ins[0][:2, 1:], ins[1], ins[2][:, 1:]]
    out1, hy1 = forward("RNN", one, **short)[:2]
    np.testing.assert_allclose(out[:2, 1], out1[:, 0], rtol=1e-12)
    np.testing.assert_allclose(hy[:, 1], hy1[:, 0], rtol=1e-12)


def test_state_clip():
    params = dict(
        mode="lstm",
        state_size=3,
        num_layers=1,
        state_outputs=True,
        lstm_state_clip_min=-0.1,
        lstm_state_clip_max=0.1,
    )
    ins = _inputs(params, shape=(5, 2, 2))
    cy = forward("RNN", [i * 4 for i in ins], **params)[2]
    assert np.abs(cy).max() <= 0.1 + 1e-12


def test_dropout_train_and_inference():
    params = dict(mode="rnn_tanh", state_size=8, num_layers=2, p=0.5)
    ins = _inputs(params, shape=(3, 4, 2))
    plain = forward("RNN", ins, **dict(params, p=0.0))[0]
    infer = forward("RNN", ins, is_train=False, **params)[0]
    np.testing.assert_allclose(infer, plain)
    train = forward("RNN", ins, is_train=True, **params)[0]
    assert not np.allclose(train, plain)
    # backward uses the mask that forward drew: matches finite differences of a fixed mask
    prop = prop_of("RNN", **params)
    assert prop.forward_resource([]) and prop.is_train_dependent()


@pytest.mark.parametrize("mode", ["lstm", "gru"])
def test_req_add(mode):
    params = dict(mode=mode, state_size=3, num_layers=2, bidirectional=True, state_outputs=True)
    ins = _inputs(params)
    base = backward("RNN", ins, **params)
    init = [np.full_like(a, 0.5) for a in ins]
    got = backward("RNN", ins, req=OpReq.ADD, grad_init=init, **params)
    for g, b, i in zip(got, base, init):
        np.testing.assert_allclose(g, b + i, rtol=1e-12)


def test_float32_float16_dtypes():
    params = dict(mode="lstm", state_size=3, num_layers=1, state_outputs=True)
    ins64 = _inputs(params)
    ref = forward("RNN", ins64, **params)
    for dt, tol in ((np.float32, 1e-5), (np.float16, 5e-3)):
        got = forward("RNN", [a.astype(dt) for a in ins64], **params)
        assert got[0].dtype == dt
        np.testing.assert_allclose(got[0], ref[0], atol=tol)


def test_shapes_and_names():
    prop = prop_of("RNN", mode="lstm", state_size=4, num_layers=1, state_outputs=True)
    assert prop.list_arguments() == ["data", "parameters", "state", "state_cell"]
    assert prop.num_visible_outputs() == 3
    ins, outs, _ = prop.infer_shape([(5, 2, 3), None, None, None])
    assert ins[1:] == [(144,), (1, 2, 4), (1, 2, 4)]
    assert outs[:3] == [(5, 2, 4), (1, 2, 4), (1, 2, 4)]
    prop = prop_of(
        "RNN", mode="gru", state_size=4, num_layers=2, use_sequence_length=True, bidirectional=True
    )
    assert prop.list_arguments() == ["data", "parameters", "state", "sequence_length"]
    assert prop.num_visible_outputs() == 1
    prop = prop_of(
        "RNN", mode="lstm", state_size=4, num_layers=2, projection_size=2, state_outputs=True
    )
    ins, outs, _ = prop.infer_shape([(5, 2, 3), None, None, None])
    # i2h 16x3, h2h 16x2, h2r 2x4; layer 2: i2h 16x2; biases 2*16 per layer
    assert ins[1] == (16 * 3 + 16 * 2 + 8 + 16 * 2 + 16 * 2 + 8 + 64,)
    assert outs[:3] == [(5, 2, 2), (2, 2, 2), (2, 2, 4)]


def test_bad_input():
    with pytest.raises(ParamError, match="RNN.*mode"):
        prop_of("RNN", mode="lstmx", state_size=2, num_layers=1)
    with pytest.raises(ParamError, match="RNN.*state_size"):
        prop_of("RNN", mode="lstm", num_layers=1)
    with pytest.raises(ParamError, match="RNN.*state_size"):
        prop_of("RNN", mode="lstm", state_size=-1, num_layers=1)
    with pytest.raises(ParamError, match="RNN.*'p'"):
        prop_of("RNN", mode="lstm", state_size=2, num_layers=1, p=1.0)
    with pytest.raises(ParamError, match="RNN.*projection_size"):
        prop_of("RNN", mode="gru", state_size=2, num_layers=1, projection_size=1)
    with pytest.raises(ParamError, match="RNN.*lstm_state_clip_min"):
        prop_of("RNN", mode="lstm", state_size=2, num_layers=1, lstm_state_clip_min=0.0)
    prop = prop_of("RNN", mode="lstm", state_size=4, num_layers=1)
    with pytest.raises(ShapeError, match="RNN.*parameters"):
        prop.infer_shape([(5, 2, 3), (5,), None, None])
    with pytest.raises(ShapeError, match="RNN.*data"):
        prop.infer_shape([(5, 3), None, None, None])
    with pytest.raises(ShapeError, match="RNN.*inputs"):
        prop.infer_shape([(5, 2, 3), None, None])
    with pytest.raises(DTypeError, match="RNN.*state"):
        prop.infer_type([np.dtype("float32"), None, np.dtype("float64"), None])
    with pytest.raises(MXNetError, match="RNN"):
        mx.nd.RNN(
            mx.nd.ones((2, 1, 3)),
            mx.nd.ones((5,)),
            mx.nd.zeros((1, 1, 4)),
            mx.nd.zeros((1, 1, 4)),
            mode="lstm",
            state_size=4,
            num_layers=1,
        )


def test_public_function():
    # _npx_rnn is MXNet's numpy-extension alias (mx.npx.rnn); it is not exposed in mx.nd
    assert registry.get("_npx_rnn") is registry.get("RNN")
    meta = _META[0]
    ins, outs, _, _ = _case(meta)
    got = mx.nd.RNN(*[mx.nd.array(a) for a in ins], **meta["params"])
    assert isinstance(got, list) and len(got) == len(outs)
    for g, o in zip(got, outs):
        np.testing.assert_allclose(g.asnumpy(), o, rtol=1e-4, atol=1e-5)
    single = mx.nd.RNN(*[mx.nd.array(a) for a in ins], mode="lstm", state_size=4, num_layers=1)
    np.testing.assert_allclose(single.asnumpy(), outs[0], rtol=1e-4, atol=1e-5)


def test_autograd_public():
    meta = next(m for m in _META if m["name"] == "gru_2bi")
    ins, outs, heads, grads = _case(meta)
    xs = [mx.nd.array(a) for a in ins]
    for x in xs:
        x.attach_grad()
    with mx.autograd.record():
        ys = mx.nd.RNN(*xs, **meta["params"])
    mx.autograd.backward(ys, [mx.nd.array(h) for h in heads])
    for x, g in zip(xs, grads):
        np.testing.assert_allclose(x.grad.asnumpy(), g, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "p,layers,steps,full",
    [(0.0, 2, 3, True), (0.5, 1, 3, True), (0.5, 2, 3, True), (0.0, 2, 1 << 18, False),
     (0.5, 2, 1 << 18, True)],
)  # fmt: skip
def test_reserve_is_kept_unless_large_and_not_needed_for_dropout(
    p: float, layers: int, steps: int, full: bool
) -> None:
    # MXNet keeps its reserve space inside the operator, outside the memory plan; here the
    # hidden output holds it when backward must reuse forward's dropout masks or when it is
    # small (else backward reruns the forward), and is a one-element token otherwise
    from mxlite.operator.nn import rnn

    prop = prop_of("RNN", mode="lstm", state_size=4, num_layers=layers, p=p)
    shapes = [(steps, 2, 5), None, None, None]
    reserve = prop.infer_shape(shapes)[1][-1]
    assert (reserve[0] > 1) is full and len(reserve) == 1
    assert full or rnn._layout(rnn._Dims(prop.param, steps, 2, 5))[1] > rnn._KEPT_RESERVE


@pytest.mark.parametrize("params", _NUMERIC, ids=range(len(_NUMERIC)))
def test_gradients_without_the_data_gradient(params):
    # backward skips the data's gradient when it is not asked for (req null, as for d2l's
    # one-hot input): every other gradient is the same, bit for bit
    ins = _inputs(params, dtype=np.float32)
    outs = forward("RNN", ins, **params)
    rng = np.random.default_rng(2)
    heads = [rng.standard_normal(o.shape).astype(o.dtype) for o in outs[:-1]]
    heads.append(np.zeros_like(outs[-1]))
    full = backward("RNN", ins, heads, **params)
    prop = prop_of("RNN", **params)
    args, aux, outs = opcheck._alloc(prop, ins)
    op = prop.create_operator(mx.cpu())
    op.forward(OpContext(True, None, []), args, [OpReq.WRITE] * len(outs), outs, aux)
    grads = [np.full_like(a, 7) for a in args]
    req = [OpReq.NULL] + [OpReq.WRITE] * (len(args) - 1)
    op.backward(OpContext(True, None, []), heads, args, outs, req, grads, aux)
    assert np.all(grads[0] == 7)  # untouched
    n = len(ins) - (1 if params.get("use_sequence_length") else 0)
    for g, f in zip(grads[1:n], full[1:n]):
        np.testing.assert_array_equal(g, f)


@pytest.mark.parametrize("mode", ["rnn_relu", "rnn_tanh", "lstm", "gru"])
def test_output_written_in_place_equals_a_fresh_output(mode):
    # the last layer writes its states straight into the output: the same values as through a
    # scratch array (req 'add' keeps the scratch path)
    params = dict(mode=mode, state_size=3, num_layers=2, bidirectional=True)
    ins = _inputs(params, dtype=np.float32)
    written = forward("RNN", ins, **params)[0]
    prop = prop_of("RNN", **params)
    args, aux, outs = opcheck._alloc(prop, ins)
    op = prop.create_operator(mx.cpu())
    req = [OpReq.ADD] + [OpReq.WRITE] * (len(outs) - 1)
    op.forward(OpContext(True, None, []), args, req, outs, aux)  # onto zeros
    np.testing.assert_array_equal(outs[0], written)
