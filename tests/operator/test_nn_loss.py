"""Loss and output layers (SoftmaxOutput, softmax_cross_entropy, regression outputs, SVMOutput,
MakeLoss, make_loss, CTCLoss) against MXNet 1.9.1 golden values
(tools/golden/cases/nn_loss.py), numeric gradients, req=ADD and parameter errors."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError, ParamError, ShapeError
from mxlite.context import cpu
from mxlite.operator.registry import OpContext
from mxlite.operator.req import OpReq
from tests.operator.opcheck import forward, golden, numeric_grad, prop_of

GOLD = golden("nn_loss")
PREFIXES = ("so_", "sce", "linreg", "logreg", "maereg", "svm_", "makeloss", "make_loss", "ctc_")
CASES = sorted(k for k in GOLD.cases if k.startswith(PREFIXES))


def _case(name: str):
    meta = GOLD.cases[name]
    return meta["op"], meta["params"], GOLD.inputs(name), GOLD.heads(name)


def _tol(dtype) -> dict:
    if np.dtype(dtype) == np.float64:
        return dict(rtol=1e-9, atol=1e-12)
    return dict(rtol=1e-4, atol=1e-5)


def _grad_data(op, inputs, heads, req=OpReq.WRITE, init=None, **params):
    """Gradient of the first input only (labels and lengths get req NULL, as autograd gives
    inputs outside the graph)."""
    prop = prop_of(op, **params)
    shapes, dtypes, _, _ = prop.infer_imperative(
        tuple(a.shape for a in inputs), tuple(a.dtype for a in inputs)
    )
    outs = [np.zeros(s, t) for s, t in zip(shapes, dtypes)]
    opr = prop.create_operator(cpu())
    opr.forward(OpContext(True, None, []), inputs, [OpReq.WRITE] * len(outs), outs, [])
    heads = list(heads) + [np.zeros_like(o) for o in outs[len(heads) :]]
    grads = [init.copy() if init is not None else np.zeros_like(inputs[0])]
    grads += [None] * (len(inputs) - 1)
    reqs = [req] + [OpReq.NULL] * (len(inputs) - 1)
    opr.backward(OpContext(True, None, []), heads, inputs, outs, reqs, grads, [])
    return grads[0]


def test_cases_present():
    assert len(CASES) >= 30


@pytest.mark.parametrize("name", CASES)
def test_forward_matches_mxnet(name):
    op, params, inputs, heads = _case(name)
    outs = forward(op, inputs, is_train=True, **params)
    for i in range(len(heads)):
        want = GOLD[f"{name}/out{i}"]
        assert outs[i].dtype == want.dtype and outs[i].shape == want.shape
        np.testing.assert_allclose(outs[i], want, **_tol(want.dtype))


@pytest.mark.parametrize("name", CASES)
def test_backward_matches_mxnet(name):
    op, params, inputs, heads = _case(name)
    grad = _grad_data(op, inputs, heads, **params)
    want = GOLD[f"{name}/grad0"]
    assert grad.dtype == want.dtype and grad.shape == want.shape
    np.testing.assert_allclose(grad, want, **_tol(want.dtype))


@pytest.mark.parametrize("name", CASES)
def test_backward_add_accumulates(name):
    op, params, inputs, heads = _case(name)
    init = np.full(inputs[0].shape, 0.25, inputs[0].dtype)
    got = _grad_data(op, inputs, heads, req=OpReq.ADD, init=init, **params)
    np.testing.assert_allclose(got, GOLD[f"{name}/grad0"] + init, **_tol(got.dtype))


def test_label_gradient_is_zero():
    x = np.random.default_rng(0).standard_normal((3, 4))
    label = np.array([0.0, 2.0, 1.0])
    for op in ("SoftmaxOutput", "SVMOutput"):
        prop = prop_of(op)
        outs = [np.zeros((3, 4))]
        opr = prop.create_operator(cpu())
        opr.forward(OpContext(True, None, []), [x, label], [OpReq.WRITE], outs, [])
        grads = [np.zeros((3, 4)), np.full(3, 7.0)]
        opr.backward(
            OpContext(True, None, []),
            [np.ones((3, 4))],
            [x, label],
            outs,
            [OpReq.WRITE, OpReq.WRITE],
            grads,
            [],
        )
        assert np.all(grads[1] == 0)


def test_softmax_output_ignores_head_gradient():
    x = np.random.default_rng(1).standard_normal((3, 4))
    label = np.array([0.0, 2.0, 1.0])
    g1 = _grad_data("SoftmaxOutput", [x, label], [np.ones((3, 4))])
    g2 = _grad_data("SoftmaxOutput", [x, label], [np.full((3, 4), 5.0)])
    np.testing.assert_array_equal(g1, g2)
    # MXNet 1.9.1 multiplies by the output, not the head gradient, with out_grad=True
    g3 = _grad_data("SoftmaxOutput", [x, label], [np.full((3, 4), 5.0)], out_grad=True)
    np.testing.assert_allclose(g3, g1 * forward("SoftmaxOutput", [x, label])[0])


@pytest.mark.parametrize(
    "op,inputs,params",
    [
        ("softmax_cross_entropy", [(3, 4), np.array([1.0, 0.0, 3.0])], {}),
        ("CTCLoss", [(5, 2, 4), np.array([[1.0, 2.0], [3.0, 3.0]])], {}),
        ("CTCLoss", [(5, 2, 4), np.array([[0.0, 1.0], [2.0, -1.0]])], {"blank_label": "last"}),
        (
            "CTCLoss",
            [
                (6, 2, 3),
                np.array([[1.0, 2.0, 1.0], [2.0, 2.0, 1.0]]),
                np.array([6.0, 4.0]),
                np.array([3.0, 1.0]),
            ],
            {"use_data_lengths": True, "use_label_lengths": True},
        ),
    ],
)
def test_backward_matches_numeric(op, inputs, params):
    rng = np.random.default_rng(5)
    x = rng.standard_normal(inputs[0])
    args = [x, *inputs[1:]]
    outs = forward(op, args, **params)
    head = rng.standard_normal(outs[0].shape)
    got = _grad_data(op, args, [head], **params)
    want = numeric_grad(op, args, [head], **params)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_ctc_loss_is_negative_log_probability_of_all_paths():
    # brute force over every path of a tiny problem: T=3, C=3 (blank 0), label [1, 2]
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 1, 3))
    p = np.exp(x) / np.exp(x).sum(axis=2, keepdims=True)
    total = 0.0
    for a in range(3):
        for b in range(3):
            for c in range(3):
                path = [a, b, c]
                collapsed = [k for i, k in enumerate(path) if k and (i == 0 or path[i - 1] != k)]
                if collapsed == [1, 2]:
                    total += p[0, 0, a] * p[1, 0, b] * p[2, 0, c]
    loss = forward("CTCLoss", [x, np.array([[1.0, 2.0]])])[0]
    np.testing.assert_allclose(loss, [-np.log(total)], rtol=1e-10)


def test_ctc_infeasible_label_gives_zero():
    x = np.random.default_rng(7).standard_normal((3, 1, 3)).astype(np.float32)
    loss, grad = forward("CTCLoss", [x, np.array([[1.0, 1.0, 1.0]], np.float32)])
    assert loss[0] == 0 and np.all(grad == 0)


ERRORS = [
    ("SoftmaxOutput", [(2, 3), (2,)], {"normalization": "all"}, ParamError, "normalization"),
    ("SoftmaxOutput", [(2, 3), (2,)], {"smooth_alpha": 2.0}, ParamError, "smooth_alpha"),
    ("SoftmaxOutput", [(2, 3), (3,)], {}, ShapeError, r"SoftmaxOutput.*label"),
    ("SoftmaxOutput", [(3, 2, 2), (3,)], {}, ShapeError, r"SoftmaxOutput.*label"),
    ("SoftmaxOutput", [(2, 3, 4), (3, 4)], {"multi_output": True}, ShapeError, "label"),
    ("SoftmaxOutput", [(2, 3)], {}, ShapeError, r"SoftmaxOutput.*inputs"),
    ("Softmax", [(2, 3), (2,)], {"grad_scale": "big"}, ParamError, "grad_scale"),
    ("LinearRegressionOutput", [(2, 3), (3, 2)], {}, ShapeError, r"LinearRegressionOutput.*label"),
    ("MAERegressionOutput", [(2, 3), (2, 4)], {}, ShapeError, "label"),
    ("SVMOutput", [(2, 3), (2, 3)], {}, ShapeError, r"SVMOutput.*label"),
    ("SVMOutput", [(2, 3), (2,)], {"margin": "wide"}, ParamError, "margin"),
    ("softmax_cross_entropy", [(2, 3, 1), (2,)], {}, ShapeError, r"softmax_cross_entropy.*data"),
    ("softmax_cross_entropy", [(2, 3), (3,)], {}, ShapeError, "label"),
    ("MakeLoss", [(2, 3)], {"normalization": "sum"}, ParamError, "normalization"),
    ("CTCLoss", [(5, 2), (2, 2)], {}, ShapeError, r"CTCLoss.*data"),
    ("CTCLoss", [(5, 2, 4), (3, 2)], {}, ShapeError, "batch"),
    ("CTCLoss", [(2, 2, 4), (2, 3)], {}, ShapeError, "label length"),
    ("CTCLoss", [(5, 2, 4), (2, 2)], {"use_data_lengths": True}, ShapeError, "inputs"),
    ("ctc_loss", [(5, 2, 4), (2, 2)], {"blank_label": "middle"}, ParamError, "blank_label"),
]


@pytest.mark.parametrize("op,shapes,params,exc,match", ERRORS)
def test_bad_input_raises(op, shapes, params, exc, match):
    inputs = [np.zeros(s, np.float32) for s in shapes]
    with pytest.raises(exc, match=match):
        forward(op, inputs, **params)


def test_softmax_cross_entropy_refuses_label_gradient():
    x = np.zeros((2, 3), np.float32)
    label = np.array([0.0, 1.0], np.float32)
    prop = prop_of("softmax_cross_entropy")
    opr = prop.create_operator(cpu())
    out = [np.zeros(1, np.float32)]
    opr.forward(OpContext(True, None, []), [x, label], [OpReq.WRITE], out, [])
    with pytest.raises(MXNetError, match=r"softmax_cross_entropy.*label"):
        opr.backward(
            OpContext(True, None, []),
            [np.ones(1, np.float32)],
            [x, label],
            out,
            [OpReq.WRITE, OpReq.WRITE],
            [np.zeros_like(x), np.zeros_like(label)],
            [],
        )


PUBLIC = [
    ("SoftmaxOutput", "so_basic", None),
    ("Softmax", "so_alias_f64", None),
    ("softmax_cross_entropy", "sce", None),
    ("LinearRegressionOutput", "linreg", None),
    ("LogisticRegressionOutput", "logreg", None),
    ("MAERegressionOutput", "maereg", None),
    ("SVMOutput", "svm_l1", None),
    ("MakeLoss", "makeloss_valid", None),
    ("make_loss", "make_loss", None),
    ("CTCLoss", "ctc_first", None),
    ("ctc_loss", "ctc_last", None),
    ("CTCLoss", "ctc_lengths", None),
    ("_contrib_CTCLoss", "ctc_data_lengths", "CTCLoss"),
    ("_contrib_ctc_loss", "ctc_label_lengths_last", "ctc_loss"),
]


@pytest.mark.parametrize("op,name,contrib", PUBLIC)
def test_public_function_forward_and_autograd(op, name, contrib):
    _, params, inputs, heads = _case(name)
    fn = getattr(mx.nd.contrib, contrib) if contrib else getattr(mx.nd, op)
    args = [mx.nd.array(a, dtype=a.dtype) for a in inputs]
    args[0].attach_grad()
    with mx.autograd.record():
        y = fn(*args, **params)
    y.backward(mx.nd.array(heads[0], dtype=heads[0].dtype))
    want = GOLD[f"{name}/out0"]
    np.testing.assert_allclose(y.asnumpy(), want, **_tol(want.dtype))
    np.testing.assert_allclose(args[0].grad.asnumpy(), GOLD[f"{name}/grad0"], **_tol(want.dtype))
