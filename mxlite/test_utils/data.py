"""Data helpers of ``mx.test_utils``: downloads and the small datasets MXNet's tests use.

:func:`download` uses the standard library only (no ``requests``). A file that already exists
is never fetched again, so every dataset helper works offline once its files are in place;
without them and without a network they fail with an :class:`MXNetError` that names the URL
and the path where the file is expected. Writes go to a temporary file that is renamed at the
end, so an interrupted download never leaves a half-written file behind.
"""

from __future__ import annotations

import bz2
import gzip
import logging
import os
import shutil
import struct
import sys
import urllib.request
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import numpy as np

from ..base import MXNetError, ParamError
from ..fileio import atomic_write

if TYPE_CHECKING:
    from ..io import DataIter

_MXNET_DATA = "http://data.mxnet.io/"


def download(
    url: str,
    fname: str | None = None,
    dirname: str | None = None,
    overwrite: bool = False,
    retries: int = 5,
) -> str:
    """Download a URL to a file, unless the file is already there.

    Parameters
    ----------
    url : str
        URL to download (``http``, ``https``, ``ftp`` or ``file``).
    fname : str, optional
        Name of the file to write; by default the last part of ``url``.
    dirname : str, optional
        Folder for ``fname``; by default the folder part of ``fname`` (or the current folder).
        It is created when missing.
    overwrite : bool, optional
        Download again even when the file exists. Default False.
    retries : int, default 5
        How many attempts to make before giving up.

    Returns
    -------
    str
        The path of the downloaded (or already present) file.
    """
    if not isinstance(retries, int) or retries < 0:
        raise ParamError(f"download: argument 'retries' must be an int >= 0, got {retries!r}.")
    if fname is None:
        fname = url.split("/")[-1]
    if dirname is None:
        dirname = os.path.dirname(fname)
    else:
        fname = os.path.join(dirname, fname)
    if dirname:
        os.makedirs(dirname, exist_ok=True)
    if not overwrite and os.path.exists(fname):
        logging.info("%s exists, skipping download", fname)
        return fname
    # MXNet counts ``retries`` as the number of attempts (at least one).
    attempts = max(retries, 1)
    for attempt in range(1, attempts + 1):
        try:
            _fetch(url, fname)
            break
        except Exception as exc:  # any network or HTTP failure is retried the same way
            if attempt == attempts:
                raise MXNetError(
                    f"download: could not fetch {url!r} ({exc}). Without a network, put the "
                    f"file at {os.path.abspath(fname)!r} and it will be used as is."
                ) from exc
            left = attempts - attempt
            print(f"download failed, retrying, {left} attempt{'s' if left > 1 else ''} left")
    logging.info("downloaded %s into %s successfully", url, fname)
    return fname


def _fetch(url: str, fname: str) -> None:
    with (
        urllib.request.urlopen(url, timeout=60) as resp,
        atomic_write(fname, "wb", "download") as out,
    ):
        status = getattr(resp, "status", None)
        if status not in (None, 200):  # file:// answers have no status
            raise OSError(f"HTTP status {status}")
        shutil.copyfileobj(resp, out)


def download_model(
    model_name: str, dst_dir: str = "./", meta_info: dict[str, dict[str, str]] | None = None
) -> tuple[str | None, int]:
    """Download a model's symbol and parameters from data.mxnet.io.

    Parameters
    ----------
    model_name : str
        Model name to download, e.g. ``'imagenet1k-resnet-18'``.
    dst_dir : str
        Destination folder.
    meta_info : dict of dict
        Maps model names to ``{'symbol': url, 'params': url}``; by default MXNet's model zoo.

    Returns
    -------
    tuple
        ``(prefix, 0)``: the checkpoint prefix and epoch, or ``(None, 0)`` for an unknown name.
    """
    info = dict(_default_model_info() if meta_info is None else meta_info)
    if model_name not in info:
        return (None, 0)
    os.makedirs(dst_dir, exist_ok=True)
    meta = dict(info[model_name])
    for key in ("symbol", "params"):
        if key not in meta:
            raise ParamError(f"download_model: meta_info[{model_name!r}] has no {key!r} URL.")
    prefix = os.path.join(dst_dir, model_name)
    download(meta["symbol"], prefix + "-symbol.json")
    download(meta["params"], prefix + "-0000.params")
    return (prefix, 0)


def _default_model_info() -> dict[str, dict[str, str]]:
    base = _MXNET_DATA + "models/"
    paths = {
        "imagenet1k-inception-bn": "imagenet/inception-bn/Inception-BN-symbol.json|"
        "imagenet/inception-bn/Inception-BN-0126.params",
        "imagenet11k-resnet-152": "imagenet-11k/resnet-152/resnet-152-symbol.json|"
        "imagenet-11k/resnet-152/resnet-152-0000.params",
        "imagenet11k-place365ch-resnet-152": "imagenet-11k-place365-ch/resnet-152-symbol.json|"
        "imagenet-11k-place365-ch/resnet-152-0000.params",
        "imagenet11k-place365ch-resnet-50": "imagenet-11k-place365-ch/resnet-50-symbol.json|"
        "imagenet-11k-place365-ch/resnet-50-0000.params",
    }
    for kind, depth in [("resnet", d) for d in (18, 34, 50, 101, 152)] + [
        ("resnext", 50),
        ("resnext", 101),
    ]:
        stem = f"imagenet/{kind}/{depth}-layers/{kind}-{depth}"
        paths[f"imagenet1k-{kind}-{depth}"] = f"{stem}-symbol.json|{stem}-0000.params"
    stem = "imagenet/resnext/101-layers/resnext-101-64x4d"
    paths["imagenet1k-resnext-101-64x4d"] = f"{stem}-symbol.json|{stem}-0000.params"
    out = {}
    for name, both in paths.items():
        sym, params = both.split("|")
        out[name] = {"symbol": base + sym, "params": base + params}
    return out


def get_mnist() -> dict[str, np.ndarray]:
    """Load MNIST from the four ``*-idx?-ubyte.gz`` files (downloaded when missing).

    Returns
    -------
    dict
        ``train_data``, ``train_label``, ``test_data``, ``test_label``; images are float32 in
        [0, 1] of shape (N, 1, 28, 28), labels int8.
    """
    path = _MXNET_DATA + "data/mnist/"
    train_lbl, train_img = _read_mnist(
        path + "train-labels-idx1-ubyte.gz", path + "train-images-idx3-ubyte.gz"
    )
    test_lbl, test_img = _read_mnist(
        path + "t10k-labels-idx1-ubyte.gz", path + "t10k-images-idx3-ubyte.gz"
    )
    return {
        "train_data": train_img,
        "train_label": train_lbl,
        "test_data": test_img,
        "test_label": test_lbl,
    }


def _read_mnist(label_url: str, image_url: str) -> tuple[np.ndarray, np.ndarray]:
    with gzip.open(download(label_url)) as flbl:
        struct.unpack(">II", flbl.read(8))
        label = np.frombuffer(flbl.read(), dtype=np.int8)
    with gzip.open(download(image_url), "rb") as fimg:
        _, _, rows, cols = struct.unpack(">IIII", fimg.read(16))
        image = np.frombuffer(fimg.read(), dtype=np.uint8).reshape(len(label), 1, rows, cols)
    return label, image.astype(np.float32) / 255


def get_mnist_pkl() -> None:
    """Put ``data/mnist.pkl.gz`` in place (downloaded when missing)."""
    os.makedirs("data", exist_ok=True)
    if not os.path.exists("data/mnist.pkl.gz"):
        download("http://deeplearning.net/data/mnist/mnist.pkl.gz", dirname="data")


def get_mnist_ubyte() -> None:
    """Put the four unpacked MNIST ``*-ubyte`` files in ``data/`` (downloaded when missing)."""
    names = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte"]
    names += ["t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"]
    _get_zip_into_data(names, _MXNET_DATA + "mxnet/data/mnist.zip")


def get_mnist_iterator(
    batch_size: int, input_shape: tuple[int, ...], num_parts: int = 1, part_index: int = 0
) -> tuple[DataIter, DataIter]:
    """Training and validation :class:`mx.io.MNISTIter` over the ``data/*-ubyte`` files
    (downloaded when missing, see :func:`get_mnist_ubyte`).

    Parameters
    ----------
    batch_size : int
        Batch size of both iterators.
    input_shape : tuple of int
        ``(1, 28, 28)`` for images; any other length gives flat rows of 784.
    num_parts : int, default 1
        Number of parts the data is split into (one per worker).
    part_index : int, default 0
        The part this worker reads.
    """
    from ..io import MNISTIter

    get_mnist_ubyte()
    flat = len(input_shape) != 3
    common = dict(batch_size=batch_size, flat=flat, num_parts=num_parts, part_index=part_index)
    train = MNISTIter(
        image="data/train-images-idx3-ubyte",
        label="data/train-labels-idx1-ubyte",
        shuffle=True,
        **common,
    )
    val = MNISTIter(
        image="data/t10k-images-idx3-ubyte", label="data/t10k-labels-idx1-ubyte", **common
    )
    return train, val


def get_cifar10() -> None:
    """Put CIFAR-10's ``train/test .rec/.lst`` files in ``data/cifar/`` (downloaded if missing)."""
    names = ["cifar/train.rec", "cifar/test.rec", "cifar/train.lst", "cifar/test.lst"]
    _get_zip_into_data(names, _MXNET_DATA + "mxnet/data/cifar10.zip")


def _get_zip_into_data(names: list[str], url: str) -> None:
    os.makedirs("data", exist_ok=True)
    if all(os.path.exists(os.path.join("data", n)) for n in names):
        return
    zip_file_path = download(url, dirname="data")
    with zipfile.ZipFile(zip_file_path) as zf:
        zf.extractall("data")


def get_zip_data(data_dir: str, url: str, data_origin_name: str) -> None:
    """Download a zip file into ``data_dir`` and unpack it there.

    Parameters
    ----------
    data_dir : str
        Folder to unpack into.
    url : str
        URL of the zip file.
    data_origin_name : str
        Name to save the zip file under (inside ``data_dir``).
    """
    data_origin_name = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(data_origin_name):
        download(url, dirname=data_dir, overwrite=False)
        with zipfile.ZipFile(data_origin_name, "r") as zf:
            zf.extractall(data_dir)


def get_bz2_data(data_dir: str, data_name: str, url: str, data_origin_name: str) -> None:
    """Download a ``.bz2`` file into ``data_dir`` and unpack it as ``data_name``.

    Parameters
    ----------
    data_dir : str
        Folder for the files.
    data_name : str
        Name of the unpacked file (inside ``data_dir``).
    url : str
        URL of the ``.bz2`` file.
    data_origin_name : str
        Name to save the ``.bz2`` file under (inside ``data_dir``); removed once unpacked.
    """
    data_name = os.path.join(data_dir, data_name)
    data_origin_name = os.path.join(data_dir, data_origin_name)
    if not os.path.exists(data_name):
        download(url, fname=data_origin_name, dirname=data_dir, overwrite=False)
        with bz2.BZ2File(data_origin_name, "rb") as src, open(data_name, "wb") as dst:
            shutil.copyfileobj(src, dst)
        os.remove(data_origin_name)


def get_im2rec_path(home_env: str = "MXNET_HOME") -> str:
    """Return the path of the ``im2rec.py`` tool.

    Parameters
    ----------
    home_env : str
        Environment variable that holds the MXNet folder; by default the package's own folder.

    Returns
    -------
    str
        The path to ``im2rec.py``.
    """
    root = os.environ.get(home_env) or os.path.dirname(os.path.abspath(__file__))
    for candidate in (
        os.path.join(root, "tools", "im2rec.py"),
        os.path.join(root, "..", "tools", "im2rec.py"),
        os.path.join(root, "..", "..", "tools", "im2rec.py"),
    ):
        if os.path.isfile(candidate):
            return candidate
    raise OSError(f"get_im2rec_path: could not find tools/im2rec.py under {root!r}.")


@contextmanager
def discard_stderr() -> Iterator[None]:
    """Discard what is written to the stderr file descriptor inside ``with discard_stderr():``."""
    try:
        fileno = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):
        # stderr is not a real file (a pipe object in some runners): nothing to redirect
        yield
        return
    saved = os.dup(fileno)
    try:
        with open(os.devnull, "w") as sink:
            sys.stderr.flush()
            os.dup2(sink.fileno(), fileno)
            yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, fileno)
        os.close(saved)


def _data_iter_base() -> type:
    from ..io import DataIter

    return DataIter


class DummyIter(_data_iter_base()):  # type: ignore[misc]
    """An iterator that returns the first batch of ``real_iter`` for ever (it never raises
    StopIteration); for timing a network without the cost of reading data.

    Parameters
    ----------
    real_iter : mx.io.DataIter
        The iterator whose first batch is served.
    """

    def __init__(self, real_iter: object) -> None:
        super().__init__()
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data  # type: ignore[attr-defined]
        self.provide_label = real_iter.provide_label  # type: ignore[attr-defined]
        self.batch_size = real_iter.batch_size  # type: ignore[attr-defined]
        self.the_batch = next(real_iter)  # type: ignore[call-overload]

    def __iter__(self) -> DummyIter:
        return self

    def next(self) -> object:
        """The first batch of the real iterator, every time."""
        return self.the_batch
