"""Pooling (mxlite/operator/nn/pooling.py) against real MXNet 1.9.1 golden values, finite
differences, gradient accumulation, bad input and the public mx.nd function.

The golden helpers here also serve test_nn_misc.py (the other operators of the same file)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, MXNetError, ParamError, ShapeError
from mxlite.operator import registry
from mxlite.operator.req import OpReq

from . import opcheck


def load_cases(ops: set[str]) -> list[tuple[int, str, dict, list, dict[str, np.ndarray]]]:
    """The golden cases of ``ops``: (index, op, params, inputs with gradients, arrays)."""
    g = opcheck.golden("nn_pool")
    out = []
    for name, case in sorted(g.cases.items(), key=lambda item: int(item[0])):
        if case["op"] in ops:
            arrays = {k.split("/", 1)[1]: v for k, v in g.items() if k.startswith(f"{name}/")}
            params = {k: tuple(v) if isinstance(v, list) else v for k, v in case["params"].items()}
            out.append((int(name), case["op"], params, case["grads"], arrays))
    return out


def inputs_of(arrays: dict[str, np.ndarray]) -> list[np.ndarray]:
    out, j = [], 0
    while f"in{j}" in arrays:
        out.append(arrays[f"in{j}"])
        j += 1
    return out


def tol(dtype: Any) -> dict[str, float]:
    dt = np.dtype(dtype)
    if dt == np.float16:
        return {"rtol": 1e-2, "atol": 1e-2}
    if dt == np.float32:
        return {"rtol": 1e-4, "atol": 1e-5}
    return {"rtol": 1e-7, "atol": 1e-9}


def check_golden(op: str, params: dict, grads: list, arrays: dict[str, np.ndarray]) -> None:
    ins = inputs_of(arrays)
    if registry.get(op).key_var_num_args and "num_args" not in params:
        params = {**params, "num_args": len(ins)}  # as mx.nd fills it from the inputs
    y = opcheck.forward(op, ins, is_train=True, **params)[0]
    want = arrays["out0"]
    assert y.shape == want.shape and y.dtype == want.dtype
    np.testing.assert_allclose(y, want, **tol(want.dtype))
    if not grads:
        return
    got = opcheck.backward(op, ins, [arrays["head0"]], **params)
    for j in grads:
        np.testing.assert_allclose(got[j], arrays[f"grad{j}"], **tol(ins[j].dtype))


CASES = load_cases({"Pooling"})


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_golden(case) -> None:
    _, op, params, grads, arrays = case
    check_golden(op, params, grads, arrays)


def test_golden_in_small_blocks_on_threads(monkeypatch) -> None:
    """The kernels cut the rows into cache-sized blocks spread over threads: tiny blocks and
    threads for any size must give the same values (ties included)."""
    from mxlite.operator import parallel as _parallel
    from mxlite.operator.nn import _phase_grid

    monkeypatch.setattr(_phase_grid, "_CACHE_ELEMENTS", 40)
    monkeypatch.setattr(_parallel, "_MIN_ELEMENTS", 1)
    monkeypatch.setattr(_parallel, "num_threads", lambda: 3)
    for _, op, params, grads, arrays in CASES:
        check_golden(op, params, grads, arrays)


NUMERIC = [
    ((1, 2, 5, 5), {"kernel": (2, 2)}),
    ((1, 2, 5, 5), {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1)}),
    ((1, 2, 5, 6), {"kernel": (3, 2), "stride": (2, 2), "pooling_convention": "full"}),
    (
        (1, 2, 5, 5),
        {
            "kernel": (3, 3),
            "stride": (2, 2),
            "pad": (1, 1),
            "pool_type": "avg",
            "count_include_pad": False,
            "pooling_convention": "full",
        },
    ),
    ((1, 2, 5, 5), {"kernel": (2, 2), "pool_type": "sum", "pad": (1, 1)}),
    ((1, 2, 4, 4), {"kernel": (2, 2), "pool_type": "lp", "p_value": 2}),
    ((1, 2, 4, 4), {"kernel": (2, 2), "pool_type": "lp", "p_value": 3}),
    ((2, 2, 7), {"kernel": (3,), "stride": (2,), "pooling_convention": "same"}),
    ((1, 4, 4, 2), {"kernel": (2, 2), "pool_type": "avg", "layout": "NHWC", "pad": (1, 1)}),
    ((1, 1, 3, 4, 4), {"kernel": (2, 2, 2), "stride": (1, 2, 2)}),
    ((2, 3, 3, 3), {"global_pool": True, "pool_type": "max"}),
    # sums axis by axis over phases of three axes, and one axis with a gap-free stride 3
    (
        (1, 2, 4, 5, 5),
        {"kernel": (2, 3, 3), "stride": (1, 2, 1), "pad": (1, 1, 0), "pool_type": "avg"},
    ),
    ((2, 2, 9), {"kernel": (4,), "stride": (3,), "pad": (2,), "pool_type": "sum"}),
    (
        (1, 2, 6, 6),
        {"kernel": (3, 3), "stride": (1, 1), "pad": (1, 1), "pool_type": "lp", "p_value": 1},
    ),
]


@pytest.mark.parametrize("shape,params", NUMERIC)
def test_backward_matches_numeric(shape, params) -> None:
    rng = np.random.default_rng(1)
    n = int(np.prod(shape))
    x = (rng.permutation(n).reshape(shape) / n + 0.5).astype(np.float64)  # distinct: no ties
    y = opcheck.forward("Pooling", [x], **params)[0]
    head = rng.normal(size=y.shape)
    got = opcheck.backward("Pooling", [x], [head], **params)[0]
    want = opcheck.numeric_grad("Pooling", [x], [head], eps=1e-6, **params)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_max_tie_goes_to_first_position() -> None:
    x = np.ones((1, 1, 2, 2))
    g = opcheck.backward("Pooling", [x], [np.full((1, 1, 1, 1), 3.0)], kernel=(2, 2))[0]
    assert g.tolist() == [[[[3.0, 0.0], [0.0, 0.0]]]]


@pytest.mark.parametrize("pool_type", ["max", "avg", "lp"])
def test_req_add_accumulates(pool_type: str) -> None:
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 2, 5, 5))
    params = {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1), "pool_type": pool_type}
    if pool_type == "lp":
        params["p_value"] = 2
    head = rng.normal(size=(2, 2, 3, 3))
    init = rng.normal(size=x.shape)
    plain = opcheck.backward("Pooling", [x], [head], **params)[0]
    added = opcheck.backward("Pooling", [x], [head], req=OpReq.ADD, grad_init=[init], **params)[0]
    np.testing.assert_allclose(added, init + plain)


def test_forward_req_add() -> None:
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    init = np.ones((1, 1, 2, 2))
    y = opcheck.forward(
        "Pooling", [x], req=OpReq.ADD, out_init=[init], kernel=(2, 2), stride=(2, 2)
    )[0]
    assert y.tolist() == [[[[6.0, 8.0], [14.0, 16.0]]]]


@pytest.mark.parametrize(
    "shape,params,err,match",
    [
        ((1, 1, 4, 4), {"kernel": (0, 2)}, ParamError, "Pooling.*kernel"),
        ((1, 1, 4, 4), {"kernel": (2, 2), "stride": (0, 1)}, ParamError, "Pooling.*stride"),
        ((1, 1, 4, 4), {"kernel": (2,)}, ShapeError, "Pooling.*kernel"),
        ((1, 1, 4, 4), {"kernel": (7, 7)}, ShapeError, "Pooling.*kernel"),
        ((1, 1, 4, 4), {}, ParamError, "Pooling.*kernel"),
        ((4, 4), {"kernel": (2,)}, ShapeError, "Pooling.*data"),
        ((1, 1, 4, 4), {"kernel": (2, 2), "pool_type": "lp"}, ParamError, "Pooling.*p_value"),
        ((1, 1, 4, 4), {"kernel": (2, 2), "layout": "NCW"}, ParamError, "Pooling.*layout"),
        (
            (1, 1, 4, 4),
            {"kernel": (2, 2), "pooling_convention": "same"},
            ParamError,
            "Pooling.*same",
        ),
        ((1, 1, 4, 4), {"kernel": (2, 2), "pool_type": "median"}, ParamError, "Pooling.*pool_type"),
    ],
)
def test_bad_input(shape, params, err, match) -> None:
    with pytest.raises(err, match=match):
        opcheck.forward("Pooling", [np.zeros(shape, np.float32)], **params)


def test_extra_pad_and_stride_values_are_ignored() -> None:
    # MXNet reads only the first len(kernel) values (values from real MXNet 1.9.1)
    x = np.arange(10, dtype=np.float32).reshape(1, 1, 10)
    out = opcheck.forward(
        "Pooling", [x], kernel=(2,), stride=(2, 1, 1), pad=(0, 0, 0), pool_type="max"
    )[0]
    np.testing.assert_array_equal(out, [[[1, 3, 5, 7, 9]]])
    out = opcheck.forward("Pooling", [x], kernel=(3,), pad=(1, 2, 3), pool_type="max")[0]
    assert out.shape == (1, 1, 10)


def test_too_few_pad_values_rejected() -> None:
    with pytest.raises(ParamError, match="Pooling.*pad"):
        opcheck.forward("Pooling", [np.zeros((1, 1, 4, 4), np.float32)], kernel=(2, 2), pad=(1,))


def test_integer_data_rejected() -> None:
    with pytest.raises(DTypeError, match="Pooling.*data"):
        opcheck.forward("Pooling", [np.zeros((1, 1, 4, 4), np.int32)], kernel=(2, 2))


def test_npx_alias_is_registered() -> None:
    assert registry.get("_npx_pooling") is registry.get("Pooling")


@pytest.mark.parametrize("name", ["Pooling"])
def test_public_function(name: str) -> None:
    x = np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4)
    y = getattr(mx.nd, name)(mx.nd.array(x), kernel=(2, 2), stride=(2, 2), pool_type="avg")
    want = x.reshape(1, 2, 2, 2, 2, 2).mean(axis=(3, 5))
    np.testing.assert_allclose(y.asnumpy(), want)
    with pytest.raises(MXNetError, match="Pooling"):
        getattr(mx.nd, name)(mx.nd.array(x), kernel=(2, 2), kernal=(2, 2))


def test_autograd_through_public_function() -> None:
    x = mx.nd.array(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Pooling(x, kernel=(2, 2), stride=(2, 2))
    y.backward()
    g = x.grad.asnumpy()[0, 0]
    assert g.sum() == 4 and g[1, 1] == 1 and g[3, 3] == 1


# ---- global pooling and the slices' gradients ---------------------------------------------

# global pooling's cases are among CASES (Pooling) above
SLICE_CASES = load_cases({"slice", "slice_axis", "slice_like"})


@pytest.mark.parametrize("case", SLICE_CASES, ids=[f"{c[0]}-{c[1]}" for c in SLICE_CASES])
def test_golden_slice_gradients(case) -> None:
    _, op, params, grads, arrays = case
    check_golden(op, params, grads, arrays)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("req", [OpReq.WRITE, OpReq.ADD])
def test_global_max_ties_go_to_the_first_position_as_a_whole_window_does(layout, req) -> None:
    # the global backward works on the whole window at once; a window of the input's size
    # walked offset by offset is the reference for ties (MXNet routes to the first maximum)
    rng = np.random.default_rng(3)
    shape = (2, 3, 4, 5) if layout == "NCHW" else (2, 4, 5, 3)
    x = np.maximum(np.round(rng.normal(size=shape)), 0)  # most maxima are tied
    x[0, 0] = np.nan  # a NaN output routes nothing
    head = rng.normal(size=(2, 3, 1, 1) if layout == "NCHW" else (2, 1, 1, 3))
    init = [rng.normal(size=shape)]
    kernel = (4, 5)
    got = opcheck.backward(
        "Pooling", [x], [head], req=req, grad_init=init, global_pool=True, layout=layout
    )[0]
    want = opcheck.backward(
        "Pooling", [x], [head], req=req, grad_init=init, kernel=kernel, layout=layout
    )[0]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("pool_type", ["avg", "sum", "lp"])
def test_global_req_add_accumulates(pool_type: str) -> None:
    rng = np.random.default_rng(4)
    x = np.abs(rng.normal(size=(2, 3, 4, 4))) + 0.5
    params = {"global_pool": True, "pool_type": pool_type, "layout": "NHWC"}
    if pool_type == "lp":
        params["p_value"] = 3
    head = rng.normal(size=(2, 1, 1, 4))
    init = rng.normal(size=x.shape)
    plain = opcheck.backward("Pooling", [x], [head], **params)[0]
    added = opcheck.backward("Pooling", [x], [head], req=OpReq.ADD, grad_init=[init], **params)[0]
    np.testing.assert_allclose(added, init + plain)
