"""Random sampling: _random_*, _random_*_like, _sample_*, _sample_multinomial, _shuffle,
mx.nd.random and mx.random.

Random streams cannot match MXNet's, so the golden file (tools/golden/cases/random.py) holds
only deterministic facts: output shapes and dtypes, which calls fail, values of one-point
distributions, gradients, parameters and argument names. The distributions themselves are
checked statistically on 10k samples under a fixed seed.
"""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, MXNetError, ParamError
from mxlite.operator import registry
from mxlite.operator.req import OpReq
from tests.operator.opcheck import backward, forward, golden, prop_of
from tests.operator.random_cases import DISTS, OPS, call

GOLD = golden("random").cases["random"]

ALIASES = {
    "_random_uniform": ("uniform", "random_uniform"),
    "_random_normal": ("normal", "random_normal"),
    "_random_randint": ("random_randint", "_npi_random_randint"),
    "_shuffle": ("shuffle", "_npi_shuffle"),
    "_sample_multinomial": ("sample_multinomial",),
    **{f"_random_{d}": (f"random_{d}",) for d in DISTS[2:]},
    **{f"_sample_{d}": (f"sample_{d}",) for d in DISTS},
}


def _case_id(c: dict) -> str:
    return f"{c['func']}-{c['args']}-{c['kwargs']}"[:90]


# ---- golden facts -----------------------------------------------------------------------------


@pytest.mark.parametrize("case", GOLD["cases"], ids=_case_id)
def test_golden_case(case):
    if case.get("error"):
        with pytest.raises(MXNetError):
            call(mx, case)
        return
    xs, outs = call(mx, case)
    assert [list(o.shape) for o in outs] == case["shapes"]
    assert [np.dtype(o.dtype).name for o in outs] == case["dtypes"]
    if "values" in case:
        for o, v in zip(outs, case["values"]):
            np.testing.assert_array_equal(o.asnumpy(), np.array(v, dtype=o.dtype))
    if case.get("grad") is not None:
        for i, g in zip(case["grad"], case["grads"]):
            np.testing.assert_allclose(xs[i].grad.asnumpy(), np.array(g), rtol=1e-6)


def _mx_default(text: str):
    """A default as MXNet's docstring writes it, as a Python value."""
    if text in ("None", "[]"):
        return ()
    if text == "'None'":
        return None
    if text.startswith("'"):
        inner = text.strip("'")
        return int(inner) if inner.lstrip("-").isdigit() else inner
    return float(text)


@pytest.mark.parametrize("op", OPS)
def test_params_and_arguments(op):
    cls = registry.get(op)
    pc = cls.param_class
    gold = GOLD["params"][op]
    assert (pc.field_names() if pc is not None else ()) == tuple(p[0] for p in gold)
    for name, words, default in gold:
        if default is None:
            assert name not in pc._defaults  # required
            continue
        ours = pc._defaults[name]
        expected = _mx_default(default)
        if isinstance(ours, bool):
            expected = bool(expected)
        assert ours == expected, name
        if words.startswith("{"):
            choices = {c.strip().strip("'") for c in words.strip("{}").split(",")} - {"None"}
            assert set(pc._specs[name].choices) == choices
    required = {"low": 0, "high": 1} if op == "_random_randint" else {}
    assert prop_of(op, **required).list_arguments() == GOLD["arguments"][op]


@pytest.mark.parametrize("op", sorted(ALIASES))
def test_aliases(op):
    for alias in ALIASES[op]:
        assert registry.get(alias) is registry.get(op)
    assert registry.find("random_uniform_like") is None  # MXNet has no such alias


def test_mx_random_reexports():
    for name in ("uniform", "normal", "randn", "randint", "gamma", "exponential", "poisson"):
        assert getattr(mx.random, name) is getattr(mx.nd.random, name)
    for name in ("negative_binomial", "generalized_negative_binomial", "multinomial", "shuffle"):
        assert getattr(mx.random, name) is getattr(mx.nd.random, name)
    for d in DISTS:
        assert mx.nd.random.__dict__.get(f"{d}_like") or getattr(mx.nd.random, f"{d}_like")


def test_npi_aliases_public():
    r = mx.nd._internal._npi_random_randint(low=2, high=3, shape=(2,)).asnumpy()
    np.testing.assert_array_equal(r, [2, 2])
    x = mx.nd.array([[1, 2], [3, 4]])
    s = mx.nd._internal._npi_shuffle(x).asnumpy()
    assert sorted(map(tuple, s)) == [(1, 2), (3, 4)]


# ---- seeding ----------------------------------------------------------------------------------

_DRAWS = [
    lambda: mx.nd.random.uniform(0, 1, shape=(50,)),
    lambda: mx.nd.random.normal(0, 1, shape=(50,), dtype="float64"),
    lambda: mx.nd.random.gamma(2, 1, shape=(50,)),
    lambda: mx.nd.random.exponential(2, shape=(50,)),
    lambda: mx.nd.random.poisson(4, shape=(50,)),
    lambda: mx.nd.random.negative_binomial(3, 0.4, shape=(50,)),
    lambda: mx.nd.random.generalized_negative_binomial(3, 0.4, shape=(50,)),
    lambda: mx.nd.random.randint(0, 1000, shape=(50,)),
    lambda: mx.nd.random.uniform_like(mx.nd.zeros((50,))),
    lambda: mx.nd.random.normal(mx.nd.zeros((5,)), mx.nd.ones((5,)), shape=10),
    lambda: mx.nd.random.poisson(mx.nd.ones((5,)) * 3, shape=10),
    lambda: mx.nd.random.multinomial(mx.nd.ones((5, 4)) / 4, shape=10),
    lambda: mx.nd.random.shuffle(mx.nd.arange(50)),
]


@pytest.mark.parametrize("draw", _DRAWS, ids=range(len(_DRAWS)))
def test_seed_repeats(draw):
    mx.random.seed(1234)
    a = draw().asnumpy()
    b = draw().asnumpy()
    mx.random.seed(1234)
    c = draw().asnumpy()
    mx.random.seed(1234, ctx=mx.cpu())
    d = draw().asnumpy()
    mx.random.seed(1234, ctx=mx.cpu())
    e = draw().asnumpy()
    mx.random.seed(99)
    f = draw().asnumpy()
    np.testing.assert_array_equal(a, c)
    np.testing.assert_array_equal(d, e)
    assert not np.array_equal(a, b)
    assert not np.array_equal(a, f)


# ---- statistics -------------------------------------------------------------------------------

N = 10000
# (draw(n) -> samples, mean, variance)
_STATS = {
    "uniform": (lambda n: mx.nd.random.uniform(-1, 3, shape=n), 1.0, 16 / 12),
    "uniform_f64": (lambda n: mx.nd.random.uniform(-1, 3, shape=n, dtype="float64"), 1.0, 4 / 3),
    "normal": (lambda n: mx.nd.random.normal(2, 0.5, shape=n), 2.0, 0.25),
    "randn": (lambda n: mx.nd.random.randn(n, loc=-1, scale=2), -1.0, 4.0),
    "gamma": (lambda n: mx.nd.random.gamma(2, 3, shape=n), 6.0, 18.0),
    "gamma_small": (lambda n: mx.nd.random.gamma(0.5, 1, shape=n), 0.5, 0.5),
    "exponential": (lambda n: mx.nd.random.exponential(2, shape=n), 2.0, 4.0),
    "poisson": (lambda n: mx.nd.random.poisson(3.5, shape=n), 3.5, 3.5),
    "poisson_big": (lambda n: mx.nd.random.poisson(40, shape=n), 40.0, 40.0),
    "negative_binomial": (lambda n: mx.nd.random.negative_binomial(3, 0.4, shape=n), 4.5, 11.25),
    "gen_negative_binomial": (
        lambda n: mx.nd.random.generalized_negative_binomial(2, 0.3, shape=n),
        2.0,
        3.2,
    ),
    "gen_nb_poisson": (
        lambda n: mx.nd.random.generalized_negative_binomial(2, 0, shape=n),
        2.0,
        2.0,
    ),
    "randint": (lambda n: mx.nd.random.randint(-3, 5, shape=n), 0.5, 63 / 12),
    "normal_like": (lambda n: mx.nd.random.normal_like(mx.nd.zeros(n), loc=1), 1.0, 1.0),
    "gamma_like": (lambda n: mx.nd.random.gamma_like(mx.nd.zeros(n), alpha=4), 4.0, 4.0),
    "exponential_like": (
        lambda n: mx.nd.random.exponential_like(mx.nd.zeros(n), lam=4),
        0.25,
        1 / 16,
    ),
    "poisson_like": (lambda n: mx.nd.random.poisson_like(mx.nd.zeros(n), lam=2), 2.0, 2.0),
    "nb_like": (
        lambda n: mx.nd.random.negative_binomial_like(mx.nd.zeros(n), k=2, p=0.5),
        2.0,
        4.0,
    ),
    "gnb_like": (
        lambda n: mx.nd.random.generalized_negative_binomial_like(mx.nd.zeros(n), mu=3, alpha=0.5),
        3.0,
        7.5,
    ),
    "uniform_like": (
        lambda n: mx.nd.random.uniform_like(mx.nd.zeros(n), low=2, high=4),
        3.0,
        1 / 3,
    ),
}


@pytest.mark.parametrize("name", sorted(_STATS))
def test_moments(name):
    draw, mean, var = _STATS[name]
    mx.random.seed(7)
    x = draw(N).asnumpy().astype(np.float64)
    assert x.shape == (N,)
    assert abs(x.mean() - mean) < 5 * np.sqrt(var / N)
    assert abs(x.var() - var) < 0.15 * var
    if name.startswith(("poisson", "negative", "gen", "nb", "gnb", "randint")):
        np.testing.assert_array_equal(x, np.round(x))  # counts and integers are whole


def test_uniform_range_and_randint_range():
    mx.random.seed(3)
    u = mx.nd.random.uniform(-2, -1, shape=(N,)).asnumpy()
    assert u.min() >= -2 and u.max() < -1
    r = mx.nd.random.randint(-3, 5, shape=(N,), dtype="int64").asnumpy()
    assert r.dtype == np.int64 and set(np.unique(r)) == set(range(-3, 5))


# (distribution, parameter arrays (3 rows), mean(row params), variance(row params))
_ROWS = {
    "uniform": (
        [[0, 10, 100], [1, 14, 101]],
        lambda a, b: (a + b) / 2,
        lambda a, b: (b - a) ** 2 / 12,
    ),
    "normal": ([[0, 10, -5], [1, 2, 0.5]], lambda m, s: m, lambda m, s: s**2),
    "gamma": ([[1, 4, 9], [1, 0.5, 2]], lambda a, b: a * b, lambda a, b: a * b * b),
    "exponential": ([[1, 4, 0.5]], lambda scale: scale, lambda scale: scale**2),  # 1/rate
    "poisson": ([[0.5, 4, 30]], lambda lam: lam, lambda lam: lam),
    "negative_binomial": (
        [[1, 3, 6], [0.5, 0.4, 0.8]],
        lambda k, p: k * (1 - p) / p,
        lambda k, p: k * (1 - p) / p**2,
    ),
    "generalized_negative_binomial": (
        [[1, 3, 5], [0.0, 0.5, 0.1]],
        lambda m, a: m,
        lambda m, a: m + a * m * m,
    ),
}


@pytest.mark.parametrize("dist", sorted(_ROWS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sample_rows(dist, dtype):
    params, mean_fn, var_fn = _ROWS[dist]
    arrays = [mx.nd.array(np.array(p), dtype=dtype) for p in params]
    mx.random.seed(11)
    out = getattr(mx.nd.random, dist)(*arrays, shape=(2, N // 2), dtype=dtype)
    assert out.shape == (3, 2, N // 2) and out.dtype == np.dtype(dtype)
    x = out.asnumpy().reshape(3, -1).astype(np.float64)
    cols = [np.array(p, dtype=np.float64) for p in params]
    mean, var = mean_fn(*cols), var_fn(*cols)
    assert np.all(np.abs(x.mean(axis=1) - mean) < 5 * np.sqrt(var / N) + 1e-12)
    assert np.all(np.abs(x.var(axis=1) - var) < 0.15 * var + 1e-12)
    if dist == "uniform":
        lo, hi = cols
        assert np.all(x.min(axis=1) >= lo) and np.all(x.max(axis=1) < hi)


def test_sample_parameter_broadcast_2d():
    low = mx.nd.array([[0, 100], [200, 300]])
    out = mx.nd.random.uniform(low, low + 1, shape=(4, 5)).asnumpy()
    assert out.shape == (2, 2, 4, 5)
    np.testing.assert_array_equal(
        np.floor(out), np.broadcast_to([[0, 100], [200, 300]], (4, 5, 2, 2)).transpose(2, 3, 0, 1)
    )


def test_multinomial_frequencies_and_logprob():
    probs = np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.0, 0.0, 0.3]], dtype=np.float32)
    mx.random.seed(5)
    idx, logp = mx.nd.random.multinomial(mx.nd.array(probs), shape=N, get_prob=True)
    idx, logp = idx.asnumpy(), logp.asnumpy()
    assert idx.shape == (2, N) and idx.dtype == np.int32
    for row in range(2):
        freq = np.bincount(idx[row], minlength=4) / N
        assert np.all(
            np.abs(freq - probs[row]) < 5 * np.sqrt(probs[row] * (1 - probs[row]) / N) + 1e-9
        )
        np.testing.assert_allclose(logp[row], np.log(probs[row][idx[row]]), rtol=1e-6)
    assert not np.any(idx[1] == 1) and not np.any(idx[1] == 2)  # zero probability never drawn


def test_multinomial_backward_direct():
    data = np.array([[0.25, 0.75], [0.5, 0.5]], dtype=np.float64)
    outs = forward("_sample_multinomial", [data], shape=(3,), get_prob=True)
    heads = [np.zeros((2, 3), np.int32), np.arange(6, dtype=np.float64).reshape(2, 3)]
    grads = backward("_sample_multinomial", [data], heads, shape=(3,), get_prob=True)
    expect = np.zeros_like(data)
    for r in range(2):
        for j in range(3):
            expect[r, outs[0][r, j]] += heads[1][r, j] / data[r, outs[0][r, j]]
    np.testing.assert_allclose(grads[0], expect)
    init = [np.full_like(data, 2.0)]
    acc = backward(
        "_sample_multinomial",
        [data],
        heads,
        req=OpReq.ADD,
        grad_init=init,
        shape=(3,),
        get_prob=True,
    )
    np.testing.assert_allclose(acc[0], expect + 2.0)
    prop = prop_of("_sample_multinomial", get_prob=True)
    assert prop.declare_backward_dependency([0, 1], [2], [3, 4]) == [1, 2, 3]
    assert prop_of("_sample_multinomial").declare_backward_dependency([0], [1], [2]) == []


@pytest.mark.parametrize("op", ["_sample_normal", "_random_gamma_like", "_sample_multinomial"])
def test_zero_gradient_add(op):
    inputs = [np.array([[0.5, 0.5], [0.2, 0.8]])]
    if op == "_sample_normal":
        inputs.append(np.ones((2, 2)))
    init = [np.full_like(a, 3.0) for a in inputs]
    g = backward(op, inputs, req=OpReq.ADD, grad_init=init)
    for a in g:
        np.testing.assert_array_equal(a, 3.0)
    g = backward(op, inputs, req=OpReq.WRITE, grad_init=init)
    for a in g:
        np.testing.assert_array_equal(a, 0.0)
    assert prop_of(op).declare_backward_dependency([0], [1, 2], [3]) == []


def test_forward_req_add_and_null():
    base = np.full((2, 3), 10.0, np.float32)
    out = forward(
        "_random_uniform", [], req=OpReq.ADD, out_init=[base], low=1, high=1, shape=(2, 3)
    )
    np.testing.assert_array_equal(out[0], 11.0)
    out = forward("_random_poisson", [], req=OpReq.NULL, out_init=[base], lam=3, shape=(2, 3))
    np.testing.assert_array_equal(out[0], 10.0)


def test_shuffle_permutes_first_axis_only():
    x = np.arange(40, dtype=np.float32).reshape(10, 2, 2)
    mx.random.seed(2)
    seen = set()
    for _ in range(5):
        y = mx.nd.random.shuffle(mx.nd.array(x)).asnumpy()
        assert y.shape == x.shape
        order = y[:, 0, 0].astype(int) // 4
        assert sorted(order) == list(range(10))
        np.testing.assert_array_equal(y, x[order])
        seen.add(tuple(order))
    assert len(seen) > 1
    nd = mx.nd.array(x)
    mx.nd.shuffle(nd, out=nd)  # in place
    y = nd.asnumpy()
    np.testing.assert_array_equal(y, x[y[:, 0, 0].astype(int) // 4])
    assert prop_of("_shuffle").forward_inplace_option([0], [1]) == [(0, 1)]


def test_out_gives_shape_and_dtype():
    out = mx.nd.zeros((2, 3), dtype="float64")
    r = mx.nd.random.normal(1, 1, out=out)
    assert r is out and r.shape == (2, 3) and r.dtype == np.float64
    assert not np.all(out.asnumpy() == 0)
    with pytest.raises(MXNetError, match="_random_uniform"):
        mx.nd.random.uniform(0, 1, shape=3, out=mx.nd.zeros((2, 2)))
    with pytest.raises(MXNetError, match="dtype"):
        mx.nd.random.uniform(0, 1, out=mx.nd.zeros((2,), dtype="float64"), dtype="float32")


def test_ctx_and_positional_randn():
    a = mx.nd.random.uniform(0, 1, shape=(2,), ctx=mx.cpu(1))
    assert a.context == mx.cpu(1)
    b = mx.nd.random.randn(2, 3, dtype="float16")
    assert b.shape == (2, 3) and b.dtype == np.float16


# ---- bad input --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, error, match",
    [
        (lambda: mx.nd.random.uniform(2, 1, shape=2), ParamError, r"_random_uniform.*'high'"),
        (lambda: mx.nd.random.normal(0, 0, shape=2), ParamError, r"_random_normal.*'scale'"),
        (lambda: mx.nd.random.gamma(-1, 1, shape=2), ParamError, r"_random_gamma.*'alpha'"),
        (lambda: mx.nd.random.gamma(1, 0, shape=2), ParamError, r"_random_gamma.*'beta'"),
        (lambda: mx.nd.random.exponential(-2, shape=2), ParamError, r"_random_exponential.*'lam'"),
        (lambda: mx.nd.random.poisson(-1, shape=2), ParamError, r"_random_poisson.*'lam'"),
        (
            lambda: mx.nd.random.negative_binomial(-1, 0.5, shape=2),
            ParamError,
            r"_random_negative_binomial.*'k'",
        ),
        (
            lambda: mx.nd.random.negative_binomial(1, -0.5, shape=2),
            ParamError,
            r"_random_negative_binomial.*'p'",
        ),
        (
            lambda: mx.nd.random.generalized_negative_binomial(1, -1, shape=2),
            ParamError,
            r"_random_generalized_negative_binomial.*'alpha'",
        ),
        (lambda: mx.nd.random.randint(3, 3, shape=2), ParamError, r"_random_randint.*'high'"),
        (lambda: mx.nd.random.randint(0, 2.5, shape=2), ParamError, r"_random_randint.*'high'"),
        (lambda: mx.nd._internal._random_randint(shape=2), ParamError, r"_random_randint.*'low'"),
        (lambda: mx.nd.random.uniform(0, 1, shape=2, dtype="int32"), ParamError, r"'dtype'"),
        (lambda: mx.nd.random.randint(0, 1, shape=2, dtype="float32"), ParamError, r"'dtype'"),
        (lambda: mx.nd.random.uniform(0, 1, shape="x"), ParamError, r"_random_uniform.*'shape'"),
        (lambda: mx.nd.random.normal(0, 1, shape=2, foo=1), ParamError, r"_random_normal.*'foo'"),
        (lambda: mx.nd.random.poisson_like(mx.nd.ones(2), lam=-1), ParamError, r"_like.*'lam'"),
        (lambda: mx.nd.random.uniform_like(mx.nd.ones(2, dtype="int32")), DTypeError, r"'data'"),
        (
            lambda: mx.nd.random.uniform(mx.nd.ones(2), mx.nd.ones(3)),
            MXNetError,
            r"_sample_uniform.*'high'",
        ),
        (
            lambda: mx.nd.random.normal(mx.nd.ones(2), mx.nd.ones(2, dtype="float64")),
            DTypeError,
            r"_sample_normal.*'sigma'",
        ),
        (
            lambda: mx.nd.random.gamma(mx.nd.ones(2), mx.nd.ones(2), shape=(2, 0)),
            ParamError,
            r"_sample_gamma.*'shape'",
        ),
        (
            lambda: mx.nd.random.poisson(mx.nd.ones(2), dtype="int32"),
            ParamError,
            r"_sample_poisson.*'dtype'",
        ),
        (lambda: mx.nd.random.uniform(mx.nd.ones(2), 1), MXNetError, r"uniform.*same type"),
        (lambda: mx.nd.random.uniform("a", 1), MXNetError, r"uniform.*NDArray or numbers"),
        (lambda: mx.nd.random.randint(mx.nd.ones(1), mx.nd.ones(1)), MXNetError, r"randint"),
        (
            lambda: mx.nd.random.multinomial(mx.nd.ones((2, 2), dtype="int32")),
            DTypeError,
            r"_sample_multinomial.*'data'",
        ),
        (
            lambda: mx.nd.random.multinomial(mx.nd.ones((2, 2)), dtype="int64"),
            ParamError,
            r"_sample_multinomial.*'dtype'",
        ),
        (lambda: mx.nd.random.randn(2, loc="x"), MXNetError, r"randn.*'loc'"),
        (lambda: mx.nd._internal._random_uniform(), MXNetError, r"_random_uniform"),
    ],
)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_shuffle_has_no_gradient():
    x = mx.nd.array([[1.0, 2.0], [3.0, 4.0]])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.random.shuffle(x)
    with pytest.raises(MXNetError, match="_shuffle"):
        y.backward()
        x.grad.asnumpy()
