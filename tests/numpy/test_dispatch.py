"""Official NumPy functions and ufuncs on mx.np arrays (NEP 18 / NEP 13), as in MXNet 1.9.1."""

from __future__ import annotations

import numpy as onp
import pytest

import mxlite as mx
from mxlite import autograd
from mxlite.numpy_dispatch_protocol import (
    _NUMPY_ARRAY_FUNCTION_LIST,
    _NUMPY_ARRAY_UFUNC_LIST,
    with_array_function_protocol,
)


def test_listed_function_runs_mx_np_and_returns_mx_np_arrays() -> None:
    a = mx.np.array([[1.0, 2.0], [3.0, 4.0]])
    out = onp.sum(a, axis=0)
    assert isinstance(out, mx.np.ndarray)
    onp.testing.assert_allclose(out.asnumpy(), [4.0, 6.0])
    both = onp.concatenate([a, a])
    assert isinstance(both, mx.np.ndarray) and both.shape == (4, 2)
    assert "sum" in _NUMPY_ARRAY_FUNCTION_LIST and "add" in _NUMPY_ARRAY_UFUNC_LIST


def test_ufunc_runs_mx_np_and_records_gradients() -> None:
    a = mx.np.array([1.0, 2.0])
    a.attach_grad()
    with autograd.record():
        y = onp.multiply(a, a)
    y.backward()
    assert isinstance(y, mx.np.ndarray)
    onp.testing.assert_allclose(a.grad.asnumpy(), [2.0, 4.0])


def test_unlisted_function_falls_back_to_numpy_outside_autograd() -> None:
    a = mx.np.array([3.0, 1.0, 2.0])
    out = onp.cumprod(a)  # not in MXNet's lists: NumPy's own, result as mx.np
    assert isinstance(out, mx.np.ndarray)
    onp.testing.assert_allclose(out.asnumpy(), [3.0, 3.0, 6.0])
    a.attach_grad()
    with autograd.record(), pytest.raises(mx.MXNetError, match="autograd"):
        onp.cumprod(a)


def test_protocol_decorator_reports_failures_as_runtime_errors() -> None:
    @with_array_function_protocol
    def broken() -> None:
        raise ValueError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        broken()
