"""mx.io.MXDataIter (the type of the native iterators, and a wrapper of one) and the _v1
record iterators (MXNet 1.9.1 gives the batches of ImageRecordIter from them)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import mxlite as mx
from tests.golden_file import load

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")
REC = os.path.join(GOLDEN, "im2rec", "plain.rec")


def _csv(tmp_path) -> mx.io.CSVIter:
    data = tmp_path / "d.csv"
    label = tmp_path / "l.csv"
    np.savetxt(data, np.arange(20, dtype="float32").reshape(10, 2), delimiter=",")
    np.savetxt(label, np.arange(10, dtype="float32"), delimiter=",")
    return mx.io.CSVIter(data_csv=str(data), data_shape=(2,), label_csv=str(label),
                         batch_size=4)  # fmt: skip


def test_native_iterators_are_mxdataiters(tmp_path) -> None:
    assert isinstance(_csv(tmp_path), mx.io.MXDataIter)
    assert issubclass(mx.io.ImageRecordIter_v1, mx.io.MXDataIter)
    assert not isinstance(mx.io.NDArrayIter(np.zeros((2, 1))), mx.io.MXDataIter)
    assert mx.io.io.MXDataIter is mx.io.MXDataIter


def test_wrapper_names_the_arrays_and_hands_calls_through(tmp_path) -> None:
    it = mx.io.MXDataIter(_csv(tmp_path), data_name="x", label_name="y")
    assert it.provide_data == [mx.io.DataDesc("x", (4, 2))]
    assert it.provide_label[0].name == "y" and it.batch_size == 4
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 2]
    np.testing.assert_array_equal(batches[0].data[0].asnumpy(), [[0, 1], [2, 3], [4, 5], [6, 7]])
    it.reset()
    native = _csv(tmp_path)
    list(native)
    native.reset()
    for got, want in zip(it, native):  # a second epoch as the native iterator's own
        np.testing.assert_array_equal(got.label[0].asnumpy(), want.label[0].asnumpy())
    it.reset()
    it.debug_skip_load()
    first = [it.next().data[0].asnumpy() for _ in range(5)]
    assert all(np.array_equal(f, first[0]) for f in first)


def test_a_handle_that_is_no_iterator_says_why() -> None:
    with pytest.raises(mx.MXNetError, match="handle.*no C library"):
        mx.io.MXDataIter(12345)


def test_v1_record_iterators_give_mxnets_batches() -> None:
    pytest.importorskip("cv2")
    golden = load("io/golden/data.npz")
    kw = dict(golden.cases["record_iter"]["plain"])
    kw["data_shape"] = tuple(kw["data_shape"])
    want = golden.arrays("record_iter")
    for i, batch in enumerate(mx.io.ImageRecordIter_v1(path_imgrec=REC, **kw)):
        np.testing.assert_array_equal(batch.data[0].asnumpy(), want[f"plain/{i}/data"])
        np.testing.assert_array_equal(batch.label[0].asnumpy(), want[f"plain/{i}/label"])
    kw = {"data_shape": (3, 24, 24), "batch_size": 3, "resize": 30}
    a = mx.io.ImageRecordUInt8Iter_v1(path_imgrec=REC, **kw)
    b = mx.io.ImageRecordUInt8Iter(path_imgrec=REC, **kw)
    for x, y in zip(a, b):
        assert x.data[0].dtype == np.uint8
        np.testing.assert_array_equal(x.data[0].asnumpy(), y.data[0].asnumpy())
