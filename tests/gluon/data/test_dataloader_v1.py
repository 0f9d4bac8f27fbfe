"""DataLoaderV1 and its pieces (gluon/data/dataloader_v1.py): NDArrays through
multiprocessing queues by shared memory, the worker and fetcher loops, and batches equal to
the ones DataLoader makes."""

from __future__ import annotations

import multiprocessing
import pickle
import threading
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pytest

import mxlite as mx
from mxlite.gluon.data import dataloader
from mxlite.gluon.data.dataloader_v1 import _MultiWorkerIterV1


def _dataset() -> mx.gluon.data.ArrayDataset:
    x = np.arange(60, dtype="float32").reshape(20, 3)
    return mx.gluon.data.ArrayDataset(x, np.arange(20, dtype="int32"))


def test_the_names_are_mxnets_module_level_names() -> None:
    for name in ("DataLoaderV1", "Queue", "SimpleQueue", "ConnectionWrapper", "worker_loop_v1",
                 "fetcher_loop_v1", "rebuild_ndarray", "reduce_ndarray", "rebuild_np_ndarray",
                 "reduce_np_ndarray"):  # fmt: skip
        assert callable(getattr(dataloader, name))


@pytest.mark.parametrize("shape", [(3,), (200, 100)])  # a small one travels in the pickle
def test_forking_pickler_moves_ndarrays_through_shared_memory(shape: tuple) -> None:
    x = mx.nd.array(np.random.RandomState(0).rand(*shape))
    fn, args = dataloader.reduce_ndarray(x)
    assert fn is dataloader.rebuild_ndarray
    y = pickle.loads(ForkingPickler.dumps(x))
    assert isinstance(y, mx.nd.NDArray) and y.context == mx.Context("cpu_shared", 0)
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy())
    z = pickle.loads(ForkingPickler.dumps(mx.np.ones(shape)))
    assert isinstance(z, mx.np.ndarray) and z.shape == shape


@pytest.mark.parametrize("kind", ["Queue", "SimpleQueue"])
def test_queues_carry_ndarrays_from_a_child_process(kind: str) -> None:
    q = getattr(dataloader, kind)()
    proc = multiprocessing.get_context("fork").Process(
        target=lambda: q.put((1, mx.nd.arange(6).reshape((2, 3))))
    )
    proc.start()
    idx, arr = q.get()
    proc.join()
    assert idx == 1
    np.testing.assert_array_equal(arr.asnumpy(), np.arange(6).reshape(2, 3))


def test_connection_wrapper_sends_objects_with_ndarrays() -> None:
    a, b = multiprocessing.Pipe()
    sender, receiver = dataloader.ConnectionWrapper(a), dataloader.ConnectionWrapper(b)
    sender.send({"x": mx.nd.ones((2, 2))})
    got = receiver.recv()
    assert receiver.poll() is False
    np.testing.assert_array_equal(got["x"].asnumpy(), np.ones((2, 2)))


def test_worker_and_fetcher_loops_fill_the_buffer_in_the_calling_process() -> None:
    import queue

    keys, data = queue.Queue(), queue.Queue()
    keys.put((0, [0, 1]))
    keys.put((1, [4]))
    keys.put((None, None))
    dataloader.worker_loop_v1(_dataset(), keys, data, dataloader.default_batchify_fn)
    data.put((None, None))
    buf: dict = {}
    lock = threading.Condition()
    dataloader.fetcher_loop_v1(data, buf, data_buffer_lock=lock)
    assert sorted(buf) == [0, 1]
    np.testing.assert_array_equal(buf[1][1].asnumpy(), [4])
    assert buf[0][0].context == mx.cpu()


@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("kind", ["array", "simple"])  # rows taken at once, or sample by sample
def test_batches_equal_the_dataloaders(workers: int, kind: str) -> None:
    kw = {"batch_size": 6, "last_batch": "keep"}
    data = _dataset() if kind == "array" else mx.gluon.data.SimpleDataset(list(_dataset()))
    want = list(mx.gluon.data.DataLoader(data, **kw))
    loader = dataloader.DataLoaderV1(data, num_workers=workers, **kw)
    assert len(loader) == 4
    got = list(loader)
    assert len(got) == len(want)
    for (gx, gy), (wx, wy) in zip(got, want):
        assert (gx.dtype, gy.dtype) == (wx.dtype, wy.dtype)
        np.testing.assert_array_equal(gx.asnumpy(), wx.asnumpy())
        np.testing.assert_array_equal(gy.asnumpy(), wy.asnumpy())


def test_pinned_batches_are_on_the_pinned_context() -> None:
    loader = dataloader.DataLoaderV1(_dataset(), batch_size=6, pin_memory=True, pin_device_id=0)
    x, y = next(iter(loader))
    assert x.context == y.context == mx.Context("cpu_pinned", 0)


def test_bad_arguments_fail_as_mxnets() -> None:
    with pytest.raises(ValueError, match="batch_size must be specified"):
        dataloader.DataLoaderV1(_dataset())
    with pytest.raises(ValueError, match="shuffle must not be specified"):
        dataloader.DataLoaderV1(_dataset(), 2, shuffle=True,
                                sampler=mx.gluon.data.SequentialSampler(20))  # fmt: skip
    with pytest.raises(ValueError, match="must not be specified if batch_sampler"):
        dataloader.DataLoaderV1(_dataset(), 2, batch_sampler=[[0, 1]])
    with pytest.raises(mx.MXNetError, match="not for 0 workers"):
        _MultiWorkerIterV1(0, _dataset(), dataloader.default_batchify_fn, [[0]])
