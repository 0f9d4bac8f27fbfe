"""mx.np.ndarray: an NDArray subclass on the same chunk, with NumPy's semantics."""

from __future__ import annotations

import pickle

import numpy as onp
import pytest

import mxlite as mx
from mxlite import autograd, np


def test_is_an_ndarray_and_conversions_share_memory() -> None:
    x = np.array([1.0, 2.0, 3.0])
    assert isinstance(x, mx.nd.NDArray) and type(x) is np.ndarray
    classic = x.as_nd_ndarray()
    assert type(classic) is mx.nd.NDArray
    classic[0] = 7.0  # a view: the write shows through
    assert x[0].item() == 7.0
    back = mx.nd.ones((2,)).as_np_ndarray()
    assert type(back) is np.ndarray and back.tolist() == [1.0, 1.0]


def test_dtype_is_a_numpy_dtype_and_defaults_are_float32() -> None:
    assert np.array([1, 2]).dtype == onp.dtype("float32")
    assert np.array(onp.array([1, 2])).dtype == onp.int64
    assert np.zeros(2).dtype == onp.float32 and np.arange(3).dtype == onp.float32
    assert (np.ones(2) > 0).dtype == onp.bool_


def test_zero_dim_results_and_python_conversions() -> None:
    x = np.arange(6).reshape(2, 3)
    s = x.sum()
    assert s.shape == () and s.item() == 15.0 and float(s) == 15.0
    assert x[1, 2].shape == () and int(x[1, 2]) == 5
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert onp.asarray(x).shape == (2, 3)
    with pytest.raises(TypeError, match="unsized"):
        len(s)
    with pytest.raises(ValueError, match="ambiguous"):
        bool(x)


def test_printing_as_mxnet() -> None:
    assert repr(np.array([1.0, 2.0])) == "array([1., 2.])"
    assert repr(np.array([1, 2], dtype="int64")) == "array([1, 2], dtype=int64)"
    assert repr(np.zeros((0, 3))) == "array([], shape=(0, 3))"
    assert repr(np.array(5.0)) == "array(5.)"
    assert str(np.array(5.0)) == "5.0"
    assert f"{np.array(2.5):.2f}" == "2.50"
    with pytest.raises(TypeError, match="format_spec"):
        f"{np.ones(2):10}"


def test_indexing_basic_advanced_mixed_and_boolean() -> None:
    ref = onp.arange(24, dtype=onp.float32).reshape(2, 3, 4)
    x = np.array(ref)
    keys = [
        1, (1, 2), (None, 1), (Ellipsis, 1), ([0, 1], [1, 2]), (slice(None), [0, 2]),
        (1, slice(None, None, -1)), (onp.array([True, False]),), ((0, 1), Ellipsis, None),
    ]  # fmt: skip
    for key in keys:
        got = x[key]
        assert type(got) is np.ndarray
        onp.testing.assert_array_equal(got.asnumpy(), ref[key])
    mask = x > 10
    onp.testing.assert_array_equal(x[mask].asnumpy(), ref[ref > 10])
    x[mask] = 0
    ref[ref > 10] = 0
    onp.testing.assert_array_equal(x.asnumpy(), ref)


def test_basic_slice_is_a_view() -> None:
    x = np.zeros((3, 2))
    row = x[1]
    row[:] = 5.0
    assert x.asnumpy()[1].tolist() == [5.0, 5.0]


def test_arithmetic_scalars_reflected_and_inplace() -> None:
    x = np.array([1.0, 2.0, 4.0])
    assert (2 - x).tolist() == [1.0, 0.0, -2.0]
    assert (1 / x).tolist() == [1.0, 0.5, 0.25]
    assert (2**x).tolist() == [2.0, 4.0, 16.0]
    assert (x // 3).tolist() == [0.0, 0.0, 1.0]
    assert (-x % 3).tolist() == [2.0, 1.0, 2.0]
    y = x
    y += 1
    assert y is x and x.tolist() == [2.0, 3.0, 5.0]
    with pytest.raises(TypeError, match="not supported"):
        x == None  # noqa: B015, E711
    with pytest.raises(TypeError, match="operands"):
        x + "a"  # noqa: B018


def test_mixed_dtype_promotion_as_mxnet() -> None:
    i = np.array([1, 2], dtype="int32")
    assert (i + 1.5).dtype == onp.int32  # the scalar is cast to the array's dtype
    assert (i / 2).dtype == onp.float32
    assert (i + np.ones(2)).dtype == onp.float32
    assert (i + np.array([1, 2], dtype="int64")).dtype == onp.int64
    b = np.array([True, False], dtype=bool)
    assert (b + i).dtype == onp.int32 and b.sum().dtype == onp.int64


def test_pickle_round_trip_keeps_the_class() -> None:
    x = np.array([[1.0, 2.0]], dtype="float64")
    y = pickle.loads(pickle.dumps(x))
    assert type(y) is np.ndarray and y.dtype == onp.float64 and y.tolist() == [[1.0, 2.0]]


def test_autograd_zero_dim_head_and_grad_type() -> None:
    x = np.array([1.0, 2.0, 3.0])
    x.attach_grad()
    with autograd.record():
        y = (x * x).sum() + x[0]
    assert y.shape == ()
    y.backward()
    assert type(x.grad) is np.ndarray
    assert x.grad.tolist() == [3.0, 4.0, 6.0]


def test_methods_missing_in_mxnet_raise_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute exp"):
        np.ones(2).exp()
    with pytest.raises(AttributeError, match="no attribute asscalar"):
        np.ones(1).asscalar()


def test_copy_and_astype() -> None:
    x = np.array([1.5, 2.5])
    c = x.copy()
    c[0] = 0.0
    assert x[0].item() == 1.5
    assert x.astype("int32").tolist() == [1, 2]
    assert x.astype("float32", copy=False) is x
    with pytest.raises(NotImplementedError, match="order='C'"):
        x.copy(order="F")


def test_reshape_view_takes_ndarray_codes_and_shares_memory() -> None:
    a = mx.np.arange(6).reshape(2, 3)
    v = a.reshape_view(0, -1, 1)  # MXNet's 0 keeps a dimension
    assert isinstance(v, mx.np.ndarray) and v.shape == (2, 3, 1)
    v[0, 0, 0] = 7
    assert float(a[0, 0]) == 7.0
