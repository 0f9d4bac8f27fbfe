"""NDArray front-end behaviour that MXNet 1.9.1's test_ndarray.py / test_operator.py check:
fluent methods, ``out=`` of the creators, legacy vs NumPy shape semantics, ``from_numpy``,
views from basic indexing, and indexing under ``autograd.record()``."""

from itertools import product

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, MXNetError, ParamError, ShapeError

# ---- fluent methods ------------------------------------------------------------------------


@pytest.mark.parametrize("sections", [3, (1, 3, 5)])
def test_split_v2_method_matches_function(sections):
    x = mx.nd.random.uniform(shape=(5, 17, 6))
    want = mx.nd.split_v2(x, sections, axis=2)
    got = x.split_v2(indices_or_sections=sections, axis=2)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert np.array_equal(a.asnumpy(), b.asnumpy())


def test_slice_assign_methods_write_in_place():
    x = mx.nd.ones((2, 2, 2))
    assert x.slice_assign_scalar(0, (0, 0, None), (1, 1, None), (None, None, None)) is x
    assert x.slice_assign(mx.nd.full((1, 1, 2), 5), (1, 1, None), (2, 2, None), (None,) * 3) is x
    assert x.asnumpy().ravel().tolist() == [0, 0, 1, 1, 1, 1, 5, 5]
    assert x.as_nd_ndarray() is x


# ---- creators ------------------------------------------------------------------------------


def test_zeros_and_ones_fill_out():
    out = mx.nd.full((2, 2), 7)
    assert mx.nd.ones((2, 2), out=out) is out
    assert (out.asnumpy() == 1).all()
    assert mx.nd.zeros((2, 2), out=out) is out
    assert (out.asnumpy() == 0).all()


def test_zeros_out_mismatch_and_unknown_argument_raise():
    out = mx.nd.zeros((2, 2), dtype="int32")
    with pytest.raises(DTypeError, match="ones.*'out'.*int32.*float32"):
        mx.nd.ones((2, 2), out=out)
    with pytest.raises(ShapeError, match=r"zeros.*'out'.*\(2, 2\).*\(2, 3\)"):
        mx.nd.zeros((2, 3), dtype="int32", out=out)
    with pytest.raises(ParamError, match="zeros.*'foo'"):
        mx.nd.zeros((2, 2), foo=1)


@pytest.mark.parametrize("make", [mx.nd.zeros, mx.nd.ones, lambda s: mx.nd.full(s, 2)])
def test_legacy_semantics_refuse_scalar_shape(make):
    with pytest.raises(MXNetError, match="shape.*\\(\\)"):
        make(())
    with mx.np_shape(True):
        assert make(()).shape == ()


@pytest.mark.parametrize("make", [mx.nd.zeros, mx.nd.ones])
def test_legacy_semantics_refuse_zero_dims(make):
    with pytest.raises(MXNetError, match=r"shape.*\(0, 1, 3, 0\)"):
        make((0, 1, 3, 0))
    with mx.np_shape(True):
        x = make((0, 1, 0, 4))
        assert x.shape == (0, 1, 0, 4) and x.asnumpy().size == 0


def test_creators_that_are_no_operators_allow_zero_size():
    # as in MXNet: full skips the fill of a zero-size array; empty is no operator at all
    assert mx.nd.full((0, 2), 1).shape == (0, 2)
    assert mx.nd.empty(()).shape == ()


def test_use_np_shape_makes_scalar_ones():
    @mx.use_np_shape
    def scalar_one():
        """doc"""
        return mx.nd.ones(shape=())

    assert scalar_one.__doc__ == "doc"
    assert scalar_one().shape == ()


def test_from_numpy_twice_stays_writable_through_ndarray():
    a = np.array([[1, 2], [3, 4], [5, 6]], dtype="float32")
    mx.nd.from_numpy(a)
    x = mx.nd.from_numpy(a)  # a is read-only by now; the NDArray must still write it
    with pytest.raises(ValueError):
        a[2, 1] = 0
    x[2, 1] = 100
    assert a[2, 1] == 100
    assert x.asnumpy()[2, 1] == 100


def test_from_numpy_rejects_non_contiguous_with_value_error():
    with pytest.raises(ValueError, match="from_numpy.*C-contiguous"):
        mx.nd.from_numpy(np.ones((2, 3)).T)


# ---- Concat with zero-size inputs ----------------------------------------------------------


def test_concat_zero_size_inputs_under_np_shape():
    with mx.np_shape(True):
        ret = mx.nd.Concat(
            mx.nd.ones((0, 8, 2)), mx.nd.ones((3, 8, 2)), mx.nd.ones((0, 8, 2)), dim=0
        )
        assert ret.shape == (3, 8, 2) and ret.asnumpy().sum() == 48
        ret = mx.nd.Concat(mx.nd.ones((0, 3, 10)), mx.nd.ones((0, 4, 10)), dim=1)
        assert ret.shape == (0, 7, 10)
        assert mx.nd.Concat(mx.nd.ones((8, 0, 0)), mx.nd.ones((8, 0, 0)), dim=2).shape == (8, 0, 0)


# ---- basic indexing: views where contiguous ------------------------------------------------

_SLICES = [
    slice(None),
    slice(2),
    slice(1, 3),
    slice(None, None, 2),
    slice(0, 1),
    slice(None, None, -1),
]


def test_slice_is_contiguous_matches_numpy():
    is_contiguous = mx.nd.NDArray._basic_indexing_slice_is_contiguous
    x = np.arange(4 * 3 * 5).reshape(4, 3, 5)
    for key in product(_SLICES, repeat=3):
        assert is_contiguous(key, x.shape) == x[key].flags.contiguous, key


@pytest.mark.parametrize(
    "key", [(1, slice(1, 2)), (1, 1, 1), (None,), (1, None, slice(1, 2)), (1, Ellipsis), ()]
)
def test_contiguous_basic_index_is_a_view(key):
    x = mx.nd.array(np.arange(24).reshape(2, 3, 4))
    ref = x.asnumpy()
    y = x[key]
    assert y.shape == (ref[key].shape or (1,))
    y[:] = -1
    ref[key] = -1
    assert np.array_equal(x.asnumpy(), ref)


def test_non_contiguous_basic_index_is_a_copy():
    x = mx.nd.array(np.arange(24).reshape(2, 3, 4))
    y = x[:, :, 1]
    y[:] = -1
    assert (x.asnumpy() >= 0).all()
    assert x[()] is x and x[:] is x


# ---- indexing while recording --------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    [
        (1, Ellipsis, -1),
        (slice(2), Ellipsis, None, 0),
        slice(None, None, -1),
        (slice(3, None, -2), 1),
        (1, [2, 0], np.array([[1], [0]])),
        (slice(None), None, [1, 2]),
        mx.nd.array([3, 0], dtype="int64"),
    ],
)
def test_recorded_getitem_value_and_gradient(key):
    data = np.arange(4 * 3 * 5, dtype=np.float32).reshape(4, 3, 5)
    x = mx.nd.array(data)
    x.attach_grad()
    with mx.autograd.record():
        y = x[key]
    y.backward()
    np_key = key.asnumpy().astype(np.int64) if isinstance(key, mx.nd.NDArray) else key
    want = data[np_key]
    assert y.shape == (want.shape or (1,))
    assert np.array_equal(y.asnumpy().reshape(want.shape), want)
    grad = np.zeros_like(data)
    np.add.at(grad, np_key, 1)
    assert np.array_equal(x.grad.asnumpy(), grad)


@pytest.mark.parametrize("key", [0, slice(1, 3), (1, [0, 2]), (slice(None), 1)])
def test_recorded_value_cannot_be_assigned_into_part(key):
    x = mx.nd.zeros((4, 3))
    y = mx.nd.ones(x[key].shape)
    y.attach_grad()
    with pytest.raises(MXNetError, match="Inplace operations"):
        with mx.autograd.record():
            x[key] = y


def test_recorded_value_may_overwrite_whole_array():
    x = mx.nd.zeros((2, 3), dtype="float64")
    y = mx.nd.array([1, 2, 3])
    y.attach_grad()
    with mx.autograd.record():
        x[None] = y  # a[None] = v is a[...] = v: a whole-array copy, allowed as in MXNet
    assert x.asnumpy().tolist() == [[1, 2, 3], [1, 2, 3]]


def test_integer_arange_casts_start_and_step_first_as_mxnet():
    # real MXNet 1.9.1: arange(1.3, 456.6, 1.3, dtype='int32')[:5] == [1, 2, 3, 4, 5]
    out = mx.nd.arange(1.3, 456.6, 1.3, dtype="int32")
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out.asnumpy()[:5], [1, 2, 3, 4, 5])
    np.testing.assert_array_equal(mx.nd.arange(3, repeat=2).asnumpy(), [0, 0, 1, 1, 2, 2])


def test_whole_array_overwrite_by_a_recorded_value_is_recorded():
    # real MXNet 1.9.1 records out[:] = y as a copy: x.grad is 6 here, 12 with the broadcast
    x = mx.nd.ones((3,))
    x.attach_grad()
    out = mx.nd.zeros((3,))
    with mx.autograd.record():
        out[:] = x * 2
        z = (out * 3).sum()
    z.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [6, 6, 6])
    wide = mx.nd.zeros((2, 3), dtype="float64")
    with mx.autograd.record():
        wide[:] = (x * 2).reshape((1, 3))
        z = (wide * 3).sum()
    z.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [12, 12, 12])


def test_whole_array_overwrite_drops_leading_unit_axes_of_the_value():
    # MXNet's test_ndarray_indexing: x[None] = y, y of shape (1,) + x.shape, while recording
    x = mx.nd.zeros((2, 3))
    y = mx.nd.array(np.arange(6).reshape(1, 2, 3))
    y.attach_grad()
    with mx.autograd.record():
        x[None] = y
        z = (x * 2).sum()
    z.backward()
    np.testing.assert_array_equal(x.asnumpy(), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(y.grad.asnumpy(), np.full((1, 2, 3), 2.0))


def test_arange_with_a_negative_start_wraps_for_unsigned_dtypes():
    # real MXNet 1.9.1 casts as C does: arange(-2, 2, dtype='uint8') == [254, 255, 0, 1]
    np.testing.assert_array_equal(
        mx.nd.arange(-2, 2, dtype="uint8").asnumpy(), np.array([254, 255, 0, 1], np.uint8)
    )
    np.testing.assert_array_equal(
        mx.nd.arange(-1.7, 3, 1.3, dtype="uint8").asnumpy(), [255, 0, 1, 2]
    )
