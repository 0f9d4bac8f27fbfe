"""NDArrayIter and ResizeIter against MXNet 1.9.1 (golden file), plus the rules MXNet leaves out.

The golden cases come from tools/golden/cases/io.py; each holds the spec it was made from, and
``ndarray_iter_cases.run`` builds the same iterator with mxlite.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, MXNetError, ParamError
from tests.golden_file import load
from tests.io import ndarray_iter_cases as c
from tests.sparse_training_cases import shuffled_csr_iter

CASES = list(load("io/golden/ndarray_iter.npz").cases.values())


@pytest.mark.parametrize("case", CASES, ids=[c["spec"]["name"] for c in CASES])
def test_matches_mxnet(case):
    ours = c.run(mx, case["spec"])
    theirs = case["mxnet"]
    assert ours["provide_data"] == theirs["provide_data"]
    assert ours["provide_label"] == theirs["provide_label"]
    assert len(ours["epochs"]) == len(theirs["epochs"])
    for epoch, (got, want) in enumerate(zip(ours["epochs"], theirs["epochs"], strict=True)):
        assert got == want, f"epoch {epoch}"


def test_golden_covers_every_last_batch_handle():
    handles = {c["spec"]["kwargs"].get("last_batch_handle", "pad") for c in CASES}
    assert handles == {"pad", "discard", "roll_over"}


def test_shuffle_is_a_permutation_each_epoch():
    data = np.arange(20, dtype=np.float32)
    it = mx.io.NDArrayIter(data, data + 100, batch_size=5, shuffle=True)
    orders = []
    for _ in range(3):
        seen = np.concatenate([b.data[0].asnumpy() for b in it])
        assert sorted(seen.tolist()) == data.tolist()
        orders.append(seen.tolist())
        it.reset()
    assert any(order != data.tolist() for order in orders)
    assert orders[0] != orders[1] or orders[1] != orders[2]


def test_shuffle_keeps_data_and_label_together():
    data = np.arange(12, dtype=np.float32).reshape(6, 2)
    it = mx.io.NDArrayIter({"x": data}, {"y": data[:, 0] * 10}, batch_size=3, shuffle=True)
    for batch in it:
        x, y = batch.data[0].asnumpy(), batch.label[0].asnumpy()
        assert np.array_equal(x[:, 0] * 10, y)


def test_batch_fields():
    it = mx.io.NDArrayIter(np.ones((5, 2)), np.zeros(5), batch_size=2)
    batch = it.next()
    assert isinstance(batch, mx.io.DataBatch)
    assert batch.index is None and batch.bucket_key is None
    assert str(batch) == "DataBatch: data shapes: [(2, 2)] label shapes: [(2,)]"
    assert isinstance(batch.data[0], mx.nd.NDArray)


def test_batches_are_copies_of_the_source():
    source = mx.nd.array(np.arange(6))
    it = mx.io.NDArrayIter(source, batch_size=3)
    batch = it.next()
    batch.data[0][:] = -1
    assert source.asnumpy().tolist() == [0, 1, 2, 3, 4, 5]


def test_dict_input_is_not_modified():
    data = {"x": np.arange(4)}
    mx.io.NDArrayIter(data, batch_size=2)
    assert isinstance(data["x"], np.ndarray)


def test_roll_over_hard_reset_drops_the_remainder():
    it = mx.io.NDArrayIter(np.arange(10), batch_size=4, last_batch_handle="roll_over")
    assert len(list(it)) == 2
    it.hard_reset()
    first = it.next()
    assert first.data[0].asnumpy().tolist() == [0, 1, 2, 3]
    assert first.pad == 0


def test_reading_past_the_end_needs_reset():
    it = mx.io.NDArrayIter(np.arange(4), batch_size=2)
    assert len(list(it)) == 2
    with pytest.raises(StopIteration):
        it.next()
    with pytest.raises(MXNetError, match="reset"):
        it.getdata()
    it.reset()
    assert it.next().data[0].asnumpy().tolist() == [0, 1]


def test_data_desc():
    d = mx.io.DataDesc("x", (2, 3))
    assert d == ("x", (2, 3))
    assert d.dtype is np.float32 and d.layout == "NCHW"
    assert repr(d) == "DataDesc[x,(2, 3),<class 'numpy.float32'>,NCHW]"
    assert mx.io.DataDesc.get_batch_axis("TNC") == 1
    assert mx.io.DataDesc.get_batch_axis(None) == 0
    descs = mx.io.DataDesc.get_list([("a", (1,)), ("b", (2,))], [("a", "int32"), ("b", "float64")])
    assert [(x.name, x.shape, x.dtype) for x in descs] == [
        ("a", (1,), "int32"),
        ("b", (2,), "float64"),
    ]


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"data": None}, MXNetError, "NDArrayIter.*'data'"),
        ({"data": []}, MXNetError, "NDArrayIter.*'data'"),
        ({"data": "abc"}, DTypeError, "NDArrayIter.*'data'.*str"),
        ({"data": {"x": object()}}, DTypeError, "NDArrayIter.*'x'"),
        ({"data": np.ones(3), "batch_size": 0}, ParamError, "batch_size.*>= 1"),
        ({"data": np.ones(3), "last_batch_handle": "fill"}, ParamError, "last_batch_handle"),
        ({"data": np.ones(3), "layout": "CHW"}, ParamError, "layout"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        mx.io.NDArrayIter(**kwargs)


def test_data_batch_rejects_non_lists():
    with pytest.raises(MXNetError, match="DataBatch.*'data'"):
        mx.io.DataBatch(mx.nd.ones((1,)))
    with pytest.raises(MXNetError, match="DataBatch.*'label'"):
        mx.io.DataBatch([mx.nd.ones((1,))], label=mx.nd.ones((1,)))


def test_resize_iter_lengths_and_reset_internal():
    base = mx.io.NDArrayIter(np.arange(12), batch_size=4)
    it = mx.io.ResizeIter(base, 7)
    assert it.provide_data == base.provide_data and it.batch_size == 4
    assert len(list(it)) == 7
    it.reset()
    assert len(list(it)) == 7
    kept = mx.io.ResizeIter(mx.io.NDArrayIter(np.arange(12), batch_size=4), 2, False)
    assert [b.data[0].asnumpy()[0] for b in kept] == [0, 4]
    kept.reset()
    assert [b.data[0].asnumpy()[0] for b in kept] == [8, 0]
    with pytest.raises(MXNetError, match="ResizeIter.*'size'"):
        mx.io.ResizeIter(base, -1)


# ---- CSR data ----------------------------------------------------------------------------


def test_csr_needs_discard():
    csr = mx.nd.array(np.eye(4)).tostype("csr")
    for data in ({"data": csr}, {"data": csr.asscipy()}):
        with pytest.raises(NotImplementedError, match="discard"):
            mx.io.NDArrayIter(data, np.zeros(4), 2)
    with pytest.raises(NotImplementedError, match="discard"):
        mx.io.NDArrayIter(np.eye(4), csr, 2, last_batch_handle="roll_over")


def test_csr_shuffled_batches_match_mxnet():
    g = load("ndarray/golden/sparse/sparse.npz")
    x = g["iter/in0"]
    it = shuffled_csr_iter(mx, x)
    assert it.data[0][1].stype == "csr"  # shuffling keeps the storage type
    batches = list(it)
    assert len(batches) == 2
    for k, batch in enumerate(batches):
        np.testing.assert_array_equal(batch.data[0].asnumpy(), g[f"iter/batch{k}"])
        np.testing.assert_array_equal(batch.label[0].asnumpy(), g[f"iter/label{k}"])
    with pytest.raises(StopIteration):
        it.next()


def test_scipy_csr_with_empty_labels():
    sp = pytest.importorskip("scipy.sparse")
    x = sp.csr_matrix(np.arange(12, dtype=np.float32).reshape(6, 2))
    for label in ([], None):
        it = mx.io.NDArrayIter({"data": x}, label, 4, shuffle=True, last_batch_handle="discard")
        batches = list(it)
        assert len(batches) == 1 and not batches[0].label
        assert it.data[0][1].stype == "csr"


def test_batch_holding_iterators_read_the_batch_they_hold():
    """ResizeIter, PrefetchingIter and the record iterators share one BatchIter: next() is
    the batch iter_next read, and the getters read that batch."""
    base = mx.io.NDArrayIter(np.arange(10.0).reshape(5, 2), np.arange(5.0), batch_size=2)
    for it in (mx.io.ResizeIter(base, 3), mx.io.PrefetchingIter(base)):
        it.reset()
        batch = it.next()
        assert it.getdata() is batch.data
        assert it.getlabel() is batch.label
        assert it.getpad() == batch.pad
        assert it.getindex() is batch.index
    assert issubclass(mx.io.MNISTIter, mx.io.io.BatchIter)
    assert issubclass(mx.io.ImageRecordIter, mx.io.io.BatchIter)


def test_small_batches_of_large_data_run_on_the_caller():
    """Issue 32: a batch is a copy of a slice of the data, made on the calling thread when the
    data is idle; slicing with an operator that reads the whole data array sent every batch to
    an engine worker and back (MXNet's test_NDArrayIter, 5000 batches of size 1 per pass, ran
    up to its time limit)."""
    data = mx.nd.array(np.arange(200 * 32 * 32, dtype="float32").reshape(200, 32, 32))
    label = mx.nd.array(np.arange(200))
    it = mx.io.NDArrayIter(data, label, batch_size=1)
    mx.nd.waitall()
    eng = mx.engine.get()
    threads = set()
    eng.set_profile_sink(lambda name, ctx, tid, t0, t1: threads.add(tid))
    try:
        batches = [(b.data[0].asnumpy(), b.label[0].asnumpy()) for b in it]
    finally:
        eng.set_profile_sink(None)
    assert threads == {threading.get_ident()}
    assert len(batches) == 200
    assert np.array_equal(batches[7][0], data.asnumpy()[7:8])
    assert batches[7][1].tolist() == [7.0]
