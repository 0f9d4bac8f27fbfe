"""``mx.image.ImageIter``: a Python image iterator over a ``.rec`` file, a ``.lst`` file or an
in-memory list, with augmenters and MXNet's ``last_batch_handle`` ('pad', 'discard',
'roll_over').

The iterator reads one sample at a time (``next_sample``), decodes it, runs the augmenter list
on it and writes it, transposed to ``(c, h, w)``, into the batch. ``seq`` holds the keys in
reading order when random access is used (a list, an index file, shuffling or shards).
"""

from __future__ import annotations

import logging
import os
import random
from typing import Any

import numpy as np

from .. import recordio
from ..base import MXNetError, ParamError
from ..io import DataBatch, DataIter
from .augmenters import CreateAugmenter
from .image import imdecode

__all__ = ["ImageIter"]

_NUMERIC = (int, float, np.integer, np.floating)


class ImageIter(DataIter):
    """Image data iterator with a large number of augmentation choices.

    Supports reading from both .rec files and raw image files. To load input images from .rec
    files, use `path_imgrec` (and `path_imgidx` for random access); to read from raw images, use
    `path_imglist` and `path_root`, or `imglist`.

    Parameters
    ----------
    batch_size : int
        Number of examples per batch.
    data_shape : tuple
        Data shape in (channels, height, width) format. For now, only RGB image with 3 channels
        is supported.
    label_width : int, optional
        Number of labels per example. The default label width is 1.
    path_imgrec : str
        Path to image record file (.rec).
    path_imglist : str
        Path to image list (.lst), tab-separated: index, label(s), relative path.
    path_root : str
        Root folder of image files.
    path_imgidx : str
        Path to image index file. Needed for partition and shuffling when using .rec source.
    shuffle : bool
        Whether to shuffle all images at the start of each iteration or not.
    part_index : int
        Partition index.
    num_parts : int
        Total number of partitions.
    data_name : str
        Data name for provided symbols.
    label_name : str
        Label name for provided symbols.
    dtype : str
        Label data type. Default: float32. Other options: int32, int64, float64
    last_batch_handle : str, optional
        How to handle the last batch: 'pad' (default), 'discard' or 'roll_over'.
    kwargs : ...
        More arguments for creating augmenter. See mx.image.CreateAugmenter.
    """

    def __init__(
        self,
        batch_size: int,
        data_shape: tuple,
        label_width: int = 1,
        path_imgrec: str | None = None,
        path_imglist: str | None = None,
        path_root: str | None = None,
        path_imgidx: str | None = None,
        shuffle: bool = False,
        part_index: int = 0,
        num_parts: int = 1,
        aug_list: list | None = None,
        imglist: list | None = None,
        data_name: str = "data",
        label_name: str = "softmax_label",
        dtype: str = "float32",
        last_batch_handle: str = "pad",
        **kwargs: Any,
    ) -> None:
        super().__init__()
        name = type(self).__name__
        if not (path_imgrec or path_imglist or isinstance(imglist, list)):
            raise ParamError(f"{name}: give path_imgrec, path_imglist or imglist")
        if dtype not in ("int32", "float32", "int64", "float64"):
            raise ParamError(f"{name}: label dtype {dtype!r} not supported")
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise ParamError(
                f"{name}: last_batch_handle must be 'pad', 'discard' or 'roll_over', "
                f"got {last_batch_handle!r}"
            )
        from .. import ndarray as nd

        imgkeys: list = []
        self.imgidx = None
        if path_imgrec:
            logging.info("%s: loading recordio %s...", name, path_imgrec)
            if path_imgidx:
                self.imgrec = recordio.MXIndexedRecordIO(path_imgidx, path_imgrec, "r")
                self.imgidx = list(self.imgrec.keys)
            else:
                self.imgrec = recordio.MXRecordIO(path_imgrec, "r")
        else:
            self.imgrec = None
        self.imglist: dict | None = None
        if path_imglist:
            logging.info("%s: loading image list %s...", name, path_imglist)
            self.imglist = {}
            with open(path_imglist) as fin:
                for line in fin:
                    fields = line.strip().split("\t")
                    if len(fields) < 2:
                        continue
                    key = int(fields[0])
                    self.imglist[key] = (nd.array(fields[1:-1], dtype=dtype), fields[-1])
                    imgkeys.append(key)
        elif isinstance(imglist, list):
            self.imglist = {}
            for index, img in enumerate(imglist, 1):
                key = str(index)
                if len(img) > 2:
                    label = nd.array(img[:-1], dtype=dtype)
                elif isinstance(img[0], _NUMERIC):
                    label = nd.array([img[0]], dtype=dtype)
                else:
                    label = nd.array(img[0], dtype=dtype)
                self.imglist[key] = (label, img[-1])
                imgkeys.append(key)
        self.path_root = path_root
        self.check_data_shape(data_shape)
        self.provide_data = [(data_name, (batch_size,) + tuple(data_shape))]
        if label_width > 1:
            self.provide_label = [(label_name, (batch_size, label_width))]
        else:
            self.provide_label = [(label_name, (batch_size,))]
        self.batch_size = batch_size
        self.data_shape = tuple(data_shape)
        self.label_width = label_width
        self.shuffle = shuffle
        if self.imgrec is None:
            self.seq: list | None = imgkeys
        elif shuffle or num_parts > 1 or path_imgidx:
            if self.imgidx is None:
                raise ParamError(f"{name}: shuffle and num_parts > 1 need path_imgidx")
            self.seq = self.imgidx
        else:
            self.seq = None
        if num_parts > 1:
            if not 0 <= part_index < num_parts:
                raise ParamError(
                    f"{name}: part_index must be in [0, {num_parts}), got {part_index}"
                )
            size = len(self.seq) // num_parts
            self.seq = self.seq[part_index * size : (part_index + 1) * size]
        self.auglist = CreateAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        self.cur = 0
        self._allow_read = True
        self.last_batch_handle = last_batch_handle
        self.num_image = len(self.seq) if self.seq is not None else None
        self._cache_data = None
        self._cache_label = None
        self._cache_idx = None
        self.reset()

    def reset(self) -> None:
        """Resets the iterator to the beginning of the data."""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.last_batch_handle != "roll_over" or self._cache_data is None:
            if self.imgrec is not None:
                self.imgrec.reset()
            self.cur = 0
            self._allow_read = True

    def hard_reset(self) -> None:
        """Resets the iterator and ignore roll over data"""
        if self.seq is not None and self.shuffle:
            random.shuffle(self.seq)
        if self.imgrec is not None:
            self.imgrec.reset()
        self.cur = 0
        self._allow_read = True
        self._cache_data = None
        self._cache_label = None
        self._cache_idx = None

    def next_sample(self) -> tuple:
        """Helper function for reading in next sample."""
        if not self._allow_read:
            raise StopIteration
        if self.seq is not None:
            if self.cur >= self.num_image:
                if self.last_batch_handle != "discard":
                    self.cur = 0
                raise StopIteration
            idx = self.seq[self.cur]
            self.cur += 1
            if self.imgrec is not None:
                header, img = recordio.unpack(self.imgrec.read_idx(idx))
                if self.imglist is None:
                    return header.label, img
                return self.imglist[idx][0], img
            label, fname = self.imglist[idx]
            return label, self.read_image(fname)
        s = self.imgrec.read()
        if s is None:
            if self.last_batch_handle != "discard":
                self.imgrec.reset()
            raise StopIteration
        header, img = recordio.unpack(s)
        return header.label, img

    def _batchify(self, batch_data: Any, batch_label: Any, start: int = 0) -> int:
        """Helper function for batchifying data"""
        i = start
        try:
            while i < self.batch_size:
                label, s = self.next_sample()
                data = self.imdecode(s)
                try:
                    data, label = self._checked_sample(data, label)
                except RuntimeError as exc:
                    logging.debug("Invalid image, skipping:  %s", exc)
                    continue
                data, label = self._augmented_sample(data, label)
                batch_data[i] = self.postprocess_data(data)
                self._store_label(batch_label, i, label)
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    # The steps of _batchify that ImageDetIter changes: a RuntimeError from _checked_sample
    # skips the image; one from _augmented_sample reaches the caller.
    def _checked_sample(self, data: Any, label: Any) -> tuple:
        self.check_valid_image(data)
        return data, label

    def _augmented_sample(self, data: Any, label: Any) -> tuple:
        return self.augmentation_transform(data), label

    @staticmethod
    def _store_label(batch_label: Any, i: int, label: Any) -> None:
        batch_label[i] = label

    def next(self) -> DataBatch:
        """Returns the next batch of data."""
        if self._cache_data is not None:
            batch_data, batch_label, i = self._cache_data, self._cache_label, self._cache_idx
        else:
            batch_data, batch_label = self._new_batch()
            i = self._batchify(batch_data, batch_label)
        pad = self.batch_size - i
        if pad != 0:
            if self.last_batch_handle == "discard":
                raise StopIteration
            if self.last_batch_handle == "roll_over" and self._cache_data is None:
                self._cache_data, self._cache_label, self._cache_idx = batch_data, batch_label, i
                raise StopIteration
            self._batchify(batch_data, batch_label, i)
            if self.last_batch_handle == "pad":
                self._allow_read = False
            else:
                self._cache_data = self._cache_label = self._cache_idx = None
        return DataBatch([batch_data], [batch_label], pad=pad)

    def _new_batch(self) -> tuple:
        from .. import ndarray as nd

        c, h, w = self.data_shape
        return nd.zeros((self.batch_size, c, h, w)), nd.empty(self.provide_label[0][1])

    def check_data_shape(self, data_shape: tuple) -> None:
        """Checks if the input data shape is valid"""
        if len(data_shape) != 3:
            raise ValueError("data_shape should have length 3, with dimensions CxHxW")
        if data_shape[0] != 3:
            raise ValueError("This iterator expects inputs to have 3 channels.")

    def check_valid_image(self, data: Any) -> None:
        """Checks if the input data is valid"""
        if len(data[0].shape) == 0:
            raise RuntimeError("Data shape is wrong")

    def imdecode(self, s: bytes) -> Any:
        """Decodes a string or byte string to an NDArray."""
        try:
            return imdecode(s)
        except MXNetError as exc:
            raise RuntimeError(f"Broken image {self._locate()}, {exc}") from exc

    def _locate(self) -> str:
        if self.seq is not None and self.num_image:
            idx = self.seq[self.cur % self.num_image - 1]
        else:
            idx = self.cur
        if self.imglist is not None and idx in self.imglist:
            return f"filename: {self.imglist[idx][1]}"
        return f"index: {idx}"

    def read_image(self, fname: str) -> bytes:
        """Reads an input image `fname` (relative to `path_root`) and returns its bytes."""
        path = os.path.join(self.path_root or "", fname)
        with open(path, "rb") as fin:
            return fin.read()

    def augmentation_transform(self, data: Any) -> Any:
        """Transforms input data with specified augmentation."""
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum: Any) -> Any:
        """Final postprocessing step before image is loaded into the batch."""
        from .. import ndarray as nd

        return nd.transpose(datum, axes=(2, 0, 1))
