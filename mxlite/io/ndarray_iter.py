"""NDArrayIter: batches of in-memory arrays, with MXNet 1.9.1's epoch and padding rules.

State: the named arrays (``data``, ``label``: ``(name, NDArray)`` pairs sorted by name), and
``cursor``, the position of the current batch's first example. ``iter_next`` moves the cursor
by ``batch_size``; a batch is the slice ``[cursor, cursor + batch_size)`` along the batch axis
(the ``N`` of ``layout``). Where that runs past the end:

* ``'pad'``: the batch wraps around to the first examples; ``pad`` says how many.
* ``'discard'``: the short batch is dropped (``next`` raises StopIteration).
* ``'roll_over'``: the short batch is kept aside and ``reset`` moves the cursor below zero,
  so the next epoch's first batch is that remainder followed by the first examples of the
  (reshuffled) data. Its ``pad`` is then the number of new examples in it, as in MXNet.

``shuffle`` permutes the examples on every ``reset`` (also at construction) with NumPy's
global random state, as MXNet does, so ``np.random.seed`` gives MXNet's order.

>>> import numpy as np, mxlite as mx
>>> it = mx.io.NDArrayIter(np.arange(10), batch_size=4, last_batch_handle='roll_over')
>>> [batch.data[0].asnumpy().tolist() for batch in it]
[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]
>>> it.reset()
>>> it.next().data[0].asnumpy().tolist()
[8.0, 9.0, 0.0, 1.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ndarray as nd
from ..base import MXNetError, ParamError, ShapeError
from .io import DataBatch, DataDesc, DataIter
from .utils import _getdata_by_idx, _init_data

__all__ = ["NDArrayIter"]

_LAST_BATCH_HANDLES = ("pad", "discard", "roll_over")


class NDArrayIter(DataIter):
    """Iterate over ``mx.nd.NDArray`` or ``numpy.ndarray`` data in batches.

    Parameters
    ----------
    data : array or list of array or dict of string to array
        The input data. One array is named ``data_name``; several in a list are named
        ``_0_<data_name>``, ``_1_<data_name>``, ...; a dict gives the names. Arrays are
        ordered by name.
    label : array or list of array or dict of string to array, optional
        The labels, named after ``label_name`` in the same way.
    batch_size : int
        Batch size of data.
    shuffle : bool, optional
        Whether to shuffle the data (on construction and on every ``reset``).
    last_batch_handle : str, optional
        How to handle the last batch: 'pad' fills it up with examples from the start,
        'discard' drops it, 'roll_over' carries its examples over to the next epoch (meant for
        training: a prediction would miss or repeat examples).
    data_name : str, optional
        The data name.
    label_name : str, optional
        The label name.
    layout : str, optional
        The data layout; its ``N`` gives the batch axis.

    Examples
    --------
    >>> import numpy as np, mxlite as mx
    >>> data = np.arange(40).reshape((10, 2, 2))
    >>> labels = np.ones([10, 1])
    >>> dataiter = mx.io.NDArrayIter(data, labels, 3, True, last_batch_handle='discard')
    >>> [batch.data[0].shape for batch in dataiter]
    [(3, 2, 2), (3, 2, 2), (3, 2, 2)]
    >>> dataiter.provide_data
    [DataDesc[data,(3, 2, 2),<class 'numpy.float32'>,NCHW]]
    >>> dataiter.provide_label
    [DataDesc[softmax_label,(3, 1),<class 'numpy.float32'>,NCHW]]
    """

    def __init__(
        self,
        data: Any,
        label: Any = None,
        batch_size: int = 1,
        shuffle: bool = False,
        last_batch_handle: str = "pad",
        data_name: str = "data",
        label_name: str = "softmax_label",
        layout: str = "NCHW",
    ) -> None:
        super().__init__(batch_size)
        if isinstance(batch_size, bool) or not isinstance(batch_size, int | np.integer):
            raise ParamError(
                f"NDArrayIter: argument 'batch_size' must be an int, got {batch_size!r}."
            )
        if batch_size < 1:
            raise ParamError(f"NDArrayIter: argument 'batch_size' must be >= 1, got {batch_size}.")
        if last_batch_handle not in _LAST_BATCH_HANDLES:
            raise ParamError(
                "NDArrayIter: argument 'last_batch_handle' must be one of "
                f"{', '.join(_LAST_BATCH_HANDLES)}, got {last_batch_handle!r}."
            )
        if not isinstance(layout, str) or "N" not in layout:
            raise ParamError(
                f"NDArrayIter: argument 'layout' must be a string with an 'N', got {layout!r}."
            )
        self.data = _init_data(data, allow_empty=False, default_name=data_name)
        self.label = _init_data(label, allow_empty=True, default_name=label_name)
        if last_batch_handle != "discard" and any(
            arr.stype == "csr" for _, arr in self.data + self.label
        ):
            raise NotImplementedError(
                "NDArrayIter: CSRNDArray (or scipy.sparse.csr_matrix) data needs "
                f"last_batch_handle='discard', got {last_batch_handle!r}."
            )
        self.layout = layout
        self._axis = layout.find("N")
        for name, arr in self.data + self.label:
            if arr.ndim <= self._axis:
                raise ShapeError(
                    f"NDArrayIter: array {name!r} has shape {arr.shape}; layout {layout!r} "
                    f"needs a batch axis {self._axis}."
                )
        # MXNet counts (and shuffles) examples along axis 0 whatever the layout says
        self.idx = np.arange(self.data[0][1].shape[0])
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self.batch_size = int(batch_size)
        self.cursor = -self.batch_size
        self.num_data = self.idx.shape[0]
        # the short last batch kept for the next epoch ('roll_over'); None once used
        self._cache_data: list[nd.NDArray] | None = None
        self._cache_label: list[nd.NDArray] | None = None
        self.reset()
        self.data_list = [arr for _, arr in self.data] + [arr for _, arr in self.label]
        self.num_source = len(self.data_list)

    def _descs(self, named: list[tuple[str, nd.NDArray]]) -> list[DataDesc]:
        descs = []
        for name, arr in named:
            shape = list(arr.shape)
            shape[self._axis] = self.batch_size
            descs.append(DataDesc(name, tuple(shape), arr.dtype, layout=self.layout))
        return descs

    @property
    def provide_data(self) -> list[DataDesc]:
        """The name and shape of data provided by this iterator."""
        return self._descs(self.data)

    @property
    def provide_label(self) -> list[DataDesc]:
        """The name and shape of label provided by this iterator."""
        return self._descs(self.label)

    def hard_reset(self) -> None:
        """Go back to the start, dropping any examples kept for 'roll_over'."""
        if self.shuffle:
            self._shuffle_data()
        self.cursor = -self.batch_size
        self._cache_data = None
        self._cache_label = None

    def reset(self) -> None:
        """Go back to the start; with 'roll_over', after the examples left from this epoch."""
        if self.shuffle:
            self._shuffle_data()
        left_over = self.num_data - self.batch_size < self.cursor < self.num_data
        if self.last_batch_handle == "roll_over" and left_over:
            # cursor - num_data is minus the number of examples carried over
            self.cursor = self.cursor - self.num_data - self.batch_size
        else:
            self.cursor = -self.batch_size

    def iter_next(self) -> bool:
        """Move the cursor to the next batch; True while it is inside the data."""
        self.cursor += self.batch_size
        return self.cursor < self.num_data

    def next(self) -> DataBatch:
        """The next batch of data."""
        if not self.iter_next():
            raise StopIteration
        data = self.getdata()
        label = self.getlabel()
        if data[0].shape[self._axis] != self.batch_size:
            # a short last batch ends the epoch; 'roll_over' puts it before the next one
            self._cache_data = data
            self._cache_label = label
            raise StopIteration
        return DataBatch(data=data, label=label, pad=self.getpad(), index=None)

    def _slice(self, named: list[tuple[str, nd.NDArray]], begin: int, end: int) -> list:
        # a copy, as MXNet's slice_axis gives; along axis 0 a copy of the view, which is
        # small enough for the engine to run on the caller where slice_axis, reading the whole
        # data array, went to a worker: an engine round trip per batch, per example at batch
        # size 1 (MXNet's test_NDArrayIter ran up to its time limit)
        return [
            arr[begin:end].copy()
            if self._axis == 0 and arr.stype == "default"
            else nd.slice_axis(arr, axis=self._axis, begin=begin, end=end)
            for _, arr in named
        ]

    def _join(self, first: list, second: list) -> list:
        if not first or not second:
            return first or second
        return [nd.concat(a, b, dim=self._axis) for a, b in zip(first, second, strict=True)]

    def _batchify(self, named: list[tuple[str, nd.NDArray]]) -> list:
        if self.cursor >= self.num_data:
            raise MXNetError("NDArrayIter: the epoch is over; call reset() before reading on.")
        bs, num = self.batch_size, self.num_data
        if self.last_batch_handle == "roll_over" and -bs < self.cursor < 0:
            # the first batch of an epoch after a short one: getdata takes the kept data,
            # then getlabel the kept labels
            if self._cache_data is not None:
                kept, self._cache_data = self._cache_data, None
            elif self._cache_label is not None:
                kept, self._cache_label = self._cache_label, None
            else:
                raise MXNetError(
                    "NDArrayIter: no examples were kept from the last epoch for 'roll_over'; "
                    "call hard_reset() to start over."
                )
            return self._join(kept, self._slice(named, 0, self.cursor + bs))
        if self.last_batch_handle == "pad" and self.cursor + bs > num:
            # wrap around to the start, as often as a tiny data set needs
            pad = self.cursor + bs - num
            parts = [self._slice(named, self.cursor, num)]
            parts += [self._slice(named, 0, num)] * (pad // num)
            if pad % num:
                parts.append(self._slice(named, 0, pad % num))
            return [nd.concat(*pieces, dim=self._axis) for pieces in zip(*parts, strict=True)]
        return self._slice(named, self.cursor, min(self.cursor + bs, num))

    def getdata(self) -> list:
        """The data of the current batch."""
        return self._batchify(self.data)

    def getlabel(self) -> list:
        """The labels of the current batch."""
        return self._batchify(self.label)

    def getpad(self) -> int:
        """How many examples of the current batch are padding (see the module note)."""
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            return self.cursor + self.batch_size - self.num_data
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            return -self.cursor
        return 0

    def _shuffle_data(self) -> None:
        # the same draws from NumPy's global state as MXNet, so a seed gives MXNet's order
        np.random.shuffle(self.idx)
        self.data = _getdata_by_idx(self.data, self.idx)
        self.label = _getdata_by_idx(self.label, self.idx)
