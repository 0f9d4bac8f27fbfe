"""LibSVMIter: batches of CSR rows read from LibSVM files, with MXNet 1.9.1's batching rules.

Design note
-----------
Each line of a data file is ``label idx:value idx:value ...`` with zero-based, ascending
column indices. The part of the files this iterator reads (``num_parts``, ``part_index``) is
cut as dmlc's input splits cut it: the files' bytes, taken in order as one stream, are split
into equal byte ranges, and a part holds the lines that start inside its range. The part is
parsed once, at construction, into one CSR matrix (and the labels: the first token of each
line, or the rows of ``label_libsvm`` as CSR when that is given), and batches are row slices
of it. As MXNet's sparse batch loader does, a short last batch is completed with the first
examples (``pad`` says how many) and the iteration then stops; the ``reset`` that follows
goes on after the borrowed examples. ``round_batch=False`` is refused, as in MXNet.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ndarray as nd
from ..base import MXNetError, ParamError
from .io import DataBatch, DataDesc, DataIter
from .utils import RoundBatchCursor, checked_batch_size, data_files

__all__ = ["LibSVMIter"]


def _part_lines(path: str, what: str, num_parts: int, part_index: int) -> list[bytes]:
    """The lines of part ``part_index`` of ``num_parts`` of the files at ``path``."""
    files = data_files(path, f"LibSVMIter: argument {what!r}")
    blob = b"".join(
        (raw if raw.endswith(b"\n") or not raw else raw + b"\n")
        for raw in (open(f, "rb").read() for f in files)
    )
    size = len(blob)
    lo, hi = size * part_index // num_parts, size * (part_index + 1) // num_parts

    def line_start(pos: int) -> int:
        if pos == 0 or pos >= size:
            return min(pos, size)
        nl = blob.find(b"\n", pos - 1)
        return size if nl < 0 else nl + 1

    begin, end = line_start(lo), line_start(hi)
    return [ln for ln in blob[begin:end].split(b"\n") if ln.strip()]


def _parse(lines: list[bytes], dim: int, what: str) -> tuple[Any, np.ndarray]:
    """(CSR matrix of the features, the first token of each line as float32 labels)."""
    from ..operator.sparse.storage import csr_from_parts

    labels = np.zeros(len(lines), np.float32)
    indptr = np.zeros(len(lines) + 1, np.int64)
    cols: list[int] = []
    vals: list[float] = []
    for i, line in enumerate(lines):
        tokens = line.split()
        try:
            labels[i] = float(tokens[0].split(b":")[0])
            for tok in tokens[1:]:
                k, _, v = tok.partition(b":")
                cols.append(int(k))
                vals.append(float(v))
        except ValueError as err:
            raise MXNetError(
                f"LibSVMIter: argument {what!r}: line {i} is not in LibSVM format ({err})."
            ) from None
        indptr[i + 1] = len(cols)
    indices = np.asarray(cols, np.int64)
    if len(indices) and (indices.min() < 0 or indices.max() >= dim):
        raise MXNetError(
            f"LibSVMIter: argument {what!r}: a column index is outside [0, {dim}) of the shape."
        )
    data = np.asarray(vals, np.float32)
    return csr_from_parts(data, indices, indptr, (len(lines), dim)), labels


def _dim(what: str, shape: Any) -> int:
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if len(shape) != 1 or int(shape[0]) <= 0:
        raise ParamError(f"LibSVMIter: argument {what!r} must be a 1-D shape, got {shape!r}.")
    return int(shape[0])


class LibSVMIter(DataIter):
    """Returns the LibSVM iterator which returns data with ``csr`` storage type.

    Parameters
    ----------
    data_libsvm : str
        The input zero-base indexed LibSVM data file or a directory path.
    data_shape : tuple of int
        The shape of one example (1-D).
    label_libsvm : str, optional, default='NULL'
        The input LibSVM label file or a directory path. If NULL, all labels will be read
        from ``data_libsvm``.
    label_shape : tuple of int, optional, default=(1,)
        The shape of one label.
    num_parts : int, optional, default=1
        Partition the data into multiple parts.
    part_index : int, optional, default=0
        The index of the part will read.
    batch_size : int
        Batch size.
    round_batch : bool, optional, default=True
        Only True is supported, as in MXNet.
    data_name, label_name : str, optional
        The names in ``provide_data``/``provide_label`` ('data', 'softmax_label').
    **kwargs
        Prefetching options of MXNet's C++ iterator, accepted and ignored.
    """

    def __init__(
        self,
        data_libsvm: str,
        data_shape: Any,
        label_libsvm: str = "NULL",
        label_shape: Any = (1,),
        num_parts: int = 1,
        part_index: int = 0,
        batch_size: int = 0,
        round_batch: bool = True,
        data_name: str = "data",
        label_name: str = "softmax_label",
        **kwargs: Any,
    ) -> None:
        batch_size = checked_batch_size("LibSVMIter", batch_size)
        if not round_batch:
            raise MXNetError("LibSVMIter: round_batch=False is not supported for sparse data.")
        if num_parts <= 0 or not 0 <= part_index < num_parts:
            raise ParamError(
                f"LibSVMIter: need num_parts > 0 and 0 <= part_index < num_parts, got "
                f"num_parts={num_parts}, part_index={part_index}."
            )
        super().__init__(batch_size)
        dim = _dim("data_shape", data_shape)
        lines = _part_lines(str(data_libsvm), "data_libsvm", num_parts, part_index)
        self._data, labels = _parse(lines, dim, "data_libsvm")
        num = self._data.shape[0]
        if label_libsvm is None or str(label_libsvm) == "NULL":
            if _dim("label_shape", label_shape) != 1:
                raise ParamError("LibSVMIter: label_shape must be (1,) without label_libsvm.")
            self._label: Any = labels
            label_batch: tuple[int, ...] = ()
        else:
            ldim = _dim("label_shape", label_shape)
            if ldim <= 1:
                raise ParamError("LibSVMIter: label_shape must not be (1,) with label_libsvm.")
            llines = _part_lines(str(label_libsvm), "label_libsvm", num_parts, part_index)
            self._label, _ = _parse(llines, ldim, "label_libsvm")
            if self._label.shape[0] < num:
                raise MXNetError(
                    "LibSVMIter: label_libsvm has fewer rows than data_libsvm "
                    f"({self._label.shape[0]} < {num})."
                )
            label_batch = (ldim,)
        if num < self.batch_size:
            raise MXNetError(
                f"LibSVMIter: the {num} examples are fewer than batch_size {self.batch_size}; "
                "the number of inputs must be bigger than the batch size."
            )
        self.provide_data = [DataDesc(data_name, (self.batch_size, dim), np.float32)]
        self.provide_label = [DataDesc(label_name, (self.batch_size,) + label_batch, np.float32)]
        self._cursor = RoundBatchCursor(num, self.batch_size)
        self._rows: np.ndarray | None = None

    def reset(self) -> None:
        self._cursor.reset()
        self._rows = None

    def iter_next(self) -> bool:
        self._rows = self._cursor.next_rows()
        return self._rows is not None

    def next(self) -> DataBatch:
        if self.iter_next():
            return DataBatch(data=[self.getdata()], label=[self.getlabel()],
                             pad=self.getpad(), index=self.getindex())  # fmt: skip
        raise StopIteration

    def _current(self, func: str) -> np.ndarray:
        if self._rows is None:
            raise MXNetError(f"LibSVMIter.{func}: there is no current batch; call next first.")
        return self._rows

    def getdata(self) -> Any:
        """The data of the current batch (a CSRNDArray)."""
        return nd.sparse.csr_matrix(self._data[self._current("getdata")])

    def getlabel(self) -> Any:
        """The label of the current batch (dense, or a CSRNDArray with ``label_libsvm``)."""
        rows = self._current("getlabel")
        if isinstance(self._label, np.ndarray):
            return nd.array(self._label[rows])
        return nd.sparse.csr_matrix(self._label[rows])

    def getindex(self) -> np.ndarray:
        """The indices (in this part) of the current batch's examples."""
        return self._current("getindex").astype(np.uint64)

    def getpad(self) -> int:
        """The number of examples at the end of the current batch that only fill it up."""
        self._current("getpad")
        return self._cursor.pad
