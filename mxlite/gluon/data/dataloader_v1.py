"""MXNet 1.9.1's first multi-process DataLoader (``DataLoaderV1``) and its pieces, which
``gluon.data.dataloader`` carries: NDArrays sent between processes through shared memory
(``reduce_ndarray``/``rebuild_ndarray``, registered with multiprocessing's ForkingPickler as
MXNet registers them, so any multiprocessing queue or pipe moves an NDArray's data through a
shared block instead of the pipe), queues and connections that send that way (``Queue``,
``SimpleQueue``, ``ConnectionWrapper``), and the worker and fetcher loops of
``DataLoaderV1``: worker processes take ``(index, samples)`` from a key queue and put
``(index, batch)`` on a data queue; a fetcher thread files the batches by index, and the
iterator hands them out in order.

The shared blocks are the ones ``DataLoader`` uses (``dataloader._share``): the receiver
maps a block and removes its name at once, so each block is read once.
"""

from __future__ import annotations

import io
import multiprocessing
import multiprocessing.queues
import pickle
import threading
from multiprocessing.reduction import ForkingPickler
from typing import Any

from ... import context as _context
from ... import ndarray as _nd
from ... import numpy as _mx_np
from ...base import MXNetError
from .dataloader import (
    _LOADER_PARAMS_DOC,
    _as_in_context,
    _fork_context,
    _Loader,
    _SelfIter,
    _share,
    _unpack,
)

__all__ = ["DataLoaderV1"]


def rebuild_ndarray(shared: Any) -> Any:
    """Rebuild ndarray from pickled shared memory (what :func:`reduce_ndarray` left)."""
    return _unpack(shared)


def reduce_ndarray(data: Any) -> tuple[Any, tuple]:
    """Reduce ndarray to shared memory handle: its values go into a shared block (a small
    array travels with the pickle)."""
    return rebuild_ndarray, (_share(data.asnumpy(), "cpu_shared"),)


def rebuild_np_ndarray(shared: Any) -> Any:
    """Rebuild an ``mx.np.ndarray`` from pickled shared memory."""
    return _unpack(shared).as_np_ndarray()


def reduce_np_ndarray(data: Any) -> tuple[Any, tuple]:
    """Reduce an ``mx.np.ndarray`` to shared memory handle."""
    return rebuild_np_ndarray, (_share(data.asnumpy(), "cpu_shared"),)


ForkingPickler.register(_nd.NDArray, reduce_ndarray)
ForkingPickler.register(_mx_np.ndarray, reduce_np_ndarray)


class ConnectionWrapper:
    """Connection wrapper for multiprocessing that supports sending NDArray via shared
    memory."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    def send(self, obj: Any) -> None:
        """Send object"""
        buf = io.BytesIO()
        ForkingPickler(buf, pickle.HIGHEST_PROTOCOL).dump(obj)
        self.send_bytes(buf.getvalue())

    def recv(self) -> Any:
        """Receive object"""
        # the other end is a process of this program (a DataLoader worker), as in MXNet
        return pickle.loads(self.recv_bytes())  # noqa: S301

    def __getattr__(self, name: str) -> Any:
        """Emulate conn"""
        return getattr(self.__dict__.get("_conn"), name)


def _wrap_connections(queue: Any) -> None:
    """Put ConnectionWrappers around the pipe ends of a multiprocessing queue (its own)."""
    queue._reader = ConnectionWrapper(queue._reader)
    queue._writer = ConnectionWrapper(queue._writer)
    queue._send = queue._writer.send
    queue._recv = queue._reader.recv


class Queue(multiprocessing.queues.Queue):
    """Wrapper for multiprocessing queue that dumps NDArray with shared memory."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, ctx=_fork_context(), **kwargs)
        _wrap_connections(self)


class SimpleQueue(multiprocessing.queues.SimpleQueue):
    """Wrapper for multiprocessing SimpleQueue that dumps NDArray with shared memory.
    SimpleQueue don't use threading internally."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, ctx=_fork_context(), **kwargs)
        _wrap_connections(self)


def worker_loop_v1(dataset: Any, key_queue: Any, data_queue: Any, batchify_fn: Any) -> None:
    """Worker loop for multiprocessing DataLoader: batch the samples of each ``(index,
    samples)`` from ``key_queue`` until an index of None."""
    while True:
        idx, samples = key_queue.get()
        if idx is None:
            break
        data_queue.put((idx, batchify_fn([dataset[i] for i in samples])))


def fetcher_loop_v1(
    data_queue: Any,
    data_buffer: dict,
    pin_memory: bool = False,
    pin_device_id: int = 0,
    data_buffer_lock: Any = None,
) -> None:
    """Fetcher loop for fetching data from queue and put in reorder dict (until an index of
    None); a ``threading.Condition`` as the lock is notified of each batch."""
    while True:
        idx, batch = data_queue.get()
        if idx is None:
            break
        if pin_memory:
            batch = _as_in_context(batch, _context.cpu_pinned(pin_device_id))
        else:
            batch = _as_in_context(batch, _context.cpu())
        if data_buffer_lock is None:
            data_buffer[idx] = batch
            continue
        with data_buffer_lock:
            data_buffer[idx] = batch
            if hasattr(data_buffer_lock, "notify_all"):
                data_buffer_lock.notify_all()


class _MultiWorkerIterV1(_SelfIter):
    """Internal multi-worker iterator for DataLoaderV1: ``2 * num_workers`` batches in flight,
    returned in order."""

    def __init__(
        self,
        num_workers: int,
        dataset: Any,
        batchify_fn: Any,
        batch_sampler: Any,
        pin_memory: bool = False,
        pin_device_id: int = 0,
        worker_fn: Any = worker_loop_v1,
    ) -> None:
        if num_workers <= 0:
            raise MXNetError(f"_MultiWorkerIter is not for {num_workers} workers")
        self._num_workers = num_workers
        self._batch_sampler = batch_sampler
        self._key_queue = Queue()
        self._data_queue = SimpleQueue()
        self._data_buffer: dict[int, Any] = {}
        # guards _data_buffer; the fetcher thread notifies it on every batch it files
        self._data_buffer_lock = threading.Condition()
        self._rcvd_idx = 0
        self._sent_idx = 0
        self._iter = iter(batch_sampler)
        self._shutdown = False
        ctx = _fork_context()
        self._workers = []
        for _ in range(num_workers):
            worker = ctx.Process(
                target=worker_fn, args=(dataset, self._key_queue, self._data_queue, batchify_fn)
            )
            worker.daemon = True
            worker.start()
            self._workers.append(worker)
        self._fetcher = threading.Thread(
            target=fetcher_loop_v1,
            args=(self._data_queue, self._data_buffer, pin_memory, pin_device_id,
                  self._data_buffer_lock),
            daemon=True,
        )  # fmt: skip
        self._fetcher.start()
        for _ in range(2 * num_workers):
            self._push_next()

    def __len__(self) -> int:
        return len(self._batch_sampler)

    def __del__(self) -> None:
        self.shutdown()

    def _push_next(self) -> None:
        """Assign next batch workload to workers."""
        r = next(self._iter, None)
        if r is None:
            return
        self._key_queue.put((self._sent_idx, r))
        self._sent_idx += 1

    def __next__(self) -> Any:
        if self._shutdown:
            raise MXNetError("DataLoaderV1: call __next__ after shutdown is forbidden")
        if self._rcvd_idx == self._sent_idx:
            self.shutdown()
            raise StopIteration
        with self._data_buffer_lock:
            self._data_buffer_lock.wait_for(lambda: self._rcvd_idx in self._data_buffer)
            batch = self._data_buffer.pop(self._rcvd_idx)
        self._rcvd_idx += 1
        self._push_next()
        return batch

    def shutdown(self) -> None:
        """Shutdown internal workers by pushing terminate signals."""
        if getattr(self, "_shutdown", True):
            return
        # the fetcher goes first: the workers may still be putting batches for it
        self._data_queue.put((None, None))
        self._fetcher.join()
        for _ in range(self._num_workers):
            self._key_queue.put((None, None))
        for w in self._workers:
            if w.is_alive():
                w.terminate()
        self._shutdown = True


class DataLoaderV1(_Loader):
    """Loads data from a dataset and returns mini-batches of data (MXNet's first
    multi-process loader: one process per worker fed through queues)."""

    __doc__ = (__doc__ or "") + _LOADER_PARAMS_DOC

    def __init__(
        self,
        dataset: Any,
        batch_size: int | None = None,
        shuffle: bool = False,
        sampler: Any = None,
        last_batch: str | None = None,
        batch_sampler: Any = None,
        batchify_fn: Any = None,
        num_workers: int = 0,
        pin_memory: bool = False,
        pin_device_id: int = 0,
    ) -> None:
        self._setup(
            dataset, batch_size, shuffle, sampler, last_batch, batch_sampler, batchify_fn,
            num_workers, pin_memory, pin_device_id,
        )  # fmt: skip

    def __iter__(self) -> Any:
        if self._num_workers == 0:
            return self._same_process_iter()
        return _MultiWorkerIterV1(self._num_workers, self._dataset, self._batchify_fn,
                                  self._batch_sampler, self._pin_memory,
                                  self._pin_device_id)  # fmt: skip
