"""Activation, LeakyReLU and Dropout: golden values from MXNet 1.9.1, finite differences,
req='add', randomness (rrelu, Dropout) and bad input."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, MXNetError, ParamError, ShapeError
from mxlite.operator import registry
from mxlite.operator.req import OpReq
from tests.operator.opcheck import backward, forward, numeric_grad, prop_of
from tests.operator.test_nn_norm import cases_for, needs_golden, run_golden_case, run_public_case

ACT_OPS = {"Activation", "LeakyReLU", "Dropout"}


@needs_golden
@pytest.mark.parametrize("m", cases_for(ACT_OPS), ids=lambda m: m["case"])
def test_golden(m: dict) -> None:
    run_golden_case(m)


@needs_golden
@pytest.mark.parametrize("m", cases_for(ACT_OPS), ids=lambda m: m["case"])
def test_public_api(m: dict) -> None:
    run_public_case(m)


NUMERIC = [
    ("Activation", {"act_type": "relu"}),
    ("Activation", {"act_type": "sigmoid"}),
    ("Activation", {"act_type": "tanh"}),
    ("Activation", {"act_type": "softrelu"}),
    ("Activation", {"act_type": "softsign"}),
    ("LeakyReLU", {"act_type": "leaky", "slope": 0.5}),
    ("LeakyReLU", {"act_type": "elu", "slope": 0.7}),
    ("LeakyReLU", {"act_type": "gelu"}),
    ("LeakyReLU", {"act_type": "prelu"}),
    ("Dropout", {"p": 0.0}),
]


@pytest.mark.parametrize("op,params", NUMERIC, ids=lambda v: str(v))
def test_backward_matches_numeric(op, params) -> None:
    rng = np.random.default_rng(5)
    x = rng.uniform(0.1, 1.5, (3, 4)) * rng.choice([-1.0, 1.0], (3, 4))  # away from the kink
    ins = [x, rng.uniform(0.1, 0.5, (4,))] if params.get("act_type") == "prelu" else [x]
    outs = forward(op, ins, is_train=True, **params)
    heads = [rng.uniform(-1, 1, o.shape) for o in outs]
    got = backward(op, ins, heads, **params)
    want = numeric_grad(op, ins, heads, **params)
    for g, w in zip(got, want):
        # leaky/prelu multiply negative inputs in float32, as MXNet does
        np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-5)


def test_selu_gradient_keeps_mxnet_formula() -> None:
    x = np.array([-1.0, 2.0])
    y = forward("LeakyReLU", [x], act_type="selu")[0]
    g = backward("LeakyReLU", [x], [np.ones(2)], act_type="selu")[0]
    lam, alpha = 1.0507009873554805, 1.6732632423543772
    np.testing.assert_allclose(g, [lam * (alpha + y[0]), lam])


@pytest.mark.parametrize(
    "op,params,n_in",
    [
        ("Activation", {"act_type": "sigmoid"}, 1),
        ("LeakyReLU", {"act_type": "elu"}, 1),
        ("LeakyReLU", {"act_type": "prelu"}, 2),
        ("LeakyReLU", {"act_type": "gelu"}, 1),
        ("Dropout", {"p": 0.3}, 1),
    ],
)
def test_req_add_accumulates(op, params, n_in) -> None:
    rng = np.random.default_rng(6)
    ins = [rng.uniform(-1, 1, (3, 4)).astype(np.float32)]
    if n_in == 2:
        ins.append(rng.uniform(0.1, 0.5, (4,)).astype(np.float32))
    init = [rng.uniform(-1, 1, a.shape).astype(np.float32) for a in ins]
    plain = backward(op, ins, **params)
    added = backward(op, ins, req=OpReq.ADD, grad_init=init, **params)
    for p, a, i in zip(plain, added, init):
        np.testing.assert_allclose(a, i + p, rtol=1e-6, atol=1e-6)


def test_rrelu_training_draws_slopes_in_bounds() -> None:
    rng = np.random.default_rng(7)
    x = rng.uniform(-2, 2, (50, 40)).astype(np.float32)
    y, mask = forward(
        "LeakyReLU", [x], is_train=True, act_type="rrelu", lower_bound=0.2, upper_bound=0.3
    )
    assert mask.min() >= 0.2 and mask.max() <= 0.3 and mask.std() > 0.01
    np.testing.assert_allclose(y, np.where(x > 0, x, x * mask), rtol=1e-6)
    head = rng.uniform(-1, 1, x.shape).astype(np.float32)
    g = backward(
        "LeakyReLU",
        [x],
        [head, np.zeros_like(x)],
        act_type="rrelu",
        lower_bound=0.2,
        upper_bound=0.3,
    )[0]
    # the same generator seed in forward and backward helpers gives the same mask
    np.testing.assert_allclose(g, head * np.where(y > 0, 1, mask), rtol=1e-6)
    inf = forward(
        "LeakyReLU", [x], is_train=False, act_type="rrelu", lower_bound=0.2, upper_bound=0.3
    )[0]
    np.testing.assert_allclose(inf, np.where(x > 0, x, x * 0.25), rtol=1e-6)


def test_dropout_training_scales_kept_elements() -> None:
    x = np.random.default_rng(8).uniform(1, 2, (100, 100)).astype(np.float32)
    y, mask = forward("Dropout", [x], is_train=True, p=0.3)
    kept = y != 0
    assert 0.65 < kept.mean() < 0.75
    np.testing.assert_allclose(y[kept], x[kept] / 0.7, rtol=1e-6)
    np.testing.assert_allclose(mask, kept / np.float32(0.7), rtol=1e-6)
    g = backward("Dropout", [x], [np.ones_like(x), np.zeros_like(x)], p=0.3)[0]
    np.testing.assert_array_equal(g, mask)


def test_dropout_inference_is_identity_unless_always() -> None:
    x = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(forward("Dropout", [x], is_train=False, p=0.5)[0], x)
    g = backward("Dropout", [x], [np.full_like(x, 3), np.zeros_like(x)], is_train=False, p=0.5)
    np.testing.assert_array_equal(g[0], np.full_like(x, 3))
    y = forward("Dropout", [x], is_train=False, p=0.5, mode="always")[0]
    assert np.all((y == 0) | (y == 2 * x)) and (y == 0).any()


def test_dropout_p0_and_p1() -> None:
    x = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(forward("Dropout", [x], is_train=True, p=0.0)[0], x)
    assert prop_of("Dropout", p=0.0).forward_resource([(3, 4)]) == []
    y = forward("Dropout", [x], is_train=True, p=1.0)[0]
    assert np.isnan(y).all()  # 0 * (1 / 0), as MXNet 1.9.1 gives
    g = backward("Dropout", [x], [np.ones_like(x), np.zeros_like(x)], p=1.0)[0]
    assert np.isnan(g).all()


def test_dropout_axes_share_the_mask() -> None:
    x = np.ones((6, 50, 3), dtype=np.float32)
    y, mask = forward("Dropout", [x], is_train=True, p=0.5, axes=(1,))
    assert mask.shape == (6, 1, 3)
    assert np.all(y == y[:, :1, :])
    assert prop_of("Dropout", axes=(0, 2)).infer_shape([(4, 5, 6)])[1] == [(4, 5, 6), (1, 5, 1)]


def test_dropout_public_training_and_inference() -> None:
    x = mx.nd.ones((20, 20))
    assert np.array_equal(mx.nd.Dropout(x, p=0.5).asnumpy(), np.ones((20, 20)))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Dropout(x, p=0.5)
    y.backward()
    yv, gv = y.asnumpy(), x.grad.asnumpy()
    assert set(np.unique(yv)) <= {0.0, 2.0} and np.array_equal(yv, gv)
    assert prop_of("Dropout").is_train_dependent()


def test_declared_dependencies_and_inplace() -> None:
    assert prop_of("Activation", act_type="relu").declare_backward_dependency([0], [1], [2]) == [
        0,
        2,
    ]
    assert prop_of("Activation", act_type="softsign").declare_backward_dependency(
        [0], [1], [2]
    ) == [0, 1]
    assert prop_of("Dropout").declare_backward_dependency([0], [1], [2, 3]) == [0, 3]
    assert prop_of("LeakyReLU", act_type="prelu").list_arguments() == ["data", "gamma"]
    assert prop_of("LeakyReLU", act_type="rrelu").list_outputs() == ["output", "mask"]
    assert prop_of("LeakyReLU", act_type="gelu").forward_inplace_option([1], [2]) == []


def test_aliases_share_the_entry() -> None:
    assert registry.get("_npx_activation") is registry.get("Activation")
    assert registry.get("_npx_leaky_relu") is registry.get("LeakyReLU")
    assert registry.get("_npx_dropout") is registry.get("Dropout")


def test_prelu_infers_gamma_shape() -> None:
    ins, outs, _ = prop_of("LeakyReLU", act_type="prelu").infer_shape([(2, 5, 3), None])
    assert ins[1] == (5,) and outs == [(2, 5, 3)]


@pytest.mark.parametrize(
    "call,err,match",
    [
        (
            lambda: mx.nd.Activation(mx.nd.ones((2,)), act_type="relu6"),
            ParamError,
            "Activation.*act_type",
        ),
        (lambda: mx.nd.Activation(mx.nd.ones((2,))), ParamError, "Activation.*act_type"),
        (
            lambda: mx.nd.Activation(mx.nd.ones((2,), dtype="int32"), act_type="relu"),
            DTypeError,
            "Activation.*data",
        ),
        (
            lambda: mx.nd.LeakyReLU(mx.nd.ones((2, 3)), act_type="swish"),
            ParamError,
            "LeakyReLU.*act_type",
        ),
        (
            lambda: mx.nd.LeakyReLU(mx.nd.ones((2, 3)), mx.nd.ones((4,)), act_type="prelu"),
            ShapeError,
            "LeakyReLU.*gamma",
        ),
        (lambda: mx.nd.LeakyReLU(mx.nd.ones((2, 3)), mx.nd.ones((3,))), MXNetError, "LeakyReLU"),
        (lambda: mx.nd.Dropout(mx.nd.ones((2, 3)), p=1.5), ParamError, "Dropout.*'p'"),
        (lambda: mx.nd.Dropout(mx.nd.ones((2, 3)), mode="test"), ParamError, "Dropout.*mode"),
        (lambda: mx.nd.Dropout(mx.nd.ones((2, 3)), axes=(3,)), ShapeError, "Dropout.*axes"),
    ],
)
def test_bad_input_raises(call, err, match) -> None:
    with pytest.raises(err, match=match):
        call()


@pytest.mark.parametrize(
    "name", ["Activation", "LeakyReLU", "Dropout", "L2Normalization", "GridGenerator",
             "BilinearSampler", "SpatialTransformer"],
)  # fmt: skip
def test_float_data_operators_share_one_dtype_check(name: str) -> None:
    from mxlite.operator.nn.activation import FloatDataProp

    assert issubclass(registry.get(name), FloatDataProp)
    assert "infer_type" not in registry.get(name).__dict__


@pytest.mark.parametrize(
    "call",
    [
        lambda x: mx.nd.Activation(x, act_type="relu"),
        lambda x: mx.nd.LeakyReLU(x),
        lambda x: mx.nd.Dropout(x, p=0.5),
        lambda x: mx.nd.L2Normalization(x.reshape((1, 4))),
    ],
)
def test_float_data_operators_reject_integer_data(call) -> None:
    with pytest.raises(DTypeError, match="argument 'data' has dtype int32"):
        call(mx.nd.ones((4,), dtype="int32"))


@pytest.mark.parametrize("act", ["sigmoid", "tanh"])
@pytest.mark.parametrize("inplace", [False, True])
def test_sigmoid_tanh_in_place_match_the_formulas(act: str, inplace: bool) -> None:
    """The forward computes in its output and the backward in its gradient, also when those
    are the input and the head gradient (the operator's in-place options)."""
    from mxlite.context import cpu
    from mxlite.operator.registry import OpContext

    rng = np.random.default_rng(9)
    x = rng.uniform(-30, 30, (4, 5, 6)).astype(np.float32)
    dy = rng.uniform(-1, 1, x.shape).astype(np.float32)
    want = 1 / (1 + np.exp(-x)) if act == "sigmoid" else np.tanh(x)
    want_dx = dy * (want * (1 - want) if act == "sigmoid" else 1 - want * want)
    op = prop_of("Activation", act_type=act).create_operator(cpu())
    ctx = OpContext(True, None, [])
    data = x.copy()
    out = data if inplace else np.empty_like(x)
    op.forward(ctx, [data], [OpReq.WRITE], [out], [])
    np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-7)
    head = dy.copy()
    dx = head if inplace else np.empty_like(x)
    op.backward(ctx, [head], [data], [out], [OpReq.WRITE], [dx], [])
    np.testing.assert_allclose(dx, want_dx, rtol=1e-6, atol=1e-7)
