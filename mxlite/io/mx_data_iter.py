"""``mx.io.MXDataIter`` and the deprecated ``_v1`` record iterators.

In MXNet, ``MXDataIter`` is the Python face of every C++ iterator: ``mx.io.CSVIter(...)``
returns one. mxlite's native iterators are Python classes, so ``MXDataIter`` is their common
type (``isinstance(mx.io.CSVIter(...), mx.io.MXDataIter)`` holds, as in MXNet), and
``MXDataIter(it, data_name, label_name)`` wraps one of them the way MXNet wraps a handle:
it reads the first batch for the shapes, names the first data and label arrays, and hands
every call through. ``ImageRecordIter_v1`` and ``ImageRecordUInt8Iter_v1``, MXNet's older
record parsers, give the batches of ``ImageRecordIter``/``ImageRecordUInt8Iter`` (MXNet 1.9.1
gives the same on the same records) and are those iterators here.
"""

from __future__ import annotations

import abc
import logging
from typing import Any

from ..base import MXNetError
from .csv_iter import CSVIter
from .image_det_record_iter import ImageDetRecordIter
from .image_record_iter import ImageRecordInt8Iter, ImageRecordIter, ImageRecordUInt8Iter
from .io import DataBatch, DataDesc, DataIter
from .libsvm_iter import LibSVMIter
from .mnist_iter import MNISTIter

__all__ = ["MXDataIter", "ImageRecordIter_v1", "ImageRecordUInt8Iter_v1"]


class MXDataIter(DataIter, metaclass=abc.ABCMeta):
    """The native data iterators (``CSVIter``, ``ImageRecordIter``, ``MNISTIter``, ...), and
    a wrapper of one of them.

    Parameters
    ----------
    handle : DataIter
        The native iterator to wrap (MXNet's C++ handle; mxlite has no C library).
    data_name : str, optional
        Data name. Default to "data".
    label_name : str, optional
        Label name. Default to "softmax_label".
    """

    def __init__(
        self, handle: Any, data_name: str = "data", label_name: str = "softmax_label", **_: Any
    ) -> None:
        if not isinstance(handle, DataIter):
            raise MXNetError(
                "MXDataIter: argument 'handle' must be a native mxlite iterator (such as "
                f"mx.io.CSVIter(...)); got {type(handle).__name__}. mxlite has no C library, "
                "so there are no C++ iterator handles."
            )
        super().__init__()
        self.handle = handle
        self._debug_skip_load = False
        self._debug_at_begin = True
        self.first_batch: DataBatch | None = None
        self.first_batch = self.next()
        data, label = self.first_batch.data[0], self.first_batch.label[0]
        self.provide_data = [DataDesc(data_name, data.shape, data.dtype)]
        self.provide_label = [DataDesc(label_name, label.shape, label.dtype)]
        self.batch_size = data.shape[0]

    def debug_skip_load(self) -> None:
        """From now on return the first batch again and again (to time a network without
        the loading)."""
        self._debug_skip_load = True
        logging.info("Set debug_skip_load to be true, will simply return first batch")

    def reset(self) -> None:
        self._debug_at_begin = True
        self.first_batch = None
        self.handle.reset()

    def _batch(self) -> DataBatch:
        return DataBatch(data=[self.getdata()], label=[self.getlabel()], pad=self.getpad(),
                         index=self.getindex())  # fmt: skip

    def next(self) -> DataBatch:
        if self._debug_skip_load and not self._debug_at_begin:
            return self._batch()
        if self.first_batch is not None:
            batch, self.first_batch = self.first_batch, None
            return batch
        self._debug_at_begin = False
        if self.handle.iter_next():
            return self._batch()
        raise StopIteration

    def iter_next(self) -> bool:
        if self.first_batch is not None:
            return True
        return bool(self.handle.iter_next())

    def getdata(self) -> Any:
        return _first(self.handle.getdata())

    def getlabel(self) -> Any:
        return _first(self.handle.getlabel())

    def getindex(self) -> Any:
        return self.handle.getindex()

    def getpad(self) -> int:
        return self.handle.getpad()


def _first(arrays: Any) -> Any:
    return arrays[0] if isinstance(arrays, (list, tuple)) else arrays


for _native in (CSVIter, ImageDetRecordIter, ImageRecordInt8Iter, ImageRecordIter,
                ImageRecordUInt8Iter, LibSVMIter, MNISTIter):  # fmt: skip
    MXDataIter.register(_native)


class ImageRecordIter_v1(ImageRecordIter):  # noqa: N801  (MXNet's name)
    """Iterates on image RecordIO files. ``ImageRecordIter_v1`` is deprecated. Use
    ``ImageRecordIter`` instead (same parameters, same batches)."""


class ImageRecordUInt8Iter_v1(ImageRecordUInt8Iter):  # noqa: N801  (MXNet's name)
    """Iterates on image RecordIO files, giving uint8 images. ``ImageRecordUInt8Iter_v1`` is
    deprecated. Use ``ImageRecordUInt8Iter`` instead (same parameters, same batches)."""
