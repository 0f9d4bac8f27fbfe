"""The _random_pdf_* operators and _sample_unique_zipfian / mx.nd.contrib.rand_zipfian."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, MXNetError, ParamError, ShapeError
from mxlite.operator.req import OpReq

from . import opcheck

PDF_NAMES = [
    "uniform",
    "normal",
    "gamma",
    "exponential",
    "poisson",
    "negative_binomial",
    "generalized_negative_binomial",
    "dirichlet",
]
TOL = {"float16": (2e-2, 2e-2), "float32": (1e-4, 1e-5), "float64": (1e-9, 1e-11)}
# MXNet's digamma (cephes psi) is good to about 1e-7 relative only, even in float64
GRAD_TOL = {"float16": (5e-2, 5e-2), "float32": (1e-3, 1e-4), "float64": (1e-5, 1e-7)}


GOLD = opcheck.golden("random_pdf")
CASES = sorted(((int(k), c) for k, c in GOLD.cases.items()), key=lambda item: item[0])


def _case(i: int, case: dict) -> tuple[list[np.ndarray], dict[str, np.ndarray]]:
    return GOLD.inputs(str(i)), {
        k.split("/")[1]: v for k, v in GOLD.items() if k.startswith(f"{i}/")
    }


def _id(c: tuple[int, dict]) -> str:
    i, case = c
    return f"{i}-{case['op'][12:]}-{case['dtype']}-{'log' if case['is_log'] else 'pdf'}"


@pytest.mark.parametrize("c", CASES, ids=[_id(c) for c in CASES])
def test_forward_backward_match_mxnet(c):
    i, case = c
    ins, rec = _case(i, case)
    rtol, atol = TOL[case["dtype"]]
    (out,) = opcheck.forward(case["op"], ins, is_log=case["is_log"])
    assert out.dtype == np.dtype(case["dtype"])
    np.testing.assert_allclose(out.astype(np.float64), rec["out0"], rtol=rtol, atol=atol)
    grads = opcheck.backward(case["op"], ins, [rec["head0"]], is_log=case["is_log"])
    grtol, gatol = GRAD_TOL[case["dtype"]]
    for j, g in enumerate(grads):
        ref = rec[f"grad{j}"].astype(np.float64)
        np.testing.assert_allclose(
            g.astype(np.float64), ref, rtol=grtol, atol=gatol * max(1.0, np.abs(ref).max())
        )


def _small(name: str, rng: np.random.Generator) -> list[np.ndarray]:
    u = rng.uniform
    if name == "dirichlet":
        x = u(0.2, 1.0, size=(2, 3, 3))
        return [x / x.sum(axis=-1, keepdims=True), u(0.5, 2.5, size=(2, 3))]
    ints = rng.integers(0, 5, size=(2, 3)).astype(np.float64)
    return {
        "uniform": [u(0, 1, (2, 3)), u(-1, -0.1, (2,)), u(1, 2, (2,))],
        "normal": [u(-2, 2, (2, 3)), u(-1, 1, (2,)), u(0.5, 2, (2,))],
        "gamma": [u(0.5, 3, (2, 3)), u(1.5, 4, (2,)), u(0.5, 2, (2,))],
        "exponential": [u(0.1, 3, (2, 3)), u(0.5, 2, (2,))],
        "poisson": [ints, u(0.5, 4, (2,))],
        "negative_binomial": [ints, u(0.5, 3, (2,)), u(0.2, 0.8, (2,))],
        "generalized_negative_binomial": [ints, u(0.5, 3, (2,)), u(0.3, 1.5, (2,))],
    }[name]


@pytest.mark.parametrize("is_log", [False, True])
@pytest.mark.parametrize("name", PDF_NAMES)
def test_backward_matches_numeric_gradient(name, is_log):
    rng = np.random.default_rng(7)
    ins = _small(name, rng)
    op = f"_random_pdf_{name}"
    (out,) = opcheck.forward(op, ins, is_log=is_log)
    head = [rng.uniform(-1, 1, size=out.shape)]
    got = opcheck.backward(op, ins, head, is_log=is_log)
    want = opcheck.numeric_grad(op, ins, head, eps=1e-6, is_log=is_log)
    discrete = name in ("poisson", "negative_binomial", "generalized_negative_binomial")
    for j, (g, w) in enumerate(zip(got, want)):
        if j == 0 and discrete:
            assert np.all(g == 0)  # MXNet gives no gradient for the counts
            continue
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("name", PDF_NAMES)
def test_req_add_accumulates(name):
    rng = np.random.default_rng(3)
    ins = _small(name, rng)
    op = f"_random_pdf_{name}"
    (out,) = opcheck.forward(op, ins)
    head = [rng.uniform(-1, 1, size=out.shape)]
    init = [rng.uniform(-1, 1, size=a.shape) for a in ins]
    plain = opcheck.backward(op, ins, head)
    added = opcheck.backward(op, ins, head, req=OpReq.ADD, grad_init=init)
    for p, a, g0 in zip(plain, added, init):
        np.testing.assert_allclose(a, g0 + p, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("alias", ["_random_pdf_", "random_pdf_"])
@pytest.mark.parametrize("name", PDF_NAMES)
def test_public_functions(name, alias):
    ins = _small(name, np.random.default_rng(5))
    fn = getattr(mx.nd, alias + name) if alias[0] != "_" else getattr(mx.nd._internal, alias + name)
    got = fn(*[mx.nd.array(a, dtype="float64") for a in ins], is_log=True).asnumpy()
    (want,) = opcheck.forward(f"_random_pdf_{name}", ins, is_log=True)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    sym = getattr(mx.sym, "random_pdf_" + name)(*[mx.sym.var(f"v{i}") for i in range(len(ins))])
    expected_args = ["v0", "v1", "v2"][: len(ins)]
    assert sym.list_arguments() == expected_args


def test_documented_values():
    # the examples of MXNet's operator docs
    nd = mx.nd
    got = nd.random_pdf_normal(
        sample=nd.array([[-2, -1, 0, 1, 2]] * 2), mu=nd.array([0, 0]), sigma=nd.array([1, 2])
    ).asnumpy()
    np.testing.assert_allclose(
        got[1], [0.12098537, 0.17603266, 0.19947115, 0.17603266, 0.12098537], rtol=1e-6
    )
    got = nd.random_pdf_dirichlet(
        sample=nd.array([[1, 2], [2, 3], [3, 4]]), alpha=nd.array([2.5, 2.5])
    ).asnumpy()
    np.testing.assert_allclose(got, [38.413498, 199.60245, 564.56085], rtol=1e-5)
    one = nd.random_pdf_dirichlet(nd.array([0.2, 0.8]), nd.array([1.5, 2.0]))
    assert one.shape == (1,)
    got = nd.random_pdf_poisson(sample=nd.array([[0, 1, 2, 3]]), lam=nd.array([1])).asnumpy()
    np.testing.assert_allclose(got, [[0.36787945, 0.36787945, 0.18393973, 0.06131324]], rtol=1e-6)


def test_shape_inference():
    prop = opcheck.prop_of("_random_pdf_normal")
    assert prop.list_arguments() == ["sample", "mu", "sigma"]
    assert prop.infer_shape([(3, 4, 5), (3,), None]) is None  # every rank must be known
    ins, outs, _ = prop.infer_shape([(3, 4, 5), (3,), (0,)])
    assert ins == [(3, 4, 5), (3,), (3,)] and outs == [(3, 4, 5)]
    dprop = opcheck.prop_of("_random_pdf_dirichlet")
    ins, outs, _ = dprop.infer_shape([(2, 3, 4), (2, 4)])
    assert outs == [(2, 3)]


def test_bad_input():
    nd = mx.nd
    with pytest.raises(ShapeError, match="_random_pdf_normal.*mu"):
        nd.random_pdf_normal(nd.array([[1, 2]]), nd.array([0, 1]), nd.array([1, 1]))
    with pytest.raises(ShapeError, match="_random_pdf_normal.*sigma"):
        nd.random_pdf_normal(nd.array([[1, 2]]), nd.array([0]), nd.array([1, 1]))
    with pytest.raises(ShapeError, match="_random_pdf_exponential.*'sample'"):
        nd.random_pdf_exponential(nd.array([1, 2]), nd.array([[1]]))
    with pytest.raises(ShapeError, match="_random_pdf_dirichlet.*alpha"):
        nd.random_pdf_dirichlet(nd.array([[0.5, 0.5]]), nd.array([1.0, 1.0, 1.0]))
    with pytest.raises(DTypeError, match="_random_pdf_poisson.*floating point"):
        nd.random_pdf_poisson(nd.array([[1]], dtype="int32"), nd.array([1], dtype="int32"))
    with pytest.raises(ParamError, match="_random_pdf_gamma.*is_lg"):
        nd.random_pdf_gamma(nd.array([[1]]), nd.array([1]), nd.array([1]), is_lg=True)


# ---- _sample_unique_zipfian and rand_zipfian ---------------------------------------------------


def test_unique_zipfian_rows_are_distinct_and_in_range():
    mx.random.seed(11)
    samples, trials = mx.nd._internal._sample_unique_zipfian(50, shape=(6, 40))
    s, t = samples.asnumpy(), trials.asnumpy()
    assert s.dtype == np.int64 and t.dtype == np.int64
    assert s.shape == (6, 40) and t.shape == (6,)
    assert all(np.unique(row).size == 40 for row in s)
    assert s.min() >= 0 and s.max() < 50
    assert np.all(t >= 40)


def test_unique_zipfian_trials_follow_mxnet():
    # MXNet's own check: about 15,500 draws give 8192 distinct classes of 793472
    mx.random.seed(0)
    _, trials = mx.nd._internal._sample_unique_zipfian(793472, shape=(2, 8192))
    t = trials.asnumpy()
    assert np.all((t > 14500) & (t < 17000))


def test_unique_zipfian_counts_trials_exactly():
    # all classes must come: the last new class arrives at the counted trial, never before
    mx.random.seed(5)
    samples, trials = opcheck.forward("_sample_unique_zipfian", [], range_max=4, shape=(50, 4))
    assert np.all(np.sort(samples, axis=1) == np.arange(4))
    assert np.all(trials >= 4)
    assert trials.max() > 4  # 50 rows of 4 distinct draws in a row are all but impossible


def test_unique_zipfian_bad_params():
    op = mx.nd._internal._sample_unique_zipfian
    with pytest.raises(ParamError, match="_sample_unique_zipfian.*'shape'"):
        op(4, shape=(3,))
    with pytest.raises(ParamError, match="_sample_unique_zipfian.*'shape'"):
        op(4)
    with pytest.raises(ParamError, match="_sample_unique_zipfian.*range_max"):
        op(4, shape=(3, 5))
    with pytest.raises(MXNetError, match="_sample_unique_zipfian.*range_max"):
        op(shape=(3, 5))


def test_rand_zipfian():
    mx.random.seed(2)
    range_max, num = 20, 2000
    true = mx.nd.array([0, 3, 19], dtype="int32")
    sampled, exp_true, exp_sampled = mx.nd.contrib.rand_zipfian(true, num, range_max)
    s = sampled.asnumpy()
    assert s.dtype == np.int64 and exp_true.dtype == np.float64
    assert s.min() >= 0 and s.max() < range_max
    prob = (np.log(np.arange(range_max) + 2.0) - np.log(np.arange(range_max) + 1.0)) / np.log(
        range_max + 1
    )
    np.testing.assert_allclose(exp_true.asnumpy(), prob[[0, 3, 19]] * num, rtol=1e-12)
    np.testing.assert_allclose(exp_sampled.asnumpy(), prob[s] * num, rtol=1e-12)
    freq = np.bincount(s, minlength=range_max) / num
    assert np.abs(freq - prob).max() < 0.05


@pytest.mark.parametrize("name", ["uniform", "poisson", "dirichlet"])
def test_backward_without_sample_gradient(name):
    # a graph that needs only the parameters' gradients hands no array for the sample's
    ins = _small(name, np.random.default_rng(9))
    prop = opcheck.prop_of(f"_random_pdf_{name}")
    op = prop.create_operator(mx.cpu())
    (out,) = opcheck.forward(f"_random_pdf_{name}", ins)
    head = np.ones_like(out)
    grads = [None] + [np.zeros_like(a) for a in ins[1:]]
    reqs = [OpReq.NULL] + [OpReq.WRITE] * (len(ins) - 1)
    ctx = opcheck.OpContext(True, None, [])
    op.backward(ctx, [head], ins, [out], reqs, grads, [])
    want = opcheck.backward(f"_random_pdf_{name}", ins, [head])
    for g, w in zip(grads[1:], want[1:]):
        np.testing.assert_allclose(g, w, rtol=1e-12)
