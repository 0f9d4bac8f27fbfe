"""The _linalg_* operators against MXNet 1.9.1 (golden file), finite differences, requests,
errors and the public mx.nd.linalg functions."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, MXNetError, ShapeError
from mxlite.operator import registry
from mxlite.operator.req import OpReq
from mxlite.operator.tensor import linalg

from . import opcheck

GOLD = opcheck.golden("linalg")
CASES = [{"id": k, **c} for k, c in GOLD.cases.items() if c["op"].startswith("linalg.")]
IDS = [c["id"] for c in CASES]
# operators whose input is read through one triangle while MXNet's gradient is the symmetric
# matrix: finite differences see the two off-diagonal halves summed
SYMMETRIC_GRAD = {"linalg.potrf", "linalg.syevd"}


def reg_name(op: str) -> str:
    return "_linalg_" + op.split(".", 1)[1]


def tol(dtype: str) -> dict:
    return {"rtol": 1e-3, "atol": 1e-4} if dtype == "float32" else {"rtol": 1e-7, "atol": 1e-9}


def arrays(case: dict, kind: str) -> list[np.ndarray]:
    return GOLD.series(case["id"], kind)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_forward_matches_mxnet(case):
    outs = opcheck.forward(reg_name(case["op"]), arrays(case, "in"), **case["params"])
    want = arrays(case, "out")
    assert len(outs) == len(want)
    for got, exp in zip(outs, want):
        assert got.shape == exp.shape and got.dtype == exp.dtype
        np.testing.assert_allclose(got, exp, **tol(case["dtypes"][0]))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_backward_matches_mxnet(case):
    grads = opcheck.backward(
        reg_name(case["op"]), arrays(case, "in"), arrays(case, "head"), **case["params"]
    )
    for got, exp in zip(grads, arrays(case, "grad"), strict=True):
        np.testing.assert_allclose(got, exp, **tol(case["dtypes"][0]))


def _fold(g: np.ndarray, lower: bool) -> np.ndarray:
    """What finite differences see of a symmetric gradient when only one triangle is read:
    the diagonal, and twice each entry of that triangle."""
    both = g + g.swapaxes(-1, -2)
    return (np.tril(both) if lower else np.triu(both)) - np.tril(np.triu(g))


@pytest.mark.parametrize(
    "case",
    [c for c in CASES if not c["id"].endswith("_sing")],
    ids=[c["id"] for c in CASES if not c["id"].endswith("_sing")],
)
def test_backward_matches_finite_differences(case):
    name = reg_name(case["op"])
    xs = [x.astype(np.float64) for x in arrays(case, "in")]
    heads = [h.astype(np.float64) for h in arrays(case, "head")]
    got = opcheck.backward(name, xs, heads, **case["params"])
    num = opcheck.numeric_grad(name, xs, heads, eps=1e-6, **case["params"])
    for g, n in zip(got, num, strict=True):
        if case["op"] in SYMMETRIC_GRAD:
            g = _fold(g, case["params"].get("lower", True))
        np.testing.assert_allclose(g, n, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_req_add_accumulates(case):
    xs, heads = arrays(case, "in"), arrays(case, "head")
    rng = np.random.default_rng(3)
    init = [rng.standard_normal(x.shape).astype(x.dtype) for x in xs]
    plain = opcheck.backward(reg_name(case["op"]), xs, heads, **case["params"])
    added = opcheck.backward(
        reg_name(case["op"]), xs, heads, req=OpReq.ADD, grad_init=init, **case["params"]
    )
    for a, p, i in zip(added, plain, init, strict=True):
        np.testing.assert_allclose(a, i + p, **tol(case["dtypes"][0]))


def test_forward_req_add_and_null():
    a = np.random.default_rng(0).standard_normal((2, 3, 3))
    base = opcheck.forward("_linalg_inverse", [a])[0]
    init = [np.ones_like(base)]
    added = opcheck.forward("_linalg_inverse", [a], req=OpReq.ADD, out_init=init)[0]
    np.testing.assert_allclose(added, base + 1)
    kept = opcheck.forward("_linalg_inverse", [a], req=OpReq.NULL, out_init=init)[0]
    assert (kept == 1).all()


NAMES = sorted({c["op"].split(".", 1)[1] for c in CASES})


@pytest.mark.parametrize("short", NAMES)
def test_public_functions_and_aliases(short):
    case = next(c for c in CASES if c["op"] == "linalg." + short)
    ins = [mx.nd.array(x, dtype=x.dtype) for x in arrays(case, "in")]
    want = arrays(case, "out")
    fns = [getattr(mx.nd.linalg, short), getattr(mx.nd._internal, "_linalg_" + short)]
    if short != "syevd":  # MXNet 1.9.1 has no linalg_syevd alias
        fns.append(getattr(mx.nd, "linalg_" + short))
        assert "linalg_" + short in registry.get(reg_name("linalg." + short)).aliases
    for fn in fns:
        got = fn(*ins, **case["params"])
        got = got if isinstance(got, list) else [got]
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g.asnumpy(), w, **tol(case["dtypes"][0]))


def test_syevd_has_no_alias():
    assert registry.find("linalg_syevd") is None


def test_visible_outputs_and_argument_names():
    assert registry.get("_linalg_gemm").get_prop({}).list_arguments() == ["A", "B", "C"]
    assert registry.get("_linalg_trsm").get_prop({}).list_arguments() == ["A", "B"]
    for name in ("_linalg_gelqf", "_linalg_syevd", "_linalg_slogdet"):
        assert registry.get(name).get_prop({}).num_visible_outputs() == 2
    assert registry.get("_linalg_det").get_prop({}).num_visible_outputs() == 1


def test_backward_dependencies_are_declared_truthfully():
    og, ind, outd = [10, 11], [20, 21, 22], [30, 31]
    deps = {
        "_linalg_gemm": [10, 20, 21, 22],
        "_linalg_potrf": [10, 30],
        "_linalg_inverse": [10, 30],
        "_linalg_trsm": [10, 20, 21, 30],
        "_linalg_syevd": [10, 11, 30, 31],
        "_linalg_makediag": [10],
        "_linalg_sumlogdiag": [10, 20],
    }
    for name, want in deps.items():
        prop = registry.get(name).get_prop({})
        n_in, n_out = len(prop.list_arguments()), len(prop.list_outputs())
        got = prop.declare_backward_dependency(og[:n_out], ind[:n_in], outd[:n_out])
        assert sorted(got) == want, name


@pytest.mark.parametrize("dtype", ["float16", "int32", "int64"])
def test_dtypes_other_than_float32_float64_are_rejected(dtype):
    with pytest.raises(DTypeError, match="gemm2.*'A'.*" + dtype):
        mx.nd.linalg.gemm2(mx.nd.ones((2, 2), dtype=dtype), mx.nd.ones((2, 2), dtype=dtype))
    with pytest.raises(DTypeError, match="det.*'A'"):
        opcheck.forward("_linalg_det", [np.ones((2, 2), dtype)])


def test_mixed_dtypes_are_rejected():
    with pytest.raises(DTypeError, match="gemm2.*'B'"):
        opcheck.forward("_linalg_gemm2", [np.ones((2, 2), "f4"), np.ones((2, 2), "f8")])


BAD = [
    ("_linalg_gemm2", [(2, 3), (4, 5)], {}, ShapeError, "gemm2.*'B'.*inner"),
    ("_linalg_gemm2", [(2,), (2,)], {}, ShapeError, "gemm2.*'A' and 'B'"),
    ("_linalg_gemm2", [(3, 4, 5), (3, 5, 6)], {"axis": -1}, ShapeError, "gemm2.*'axis'"),
    ("_linalg_gemm2", [(2, 3, 4), (3, 4, 5)], {}, ShapeError, "gemm2.*'B'.*except"),
    ("_linalg_gemm", [(2, 3), (3, 4), (2, 5)], {}, ShapeError, "gemm.*'C'.*\\(2, 4\\)"),
    ("_linalg_trmm", [(2, 3), (3, 3)], {}, ShapeError, "trmm.*'A'.*square"),
    ("_linalg_trsm", [(3, 3), (4, 3)], {}, ShapeError, "trsm.*'B'.*rows"),
    ("_linalg_trsm", [(3, 3), (3, 4)], {"rightside": True}, ShapeError, "trsm.*'B'.*columns"),
    ("_linalg_potrf", [(2, 3)], {}, ShapeError, "potrf.*'A'.*square"),
    ("_linalg_gelqf", [(3, 2)], {}, ShapeError, "gelqf.*'A'.*rows <= columns"),
    ("_linalg_syevd", [(3,)], {}, ShapeError, "syevd.*'A'"),
    ("_linalg_det", [(3, 4)], {}, ShapeError, "det.*'A'.*square"),
    ("_linalg_extractdiag", [(3, 3)], {"offset": 3}, ShapeError, "extractdiag.*'offset'"),
    ("_linalg_extracttrian", [(3, 3)], {"offset": -3}, ShapeError, "extracttrian.*'offset'"),
    ("_linalg_maketrian", [(4,)], {}, ShapeError, "maketrian.*'A'.*triangle"),
    ("_linalg_syrk", [(3,)], {}, ShapeError, "syrk.*'A'"),
]


@pytest.mark.parametrize(
    "name,shapes,params,exc,match", BAD, ids=[b[0] + str(i) for i, b in enumerate(BAD)]
)
def test_bad_shapes_raise(name, shapes, params, exc, match):
    with pytest.raises(exc, match=match):
        opcheck.forward(name, [np.ones(s, np.float32) for s in shapes], **params)


@pytest.mark.parametrize(
    "name,kwargs,match",
    [
        ("_linalg_gemm", {"alpha": "x"}, "gemm.*'alpha'"),
        ("_linalg_trsm", {"lowr": True}, "trsm.*'lowr'.*'lower'"),
        ("_linalg_extractdiag", {"offset": 1.5}, "extractdiag.*'offset'"),
        ("_linalg_potrf", {"lower": "maybe"}, "potrf.*'lower'"),
    ],
)
def test_bad_parameters_raise(name, kwargs, match):
    with pytest.raises(MXNetError, match=match):
        registry.get(name).get_prop(kwargs)


def test_lapack_failures_name_the_operator():
    with pytest.raises(MXNetError, match="potrf.*'A'"):
        opcheck.forward("_linalg_potrf", [np.array([[1.0, 2.0], [2.0, 1.0]])])
    with pytest.raises(MXNetError, match="inverse.*'A'"):
        opcheck.forward("_linalg_inverse", [np.ones((2, 2))])


def test_singular_det_gradient_is_zero_in_a_mixed_batch():
    a = np.array([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 1.0], [1.0, 3.0]]])
    g = opcheck.backward("_linalg_det", [a])[0]
    assert (g[0] == 0).all()
    np.testing.assert_allclose(g[1], 5.0 * np.linalg.inv(a[1]).T)


def test_triangular_solves_without_scipy(monkeypatch):
    cases = [
        c
        for c in CASES
        if c["op"] in ("linalg.trsm", "linalg.potri", "linalg.potrf", "linalg.gelqf")
    ]
    monkeypatch.setattr(linalg, "_scipy_solve_triangular", None)
    for case in cases:
        xs = arrays(case, "in")
        outs = opcheck.forward(reg_name(case["op"]), xs, **case["params"])
        for got, exp in zip(outs, arrays(case, "out"), strict=True):
            np.testing.assert_allclose(got, exp, **tol(case["dtypes"][0]))
        grads = opcheck.backward(reg_name(case["op"]), xs, arrays(case, "head"), **case["params"])
        for got, exp in zip(grads, arrays(case, "grad"), strict=True):
            np.testing.assert_allclose(got, exp, **tol(case["dtypes"][0]))


def test_syevd_sign_rule_and_lower_triangle():
    a = np.array([[2.0, 100.0, -7.0], [1.0, 3.0, 50.0], [0.5, -1.0, 4.0]])
    u, lam = opcheck.forward("_linalg_syevd", [a])
    sym = np.tril(a) + np.tril(a, -1).T
    np.testing.assert_allclose(lam, np.linalg.eigvalsh(sym), rtol=1e-12)
    np.testing.assert_allclose(u @ sym, lam[:, None] * u, atol=1e-12)
    big = u[np.arange(3), np.abs(u).argmax(axis=1)]
    assert (big > 0).all()
