"""``MNISTIter``: MXNet's iterator over the MNIST idx files.

The whole (part of the) data set is read at construction, scaled by 1/256 as MXNet does, and
shuffled once with ``seed`` when ``shuffle``; batches are views of it. An epoch holds only
full batches, as in MXNet.
"""

from __future__ import annotations

import gzip
import struct
from typing import Any

import numpy as np

from ..base import MXNetError
from .io import BatchIter, DataBatch, DataDesc
from .params import parse_params

__all__ = ["MNISTIter"]

_DEFAULTS: dict[str, Any] = {
    "image": "./train-images-idx3-ubyte",
    "label": "./train-labels-idx1-ubyte",
    "batch_size": 128,
    "shuffle": True,
    "flat": False,
    "seed": 0,
    "silent": False,
    "num_parts": 1,
    "part_index": 0,
    "prefetch_buffer": 4,
    "ctx": "gpu",
    "dtype": None,
    "data_name": "data",
    "label_name": "softmax_label",
}


def read_idx(func: str, path: str, magic: int) -> np.ndarray:
    """The array of an idx file (``.gz`` too), checking its header against its size."""
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise MXNetError(f"{func}: cannot read {path!r}: {exc}") from exc
    ndim = magic & 0xFF
    if len(raw) < 4 + 4 * ndim or struct.unpack(">I", raw[:4])[0] != magic:
        raise MXNetError(f"{func}: {path!r} is not an idx file with magic number {magic}")
    shape = struct.unpack(f">{ndim}I", raw[4 : 4 + 4 * ndim])
    body = raw[4 + 4 * ndim :]
    if len(body) < int(np.prod(shape)):
        raise MXNetError(
            f"{func}: {path!r} is truncated: its header claims shape {shape} "
            f"({int(np.prod(shape))} bytes), only {len(body)} bytes follow"
        )
    return np.frombuffer(body, np.uint8, int(np.prod(shape))).reshape(shape)


class MNISTIter(BatchIter):
    """Iterating on the MNIST dataset.

    Parameters
    ----------
    image : string, optional, default='./train-images-idx3-ubyte'
        Dataset Param: Mnist image path.
    label : string, optional, default='./train-labels-idx1-ubyte'
        Dataset Param: Mnist label path.
    batch_size : int, optional, default='128'
        Batch Param: Batch Size.
    shuffle : boolean, optional, default=1
        Augmentation Param: Whether to shuffle data.
    flat : boolean, optional, default=0
        Augmentation Param: Whether to flat the data into 1D.
    seed : int, optional, default='0'
        Augmentation Param: Random Seed.
    silent : boolean, optional, default=0
        Auxiliary Param: Whether to print out data info.
    num_parts : int, optional, default='1'
        partition the data into multiple parts
    part_index : int, optional, default='0'
        the index of the part will read
    """

    def __init__(self, **kwargs: Any) -> None:
        p = parse_params("MNISTIter", kwargs, _DEFAULTS)
        super().__init__(p["batch_size"])
        images = read_idx("MNISTIter", p["image"], 2051)
        labels = read_idx("MNISTIter", p["label"], 2049)
        count = images.shape[0]
        if not 0 <= p["part_index"] < p["num_parts"]:
            raise MXNetError("MNISTIter: part_index must be in [0, num_parts)")
        start = int(count / p["num_parts"] * p["part_index"])
        end = int(count / p["num_parts"] * (p["part_index"] + 1))
        img = images[start:end].astype(np.float32) * np.float32(1.0 / 256.0)
        lab = labels[start:end].astype(np.float32)
        if p["shuffle"]:
            order = np.random.RandomState(p["seed"]).permutation(len(img))
            img, lab = img[order], lab[order]
        n = len(img)
        self._data = img.reshape(n, -1) if p["flat"] else img.reshape(n, 1, *img.shape[1:])
        self._label = lab
        self._loc = 0
        self.provide_data = [DataDesc(p["data_name"], (self.batch_size,) + self._data.shape[1:])]
        self.provide_label = [DataDesc(p["label_name"], (self.batch_size,))]
        self.current_batch: DataBatch | None = None

    def reset(self) -> None:
        self._loc = 0

    def iter_next(self) -> bool:
        from ..ndarray import array

        bs = self.batch_size
        if self._loc + bs > len(self._data):
            return False
        sl = slice(self._loc, self._loc + bs)
        self._loc += bs
        self.current_batch = DataBatch(
            [array(self._data[sl])],
            [array(self._label[sl])],
            pad=0,
            provide_data=self.provide_data,
            provide_label=self.provide_label,
        )
        return True
