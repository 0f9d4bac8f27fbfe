"""``gluon.data.vision`` datasets: MNIST, FashionMNIST, CIFAR10, CIFAR100 (MXNet's files under
``root``, fetched from MXNet's dataset repository when missing), and the image datasets
``ImageRecordDataset``, ``ImageFolderDataset``, ``ImageListDataset``."""

from __future__ import annotations

import hashlib
import os
import urllib.request
import warnings
from typing import Any

import numpy as np

from .... import recordio
from ....base import MXNetError, data_dir
from ....fileio import atomic_write, extract_tar
from ..dataset import Dataset, RecordFileDataset

__all__ = [
    "MNIST",
    "FashionMNIST",
    "CIFAR10",
    "CIFAR100",
    "ImageRecordDataset",
    "ImageFolderDataset",
    "ImageListDataset",
]

_DEFAULT_REPO = "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/"


def _fetch(cls: str, root: str, namespace: str, fname: str, sha1: str, wanted: list[str]) -> str:
    """``root/fname``, downloaded from MXNet's repository when absent; a clear error offline."""
    path = os.path.join(root, fname)
    if os.path.exists(path):
        return path
    repo = os.environ.get("MXNET_GLUON_REPO", _DEFAULT_REPO)
    url = f"{repo.rstrip('/')}/gluon/dataset/{namespace}/{fname}"
    try:
        with atomic_write(path, "wb", cls) as out:
            digest = hashlib.sha1()  # noqa: S324 - MXNet's published checksums are SHA-1
            with urllib.request.urlopen(url, timeout=30) as resp:  # noqa: S310
                while chunk := resp.read(1 << 20):
                    out.write(chunk)
                    digest.update(chunk)
            if digest.hexdigest() != sha1:
                raise MXNetError(f"{cls}: {url} downloaded with a wrong SHA-1 checksum")
    except (OSError, MXNetError) as exc:
        raise MXNetError(
            f"{cls}: the data files {', '.join(wanted)} are not in {root!r} and could not be "
            f"downloaded from {url} ({exc}); put MXNet's files there."
        ) from exc
    return path


class _DownloadedDataset(Dataset):
    """Base class for MNIST, cifar10, etc."""

    def __init__(self, root: str, transform: Any) -> None:
        self._transform = transform
        self._data: Any = None
        self._label: Any = None
        self._root = os.path.expanduser(root)
        os.makedirs(self._root, exist_ok=True)
        self._get_data()

    def __getitem__(self, idx: int) -> Any:
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self) -> int:
        return len(self._label)

    def _get_data(self) -> None:
        raise NotImplementedError


class MNIST(_DownloadedDataset):
    """MNIST handwritten digits dataset from http://yann.lecun.com/exdb/mnist

    Each sample is an image (in 3D NDArray) with shape (28, 28, 1).

    Parameters
    ----------
    root : str, default $MXNET_HOME/datasets/mnist
        Path to temp folder for storing data.
    train : bool, default True
        Whether to load the training or testing set.
    transform : function, default None
        A user defined callback that transforms each sample. For example::

            transform=lambda data, label: (data.astype(np.float32)/255, label)
    """

    _namespace = "mnist"
    _files = {
        True: (
            ("train-images-idx3-ubyte.gz", "6c95f4b05d2bf285e1bfb0e7960c31bd3b3f8a7d"),
            ("train-labels-idx1-ubyte.gz", "2a80914081dc54586dbdf242f9805a6b8d2a15fc"),
        ),
        False: (
            ("t10k-images-idx3-ubyte.gz", "c3a25af1f52dad7f726cce8cacb138654b760d48"),
            ("t10k-labels-idx1-ubyte.gz", "763e7fa3757d93b0cdec073cef058b2004252c17"),
        ),
    }

    def __init__(
        self,
        root: str = os.path.join(data_dir(), "datasets", "mnist"),
        train: bool = True,
        transform: Any = None,
    ) -> None:
        self._train = train
        super().__init__(root, transform)

    def _get_data(self) -> None:
        from .... import ndarray as nd
        from ....io.mnist_iter import read_idx

        (data_name, data_sha), (label_name, label_sha) = self._files[self._train]
        cls, names = type(self).__name__, [data_name, label_name]
        data_file = _fetch(cls, self._root, self._namespace, data_name, data_sha, names)
        label_file = _fetch(cls, self._root, self._namespace, label_name, label_sha, names)
        label = read_idx(cls, label_file, 2049).astype(np.int32)
        data = read_idx(cls, data_file, 2051)
        if len(data) != len(label):
            raise MXNetError(f"{cls}: {len(data)} images but {len(label)} labels in {self._root!r}")
        data = data.reshape(len(label), 28, 28, 1)
        self._data = nd.array(data, dtype=data.dtype)
        self._label = label


class FashionMNIST(MNIST):
    """A dataset of Zalando's article images consisting of fashion products,
    a drop-in replacement of the original MNIST dataset from
    https://github.com/zalandoresearch/fashion-mnist

    Each sample is an image (in 3D NDArray) with shape (28, 28, 1).

    Parameters
    ----------
    root : str, default $MXNET_HOME/datasets/fashion-mnist'
        Path to temp folder for storing data.
    train : bool, default True
        Whether to load the training or testing set.
    transform : function, default None
        A user defined callback that transforms each sample.
    """

    _namespace = "fashion-mnist"
    _files = {
        True: (
            ("train-images-idx3-ubyte.gz", "0cf37b0d40ed5169c6b3aba31069a9770ac9043d"),
            ("train-labels-idx1-ubyte.gz", "236021d52f1e40852b06a4c3008d8de8aef1e40b"),
        ),
        False: (
            ("t10k-images-idx3-ubyte.gz", "626ed6a7c06dd17c0eec72fa3be1740f146a2863"),
            ("t10k-labels-idx1-ubyte.gz", "17f9ab60e7257a1620f4ad76bbbaf857c3920701"),
        ),
    }

    def __init__(
        self,
        root: str = os.path.join(data_dir(), "datasets", "fashion-mnist"),
        train: bool = True,
        transform: Any = None,
    ) -> None:
        super().__init__(root, train, transform)


class CIFAR10(_DownloadedDataset):
    """CIFAR10 image classification dataset from https://www.cs.toronto.edu/~kriz/cifar.html

    Each sample is an image (in 3D NDArray) with shape (32, 32, 3).

    Parameters
    ----------
    root : str, default $MXNET_HOME/datasets/cifar10
        Path to temp folder for storing data.
    train : bool, default True
        Whether to load the training or testing set.
    transform : function, default None
        A user defined callback that transforms each sample.
    """

    _namespace = "cifar10"
    _archive = ("cifar-10-binary.tar.gz", "fab780a1e191a7eda0f345501ccd62d20f7ed891")
    _train_files = [f"data_batch_{i}.bin" for i in range(1, 6)]
    _test_files = ["test_batch.bin"]
    _label_bytes = 1

    def __init__(
        self,
        root: str = os.path.join(data_dir(), "datasets", "cifar10"),
        train: bool = True,
        transform: Any = None,
    ) -> None:
        self._train = train
        super().__init__(root, transform)

    def _label_column(self) -> int:
        return 0

    def _read_batch(self, filename: str) -> tuple[np.ndarray, np.ndarray]:
        width = 3072 + self._label_bytes
        with open(filename, "rb") as fin:
            raw = np.frombuffer(fin.read(), dtype=np.uint8)
        if raw.size % width:
            raise MXNetError(
                f"{type(self).__name__}: {filename!r} has {raw.size} bytes, not a multiple of "
                f"the {width}-byte record"
            )
        data = raw.reshape(-1, width)
        images = data[:, self._label_bytes :].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        return images, data[:, self._label_column()].astype(np.int32)

    def _get_data(self) -> None:
        from .... import ndarray as nd

        names = self._train_files + self._test_files
        if not all(os.path.exists(os.path.join(self._root, n)) for n in names):
            # MXNet's archive holds the .bin files in a folder of its own; accept both layouts.
            folder = self._find_extracted(names)
            if folder is None:
                archive = _fetch(
                    type(self).__name__,
                    self._root,
                    self._namespace,
                    self._archive[0],
                    self._archive[1],
                    names,
                )
                extract_tar(archive, self._root)
                folder = self._find_extracted(names) or self._root
        else:
            folder = self._root
        files = self._train_files if self._train else self._test_files
        parts = [self._read_batch(os.path.join(folder, name)) for name in files]
        data = np.concatenate([p[0] for p in parts])
        self._data = nd.array(data, dtype=data.dtype)
        self._label = np.concatenate([p[1] for p in parts])

    def _find_extracted(self, names: list[str]) -> str | None:
        for folder in (self._root, *(os.path.join(self._root, d) for d in _subdirs(self._root))):
            if all(os.path.exists(os.path.join(folder, n)) for n in names):
                return folder
        return None


def _subdirs(root: str) -> list[str]:
    try:
        return sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    except OSError:
        return []


class CIFAR100(CIFAR10):
    """CIFAR100 image classification dataset from https://www.cs.toronto.edu/~kriz/cifar.html

    Each sample is an image (in 3D NDArray) with shape (32, 32, 3).

    Parameters
    ----------
    root : str, default $MXNET_HOME/datasets/cifar100
        Path to temp folder for storing data.
    fine_label : bool, default False
        Whether to load the fine-grained (100 classes) or coarse-grained (20 super-classes)
        labels.
    train : bool, default True
        Whether to load the training or testing set.
    transform : function, default None
        A user defined callback that transforms each sample.
    """

    _namespace = "cifar100"
    _archive = ("cifar-100-binary.tar.gz", "a0bb982c76b83111308126cc779a992fa506b90b")
    _train_files = ["train.bin"]
    _test_files = ["test.bin"]
    _label_bytes = 2

    def __init__(
        self,
        root: str = os.path.join(data_dir(), "datasets", "cifar100"),
        fine_label: bool = False,
        train: bool = True,
        transform: Any = None,
    ) -> None:
        self._fine_label = fine_label
        super().__init__(root, train, transform)

    def _label_column(self) -> int:
        return int(self._fine_label)


class ImageRecordDataset(RecordFileDataset):
    """A dataset wrapping over a RecordIO file containing images.

    Each sample is an image and its corresponding label.

    Parameters
    ----------
    filename : str
        Path to rec file.
    flag : {0, 1}, default 1
        If 0, always convert images to greyscale. If 1, always convert images to colored (RGB).
    transform : function, default None
        A user defined callback that transforms each sample.
    """

    def __init__(self, filename: str, flag: int = 1, transform: Any = None) -> None:
        super().__init__(filename)
        self._flag = flag
        self._transform = transform

    def __getitem__(self, idx: int) -> Any:
        from ....image import imdecode

        header, img = recordio.unpack(super().__getitem__(idx))
        if self._transform is not None:
            return self._transform(imdecode(img, self._flag), header.label)
        return imdecode(img, self._flag), header.label


class ImageFolderDataset(Dataset):
    """A dataset for loading image files stored in a folder structure.

    like::

        root/car/0001.jpg
        root/car/xxxa.jpg
        root/bus/123.jpg

    Parameters
    ----------
    root : str
        Path to root directory.
    flag : {0, 1}, default 1
        If 0, always convert loaded images to greyscale (1 channel).
        If 1, always convert loaded images to colored (3 channels).
    transform : callable, default None
        A function that takes data and label and transforms them.

    Attributes
    ----------
    synsets : list
        List of class names. `synsets[i]` is the name for the integer label `i`
    items : list of tuples
        List of all images in (filename, label) pairs.
    """

    def __init__(self, root: str, flag: int = 1, transform: Any = None) -> None:
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._transform = transform
        self._exts = [".jpg", ".jpeg", ".png"]
        self._list_images(self._root)

    def _list_images(self, root: str) -> None:
        self.synsets: list[str] = []
        self.items: list[tuple[str, int]] = []
        for folder in sorted(os.listdir(root)):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                warnings.warn(f"Ignoring {path}, which is not a directory.", stacklevel=3)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                filename = os.path.join(path, filename)
                ext = os.path.splitext(filename)[1]
                if ext.lower() not in self._exts:
                    warnings.warn(
                        f"Ignoring {filename} of type {ext}. Only support {', '.join(self._exts)}",
                        stacklevel=3,
                    )
                    continue
                self.items.append((filename, label))

    def __getitem__(self, idx: int) -> Any:
        from ....image import imread

        img = imread(self.items[idx][0], self._flag)
        label = self.items[idx][1]
        if self._transform is not None:
            return self._transform(img, label)
        return img, label

    def __len__(self) -> int:
        return len(self.items)


class ImageListDataset(Dataset):
    """A dataset for loading image files specified by a list of entries.

    Parameters
    ----------
    root : str, default '.'
        Path to root directory.
    imglist : str or list
        A ``.lst`` file (``index<TAB>label(s)<TAB>path`` per line), or a list of entries
        ``[label(s)..., path]``.
    flag : {0, 1}, default 1
        If 0, always convert loaded images to greyscale (1 channel).
        If 1, always convert loaded images to colored (3 channels).
    """

    def __init__(self, root: str = ".", imglist: Any = None, flag: int = 1) -> None:
        self._root = os.path.expanduser(root)
        self._flag = flag
        self.items: list[tuple[str, Any]] = []
        if isinstance(imglist, str):
            with open(imglist) as fin:
                for line in fin:
                    fields = line.strip().split("\t")
                    if len(fields) < 3:
                        continue
                    labels = np.array([float(v) for v in fields[1:-1]], dtype=np.float32)
                    self.items.append((fields[-1], labels[0] if len(labels) == 1 else labels))
        elif isinstance(imglist, (list, tuple)):
            for entry in imglist:
                *labels, path = entry
                value = labels[0] if len(labels) == 1 else np.array(labels, dtype=np.float32)
                self.items.append((path, value))
        else:
            raise MXNetError("ImageListDataset: imglist must be a .lst path or a list of entries")

    def __getitem__(self, idx: int) -> Any:
        from ....image import imread

        path, label = self.items[idx]
        return imread(os.path.join(self._root, path), self._flag), label

    def __len__(self) -> int:
        return len(self.items)
