"""mx.sym.contrib's Python-level functions and Symbol.astype."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mxlite as mx


def test_symbol_astype_is_cast():
    a = mx.sym.var("a")
    assert a.astype("float16").infer_type(a="float32")[1] == [np.float16]
    out = a.astype("int32").eval(a=mx.nd.array([1.7, -2.2]))[0]
    np.testing.assert_array_equal(out.asnumpy(), [1, -2])


def test_rand_zipfian_symbol_samples_the_log_uniform_law():
    mx.random.seed(7)
    true = mx.sym.var("t")
    samples, count_true, count_sampled = mx.sym.contrib.rand_zipfian(true, 20000, 5)
    out = mx.sym.Group([samples, count_true, count_sampled]).eval(t=mx.nd.array([0, 3]))
    s, ct, cs = (o.asnumpy() for o in out)
    assert s.dtype == np.int64 and s.shape == (20000,) and s.min() >= 0 and s.max() < 5
    law = np.array([math.log((k + 2) / (k + 1)) / math.log(6) for k in range(5)])
    np.testing.assert_allclose(np.bincount(s, minlength=5) / 20000, law, atol=0.02)
    np.testing.assert_allclose(ct, law[[0, 3]] * 20000)
    np.testing.assert_allclose(cs, law[s] * 20000)


def test_rand_zipfian_symbol_wants_a_symbol():
    with pytest.raises(mx.base.ParamError, match="true_classes"):
        mx.sym.contrib.rand_zipfian(mx.nd.array([1]), 4, 5)


def test_adamw_update_symbol_equals_ndarray():
    rng = np.random.RandomState(0)
    w, g = rng.rand(4).astype(np.float32), rng.rand(4).astype(np.float32)
    m, v = rng.rand(4).astype(np.float32), rng.rand(4).astype(np.float32)
    kw = dict(lr=0.1, eta=0.5, wd=0.01)
    want = mx.nd.contrib.adamw_update(
        mx.nd.array(w), mx.nd.array(g), mx.nd.array(m), mx.nd.array(v), 0.5, **kw
    ).asnumpy()
    names = ["w", "g", "m", "v"]
    sym = mx.sym.contrib.adamw_update(*[mx.sym.var(n) for n in names], 0.5, **kw)
    got = sym.eval(**{n: mx.nd.array(a) for n, a in zip(names, (w, g, m, v))})[0].asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)
