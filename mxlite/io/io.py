"""The data iterator protocol and the iterators that wrap other iterators.

A ``DataIter`` yields ``DataBatch`` objects (lists of NDArrays for data and label, plus ``pad``,
the number of examples at the end of the batch that only fill it up) until ``StopIteration``;
``reset()`` starts the next epoch. ``provide_data`` and ``provide_label`` describe each array
of a batch as a ``DataDesc`` (a ``(name, shape)`` tuple with ``dtype`` and ``layout``), which is
what ``Module.bind`` reads.

``ResizeIter`` makes an epoch a fixed number of batches, restarting the wrapped iterator when
it runs out. ``PrefetchingIter`` reads the next batch of each wrapped iterator on its own
thread while the caller works on the current one; the handoff between the caller and each
thread is a pair of events (see ``_Fetcher``), so at most one batch per iterator is read ahead.

>>> import mxlite as mx
>>> it = mx.io.ResizeIter(mx.io.NDArrayIter(mx.nd.ones((10, 2)), batch_size=4), 5)
>>> [batch.pad for batch in it]
[0, 0, 2, 0, 0]
"""

from __future__ import annotations

import threading
import weakref
from collections import namedtuple
from typing import Any

import numpy as np

from ..base import MXNetError
from ..base import absent_names as _absent_names

__all__ = ["DataDesc", "DataBatch", "DataIter", "ResizeIter", "PrefetchingIter"]


class DataDesc(namedtuple("DataDesc", ["name", "shape"])):
    """Name, shape, type and layout of one data or label array of a batch.

    It is a ``(name, shape)`` tuple, so it compares equal to one and unpacks like one;
    ``dtype`` and ``layout`` are extra attributes.

    Parameters
    ----------
    name : str
        Data name.
    shape : tuple of int
        Data shape.
    dtype : np.dtype, optional
        Data type (default float32).
    layout : str, optional
        Data layout; the position of ``N`` is the batch axis (default ``'NCHW'``).
    """

    def __new__(
        cls, name: str, shape: Any, dtype: Any = np.float32, layout: str | None = "NCHW"
    ) -> DataDesc:
        desc = super().__new__(cls, name, shape)
        desc.dtype = dtype
        desc.layout = layout
        return desc

    def __repr__(self) -> str:
        return f"DataDesc[{self.name},{self.shape},{self.dtype},{self.layout}]"

    @staticmethod
    def get_batch_axis(layout: str | None) -> int:
        """The batch axis of ``layout`` (its ``N``): 0 when ``layout`` is None, -1 without N.

        Parameters
        ----------
        layout : str
            Layout string, for example ``"NCHW"``.

        Returns
        -------
        int
            The axis of the batch dimension.
        """
        if layout is None:
            return 0
        return layout.find("N")

    @staticmethod
    def get_list(shapes: Any, types: Any) -> list[DataDesc]:
        """DataDesc list from ``[(name, shape), ...]`` and ``[(name, dtype), ...]`` lists.

        Parameters
        ----------
        shapes : list of (str, tuple of int)
            Names and shapes.
        types : list of (str, np.dtype) or None
            Names and dtypes; None means float32 for all.
        """
        if types is None:
            return [DataDesc(name, shape) for name, shape in shapes]
        dtypes = dict(types)
        return [DataDesc(name, shape, dtypes[name]) for name, shape in shapes]


class DataBatch:
    """One batch of data: lists of NDArrays, each holding ``batch_size`` examples.

    Parameters
    ----------
    data : list of NDArray
        The input data.
    label : list of NDArray, optional
        The labels.
    pad : int, optional
        How many examples at the end only fill up the batch (ignored in prediction).
    index : numpy.ndarray, optional
        The indices of the examples in the batch.
    bucket_key : int, optional
        The bucket key, for ``BucketingModule``.
    provide_data : list of DataDesc, optional
        Descriptions of ``data``.
    provide_label : list of DataDesc, optional
        Descriptions of ``label``.
    """

    def __init__(
        self,
        data: Any,
        label: Any = None,
        pad: int | None = None,
        index: Any = None,
        bucket_key: Any = None,
        provide_data: Any = None,
        provide_label: Any = None,
    ) -> None:
        if data is not None and not isinstance(data, list | tuple):
            raise MXNetError(
                f"DataBatch: argument 'data' must be a list of NDArrays, got {type(data).__name__}."
            )
        if label is not None and not isinstance(label, list | tuple):
            raise MXNetError(
                "DataBatch: argument 'label' must be a list of NDArrays, "
                f"got {type(label).__name__}."
            )
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self) -> str:
        data_shapes = [d.shape for d in self.data]
        label_shapes = [lab.shape for lab in self.label] if self.label else None
        return f"{type(self).__name__}: data shapes: {data_shapes} label shapes: {label_shapes}"


class DataIter:
    """Base class of data iterators: ``next()`` returns a DataBatch or raises StopIteration.

    Subclasses either override ``next`` or implement ``iter_next`` (advance; True while a
    batch is there) together with ``getdata``, ``getlabel``, ``getpad`` and ``getindex``.

    Parameters
    ----------
    batch_size : int, optional
        The number of examples in a batch.
    """

    def __init__(self, batch_size: int = 0) -> None:
        self.batch_size = batch_size

    def __iter__(self) -> DataIter:
        return self

    def reset(self) -> None:
        """Go back to the start of the data."""

    def next(self) -> DataBatch:
        """The next batch.

        Raises
        ------
        StopIteration
            When the epoch is over.
        """
        if self.iter_next():
            return DataBatch(
                data=self.getdata(),
                label=self.getlabel(),
                pad=self.getpad(),
                index=self.getindex(),
            )
        raise StopIteration

    def __next__(self) -> DataBatch:
        return self.next()

    def iter_next(self) -> bool | None:
        """Move to the next batch; True if there is one."""
        return None

    def getdata(self) -> Any:
        """The data (list of NDArray) of the current batch."""
        return None

    def getlabel(self) -> Any:
        """The labels (list of NDArray) of the current batch."""
        return None

    def getindex(self) -> Any:
        """The example indices of the current batch (numpy array), or None."""
        return None

    def getpad(self) -> int | None:
        """The number of padding examples at the end of the current batch."""
        return None


class BatchIter(DataIter):
    """A DataIter whose ``iter_next`` leaves the batch it reads in ``current_batch``:
    ``next`` returns that batch and the getters read it."""

    current_batch: Any = None

    def next(self) -> DataBatch:
        if self.iter_next():
            return self.current_batch
        raise StopIteration

    def getdata(self) -> Any:
        return self.current_batch.data

    def getlabel(self) -> Any:
        return self.current_batch.label

    def getindex(self) -> Any:
        return self.current_batch.index

    def getpad(self) -> int | None:
        return self.current_batch.pad


class ResizeIter(BatchIter):
    """Make every epoch of ``data_iter`` exactly ``size`` batches long.

    When ``data_iter`` runs out in the middle of an epoch it is reset and read on.

    Parameters
    ----------
    data_iter : DataIter
        The iterator to resize.
    size : int
        Batches per epoch.
    reset_internal : bool
        Whether ``reset()`` also resets ``data_iter`` (else the next epoch goes on from where
        this one stopped).
    """

    # as MXNet's: a new batch of what the getters read, not the wrapped iterator's batch
    next = DataIter.next

    def __init__(self, data_iter: DataIter, size: int, reset_internal: bool = True) -> None:
        super().__init__()
        if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 0:
            raise MXNetError(
                f"ResizeIter: argument 'size' must be a non-negative int, got {size!r}."
            )
        self.data_iter = data_iter
        self.size = int(size)
        self.reset_internal = reset_internal
        self.cur = 0
        self.current_batch: DataBatch | None = None
        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label
        self.batch_size = data_iter.batch_size
        if hasattr(data_iter, "default_bucket_key"):
            self.default_bucket_key = data_iter.default_bucket_key

    def reset(self) -> None:
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self) -> bool:
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()
        self.cur += 1
        return True


class _Fetcher:
    """Reads batches of one iterator on a daemon thread, one batch ahead of the caller.

    Handoff: the caller sets ``want`` to ask for a batch; the thread reads it, clears
    ``want`` and sets ``ready``; the caller waits on ``ready``, takes ``batch`` (None at the
    end of the epoch) and clears ``ready`` before setting ``want`` again. So ``batch``,
    ``error`` and the wrapped iterator are touched by the thread only while ``want`` is set
    and ``ready`` is not, and by the caller only while ``ready`` is set: no lock is needed.
    The thread holds no reference to the PrefetchingIter, so that one can be collected; its
    finalizer calls ``stop``.
    """

    def __init__(self, data_iter: DataIter, number: int) -> None:
        self.data_iter = data_iter
        self.want = threading.Event()
        self.ready = threading.Event()
        self.batch: DataBatch | None = None
        self.error: BaseException | None = None
        self.stopping = False
        self.thread = threading.Thread(
            target=self._run, name=f"mxlite-prefetch-{number}", daemon=True
        )
        self.want.set()
        self.thread.start()

    def _run(self) -> None:
        while True:
            self.want.wait()
            if self.stopping:
                return
            try:
                self.batch = self.data_iter.next()
            except StopIteration:
                self.batch = None
            except BaseException as exc:  # handed to the caller, raised on its thread
                self.batch = None
                self.error = exc
            self.want.clear()
            self.ready.set()

    def take(self) -> DataBatch | None:
        """Wait for the batch read ahead; raise what the wrapped iterator raised."""
        self.ready.wait()
        if self.error is not None:
            raise self.error
        return self.batch

    def ask(self) -> None:
        """Let the thread read the next batch (after ``take``)."""
        self.ready.clear()
        self.want.set()

    def reset(self) -> None:
        """Reset the wrapped iterator once the read in flight is done; read ahead again."""
        self.ready.wait()
        self.error = None
        self.batch = None
        self.data_iter.reset()
        self.ask()

    def stop(self) -> None:
        self.stopping = True
        self.want.set()


def _stop_fetchers(fetchers: list[_Fetcher]) -> None:
    for fetcher in fetchers:
        fetcher.stop()


class PrefetchingIter(BatchIter):
    """Read ahead the next batch of one or more iterators, each on its own thread.

    With several iterators, each batch joins their batches: data and labels are concatenated
    as lists, in the order of ``iters``. All of them must have the same number of batches and
    the same ``pad``.

    Parameters
    ----------
    iters : DataIter or list of DataIter
        The iterators to read ahead.
    rename_data : None or list of dict
        For the *i*-th iterator, ``{'original_name': 'new_name'}`` for each entry of its
        ``provide_data``.
    rename_label : None or list of dict
        The same for ``provide_label``.

    Examples
    --------
    >>> import mxlite as mx
    >>> iter1 = mx.io.NDArrayIter({'data': mx.nd.ones((100, 10))}, batch_size=25)
    >>> iter2 = mx.io.NDArrayIter({'data': mx.nd.ones((100, 10))}, batch_size=25)
    >>> piter = mx.io.PrefetchingIter([iter1, iter2],
    ...                               rename_data=[{'data': 'data_1'}, {'data': 'data_2'}])
    >>> [desc.name for desc in piter.provide_data]
    ['data_1', 'data_2']
    """

    def __init__(
        self, iters: DataIter | list[DataIter], rename_data: Any = None, rename_label: Any = None
    ) -> None:
        super().__init__()
        if not isinstance(iters, list):
            iters = [iters]
        if not iters:
            raise MXNetError("PrefetchingIter: argument 'iters' must hold at least one iterator.")
        for what, rename in (("rename_data", rename_data), ("rename_label", rename_label)):
            if rename is not None and len(rename) != len(iters):
                raise MXNetError(
                    f"PrefetchingIter: argument '{what}' must have one dict per iterator "
                    f"({len(iters)}), got {len(rename)}."
                )
        self.n_iter = len(iters)
        self.iters = iters
        self.rename_data = rename_data
        self.rename_label = rename_label
        self.batch_size = self.provide_data[0][1][0]
        self.current_batch: DataBatch | None = None
        self._fetchers = [_Fetcher(it, i) for i, it in enumerate(iters)]
        self._finalizer = weakref.finalize(self, _stop_fetchers, self._fetchers)

    def _renamed(self, what: str, renames: Any) -> list[DataDesc]:
        descs: list[DataDesc] = []
        for i, it in enumerate(self.iters):
            for desc in getattr(it, what):
                if renames is None:
                    descs.append(desc)
                    continue
                desc = desc if isinstance(desc, DataDesc) else DataDesc(*desc)
                if desc.name not in renames[i]:
                    arg = "rename_data" if what == "provide_data" else "rename_label"
                    raise MXNetError(
                        f"PrefetchingIter: argument '{arg}[{i}]' has no entry for "
                        f"{desc.name!r}; it maps {sorted(renames[i])}."
                    )
                descs.append(DataDesc(renames[i][desc.name], desc.shape, desc.dtype, desc.layout))
        return descs

    @property
    def provide_data(self) -> list[DataDesc]:
        return self._renamed("provide_data", self.rename_data)

    @property
    def provide_label(self) -> list[DataDesc]:
        return self._renamed("provide_label", self.rename_label)

    def reset(self) -> None:
        for fetcher in self._fetchers:
            fetcher.reset()

    def iter_next(self) -> bool:
        batches = [fetcher.take() for fetcher in self._fetchers]
        if batches[0] is None:
            if any(batch is not None for batch in batches):
                raise MXNetError(
                    "PrefetchingIter: the iterators ran out after different numbers of batches."
                )
            return False
        if any(batch is None or batch.pad != batches[0].pad for batch in batches):
            raise MXNetError(
                "PrefetchingIter: the iterators' batches differ in length "
                f"(pads {[None if b is None else b.pad for b in batches]})."
            )
        self.current_batch = DataBatch(
            sum((list(batch.data) for batch in batches), []),
            sum((list(batch.label or []) for batch in batches), []),
            batches[0].pad,
            batches[0].index,
            provide_data=self.provide_data,
            provide_label=self.provide_label,
        )
        for fetcher in self._fetchers:
            fetcher.ask()
        return True


# MXNet's io.py also holds the C++ iterators' front ends; here each has its file
__getattr__ = _absent_names(
    "mxnet.io.io",
    {},
    moved=("CSVIter", "ImageDetRecordIter", "ImageRecordInt8Iter", "ImageRecordIter",
           "ImageRecordIter_v1", "ImageRecordUInt8Iter", "ImageRecordUInt8Iter_v1", "LibSVMIter",
           "MNISTIter", "MXDataIter", "NDArrayIter"),
    home="mxlite.io",
)  # fmt: skip
