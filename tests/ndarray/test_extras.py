"""mx.nd.histogram, split_v2, onehot_encode, fill_element_0index and imdecode.

Expected values marked "MXNet 1.9.1" were printed by real MXNet for the same calls.
"""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError, ShapeError
from mxlite.ndarray import extras as E

# ---- histogram ---------------------------------------------------------------------------


def test_histogram_int_bins_with_range_as_mxnet():
    a = mx.nd.array([0, 1, 2, 2, 3, 5, 7.5])
    res = E.histogram(a, bins=4, range=(0, 8))
    assert isinstance(res, list) and len(res) == 2
    counts, edges = res
    assert counts.dtype == np.int64 and edges.dtype == np.float32  # MXNet 1.9.1
    assert counts.asnumpy().tolist() == [2, 3, 1, 1]
    assert edges.asnumpy().tolist() == [0, 2, 4, 6, 8]


def test_histogram_ndarray_bins_as_mxnet():
    a = mx.nd.array([0, 1, 2, 2, 3, 5, 7.5])
    counts, edges = E.histogram(a, bins=mx.nd.array([0, 2, 5, 8]))
    assert counts.asnumpy().tolist() == [2, 3, 2]  # MXNet 1.9.1
    assert edges.asnumpy().tolist() == [0, 2, 5, 8]


def test_histogram_without_range_warns_and_matches_numpy():
    data = np.array([0, 1, 2, 2, 3, 5, 7.5], dtype=np.float32)
    with pytest.warns(UserWarning, match="range is not specified"):
        res = E.histogram(mx.nd.array(data), bins=3)
    assert isinstance(res, tuple)
    counts, edges = res
    want_c, want_e = np.histogram(data, bins=3)
    assert counts.dtype == np.float32 and edges.dtype == np.float32  # MXNet 1.9.1
    assert counts.asnumpy().tolist() == want_c.tolist() == [4, 1, 2]
    np.testing.assert_allclose(edges.asnumpy(), want_e)


def test_histogram_numpy_int_bins_take_the_int_path():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        counts, _ = E.histogram(mx.nd.array([1, 2, 3]), bins=np.int64(3), range=(0, 3))
    assert counts.asnumpy().tolist() == [0, 1, 2]


@pytest.mark.parametrize("bins", [[1, 2, 3], 2.0, "10"])
def test_histogram_bad_bins_is_value_error(bins):
    with pytest.raises(ValueError, match="histogram.*bins"):
        E.histogram(mx.nd.array([1, 2]), bins=bins)
    with pytest.raises(MXNetError):
        E.histogram(mx.nd.array([1, 2]), bins=bins)


def test_histogram_needs_an_ndarray():
    with pytest.raises(MXNetError, match="histogram.*'a'"):
        E.histogram(np.arange(3), bins=3, range=(0, 3))


# ---- split_v2 ----------------------------------------------------------------------------


def _x() -> tuple[np.ndarray, mx.nd.NDArray]:
    x = np.arange(24, dtype=np.float32).reshape(6, 4)
    return x, mx.nd.array(x)


@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((3,), {}),
        (((1, 4),), {}),
        (((2,),), {}),
        ((2,), {"axis": 1}),
        (((1, 3),), {"axis": 1}),
        ((2,), {"axis": -1}),
        (((0, 2),), {}),
    ],
)
def test_split_v2_matches_numpy(args, kwargs):
    x, nd = _x()
    got = E.split_v2(nd, *args, **kwargs)
    want = np.split(x, list(args[0]) if isinstance(args[0], tuple) else args[0], **kwargs)
    assert isinstance(got, list) and len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_array_equal(g.asnumpy(), w)


def test_split_v2_one_piece_is_an_ndarray():
    x, nd = _x()
    for spec in (1, ()):
        got = E.split_v2(nd, spec)
        assert isinstance(got, mx.nd.NDArray)  # MXNet 1.9.1
        np.testing.assert_array_equal(got.asnumpy(), x)


def test_split_v2_squeeze_axis():
    x, nd = _x()
    got = E.split_v2(nd, 6, squeeze_axis=True)
    assert len(got) == 6 and got[0].shape == (4,)
    np.testing.assert_array_equal(got[5].asnumpy(), x[5])


def test_split_v2_unequal_division_is_value_error():
    with pytest.raises(ValueError, match="split_v2.*equal division"):
        E.split_v2(_x()[1], 4)
    with pytest.raises(ValueError, match="split_v2"):
        E.split_v2(_x()[1], 0)


def test_split_v2_list_is_rejected_as_mxnet():
    with pytest.raises(ValueError, match="split_v2.*indices_or_sections"):
        E.split_v2(_x()[1], [1, 2])


def test_split_v2_bad_axis():
    with pytest.raises(MXNetError, match="split_v2.*axis"):
        E.split_v2(_x()[1], 2, axis=2)


# ---- onehot_encode and fill_element_0index ----------------------------------------------


def test_onehot_encode_as_mxnet_test_ndarray():
    rng = np.random.RandomState(0)
    shape = (100, 20)
    arr = mx.nd.array(np.arange(np.prod(shape)).reshape(shape))
    for _ in range(3):
        indices = rng.randint(shape[1], size=shape[0])
        want = np.zeros(shape)
        want[np.arange(shape[0]), indices] = 1.0
        res = E.onehot_encode(mx.nd.array(indices), out=arr)
        assert res is arr
        np.testing.assert_array_equal(arr.asnumpy(), want)


def test_onehot_encode_shape_mismatch():
    with pytest.raises(ShapeError, match="onehot_encode.*indices"):
        E.onehot_encode(mx.nd.array([1, 2]), mx.nd.zeros((3, 4)))


def test_fill_element_0index_as_mxnet_test_ndarray():
    rng = np.random.RandomState(1)
    shape = (100, 20)
    npy = np.arange(np.prod(shape)).reshape(shape)
    arr = mx.nd.array(npy)
    for _ in range(3):
        indices = rng.randint(shape[1], size=shape[0])
        val = rng.randint(shape[1], size=shape[0])
        want = npy.copy()
        want[np.arange(shape[0]), indices] = val
        got = E.fill_element_0index(arr, mx.nd.array(val), mx.nd.array(indices))
        np.testing.assert_array_equal(got.asnumpy(), want)
    np.testing.assert_array_equal(arr.asnumpy(), npy)  # lhs untouched without out=


def test_fill_element_0index_in_place_and_out_of_range():
    m = mx.nd.arange(12).reshape((3, 4))
    res = E.fill_element_0index(m, mx.nd.array([-1, -2, -3]), mx.nd.array([0, 7, 1]), out=m)
    assert res is m
    assert m.asnumpy().tolist() == [[-1, 1, 2, 3], [4, 5, 6, 7], [8, -3, 10, 11]]


def test_fill_element_0index_shape_mismatch():
    with pytest.raises(ShapeError, match="fill_element_0index.*mhs"):
        E.fill_element_0index(mx.nd.zeros((3, 4)), mx.nd.zeros(2), mx.nd.zeros(3))


# ---- imdecode ----------------------------------------------------------------------------


def _png(pixels: np.ndarray) -> bytes:
    """PNG bytes of an RGB(A)/grey (h, w, c) image."""
    cv2 = pytest.importorskip("cv2")
    order = {1: [0], 3: [2, 1, 0], 4: [2, 1, 0, 3]}[pixels.shape[2]]
    ok, buf = cv2.imencode(".png", np.ascontiguousarray(pixels[:, :, order]))
    assert ok
    return buf.tobytes()


_IMG = np.random.RandomState(0).randint(0, 256, size=(4, 5, 3)).astype(np.uint8)


def _bgr_chw(img: np.ndarray) -> np.ndarray:
    return img[:, :, ::-1].transpose(2, 0, 1).astype(np.float32)


def test_imdecode_is_chw_bgr_float32():
    got = E.imdecode(_png(_IMG))
    assert got.shape == (3, 4, 5) and got.dtype == np.float32
    np.testing.assert_array_equal(got.asnumpy(), _bgr_chw(_IMG))


def test_imdecode_accepts_bytearray_and_latin1_str():
    data = _png(_IMG)
    np.testing.assert_array_equal(E.imdecode(bytearray(data)).asnumpy(), _bgr_chw(_IMG))
    np.testing.assert_array_equal(E.imdecode(data.decode("latin-1")).asnumpy(), _bgr_chw(_IMG))


def test_imdecode_clip_rect_and_mean():
    data = _png(_IMG)
    got = E.imdecode(data, clip_rect=(1, 0, 4, 2))
    np.testing.assert_array_equal(got.asnumpy(), _bgr_chw(_IMG[0:2, 1:4]))
    mean = mx.nd.ones((3, 4, 5), dtype="float64") * 10
    got = E.imdecode(data, mean=mean)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got.asnumpy(), _bgr_chw(_IMG) - 10.0)


def test_imdecode_grey_and_alpha():
    grey = E.imdecode(_png(_IMG), channels=1)
    cv2 = pytest.importorskip("cv2")
    want = cv2.imdecode(np.frombuffer(_png(_IMG), np.uint8), cv2.IMREAD_GRAYSCALE)
    assert grey.shape == (1, 4, 5)
    np.testing.assert_array_equal(grey.asnumpy()[0], want)
    rgba = np.concatenate([_IMG, np.full((4, 5, 1), 7, np.uint8)], axis=2)
    np.testing.assert_array_equal(E.imdecode(_png(rgba)).asnumpy(), _bgr_chw(_IMG))
    assert E.imdecode(_png(rgba), channels=4).asnumpy()[3].tolist() == [[7] * 5] * 4
    with pytest.raises(MXNetError, match="imdecode.*channels"):
        E.imdecode(_png(_IMG[:, :, :1]), channels=3)


def test_imdecode_into_out_buffers():
    data = _png(_IMG)
    out4 = mx.nd.zeros((2, 3, 4, 5))
    assert E.imdecode(data, out=out4, index=1) is out4
    np.testing.assert_array_equal(out4.asnumpy()[1], _bgr_chw(_IMG))
    assert out4.asnumpy()[0].sum() == 0
    out3 = mx.nd.zeros((3, 4, 5), dtype="uint8")
    assert E.imdecode(data, out=out3) is out3
    np.testing.assert_array_equal(out3.asnumpy(), _IMG[:, :, ::-1].transpose(2, 0, 1))
    with pytest.raises(ShapeError, match="imdecode.*'out'"):
        E.imdecode(data, out=mx.nd.zeros((3, 5, 5)))
    with pytest.raises(MXNetError, match="imdecode.*'out'"):
        E.imdecode(data, out=out4, index=2)


def test_imdecode_bad_input():
    pytest.importorskip("cv2")
    with pytest.raises(MXNetError, match="imdecode.*str_img"):
        E.imdecode(b"not an image")
    with pytest.raises(MXNetError, match="imdecode.*clip_rect"):
        E.imdecode(_png(_IMG), clip_rect=(0, 0, 9, 9))
    with pytest.raises(MXNetError, match="imdecode.*str_img"):
        E.imdecode(12)


def test_imdecode_without_opencv_says_what_to_install(monkeypatch):
    import mxlite.opencv as opencv_module

    data = _png(_IMG)
    monkeypatch.setitem(sys.modules, "cv2", None)  # makes `import cv2` fail
    monkeypatch.setattr(opencv_module, "_cv2_module", None)
    with pytest.raises(MXNetError, match=r"imdecode.*mxlite\[image\]"):
        E.imdecode(data)
