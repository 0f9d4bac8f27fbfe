"""``gluon.data.DataLoader``: mini-batches of a dataset, loaded in parallel workers.

Design note
-----------
With ``num_workers=0`` batches are made on the calling thread. Otherwise a pool of
``num_workers`` worker *processes* (``thread_pool=True``: threads) makes them: the dataset is
handed to each process when it starts (the pool forks, so datasets holding lambdas or open
files work; a ``RecordFileDataset`` reopens its file in the child), the main process sends
only the list of indices of each batch. A process worker puts every array of its batch larger
than ``_SHM_MIN_BYTES`` into a POSIX shared memory block and sends its name; the main process
copies it into an NDArray and frees the block, so a batch crosses the process boundary in one
copy instead of through a pipe. Up to ``prefetch`` batches (default ``2 * num_workers``) are
in flight; they are returned in order. A batch not ready within ``timeout`` seconds raises.
"""

from __future__ import annotations

import io
import mmap
import multiprocessing
import multiprocessing.pool
import os
import pickle
import sys
from multiprocessing import resource_tracker, shared_memory
from multiprocessing.reduction import ForkingPickler as ForkingPickler  # MXNet re-exports it
from typing import Any

import numpy as np

from ... import context as _context
from ...base import MXNetError, ParamError
from ...base import absent_names as _absent_names
from ...util import is_np_array, is_np_shape, set_np_array, set_np_shape
from ...util import np_array as np_array_scope
from . import sampler as _sampler

__all__ = ["DataLoader", "default_batchify_fn", "default_mp_batchify_fn"]

_SHM_MIN_BYTES = 1 << 16  # below this a pipe is cheaper than a shared memory block


def default_batchify_fn(data: list) -> Any:
    """Collate data into batch."""
    from ... import ndarray as nd

    if isinstance(data[0], nd.NDArray):
        return _np_if_np_mode(nd.stack(*data))
    if isinstance(data[0], tuple):
        return [default_batchify_fn(list(i)) for i in zip(*data)]
    arr = np.asarray(data)
    return _np_if_np_mode(nd.array(arr, dtype=arr.dtype))


def _array_gather(dataset: Any, batchify_fn: Any) -> Any:
    """For an ``ArrayDataset`` of NDArrays and NumPy arrays under the default batchify: a
    function that takes a batch's rows of each array at once, the same arrays that indexing
    every sample and stacking them gives (d2l's ``load_array``: 256 index calls and a stack of
    256 per batch before). None for any other dataset."""
    from ... import ndarray as nd
    from .dataset import ArrayDataset

    if type(dataset) is not ArrayDataset or batchify_fn is not default_batchify_fn:
        return None
    arrays = dataset._data
    if not all(isinstance(a, (nd.NDArray, np.ndarray)) and a.ndim >= 1 for a in arrays):
        return None

    def take(a: Any, idx: list) -> Any:
        if isinstance(a, nd.NDArray):
            rows = nd.array(np.asarray(idx, dtype=np.int64), ctx=a.context, dtype="int64")
            return _np_if_np_mode(nd.take(a.as_nd_ndarray(), rows, axis=0))
        part = a[np.asarray(idx, dtype=np.int64)]
        return _np_if_np_mode(nd.array(part, dtype=part.dtype))

    def gather(idx: list) -> Any:
        if len(arrays) == 1:
            return take(arrays[0], idx)
        return [take(a, idx) for a in arrays]

    return gather


def _same_process_batches(
    dataset: Any, batch_sampler: Any, batchify_fn: Any, pin_memory: bool, pin_device_id: int
) -> Any:
    """The batches of a loader without workers (DataLoader's and DataLoaderV1's): each sampled
    batch's samples batchified (an ArrayDataset's rows taken at once), pinned if asked."""
    gather = _array_gather(dataset, batchify_fn)
    for batch in batch_sampler:
        if gather is not None:
            ret = gather(batch)
        else:
            ret = batchify_fn([dataset[idx] for idx in batch])
        if pin_memory:
            ret = _as_in_context(ret, _context.cpu_pinned(pin_device_id))
        yield ret


def default_mp_batchify_fn(data: list) -> Any:
    """Collate data into batch. Use shared memory for stacking."""
    from ... import ndarray as nd

    shared = _context.Context("cpu_shared", 0)
    if isinstance(data[0], nd.NDArray):
        stacked = np.stack([d.asnumpy() for d in data])
        return _np_if_np_mode(nd.array(stacked, dtype=stacked.dtype, ctx=shared))
    if isinstance(data[0], tuple):
        return [default_mp_batchify_fn(list(i)) for i in zip(*data)]
    arr = np.asarray(data)
    return _np_if_np_mode(nd.array(arr, dtype=arr.dtype, ctx=shared))


def _np_if_np_mode(batch: Any) -> Any:
    """A batch's arrays as ``mx.np`` arrays (views, no copy) in NumPy-array mode, as MXNet's
    batchify functions make them."""
    from ...ndarray import NDArray

    if not is_np_array():
        return batch
    if isinstance(batch, (list, tuple)):
        return type(batch)(_np_if_np_mode(b) for b in batch)
    return batch.as_np_ndarray() if type(batch) is NDArray else batch


def _set_np_flags(np_shape: bool, np_array: bool) -> None:
    """A worker's NumPy semantics: those of the thread that made the DataLoader."""
    set_np_shape(np_shape)
    set_np_array(np_array)


def _as_in_context(data: Any, ctx: Any) -> Any:
    """Move data into new context."""
    from ...ndarray import NDArray

    if isinstance(data, NDArray):
        return data.as_in_context(ctx)
    if isinstance(data, (list, tuple)):
        return [_as_in_context(d, ctx) for d in data]
    return data


# ---- moving batches between processes ------------------------------------------------------
class _Shared:
    """An array left in a shared memory block by a worker process."""

    def __init__(self, name: str, shape: tuple, dtype: str, ctx: str) -> None:
        self.name, self.shape, self.dtype, self.ctx = name, shape, dtype, ctx


class _Plain:
    """A small array sent through the pipe, with the NDArray's context kind."""

    def __init__(self, value: np.ndarray, ctx: str) -> None:
        self.value, self.ctx = value, ctx


def _share(arr: np.ndarray, ctx: str) -> Any:
    """``arr`` as a ``_Shared`` block (large) or a ``_Plain`` value (small)."""
    if arr.nbytes < _SHM_MIN_BYTES:
        return _Plain(np.ascontiguousarray(arr), ctx)
    block = shared_memory.SharedMemory(create=True, size=arr.nbytes)
    try:
        np.ndarray(arr.shape, arr.dtype, buffer=block.buf)[...] = arr
    finally:
        block.close()
    return _Shared(block.name, arr.shape, arr.dtype.str, ctx)


def _pack(obj: Any) -> Any:
    from ...ndarray import NDArray

    if isinstance(obj, NDArray):
        return _share(obj.asnumpy(), obj.context.device_type)
    if isinstance(obj, np.ndarray):
        return obj
    if isinstance(obj, list):
        return [_pack(o) for o in obj]
    if isinstance(obj, tuple):
        return tuple(_pack(o) for o in obj)
    return obj


def _stack_shared(data: list) -> Any:
    """What ``default_mp_batchify_fn(data)`` returns, packed: samples are stacked straight into
    the shared block (one copy), with no NDArray made in the worker."""
    from ...ndarray import NDArray

    first = data[0]
    if isinstance(first, tuple):
        return [_stack_shared(list(field)) for field in zip(*data)]
    if isinstance(first, NDArray):
        rows = [d.asnumpy() for d in data]
    else:
        rows = [np.asarray(d) for d in data]
    shape = (len(rows),) + rows[0].shape
    dtype = rows[0].dtype
    nbytes = int(np.prod(shape)) * dtype.itemsize
    if nbytes < _SHM_MIN_BYTES:
        return _Plain(np.stack(rows), "cpu_shared")
    block = shared_memory.SharedMemory(create=True, size=nbytes)
    try:
        np.stack(rows, out=np.ndarray(shape, dtype, buffer=block.buf))
    finally:
        block.close()
    return _Shared(block.name, shape, dtype.str, "cpu_shared")


def _attach(obj: _Shared) -> np.ndarray:
    """The array of a shared block, mapped without a copy where the OS allows it; the block's
    name is removed at once, the memory lives as long as the array."""
    path = os.path.join("/dev/shm", obj.name)
    size = int(np.prod(obj.shape)) * np.dtype(obj.dtype).itemsize
    if os.path.exists(path):
        fd = os.open(path, os.O_RDWR)
        try:
            mapped = mmap.mmap(fd, size)
        finally:
            os.close(fd)
        os.unlink(path)
        resource_tracker.unregister(f"/{obj.name}", "shared_memory")
        return np.frombuffer(mapped, np.dtype(obj.dtype), int(np.prod(obj.shape))).reshape(
            obj.shape
        )
    block = shared_memory.SharedMemory(name=obj.name)
    try:
        return np.ndarray(obj.shape, np.dtype(obj.dtype), buffer=block.buf).copy()
    finally:
        block.close()
        block.unlink()


def _release(obj: Any) -> None:
    """Free the shared blocks of a packed batch that will not be used."""
    if isinstance(obj, _Shared):
        block = shared_memory.SharedMemory(name=obj.name)
        block.close()
        block.unlink()
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            _release(o)


def _unpack(obj: Any) -> Any:
    from ... import ndarray as nd

    if isinstance(obj, _Plain):
        return nd.array(obj.value, dtype=obj.value.dtype, ctx=_context.Context(obj.ctx, 0))
    if isinstance(obj, _Shared):
        arr = _attach(obj)
        if obj.ctx in ("cpu", "cpu_shared"):
            with _context.Context(obj.ctx, 0):  # from_numpy wraps on the current context
                return nd.from_numpy(arr)
        return nd.array(arr, dtype=arr.dtype, ctx=_context.Context(obj.ctx, 0))
    if isinstance(obj, list):
        return [_unpack(o) for o in obj]
    if isinstance(obj, tuple):
        return tuple(_unpack(o) for o in obj)
    return obj


_worker_dataset: Any = None


def _worker_initializer(dataset: Any, np_shape: bool, np_array: bool) -> None:
    global _worker_dataset
    _worker_dataset = dataset
    _set_np_flags(np_shape, np_array)


def _worker_fn(samples: list, batchify_fn: Any) -> bytes:
    items = [_worker_dataset[i] for i in samples]
    if batchify_fn is default_mp_batchify_fn:
        packed = _stack_shared(items)
    else:
        packed = _pack(batchify_fn(items))
    buf = io.BytesIO()
    pickle.dump(packed, buf, pickle.HIGHEST_PROTOCOL)
    return buf.getvalue()


def _thread_worker_fn(samples: list, batchify_fn: Any, dataset: Any) -> Any:
    return batchify_fn([dataset[i] for i in samples])


def _load_batch(data: bytes, np_array: bool) -> Any:
    # The bytes come from our own worker processes, so this is not untrusted input.
    batch = _unpack(pickle.loads(data))  # noqa: S301
    if not np_array:
        return batch
    with np_array_scope(True):
        return _np_if_np_mode(batch)


class _SelfIter:
    """Iteration over an iterator object, with the ``next()`` MXNet's iterators keep."""

    def next(self) -> Any:
        return self.__next__()  # type: ignore[attr-defined]

    def __iter__(self) -> Any:
        return self


class _MultiWorkerIter(_SelfIter):
    """Iterator over a pool of workers; batches come back in order."""

    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        self._pool = loader._worker_pool
        self._iter = iter(loader._batch_sampler)
        self._pending: dict[int, Any] = {}
        self._sent = 0
        self._received = 0
        for _ in range(loader._prefetch):
            self._push_next()

    def __len__(self) -> int:
        return len(self._loader._batch_sampler)

    def _push_next(self) -> None:
        indices = next(self._iter, None)
        if indices is None:
            return
        loader = self._loader
        if loader._thread_pool:
            job = self._pool.apply_async(
                _thread_worker_fn, (indices, loader._batchify_fn, loader._dataset)
            )
        else:
            job = self._pool.apply_async(_worker_fn, (indices, loader._batchify_fn))
        self._pending[self._sent] = job
        self._sent += 1

    def __next__(self) -> Any:
        self._push_next()
        if self._received == self._sent:
            raise StopIteration
        job = self._pending.pop(self._received)
        loader = self._loader
        try:
            batch = job.get(loader._timeout)
        except multiprocessing.TimeoutError as exc:
            raise MXNetError(
                f"DataLoader: worker timed out after {loader._timeout} seconds; a slow transform "
                "may need a larger `timeout`"
            ) from exc
        if not loader._thread_pool:
            batch = _load_batch(batch, loader._np_flags[1])
        if loader._pin_memory:
            batch = _as_in_context(batch, _context.cpu_pinned(loader._pin_device_id))
        self._received += 1
        return batch

    def __del__(self) -> None:
        # Batches made but never taken (a loop left early) free their shared blocks now; the
        # resource tracker frees those still being made when the program ends.
        if self._loader._thread_pool:
            return
        for job in self._pending.values():
            try:
                if job.ready() and job.successful():
                    _release(pickle.loads(job.get(0)))  # noqa: S301 - our workers' bytes
            except Exception:  # noqa: BLE001 - best effort while being collected
                pass


def _batch_sampler(
    dataset: Any,
    batch_size: int | None,
    shuffle: bool,
    sampler: Any,
    last_batch: str | None,
    batch_sampler: Any,
) -> Any:
    """The batch sampler a DataLoader's arguments ask for (checked as MXNet checks them)."""
    if batch_sampler is not None:
        if batch_size is not None or shuffle or sampler is not None or last_batch is not None:
            raise ValueError(
                "batch_size, shuffle, sampler and last_batch must not be specified if "
                "batch_sampler is specified."
            )
        return batch_sampler
    if batch_size is None:
        raise ValueError("batch_size must be specified unless batch_sampler is specified")
    if sampler is None:
        n = len(dataset)
        sampler = _sampler.RandomSampler(n) if shuffle else _sampler.SequentialSampler(n)
    elif shuffle:
        raise ValueError("shuffle must not be specified if sampler is specified")
    return _sampler.BatchSampler(sampler, batch_size, last_batch or "keep")


_LOADER_PARAMS_DOC = """

    Parameters
    ----------
    dataset : Dataset
        Source dataset. Note that numpy and mxnet arrays can be directly used
        as a Dataset.
    batch_size : int
        Size of mini-batch.
    shuffle : bool
        Whether to shuffle the samples.
    sampler : Sampler
        The sampler to use. Either specify sampler or shuffle, not both.
    last_batch : {'keep', 'discard', 'rollover'}
        How to handle the last batch if batch_size does not evenly divide
        ``len(dataset)``.
    batch_sampler : Sampler
        A sampler that returns mini-batches. Do not specify batch_size,
        shuffle, sampler, and last_batch if batch_sampler is specified.
    batchify_fn : callable
        Callback function to allow users to specify how to merge samples
        into a batch. Defaults to `default_batchify_fn` (`default_mp_batchify_fn` with
        workers).
    num_workers : int, default 0
        The number of multiprocessing workers to use for data preprocessing.
    pin_memory : boolean, default False
        If ``True``, the dataloader will copy NDArrays into pinned memory
        before returning them.
    pin_device_id : int, default 0
        The device id to use for allocating pinned memory if pin_memory is ``True``
    """


class _Loader:
    """What ``DataLoader`` and ``DataLoaderV1`` share: the batch sampler and batchify function
    their arguments ask for, the batches made on the calling thread, and the length."""

    def _setup(
        self, dataset, batch_size, shuffle, sampler, last_batch, batch_sampler, batchify_fn,
        num_workers, pin_memory, pin_device_id,
    ) -> None:  # fmt: skip
        self._dataset = dataset
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._batch_sampler = _batch_sampler(
            dataset, batch_size, shuffle, sampler, last_batch, batch_sampler
        )
        self._num_workers = max(0, num_workers)
        if batchify_fn is None:
            batchify_fn = default_mp_batchify_fn if self._num_workers > 0 else default_batchify_fn
        self._batchify_fn = batchify_fn

    def _same_process_iter(self) -> Any:
        return _same_process_batches(
            self._dataset, self._batch_sampler, self._batchify_fn, self._pin_memory,
            self._pin_device_id,
        )  # fmt: skip

    def __len__(self) -> int:
        return len(self._batch_sampler)


class DataLoader(_Loader):
    """Loads data from a dataset and returns mini-batches of data."""

    __doc__ = (__doc__ or "") + (
        _LOADER_PARAMS_DOC
        + """prefetch : int, default is `num_workers * 2`
        The number of prefetching batches only works if `num_workers` > 0.
    thread_pool : bool, default False
        If ``True``, use threading pool instead of multiprocessing pool.
    timeout : int, default is 120
        The timeout in seconds for each worker to fetch a batch data.
    auto_reload : bool, default is False
        Start the next epoch's prefetching as soon as one epoch ends.
    """
    )

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
        prefetch: int | None = None,
        thread_pool: bool = False,
        timeout: int = 120,
        auto_reload: bool = False,
    ) -> None:
        self._thread_pool = thread_pool
        if not timeout > 0:
            raise ParamError(f"DataLoader: timeout must be positive, got {timeout}")
        self._timeout = timeout
        self._setup(
            dataset, batch_size, shuffle, sampler, last_batch, batch_sampler, batchify_fn,
            int(num_workers), pin_memory, pin_device_id,
        )  # fmt: skip
        self._worker_pool: Any = None
        self._prefetch = max(0, int(prefetch) if prefetch is not None else 2 * self._num_workers)
        self._np_flags = (is_np_shape(), is_np_array())
        if self._num_workers > 0:
            if thread_pool:
                self._worker_pool = multiprocessing.pool.ThreadPool(
                    self._num_workers, initializer=_set_np_flags, initargs=self._np_flags
                )
            else:
                # One resource tracker for all: blocks a worker creates are freed by this process.
                resource_tracker.ensure_running()
                self._worker_pool = _fork_context().Pool(
                    self._num_workers,
                    initializer=_worker_initializer,
                    initargs=(dataset, *self._np_flags),
                )
        self.auto_reload = auto_reload
        self._iter: Any = None
        if auto_reload:
            self.refresh()

    def __iter__(self) -> Any:
        if self._iter is None:
            self.refresh()
        it, self._iter = self._iter, None
        yield from it
        if self._iter is None and self.auto_reload:
            self.refresh()

    def _prefetch_iter(self) -> Any:
        if self._num_workers == 0:
            return self._same_process_iter()
        return _MultiWorkerIter(self)

    def refresh(self) -> None:
        """Refresh its iter, fetch data again from its dataset"""
        self._iter = self._prefetch_iter()

    def clean(self) -> None:
        """Remove its refreshed iter"""
        self._iter = None

    def __del__(self) -> None:
        pool = getattr(self, "_worker_pool", None)
        if pool is not None:
            pool.terminate()
            self._worker_pool = None


def _fork_context() -> Any:
    # Workers inherit the dataset by forking, as MXNet's do; elsewhere the default start method.
    if sys.platform != "win32" and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


# MXNet's first DataLoader and its shared-memory pieces live in dataloader_v1.py (they use
# this module's helpers; gluon.data imports it, which registers the NDArray reducers)
__getattr__ = _absent_names(
    "mxnet.gluon.data.dataloader",
    {},
    moved=("ConnectionWrapper", "DataLoaderV1", "Queue", "SimpleQueue", "fetcher_loop_v1",
           "rebuild_ndarray", "rebuild_np_ndarray", "reduce_ndarray", "reduce_np_ndarray",
           "worker_loop_v1"),
    home="mxlite.gluon.data.dataloader_v1",
)  # fmt: skip
