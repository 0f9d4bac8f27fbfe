"""PrefetchingIter: the same batches as the wrapped iterators, renaming, reset, errors."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError


def _values(batches):
    return [
        ([a.asnumpy().tolist() for a in b.data], [a.asnumpy().tolist() for a in b.label], b.pad)
        for b in batches
    ]


def _make(n=10, batch_size=3, **kwargs):
    data = np.arange(n * 2, dtype=np.float32).reshape(n, 2)
    return mx.io.NDArrayIter(data, np.arange(n), batch_size=batch_size, **kwargs)


@pytest.mark.parametrize("handle", ["pad", "discard", "roll_over"])
def test_same_batches_as_the_wrapped_iterator(handle):
    plain, wrapped = _make(last_batch_handle=handle), _make(last_batch_handle=handle)
    piter = mx.io.PrefetchingIter(wrapped)
    assert piter.provide_data == plain.provide_data
    assert piter.provide_label == plain.provide_label
    assert piter.batch_size == 3
    for _ in range(3):
        got = list(piter)
        want = list(plain)
        assert _values(got) == _values(want)
        assert all(b.provide_data == plain.provide_data for b in got)
        piter.reset()
        plain.reset()


def test_reset_in_the_middle_of_an_epoch():
    piter = mx.io.PrefetchingIter(_make())
    first = piter.next()
    piter.reset()
    again = list(piter)
    assert len(again) == 4
    assert _values([first]) == _values(again[:1])


def test_two_iterators_with_renaming():
    a, b = _make(), _make()
    piter = mx.io.PrefetchingIter(
        [a, b],
        rename_data=[{"data": "data_1"}, {"data": "data_2"}],
        rename_label=[{"softmax_label": "l1"}, {"softmax_label": "l2"}],
    )
    assert [d.name for d in piter.provide_data] == ["data_1", "data_2"]
    assert [d.name for d in piter.provide_label] == ["l1", "l2"]
    assert piter.provide_data[0].shape == (3, 2)
    batches = list(piter)
    assert len(batches) == 4
    assert all(len(batch.data) == 2 and len(batch.label) == 2 for batch in batches)
    assert batches[-1].pad == 2
    assert [batch.provide_data[1].name for batch in batches] == ["data_2"] * 4


def test_bad_rename_names_the_argument():
    with pytest.raises(MXNetError, match="rename_data.*'data'"):
        mx.io.PrefetchingIter([_make()], rename_data=[{"other": "x"}])
    with pytest.raises(MXNetError, match="rename_label"):
        mx.io.PrefetchingIter([_make(), _make()], rename_label=[{}])


def test_iterators_of_different_lengths():
    piter = mx.io.PrefetchingIter([_make(n=6), _make(n=9)])
    piter.next()
    piter.next()
    with pytest.raises(MXNetError, match="different numbers of batches"):
        piter.next()


class _Failing(mx.io.DataIter):
    def __init__(self):
        super().__init__(batch_size=1)
        self.provide_data = [mx.io.DataDesc("data", (1,))]
        self.provide_label = []

    def next(self):
        raise ValueError("broken reader")


def test_error_in_the_reader_thread_reaches_the_caller():
    piter = mx.io.PrefetchingIter(_Failing())
    with pytest.raises(ValueError, match="broken reader"):
        piter.next()


class _Gated(mx.io.DataIter):
    """Counts reads; the second read waits until the test opens the gate."""

    def __init__(self):
        super().__init__(batch_size=1)
        self.provide_data = [mx.io.DataDesc("data", (1,))]
        self.provide_label = []
        self.reads = 0
        self.second_read_started = threading.Event()
        self.gate = threading.Event()

    def next(self):
        self.reads += 1
        if self.reads == 2:
            self.second_read_started.set()
            self.gate.wait()
        return mx.io.DataBatch([mx.nd.array([self.reads])], [], pad=0)


def test_reads_one_batch_ahead_on_another_thread():
    source = _Gated()
    piter = mx.io.PrefetchingIter(source)
    first = piter.next()  # returns while the reader is blocked reading the next batch
    assert first.data[0].asnumpy().tolist() == [1.0]
    assert source.second_read_started.wait(timeout=30)
    source.gate.set()
    assert piter.next().data[0].asnumpy().tolist() == [2.0]


def test_threads_stop_when_the_iterator_is_collected():
    piter = mx.io.PrefetchingIter(_make())
    threads = [f.thread for f in piter._fetchers]
    del piter
    gc.collect()
    for thread in threads:
        thread.join(timeout=30)
        assert not thread.is_alive()
