"""Python's operators on mx.np.ndarray and mx.sym.np._Symbol come from one table of the
operators (``operator/numpy/elemwise_binary.PY_OPERATORS``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import mxlite as mx
from mxlite.operator import registry
from mxlite.operator.numpy.elemwise_binary import PY_OPERATORS

NDARRAY = mx.np.ndarray
SYMBOL = mx.sym.np._Symbol
COMPARISONS = ("eq", "ne", "gt", "ge", "lt", "le")


def test_every_operator_of_the_table_is_registered() -> None:
    for py, ops in PY_OPERATORS.items():
        for name in ops:
            assert name is None or registry.get(name), (py, name)


@pytest.mark.parametrize("py", sorted(PY_OPERATORS))
def test_both_classes_read_the_table(py: str) -> None:
    for cls in (NDARRAY, SYMBOL):
        for name in (f"__{py}__", f"__r{py}__", f"__i{py}__"):
            method = vars(cls).get(name)
            if method is not None:
                assert method.operators == PY_OPERATORS[py], (cls.__name__, name)


def test_each_class_has_the_methods_mxnet_gives_it() -> None:
    # mx.np.ndarray: every operator, arithmetic and bitwise ones both ways; the symbol has no
    # floor division, bitwise or in-place operators (MXNet 1.9.1's _Symbol defines none)
    no_symbol = ("floordiv", "and", "or", "xor")
    for py in PY_OPERATORS:
        assert f"__{py}__" in vars(NDARRAY)
        assert (f"__{py}__" in vars(SYMBOL)) == (py not in no_symbol)
        if py not in COMPARISONS:
            assert f"__r{py}__" in vars(NDARRAY)
    for py in ("add", "sub", "mul", "truediv", "mod", "pow"):
        assert f"__i{py}__" in vars(NDARRAY)
        assert f"__r{py}__" in vars(SYMBOL)
        assert f"__i{py}__" not in vars(SYMBOL)
    assert NDARRAY.__div__ is NDARRAY.__truediv__
    assert NDARRAY.__idiv__ is NDARRAY.__itruediv__


def _ops_in(sym: mx.sym.Symbol) -> list[str]:
    return [n["op"] for n in json.loads(sym.tojson())["nodes"] if n["op"] != "null"]


@pytest.mark.parametrize("py", ["add", "sub", "mul", "truediv", "mod", "pow"])
def test_a_symbol_composes_the_operators_of_the_table(py: str) -> None:
    op, scalar_op, rscalar_op = PY_OPERATORS[py]
    a = mx.sym.var("a").as_np_ndarray()
    b = mx.sym.var("b").as_np_ndarray()
    assert _ops_in(getattr(a, f"__{py}__")(b)) == [op]
    assert _ops_in(getattr(a, f"__{py}__")(2)) == [scalar_op]
    assert _ops_in(getattr(a, f"__r{py}__")(2)) == [rscalar_op or scalar_op]


@pytest.mark.parametrize("py", ["sub", "truediv", "mod", "pow", "lt", "ge"])
def test_an_array_and_a_symbol_agree(py: str) -> None:
    x = np.array([0.5, 1.5, 2.5], dtype=np.float32)
    arr = getattr(mx.np.array(x), f"__{py}__")(1.5)
    a = mx.sym.var("a").as_np_ndarray()
    out = getattr(a, f"__{py}__")(1.5).eval(a=mx.nd.array(x))[0]
    np.testing.assert_allclose(arr.asnumpy(), out.asnumpy(), rtol=1e-6)
    if py not in COMPARISONS:
        np.testing.assert_allclose(
            getattr(mx.np.array(x), f"__r{py}__")(1.5).asnumpy(),
            getattr(a, f"__r{py}__")(1.5).eval(a=mx.nd.array(x))[0].asnumpy(),
            rtol=1e-6,
        )
