"""Composition of operator symbols (mxlite/symbol/compose.py): keyword inputs."""

import pytest

import mxlite as mx


def test_symbol_keywords_to_an_operator_without_inputs_are_dropped_with_a_warning():
    # MXNet 1.9.1's test_random passes data= to mx.sym.random.randn; MXNet drops it
    with pytest.warns(UserWarning, match="ignoring 'data'"):
        s = mx.sym.random.randn(loc=0, scale=1, dtype="float32", data=mx.sym.ones((2, 2)))
    assert s.list_arguments() == []
    assert (s + mx.sym.var("X")).infer_shape(X=(2, 2))[1] == [(2, 2)]
    with pytest.raises(mx.MXNetError, match="unknown input 'bogus'"):
        mx.sym.FullyConnected(mx.sym.var("a"), num_hidden=2, bogus=mx.sym.var("b"))
