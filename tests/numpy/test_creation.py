"""mx.np creation functions: MXNet's default dtypes and NumPy's shapes."""

from __future__ import annotations

import numpy as onp
import pytest

import mxlite as mx
from mxlite import np


@pytest.mark.parametrize(
    ("make", "shape", "dtype"),
    [
        (lambda: np.zeros(()), (), "float32"),
        (lambda: np.ones((2, 0)), (2, 0), "float32"),
        (lambda: np.full((2,), True), (2,), "bool"),
        (lambda: np.full(3, 7, dtype="int32"), (3,), "int32"),
        (lambda: np.empty((1, 2), dtype="float64"), (1, 2), "float64"),
        (lambda: np.arange(0), (0,), "float32"),
        (lambda: np.arange(5, 1), (0,), "float32"),
        (lambda: np.arange(1, 2, 0.25), (4,), "float32"),
        (lambda: np.eye(2, 3, k=-1, dtype="int64"), (2, 3), "int64"),
        (lambda: np.identity(3), (3, 3), "float32"),
        (lambda: np.linspace(0, 1, 0), (0,), "float32"),
        (lambda: np.zeros_like(np.ones(2, dtype="int8")), (2,), "int8"),
        (lambda: np.full_like(np.ones(2), 3, dtype="float16"), (2,), "float16"),
        (lambda: np.array(onp.float64(2)), (), "float64"),
        (lambda: np.array([[1, 2]]), (1, 2), "float32"),
        (lambda: np.asarray(onp.array([1, 2], dtype="int8")), (2,), "int8"),
    ],
)
def test_shape_and_dtype(make, shape, dtype) -> None:
    with mx.np_shape(True):
        x = make()
    assert type(x) is np.ndarray and x.shape == shape and x.dtype == onp.dtype(dtype)


def test_values() -> None:
    assert np.arange(2, 5).tolist() == [2.0, 3.0, 4.0]
    assert np.eye(2, 3, k=1).tolist() == [[0, 1, 0], [0, 0, 1]]
    out, step = np.linspace(0, 1, 5, retstep=True)
    assert out.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0] and step == 0.25
    x = np.ones(2)
    assert np.asarray(x) is x
    assert np.array(x) is not x


def test_ctx_and_bad_input() -> None:
    assert np.zeros(2, ctx=mx.cpu(0)).ctx == mx.cpu(0)
    with pytest.raises(mx.MXNetError, match="zeros.*shape"):
        np.zeros("abc")
    with pytest.raises(NotImplementedError, match="order"):
        np.ones(2, order="F")
