"""mx.sym's Python-level helpers: maximum/minimum/pow/power/hypot and creation functions."""

import numpy as np
import pytest

import mxlite as mx


def _eval(sym, **kw):
    return [o.asnumpy() for o in sym.eval(**{k: mx.nd.array(v) for k, v in kw.items()})]


@pytest.mark.parametrize(
    "fn, ref",
    [
        (mx.sym.maximum, np.maximum),
        (mx.sym.minimum, np.minimum),
        (mx.sym.pow, np.power),
        (mx.sym.power, np.power),
        (mx.sym.hypot, np.hypot),
    ],
)
def test_binary_helpers_take_symbols_or_numbers_on_either_side(fn, ref):
    x, y = np.array([1.0, 2.0, 3.0]), np.array([3.0, 0.5, 2.0])
    a, b = mx.sym.var("a"), mx.sym.var("b")
    np.testing.assert_allclose(_eval(fn(a, b), a=x, b=y)[0], ref(x, y), rtol=1e-6)
    np.testing.assert_allclose(_eval(fn(a, 2.0), a=x)[0], ref(x, 2.0), rtol=1e-6)
    np.testing.assert_allclose(_eval(fn(2.0, a), a=x)[0], ref(2.0, x), rtol=1e-6)
    assert fn(2.0, 3.0) == pytest.approx(float(ref(2.0, 3.0)))
    with pytest.raises(TypeError, match=fn.__name__):
        fn("a", x)


def test_creation_helpers_default_to_float32():
    assert _eval(mx.sym.zeros((2, 3)))[0].dtype == np.float32
    np.testing.assert_array_equal(_eval(mx.sym.ones((2,)) + mx.sym.full((2,), 4))[0], [5, 5])
    np.testing.assert_array_equal(_eval(mx.sym.eye(3, k=1))[0], np.eye(3, k=1))
    np.testing.assert_array_equal(_eval(mx.sym.arange(1, 7, step=2))[0], [1, 3, 5])
    np.testing.assert_allclose(_eval(mx.sym.linspace(0, 1, 5))[0], np.linspace(0, 1, 5))


def test_split_v2_and_histogram():
    x = mx.sym.var("x")
    data = np.arange(6.0)
    parts = _eval(mx.sym.split_v2(x, (2, 5)), x=data)
    assert [p.tolist() for p in parts] == [[0, 1], [2, 3, 4], [5]]
    assert len(_eval(mx.sym.split_v2(x, 3), x=data)) == 3
    counts = _eval(mx.sym.histogram(x, bins=3, range=(0, 6)), x=data)[0]
    assert counts.tolist() == [2, 2, 2]
    with pytest.raises(mx.base.MXNetError, match="histogram.*range"):
        mx.sym.histogram(x, bins=3)
