"""``mx.contrib.io``: a Gluon ``DataLoader`` seen as an ``mx.io.DataIter``, so that Module's
``fit`` (symbolic training) can read from Gluon datasets."""

from __future__ import annotations

from typing import Any

from .. import ndarray as nd
from ..io import DataDesc, DataIter

__all__ = ["DataLoaderIter"]


class DataLoaderIter(DataIter):
    """Returns an iterator for ``mx.gluon.data.Dataloader`` so gluon dataloader
    can be used in symbolic module.

    Parameters
    ----------
    loader : mxnet.gluon.data.Dataloader
        Gluon dataloader instance; each batch it yields is ``(data, label)``.
    data_name : str, optional
        The data name.
    label_name : str, optional
        The label name.
    dtype : str, optional
        The dtype specifier, can be float32 or float16.
    """

    def __init__(
        self,
        loader: Any,
        data_name: str = "data",
        label_name: str = "softmax_label",
        dtype: str = "float32",
    ) -> None:
        super().__init__()
        self._loader = loader
        first = next(iter(loader), None)
        if first is None:
            raise ValueError("DataLoaderIter: argument 'loader' yields no batch.")
        data, label = first
        self.batch_size = data.shape[0]
        self.dtype = dtype
        self.provide_data = [DataDesc(data_name, data.shape, dtype)]
        self.provide_label = [DataDesc(label_name, label.shape, dtype)]
        self._current_batch: Any = None
        self.reset()

    def reset(self) -> None:
        self._iter = iter(self._loader)

    def iter_next(self) -> bool:
        self._current_batch = next(self._iter, None)
        return self._current_batch is not None

    def _padded(self, part: Any) -> list[Any]:
        # a short last batch is padded up to batch_size, as Module expects fixed shapes
        if not self.getpad():
            return [part.astype(self.dtype)]
        full = nd.zeros((self.batch_size, *part.shape[1:]), dtype=self.dtype)
        full[: part.shape[0]] = part.astype(self.dtype)
        return [full]

    def getdata(self) -> list[Any]:
        return self._padded(self._current_batch[0])

    def getlabel(self) -> list[Any]:
        return self._padded(self._current_batch[1])

    def getpad(self) -> int:
        return self.batch_size - self._current_batch[0].shape[0]

    def getindex(self) -> None:
        return None
