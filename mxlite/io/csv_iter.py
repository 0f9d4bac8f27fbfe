"""CSVIter: batches of rows read from CSV files, with MXNet 1.9.1's batching rules.

Design note
-----------
MXNet streams the files through a C++ parser and a batch loader; here every file is parsed
once, at construction, into one array of examples (a row each, reshaped to ``data_shape``), and
batches are cut from that array. What a user can observe is kept:

* ``round_batch=True`` (default): a short last batch is completed with the first examples and
  ``pad`` says how many; the ``reset`` that follows does *not* rewind, so the next epoch goes on
  after the examples that were borrowed (the loader's "overflow").
* ``round_batch=False``: a short last batch keeps, in its unfilled rows, what the previous batch
  had there (the loader's buffer is reused), and ``pad`` says how many such rows there are.
* Without ``label_csv`` every label is 0. Labels have the data's dtype; a ``label_shape`` of
  ``(1,)`` gives labels of shape ``(batch_size,)``.

A row whose length is not the size of ``data_shape`` (or ``label_shape``) raises MXNetError at
construction, where MXNet's prefetcher reports it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ndarray as nd
from ..base import MXNetError, ParamError
from .io import DataBatch, DataDesc, DataIter
from .utils import RoundBatchCursor, checked_batch_size, data_files

__all__ = ["CSVIter"]

_DTYPES = {"float32": np.float32, "int32": np.int32, "int64": np.int64}


def _parse(path: str, shape: tuple[int, ...], dtype: Any, what: str) -> np.ndarray:
    """All rows of the CSV file(s) at ``path`` as an array of shape ``(rows,) + shape``."""
    size = int(np.prod(shape))
    rows: list[list[str]] = []
    for fname in data_files(path, "CSVIter"):
        with open(fname) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                fields = line.split(",")
                if len(fields) != size:
                    raise MXNetError(
                        f"CSVIter: argument {what!r}: a row of {fname!r} has {len(fields)} "
                        f"values; the shape {shape} needs {size}."
                    )
                rows.append(fields)
    try:
        # integers are parsed exactly (through int64), not through a float
        kind = np.int64 if np.issubdtype(dtype, np.integer) else np.float64
        values = np.array(rows, dtype=kind) if rows else np.zeros((0, size), kind)
    except ValueError as err:
        raise MXNetError(
            f"CSVIter: argument {what!r}: {path!r} holds a value that is not a number ({err})."
        ) from None
    return values.astype(dtype).reshape((len(rows),) + shape)


def _shape(func_arg: str, value: Any) -> tuple[int, ...]:
    if isinstance(value, int):
        value = (value,)
    try:
        shape = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise ParamError(
            f"CSVIter: argument {func_arg!r} must be a tuple of ints, got {value!r}."
        ) from None
    if not shape or any(s <= 0 for s in shape):
        raise ParamError(
            f"CSVIter: argument {func_arg!r} must be a non-empty shape of positive ints, "
            f"got {value!r}."
        )
    return shape


class CSVIter(DataIter):
    """Returns the CSV file iterator.

    Each row of ``data_csv`` is one example, reshaped to ``data_shape``.

    Parameters
    ----------
    data_csv : str
        The input CSV file or a directory path (every file in it is read).
    data_shape : tuple of int
        The shape of one example.
    label_csv : str, optional, default='NULL'
        The input CSV file or a directory path. If NULL, all labels will be returned as 0.
    label_shape : tuple of int, optional, default=(1,)
        The shape of one label.
    batch_size : int
        Batch size.
    round_batch : bool, optional, default=True
        Whether to use round robin to handle overflow batch or not.
    dtype : {None, 'float32', 'int32', 'int64'}, optional, default=None
        The type of the data and labels; None means float32.
    data_name : str, optional, default='data'
        The name of the data.
    label_name : str, optional, default='softmax_label'
        The name of the label.
    **kwargs
        Prefetching and threading options of MXNet's C++ iterator (``prefetch_buffer``,
        ``ctx``, ...), accepted and ignored.
    """

    def __init__(
        self,
        data_csv: str,
        data_shape: Any,
        label_csv: str = "NULL",
        label_shape: Any = (1,),
        batch_size: int = 0,
        round_batch: bool = True,
        dtype: Any = None,
        data_name: str = "data",
        label_name: str = "softmax_label",
        **kwargs: Any,
    ) -> None:
        super().__init__(checked_batch_size("CSVIter", batch_size))
        if dtype is None:
            dtype = "float32"
        dtype_name = np.dtype(dtype).name if not isinstance(dtype, str) else dtype
        if dtype_name not in _DTYPES:
            raise ParamError(
                f"CSVIter: argument 'dtype' must be one of {sorted(_DTYPES)} or None, "
                f"got {dtype!r}."
            )
        self.dtype = _DTYPES[dtype_name]
        data_shape = _shape("data_shape", data_shape)
        label_shape = _shape("label_shape", label_shape)
        self._data = _parse(str(data_csv), data_shape, self.dtype, "data_csv")
        num = len(self._data)
        if num == 0:
            raise MXNetError(f"CSVIter: argument 'data_csv': {data_csv!r} holds no rows.")
        if label_csv is None or str(label_csv) == "NULL":
            self._label = np.zeros((num, 1), self.dtype)
            label_shape = (1,)
        else:
            self._label = _parse(str(label_csv), label_shape, self.dtype, "label_csv")
            if len(self._label) < num:
                raise MXNetError(
                    f"CSVIter: argument 'label_csv': {label_csv!r} has {len(self._label)} rows, "
                    f"fewer than the {num} of data_csv."
                )
        if self.batch_size > num and round_batch:
            raise MXNetError(
                f"CSVIter: the {num} examples are fewer than batch_size {self.batch_size}; "
                "the number of inputs must be bigger than the batch size."
            )
        self.round_batch = bool(round_batch)
        self._label_batch_shape = () if label_shape == (1,) else label_shape
        self.provide_data = [DataDesc(data_name, (self.batch_size,) + data_shape, self.dtype)]
        self.provide_label = [
            DataDesc(label_name, (self.batch_size,) + self._label_batch_shape, self.dtype)
        ]
        # the loader's buffers: rows a short batch does not fill keep what they held
        self._buf_data = np.zeros((self.batch_size,) + data_shape, self.dtype)
        self._buf_label = np.zeros((self.batch_size,) + self._label_batch_shape, self.dtype)
        self._buf_index = np.zeros(self.batch_size, np.uint64)
        self._cursor = RoundBatchCursor(num, self.batch_size, self.round_batch)
        self._batch: tuple[Any, Any] | None = None

    def reset(self) -> None:
        self._cursor.reset()
        self._batch = None

    def iter_next(self) -> bool:
        self._batch = None
        rows = self._cursor.next_rows()
        if rows is None:
            return False
        n = len(rows)
        self._buf_data[:n] = self._data[rows]
        self._buf_label[:n] = self._label[rows].reshape((n,) + self._label_batch_shape)
        self._buf_index[:n] = rows
        self._batch = (
            nd.array(self._buf_data, dtype=self.dtype),
            nd.array(self._buf_label, dtype=self.dtype),
        )
        return True

    def next(self) -> DataBatch:
        if self.iter_next():
            return DataBatch(
                data=[self.getdata()],
                label=[self.getlabel()],
                pad=self.getpad(),
                index=self.getindex(),
            )
        raise StopIteration

    def _current(self, func: str) -> tuple[Any, Any]:
        if self._batch is None:
            raise MXNetError(f"CSVIter.{func}: there is no current batch; call iter_next first.")
        return self._batch

    def getdata(self) -> Any:
        """The data (one NDArray) of the current batch."""
        return self._current("getdata")[0]

    def getlabel(self) -> Any:
        """The label (one NDArray) of the current batch."""
        return self._current("getlabel")[1]

    def getindex(self) -> np.ndarray:
        """The indices (in the files) of the current batch's examples."""
        return self._buf_index.copy()

    def getpad(self) -> int:
        """The number of examples at the end of the current batch that only fill it up."""
        return self._cursor.pad
