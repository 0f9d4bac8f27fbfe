"""mx.np.random: each sampler's mean and variance at large n against the distribution's
(fixed seed, tolerances of several standard errors), NumPy's size/broadcast rules, dtypes,
and the reparameterisation gradients MXNet gives."""

from __future__ import annotations

import math

import numpy as onp
import pytest

import mxlite as mx
from mxlite import autograd, np

N = 200_000
EG = 0.5772156649015329  # Euler's constant

# sampler, args, mean, variance
CASES = [
    ("uniform", (2.0, 5.0), 3.5, 9.0 / 12),
    ("normal", (1.0, 2.0), 1.0, 4.0),
    ("lognormal", (0.0, 0.5), math.exp(0.125), (math.exp(0.25) - 1) * math.exp(0.25)),
    ("logistic", (1.0, 2.0), 1.0, 4.0 * math.pi**2 / 3),
    ("gumbel", (1.0, 2.0), 1.0 + 2.0 * EG, 4.0 * math.pi**2 / 6),
    ("rayleigh", (2.0,), 2.0 * math.sqrt(math.pi / 2), (4 - math.pi) / 2 * 4.0),
    ("exponential", (2.0,), 2.0, 4.0),
    ("weibull", (2.0,), math.gamma(1.5), math.gamma(2.0) - math.gamma(1.5) ** 2),
    ("pareto", (5.0,), 1.0 / 4, 5.0 / (16 * 3)),
    ("power", (3.0,), 3.0 / 4, 3.0 / (16 * 5)),
    ("gamma", (3.0, 2.0), 6.0, 12.0),
    ("beta", (2.0, 3.0), 0.4, 6.0 / (25 * 6)),
    ("chisquare", (4.0,), 4.0, 8.0),
]


@pytest.mark.parametrize(("name", "args", "mean", "var"), CASES, ids=[c[0] for c in CASES])
def test_mean_and_variance(name: str, args: tuple, mean: float, var: float) -> None:
    np.random.seed(42)
    x = getattr(np.random, name)(*args, size=(N,))
    assert x.dtype == onp.float32 and x.shape == (N,)
    v = x.asnumpy().astype(onp.float64)
    assert abs(v.mean() - mean) < 6 * math.sqrt(var / N)
    assert abs(v.var() - var) < 0.05 * var


def test_integer_samplers() -> None:
    np.random.seed(1)
    r = np.random.randint(2, 7, size=(N,)).asnumpy()
    assert r.min() == 2 and r.max() == 6 and abs(r.mean() - 4) < 0.02
    c = np.random.choice(4, N, p=np.array([0.1, 0.2, 0.3, 0.4])).asnumpy()
    onp.testing.assert_allclose(onp.bincount(c) / N, [0.1, 0.2, 0.3, 0.4], atol=0.01)
    m = np.random.multinomial(1000, [0.25, 0.75], size=(50,))
    assert m.dtype == onp.int64 and m.shape == (50, 2)
    assert (m.asnumpy().sum(axis=1) == 1000).all() and abs(m.asnumpy()[:, 0].mean() - 250) < 10
    assert sorted(np.random.choice(6, 6, replace=False).tolist()) == list(range(6))


def test_multivariate_normal_covariance() -> None:
    np.random.seed(3)
    cov = onp.array([[2.0, 0.5], [0.5, 1.0]])
    x = np.random.multivariate_normal(np.array([1.0, -1.0]), np.array(cov), size=(N,))
    assert x.shape == (N, 2)
    onp.testing.assert_allclose(onp.cov(x.asnumpy().T), cov, atol=0.03)


def test_size_and_broadcasting() -> None:
    assert np.random.normal().shape == ()
    assert np.random.gamma(2.0, size=4).shape == (4,)
    assert np.random.uniform(np.zeros((2, 1)), np.ones(3)).shape == (2, 3)
    assert np.random.exponential(np.ones(3), size=(2, 3)).shape == (2, 3)
    assert np.random.normal(size=(0, 3)).shape == (0, 3)
    assert np.random.uniform(size=(2,), dtype="float64").dtype == onp.float64
    with pytest.raises(mx.MXNetError):
        np.random.normal(np.zeros(3), 1.0, size=(2, 4))
    lo = np.random.uniform(np.array([0.0, 10.0]), np.array([1.0, 11.0]), size=(1000, 2))
    assert (lo.asnumpy()[:, 1] >= 10).all() and (lo.asnumpy()[:, 0] < 1).all()


def test_seed_repeats_every_sampler() -> None:
    np.random.seed(5)
    a = [np.random.gumbel(size=3).asnumpy(), np.random.choice(9, 4).asnumpy()]
    np.random.seed(5)
    b = [np.random.gumbel(size=3).asnumpy(), np.random.choice(9, 4).asnumpy()]
    assert all((x == y).all() for x, y in zip(a, b))


@pytest.mark.parametrize(
    ("name", "grads"),
    [
        ("normal", lambda x, loc, scale: (onp.ones_like(x), (x - loc) / scale)),
        ("gumbel", lambda x, loc, scale: (onp.ones_like(x), (x - loc) / scale)),
        ("logistic", lambda x, loc, scale: (onp.ones_like(x), (x - loc) / scale)),
    ],
)  # fmt: skip
def test_location_scale_gradients(name: str, grads) -> None:
    loc, scale = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 0.5])
    loc.attach_grad()
    scale.attach_grad()
    with autograd.record():
        x = getattr(np.random, name)(loc, scale)
    x.backward()
    gl, gs = grads(x.asnumpy(), loc.asnumpy(), scale.asnumpy())
    onp.testing.assert_allclose(loc.grad.asnumpy(), gl, rtol=1e-5)
    onp.testing.assert_allclose(scale.grad.asnumpy(), gs, rtol=1e-4, atol=1e-6)


def test_scale_gradients_and_broadcast_reduction() -> None:
    for name in ("exponential", "rayleigh"):
        scale = np.array([2.0])
        scale.attach_grad()
        with autograd.record():
            x = getattr(np.random, name)(scale, size=(5,))
        x.backward()
        onp.testing.assert_allclose(scale.grad.asnumpy(), [x.asnumpy().sum() / 2], rtol=1e-5)
    a = np.array([3.0])
    a.attach_grad()
    with autograd.record():
        x = np.random.pareto(a, size=(4,))
    x.backward()
    v = x.asnumpy().astype(onp.float64)
    want = -(1 + v) * onp.log1p(v) / 3.0
    onp.testing.assert_allclose(a.grad.asnumpy(), [want.sum()], rtol=1e-4)


def test_graph_names_mxnet_operators() -> None:
    loc = mx.sym.var("loc")
    out = mx.sym.np._internal._npi_normal(loc, scale=1.0, size=(2,))
    assert '"op": "_npi_normal"' in out.tojson()
    x = mx.sym.var("x")
    js = mx.sym.np.linalg.norm(x).tojson()
    assert '"op": "_npi_norm"' in js and '"flag": "-2"' in js


def test_out_of_domain_parameters_raise_value_error() -> None:
    with pytest.raises(ValueError, match="a > 0"):
        np.random.weibull(-1.0)
    with pytest.raises(ValueError, match="scale >= 0"):
        np.random.rayleigh(-1.0, size=(2,))
    with pytest.raises(ValueError, match="prob"):
        mx.npx.random.bernoulli(np.array([0.5, 2.0])).asnumpy()


def test_npx_random_and_symbol_front_ends() -> None:
    b = mx.npx.random.bernoulli(0.5, size=(1000,))
    assert b.dtype == onp.float32 and set(onp.unique(b.asnumpy())) <= {0.0, 1.0}
    assert mx.npx.random.bernoulli(logit=np.zeros((2, 3))).shape == (2, 3)
    assert mx.npx.random.uniform_n(np.zeros(2), 1.0, batch_shape=(3,)).shape == (3, 2)
    assert mx.npx.random.normal_n(batch_shape=(4,)).shape == (4,)
    x = mx.sym.var("x")
    s = mx.sym.np.random.normal(x, 2.0, size=(3,))
    assert isinstance(s, mx.sym.np._Symbol) and len(s.list_outputs()) == 1  # noise is hidden
    out = s.bind(mx.cpu(), {"x": mx.nd.zeros((3,))}).forward()[0]
    assert out.shape == (3,)
    assert mx.sym.np.random.uniform(0, 1, size=(2,)).tojson().count('"_npi_uniform"') == 1
    assert isinstance(mx.sym.npx.random.bernoulli(x), mx.sym.np._Symbol)
