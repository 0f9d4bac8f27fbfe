"""Tests for mxlite.operator.tensor.elemwise_binary: gradients MXNet defines by dtype."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mxlite as mx

from . import opcheck


@pytest.mark.parametrize("name", ["_mod", "broadcast_mod"])
def test_integer_mod_has_zero_gradients(name: str) -> None:
    # MXNet's mod_grad / mod_rgrad are 0 for integer dtypes (and b == 0 must not matter)
    a = np.array([7, -3, 5, 4], np.int32)
    b = np.array([2, 2, 0, -3], np.int32)
    grads = opcheck.backward(name, [a, b], out_grads=[np.ones(4, np.int32)])
    for g in grads:
        np.testing.assert_array_equal(g, np.zeros(4, np.int32))


def test_float_mod_gradients() -> None:
    a = np.array([7.0, -3.0, 5.5], np.float32)
    b = np.array([2.0, 2.0, -2.0], np.float32)
    ga, gb = opcheck.backward("_mod", [a, b], out_grads=[np.ones(3, np.float32)])
    np.testing.assert_array_equal(ga, np.ones(3))
    np.testing.assert_array_equal(gb, -np.floor(a / b))


@pytest.mark.parametrize("name", ["_mod_scalar", "_rmod_scalar"])
def test_integer_scalar_mod_has_zero_gradient(name: str) -> None:
    x = np.array([7, -3, 5], np.int32)
    (g,) = opcheck.backward(name, [x], out_grads=[np.ones(3, np.int32)], scalar=2)
    np.testing.assert_array_equal(g, np.zeros(3, np.int32))


def test_mod_by_zero_is_zero_without_a_warning() -> None:
    # real MXNet 1.9.1: x mod 0 is 0 for every dtype; signs follow Python's convention
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = mx.nd.array([-3, 3.5])
        np.testing.assert_array_equal((a % mx.nd.array([2, -2])).asnumpy(), [1, -0.5])
        np.testing.assert_array_equal((a % 0).asnumpy(), [0, 0])
        np.testing.assert_array_equal((5 % mx.nd.array([0, -2])).asnumpy(), [0, -1])
        b = mx.nd.broadcast_mod(mx.nd.array([[1, 2]]), mx.nd.array([[0], [1]]))
        np.testing.assert_array_equal(b.asnumpy(), np.zeros((2, 2)))
        i = mx.nd.array([1, 2], dtype="int32")
        np.testing.assert_array_equal((i % mx.nd.array([0, 1], dtype="int32")).asnumpy(), [0, 0])
