"""BatchNorm, LayerNorm, InstanceNorm, GroupNorm, L2Normalization and LRN against MXNet 1.9.1
golden values (tools/golden/cases/nn_norm.py), finite differences, req='add' and bad input.

``run_golden_case`` / ``run_public_case`` are shared with test_nn_act.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, MXNetError, ParamError, ShapeError
from mxlite.operator.req import OpReq
from tests.operator.opcheck import backward, forward, golden, numeric_grad, prop_of

G = golden("nn_norm")
META = [
    {"case": k, "train": True, "n_aux": 0, **m, "n_args": m["n_in"] - m.get("n_aux", 0)}
    for k, m in G.cases.items()
]

TOL = {"float16": (2e-2, 2e-2), "float32": (2e-4, 2e-5), "float64": (1e-6, 1e-8)}
NORM_OPS = {"BatchNorm", "LayerNorm", "InstanceNorm", "GroupNorm", "L2Normalization", "LRN"}


def cases_for(ops: set[str]) -> list[dict]:
    return [m for m in META if m["op"] in ops]


def _inputs(m: dict) -> list[np.ndarray]:
    return G.inputs(m["case"])


def _heads(m: dict, outs: list[np.ndarray]) -> list[np.ndarray]:
    return [G[f"{m['case']}/head0"]] + [np.zeros_like(o) for o in outs[1:]]


def _close(got: np.ndarray, want: np.ndarray, dtype: str, what: str) -> None:
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(
        got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, err_msg=what
    )


def _only_output(m: dict) -> bool:
    # rrelu in inference: MXNet leaves the mask (and so the gradient) unwritten, i.e. garbage
    return m["params"].get("act_type") == "rrelu" and not m["train"]


def run_golden_case(m: dict) -> None:
    """forward (visible outputs) and backward (argument gradients) against MXNet."""
    name, ins = m["case"], _inputs(m)
    outs = forward(m["op"], ins, is_train=m["train"], **m["params"])
    if _only_output(m):
        _close(outs[0], G[f"{name}/out0"], m["dtype"], f"{name} out0")
        return
    for i in range(m["n_out"]):
        _close(outs[i], G[f"{name}/out{i}"], m["dtype"], f"{name} out{i}")
        assert outs[i].dtype == G[f"{name}/out{i}"].dtype
    grads = backward(m["op"], ins, _heads(m, outs), is_train=m["train"], **m["params"])
    for i in range(m["n_args"]):
        _close(grads[i], G[f"{name}/grad{i}"], m["dtype"], f"{name} grad{i}")


def run_public_case(m: dict) -> None:
    """The same case through mx.nd and mx.autograd, including the aux states after backward."""
    name, ins = m["case"], _inputs(m)
    args = [mx.nd.array(a, dtype=a.dtype) for a in ins[: m["n_args"]]]
    aux = [mx.nd.array(a, dtype=a.dtype) for a in ins[m["n_args"] :]]
    for a in args:
        a.attach_grad()
    with mx.autograd.record(train_mode=m["train"]):
        outs = getattr(mx.nd, m["op"])(*args, *aux, **m["params"])
    outs = outs if isinstance(outs, list) else [outs]
    assert len(outs) == m["n_out"]
    if _only_output(m):
        _close(outs[0].asnumpy(), G[f"{name}/out0"], m["dtype"], f"{name} out0")
        return
    head = mx.nd.array(G[f"{name}/head0"], dtype=m["dtype"])
    mx.autograd.backward([outs[0]], [head], train_mode=m["train"])
    for i, o in enumerate(outs):
        _close(o.asnumpy(), G[f"{name}/out{i}"], m["dtype"], f"{name} out{i}")
    for i, a in enumerate(args):
        _close(a.grad.asnumpy(), G[f"{name}/grad{i}"], m["dtype"], f"{name} grad{i}")
    for i, a in enumerate(aux):
        _close(a.asnumpy(), G[f"{name}/aux{i}"], m["dtype"], f"{name} aux{i}")


needs_golden = pytest.mark.skipif(not META, reason="golden file nn_norm missing")


@needs_golden
@pytest.mark.parametrize("m", cases_for(NORM_OPS), ids=lambda m: m["case"])
def test_golden(m: dict) -> None:
    run_golden_case(m)


@needs_golden
@pytest.mark.parametrize("m", cases_for(NORM_OPS), ids=lambda m: m["case"])
def test_public_api_and_aux_update(m: dict) -> None:
    run_public_case(m)


def test_batchnorm_forward_alone_keeps_moving_stats() -> None:
    # MXNet's CPU BatchNorm updates moving_mean/var in backward only
    rng = np.random.default_rng(0)
    x = rng.normal(size=(4, 3, 2, 2))
    mm, mv = np.zeros(3), np.ones(3)
    aux = [mx.nd.array(mm, dtype="float64"), mx.nd.array(mv, dtype="float64")]
    with mx.autograd.record(train_mode=True):
        y = mx.nd.BatchNorm(
            mx.nd.array(x, dtype="float64"),
            mx.nd.ones(3, dtype="float64"),
            mx.nd.zeros(3, dtype="float64"),
            *aux,
        )
    y.wait_to_read()
    assert np.array_equal(aux[0].asnumpy(), mm) and np.array_equal(aux[1].asnumpy(), mv)


def test_batchnorm_fix_gamma_ignores_gamma_and_mean_var_outputs() -> None:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5, 2, 3))
    gamma, beta = np.array([3.0, -2.0]), np.array([0.5, 0.1])
    aux = [np.zeros(2), np.ones(2)]
    out, mean, invstd = forward("BatchNorm", [x, gamma, beta, *aux], is_train=True, eps=1e-3)
    want_mean = x.mean(axis=(0, 2))
    want_inv = 1 / np.sqrt(x.var(axis=(0, 2)) + 1e-3)
    np.testing.assert_allclose(mean, want_mean)
    np.testing.assert_allclose(invstd, want_inv)  # inverse std, not the variance
    want = (x - want_mean[:, None]) * want_inv[:, None] + beta[:, None]
    np.testing.assert_allclose(out, want)
    grads = backward("BatchNorm", [x, gamma, beta, *aux], is_train=True)
    assert np.all(grads[1] == 0)


NUMERIC = [
    ("BatchNorm", [(4, 3, 2), (3,), (3,)], [(3,), (3,)], {"fix_gamma": False}),
    ("BatchNorm", [(3, 5), (3,), (3,)], [(3,), (3,)], {"fix_gamma": False, "axis": 0}),
    (
        "BatchNorm",
        [(4, 3, 2), (3,), (3,)],
        [(3,), (3,)],
        {"fix_gamma": False, "use_global_stats": True},
    ),
    ("LayerNorm", [(3, 4), (4,), (4,)], [], {}),
    ("LayerNorm", [(2, 3, 4), (3,), (3,)], [], {"axis": 1}),
    ("GroupNorm", [(2, 4, 3), (2,), (2,)], [], {"num_groups": 2}),
    ("L2Normalization", [(2, 3, 4)], [], {"mode": "channel"}),
    ("L2Normalization", [(2, 3, 4)], [], {"mode": "spatial"}),
    ("L2Normalization", [(2, 3, 4)], [], {"mode": "instance"}),
]


@pytest.mark.parametrize("op,shapes,aux_shapes,params", NUMERIC)
def test_backward_matches_numeric(op, shapes, aux_shapes, params) -> None:
    rng = np.random.default_rng(3)
    ins = [rng.uniform(-1, 1, s) for s in shapes[:1]] + [
        rng.uniform(0.5, 1.5, s) for s in shapes[1:]
    ]
    ins += [rng.uniform(0.1, 1, s) for s in aux_shapes]
    outs = forward(op, ins, is_train=True, **params)
    heads = [rng.uniform(-1, 1, outs[0].shape)] + [np.zeros_like(o) for o in outs[1:]]
    got = backward(op, ins, heads, is_train=True, **params)
    want = numeric_grad(op, ins, heads, **params)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7)


ADD_CASES = [
    ("BatchNorm", [(4, 3, 2), (3,), (3,)], [(3,), (3,)], {"fix_gamma": False}),
    ("LayerNorm", [(3, 4), (4,), (4,)], [], {}),
    ("InstanceNorm", [(2, 3, 4), (3,), (3,)], [], {}),
    ("GroupNorm", [(2, 4, 3), (2,), (2,)], [], {"num_groups": 2}),
    ("L2Normalization", [(2, 3, 4)], [], {}),
    ("LRN", [(2, 5, 2, 2)], [], {"nsize": 3}),
]


@pytest.mark.parametrize("op,shapes,aux_shapes,params", ADD_CASES)
def test_req_add_accumulates(op, shapes, aux_shapes, params) -> None:
    rng = np.random.default_rng(4)
    ins = [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
    ins += [rng.uniform(0.1, 1, s).astype(np.float32) for s in aux_shapes]
    init = [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
    plain = backward(op, ins, is_train=True, **params)
    added = backward(op, ins, is_train=True, req=OpReq.ADD, grad_init=init, **params)
    for p, a, i in zip(plain, added, init):
        np.testing.assert_allclose(a, i + p, rtol=1e-5, atol=1e-6)


def test_infer_shape_fills_params_and_checks_channels() -> None:
    prop = prop_of("BatchNorm", axis=-1)
    ins, outs, aux = prop.infer_shape([(2, 5, 7), None, None])
    assert ins == [(2, 5, 7), (7,), (7,)] and outs == [(2, 5, 7), (7,), (7,)]
    assert aux == [(7,), (7,)]
    ins, outs, _ = prop_of("GroupNorm", num_groups=2).infer_shape([(2, 4, 3), None, None])
    assert ins[1] == (2,) and outs[1] == (2, 2)
    _, outs, _ = prop_of("LayerNorm").infer_shape([(2, 4, 3), None, None])
    assert outs[1] == (2, 4, 1)
    assert prop_of("BatchNorm").num_visible_outputs() == 1
    assert prop_of("BatchNorm", output_mean_var=True).num_visible_outputs() == 3
    assert prop_of("BatchNorm").list_auxiliary_states() == ["moving_mean", "moving_var"]


def test_float16_batchnorm_keeps_float32_params() -> None:
    _, outs, _, aux = prop_of("BatchNorm").infer_imperative(
        ((2, 3), (3,), (3,)), (np.dtype("float16"), np.dtype("float32"), np.dtype("float32"))
    )
    assert outs == [np.float16, np.float32, np.float32] and aux == [np.float32, np.float32]


def _nd(*shapes, dtype="float32"):
    return [mx.nd.ones(s, dtype=dtype) for s in shapes]


@pytest.mark.parametrize(
    "call,err,match",
    [
        (
            lambda: mx.nd.BatchNorm(*_nd((2, 3), (3,), (3,), (3,), (3,)), axis=4),
            ShapeError,
            "BatchNorm.*axis",
        ),
        (
            lambda: mx.nd.BatchNorm(*_nd((2, 3), (4,), (3,), (3,), (3,))),
            ShapeError,
            "BatchNorm.*gamma",
        ),
        (
            lambda: mx.nd.BatchNorm(*_nd((2, 3), (3,), (3,), (3,), (3,)), momentum="x"),
            ParamError,
            "BatchNorm.*momentum",
        ),
        (lambda: mx.nd.LayerNorm(*_nd((2, 3), (3,), (3,)), axis=2), ShapeError, "LayerNorm.*axis"),
        (lambda: mx.nd.LayerNorm(*_nd((2, 3), (2,), (3,))), ShapeError, "LayerNorm.*gamma"),
        (
            lambda: mx.nd.GroupNorm(*_nd((2, 4, 3), (3,), (3,)), num_groups=3),
            ShapeError,
            "GroupNorm.*num_groups",
        ),
        (
            lambda: mx.nd.GroupNorm(*_nd((2, 4, 3), (2,), (2,)), num_groups=0),
            ParamError,
            "GroupNorm.*num_groups",
        ),
        (lambda: mx.nd.InstanceNorm(*_nd((2, 4), (4,), (4,))), ShapeError, "InstanceNorm.*data"),
        (
            lambda: mx.nd.InstanceNorm(*_nd((2, 4, 3), (4,), (4,), dtype="float64")),
            DTypeError,
            "InstanceNorm.*data",
        ),
        (
            lambda: mx.nd.L2Normalization(*_nd((2, 4)), mode="pixel"),
            ParamError,
            "L2Normalization.*mode",
        ),
        (lambda: mx.nd.LRN(*_nd((2, 4, 3, 3)), nsize=2), ShapeError, "LRN.*nsize"),
        (lambda: mx.nd.LRN(*_nd((2, 4, 3, 3))), ParamError, "LRN.*nsize"),
        (lambda: mx.nd.LRN(*_nd((2, 4, 3)), nsize=3), ShapeError, "LRN.*data"),
        (
            lambda: mx.nd.BatchNorm(*_nd((2, 3), dtype="int32"), *_nd((3,), (3,), (3,), (3,))),
            DTypeError,
            "BatchNorm.*data",
        ),
    ],
)
def test_bad_input_raises(call, err, match) -> None:
    with pytest.raises(err, match=match):
        call()


def test_wrong_number_of_inputs() -> None:
    with pytest.raises(MXNetError, match="BatchNorm"):
        prop_of("BatchNorm").infer_shape([(2, 3), None])
    with pytest.raises(MXNetError, match="LayerNorm"):
        prop_of("LayerNorm").infer_shape([(2, 3)])


def test_npx_aliases_share_the_entry() -> None:
    from mxlite.operator import registry

    assert registry.get("_npx_batch_norm") is registry.get("BatchNorm")
    assert registry.get("_npx_layer_norm") is registry.get("LayerNorm")


def test_layernorm_sums_over_many_rows_stay_exact() -> None:
    # MXNet's test_layer_norm checks a (4096, 512) float32 case at 1e-4: plain float32 sums
    # over the rows drift by ~3e-4 here
    rs = np.random.RandomState(0)
    x = rs.normal(size=(4096, 64)).astype(np.float32)
    gamma, beta = np.ones(64, np.float32), np.zeros(64, np.float32)
    head = rs.normal(size=x.shape).astype(np.float32)
    grads = backward("LayerNorm", [x, gamma, beta], [head, None, None])
    mean = x.mean(-1, keepdims=True, dtype=np.float64)
    xhat = (x - mean) / np.sqrt(x.var(-1, keepdims=True, dtype=np.float64) + 1e-5)
    np.testing.assert_allclose(grads[1], (head * xhat).sum(0), rtol=0, atol=3e-5)
    np.testing.assert_allclose(grads[2], head.sum(0, dtype=np.float64), rtol=0, atol=3e-5)
    assert grads[1].dtype == np.float32


@pytest.mark.parametrize("axis", [1, -1, 0])
def test_batchnorm_split_over_channel_blocks_equals_whole(monkeypatch, axis):
    """BatchNorm spreads blocks of channels over the kernel threads: the same outputs,
    gradients and moving statistics as one block."""
    import mxlite as mx
    from mxlite.operator import parallel

    rng = np.random.RandomState(3)
    data = rng.randn(4, 7, 5, 3).astype(np.float32)
    nch = data.shape[axis]
    head = rng.randn(*data.shape).astype(np.float32)

    def run():
        x = mx.nd.array(data)
        gamma, beta = mx.nd.array(rng.rand(nch) + 0.5), mx.nd.array(rng.rand(nch))
        mm, mv = mx.nd.zeros(nch), mx.nd.ones(nch)
        for a in (x, gamma, beta):
            a.attach_grad()
        with mx.autograd.record():
            y = mx.nd.BatchNorm(x, gamma, beta, mm, mv, fix_gamma=False, axis=axis)
        y.backward(mx.nd.array(head))
        return [a.asnumpy() for a in (y, x.grad, gamma.grad, beta.grad, mm, mv)]

    rng.seed(5)
    whole = run()
    monkeypatch.setattr(parallel, "_MIN_ELEMENTS", 1)
    monkeypatch.setattr(parallel, "num_threads", lambda: 3)
    rng.seed(5)
    split = run()
    for a, b in zip(whole, split):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(700, 768), (3, 5, 1), (4, 300, 64)])
def test_layernorm_last_axis_rows_match_float64(monkeypatch, dtype, shape) -> None:
    # the last-axis path: BLAS sums per row, rows split over three kernel threads, written
    # into the output (or added to it); the mean and std outputs as MXNet's output_mean_var
    from mxlite.operator import parallel

    monkeypatch.setattr(parallel, "num_threads", lambda: 3)
    rs = np.random.RandomState(5)
    x = (rs.normal(size=shape) * 3 + 2).astype(dtype)
    gamma = rs.uniform(0.5, 1.5, shape[-1]).astype(dtype)
    beta = rs.normal(size=shape[-1]).astype(dtype)
    y, mean, std = forward("LayerNorm", [x, gamma, beta], output_mean_var=True)
    x64 = x.astype(np.float64)
    m = x64.mean(-1, keepdims=True)
    s = np.sqrt(x64.var(-1, keepdims=True) + 1e-5)
    tol = dict(rtol=2e-5, atol=2e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(y, (x64 - m) / s * gamma + beta, **tol)
    np.testing.assert_allclose(mean, m, **tol)
    np.testing.assert_allclose(std, s, **tol)
    assert y.dtype == mean.dtype == std.dtype == dtype
    init = [rs.normal(size=y.shape).astype(dtype), np.zeros_like(mean), np.zeros_like(std)]
    added = forward("LayerNorm", [x, gamma, beta], req=OpReq.ADD, out_init=init)
    np.testing.assert_allclose(added[0], init[0] + y, **tol)
    head = rs.normal(size=shape).astype(dtype)
    dx, dgamma, dbeta = backward("LayerNorm", [x, gamma, beta], [head, None, None])
    xhat = (x64 - m) / s
    dxhat = head * gamma.astype(np.float64)
    want = dxhat - dxhat.mean(-1, keepdims=True) - xhat * (dxhat * xhat).mean(-1, keepdims=True)
    lead = tuple(range(len(shape) - 1))
    np.testing.assert_allclose(dx, want / s, **tol)
    np.testing.assert_allclose(dgamma, (head * xhat).sum(lead), rtol=tol["rtol"], atol=1e-4)
    np.testing.assert_allclose(dbeta, head.sum(lead, dtype=np.float64), rtol=tol["rtol"], atol=1e-4)
    assert dx.dtype == dgamma.dtype == dbeta.dtype == dtype
