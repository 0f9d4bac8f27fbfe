"""CSVIter: the batching rules of MXNet 1.9.1's CSVIter documentation examples, dtypes, errors."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError, ParamError

ROWS = [[1, 2, 3], [2, 3, 4], [3, 4, 5], [4, 5, 6]]


@pytest.fixture
def csv(tmp_path):
    def write(name, rows):
        path = tmp_path / name
        path.write_text("".join(",".join(str(v) for v in r) + "\n" for r in rows))
        return str(path)

    return write


def _epoch(it):
    return [(b.data[0].asnumpy().tolist(), b.pad) for b in it]


def test_round_batch_wraps_and_reset_goes_on(csv):
    it = mx.io.CSVIter(data_csv=csv("d.csv", ROWS), data_shape=(3,), batch_size=3)
    assert _epoch(it) == [(ROWS[:3], 0), ([ROWS[3], ROWS[0], ROWS[1]], 2)]
    it.reset()  # does not rewind: the two borrowed examples were already seen
    assert _epoch(it) == [([ROWS[2], ROWS[3], ROWS[0]], 1)]


def test_no_round_batch_keeps_stale_rows(csv):
    it = mx.io.CSVIter(
        data_csv=csv("d.csv", ROWS), data_shape=(3,), batch_size=3, round_batch=False
    )
    for _ in range(2):
        assert _epoch(it) == [(ROWS[:3], 0), ([ROWS[3], ROWS[1], ROWS[2]], 2)]
        it.reset()


def test_labels_shapes_and_dtypes(csv):
    data = csv("d.csv", ROWS)
    it = mx.io.CSVIter(data_csv=data, data_shape=(3,), batch_size=2)
    assert it.provide_data[0].shape == (2, 3) and it.provide_label[0].shape == (2,)
    assert it.provide_label[0].name == "softmax_label"
    assert next(it).label[0].asnumpy().tolist() == [0, 0]
    labels = csv("l.csv", [[1, 2], [3, 4], [5, 6], [7, 8]])
    it = mx.io.CSVIter(
        data_csv=data, data_shape=(3,), label_csv=labels, label_shape=(2,), batch_size=2,
        dtype="int32",
    )  # fmt: skip
    batch = next(it)
    assert batch.label[0].asnumpy().tolist() == [[1, 2], [3, 4]]
    assert batch.data[0].dtype == np.int32 and batch.label[0].dtype == np.int32
    assert it.getdata().shape == (2, 3)


def test_int64_values_are_exact(csv):
    rows = [[2147483648] * 4] * 3
    it = mx.io.CSVIter(data_csv=csv("d.csv", rows), data_shape=(2, 2), batch_size=3, dtype="int64")
    assert (next(it).data[0].asnumpy() == 2147483648).all()


def test_bad_input(csv):
    data = csv("d.csv", ROWS)
    with pytest.raises(MXNetError, match="data_csv"):
        mx.io.CSVIter(data_csv=data, data_shape=(2,), batch_size=2)
    with pytest.raises(ParamError, match="dtype"):
        mx.io.CSVIter(data_csv=data, data_shape=(3,), batch_size=2, dtype="float64")
    with pytest.raises(ParamError, match="batch_size"):
        mx.io.CSVIter(data_csv=data, data_shape=(3,), batch_size=0)
