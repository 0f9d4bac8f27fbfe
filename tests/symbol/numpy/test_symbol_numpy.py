"""mx.sym.np: _Symbol arithmetic on the _npi_ operators, MXNet's JSON, and execution."""

from __future__ import annotations

import numpy as onp

import mxlite as mx


def test_symbol_arithmetic_uses_npi_operators_and_round_trips_json() -> None:
    a = mx.sym.var("a").as_np_ndarray()
    b = mx.sym.var("b").as_np_ndarray()
    out = (a + b) * 2 - 1 > a
    assert type(out) is mx.sym.np._Symbol
    ops = [n["op"] for n in __import__("json").loads(out.tojson())["nodes"]]
    assert ops == ["null", "null", "_npi_add", "_npi_multiply_scalar", "_npi_subtract_scalar",
                   "_npi_greater"]  # fmt: skip
    back = mx.sym.load_json(out.tojson())
    ex = back.bind(mx.cpu(), {"a": mx.nd.array([1.0, 3.0]), "b": mx.nd.array([1.0, -3.0])})
    assert ex.forward()[0].asnumpy().tolist() == [True, False]
    assert type(a.as_nd_ndarray()) is mx.sym.Symbol


def test_creation_and_generated_functions() -> None:
    z = mx.sym.np.zeros((2, 3)) + mx.sym.np.ones((2, 3))
    ex = z.bind(mx.cpu(), {})
    onp.testing.assert_array_equal(ex.forward()[0].asnumpy(), onp.ones((2, 3)))
    s = mx.sym.np.sum(mx.sym.var("x"), axis=(0,))
    assert type(s) is mx.sym.np._Symbol
    assert callable(mx.sym.np._internal._npi_add)
