"""Parallelization and file utilities of Gluon (``mx.gluon.utils``), as MXNet 1.9.1's."""

from __future__ import annotations

import collections
import hashlib
import os
import shutil
import urllib.request
import warnings
import weakref
from typing import Any

import numpy as np

from .. import ndarray
from ..base import MXNetError, ParamError
from ..fileio import atomic_write
from ..ndarray.ndarray import NDArray
from ..numpy.multiarray import ndarray as np_ndarray
from ..util import is_np_array
from .parameter_core import _brief_print_list as _brief_print_list
from .parameter_core import _indent as _indent
from .parameter_core import shape_is_known as shape_is_known

__all__ = [
    "split_data",
    "split_and_load",
    "clip_global_norm",
    "check_sha1",
    "download",
    "replace_file",
]


def split_data(
    data: NDArray, num_slice: int, batch_axis: int = 0, even_split: bool = True
) -> list[NDArray]:
    """Splits an NDArray into `num_slice` slices along `batch_axis`.
    Usually used for data parallelism where each slices is sent
    to one device (i.e. GPU).

    Parameters
    ----------
    data : NDArray
        A batch of data.
    num_slice : int
        Number of desired slices.
    batch_axis : int, default 0
        The axis along which to slice.
    even_split : bool, default True
        Whether to force all slices to have the same number of elements.
        If `True`, an error will be raised when `num_slice` does not evenly
        divide `data.shape[batch_axis]`.

    Returns
    -------
    list of NDArray
        Return value is a list even if `num_slice` is 1.
    """
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ParamError(
            f"data with shape {data.shape} cannot be evenly split into {num_slice} slices "
            f"along axis {batch_axis}. Use a batch size that's multiple of {num_slice} or set "
            "even_split=False to allow uneven partitioning of data."
        )
    each, extras = divmod(size, num_slice)
    sizes = [0] + extras * [each + 1] + (num_slice - extras) * [each]
    points = np.cumsum(sizes)
    if batch_axis == 0:
        return [data[int(points[i]) : int(points[i + 1])] for i in range(num_slice)]
    slices = [
        ndarray.slice_axis(data, axis=batch_axis, begin=int(points[i]), end=int(points[i + 1]))
        for i in range(num_slice)
    ]
    return [s.as_np_ndarray() for s in slices] if isinstance(data, np_ndarray) else slices


def split_and_load(
    data: Any, ctx_list: list, batch_axis: int = 0, even_split: bool = True
) -> list[NDArray]:
    """Splits an NDArray into `len(ctx_list)` slices along `batch_axis` and loads
    each slice to one context in `ctx_list`.

    Parameters
    ----------
    data : NDArray or ndarray
        A batch of data.
    ctx_list : list of Context
        A list of Contexts.
    batch_axis : int, default 0
        The axis along which to slice.
    even_split : bool, default True
        Whether to force all slices to have the same number of elements.

    Returns
    -------
    list of NDArrays
        Each corresponds to a context in `ctx_list`.
    """
    if not isinstance(data, NDArray):
        data = ndarray.array(data, ctx=ctx_list[0])
        data = data.as_np_ndarray() if is_np_array() else data
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [s.as_in_context(c) for s, c in zip(slices, ctx_list)]


def clip_global_norm(arrays: list[NDArray], max_norm: float, check_isfinite: bool = True) -> Any:
    """Rescales NDArrays so that the sum of their 2-norm is smaller than `max_norm`.

    Parameters
    ----------
    arrays : list of NDArray
    max_norm : float
    check_isfinite : bool, default True
         If True, check that the total_norm is finite (not nan or inf). This
         requires a blocking .asscalar() call.

    Returns
    -------
    NDArray or float
      Total norm. Return type is NDArray of shape (1,) if check_isfinite is
      False. Otherwise a float is returned.
    """
    if not arrays:
        raise ParamError("clip_global_norm: argument 'arrays' must not be empty.")
    ctx = arrays[0].context
    squares = []
    for arr in arrays:
        if getattr(arr, "stype", "default") != "default":
            squares.append(arr.norm().square().as_in_context(ctx))
            continue
        flat = arr.reshape((-1,))
        squares.append(ndarray.dot(flat, flat).as_in_context(ctx))
    total_norm = ndarray.sqrt(ndarray.add_n(*squares))
    if check_isfinite and not np.isfinite(total_norm.asscalar()):
        warnings.warn(
            UserWarning("nan or inf is detected. Clipping results will be undefined."),
            stacklevel=2,
        )
    scale = max_norm / (total_norm + 1e-8)
    scale = ndarray.min(ndarray.concat(scale, ndarray.ones(1, ctx=ctx), dim=0))
    for arr in arrays:
        arr *= scale.as_in_context(arr.context)
    return total_norm.asscalar() if check_isfinite else total_norm


def check_sha1(filename: str, sha1_hash: str) -> bool:
    """Check whether the sha1 hash of the file content matches the expected hash.

    Parameters
    ----------
    filename : str
        Path to the file.
    sha1_hash : str
        Expected sha1 hash in hexadecimal digits.

    Returns
    -------
    bool
        Whether the file content matches the expected hash.
    """
    sha1 = hashlib.sha1()
    with open(filename, "rb") as f:
        while True:
            data = f.read(1048576)
            if not data:
                break
            sha1.update(data)
    return sha1.hexdigest() == sha1_hash


def replace_file(src: str, dst: str) -> None:
    """Move ``src`` onto ``dst`` atomically, removing ``src`` when that fails."""
    try:
        os.replace(src, dst)
    except OSError as exc:
        try:
            os.remove(src)
        except OSError:
            pass
        raise OSError(
            f"Moving downloaded temp file - {src}, to {dst} failed. Please retry the download."
        ) from exc


def download(
    url: str,
    path: str | None = None,
    overwrite: bool = False,
    sha1_hash: str | None = None,
    retries: int = 5,
    verify_ssl: bool = True,
) -> str:
    """Download a given URL

    Parameters
    ----------
    url : str
        URL to download
    path : str, optional
        Destination path to store downloaded file. By default stores to the
        current directory with same name as in url.
    overwrite : bool, optional
        Whether to overwrite destination file if already exists.
    sha1_hash : str, optional
        Expected sha1 hash in hexadecimal digits. Will ignore existing file when hash is
        specified but doesn't match.
    retries : integer, default 5
        The number of times to attempt the download in case of failure or non 200 return codes
    verify_ssl : bool, default True
        Verify SSL certificates.

    Returns
    -------
    str
        The file path of the downloaded file.
    """
    if path is None:
        fname = url.split("/")[-1]
        if not fname:
            raise ParamError(
                "download: can't construct file-name from this URL; set the `path` option."
            )
    else:
        path = os.path.expanduser(path)
        fname = os.path.join(path, url.split("/")[-1]) if os.path.isdir(path) else path
    if retries < 0:
        raise ParamError(f"download: retries must be at least 0, got {retries}.")
    if not verify_ssl:
        warnings.warn(
            "Unverified HTTPS request is being made (verify_ssl=False). Adding certificate "
            "verification is strongly advised.",
            stacklevel=2,
        )
    if not overwrite and os.path.exists(fname):
        if not sha1_hash or check_sha1(fname, sha1_hash):
            return fname
    dirname = os.path.dirname(os.path.abspath(fname))
    os.makedirs(dirname, exist_ok=True)
    last: Exception | None = None
    for _ in range(retries + 1):
        try:
            print(f"Downloading {fname} from {url}...")
            with atomic_write(fname, "wb", "download") as f:
                _fetch(url, f, verify_ssl)
            if sha1_hash and not check_sha1(fname, sha1_hash):
                raise UserWarning(
                    f"File {fname} is downloaded but the content hash does not match. The "
                    "repo may be outdated or download may be incomplete."
                )
            return fname
        except UserWarning:
            raise
        except Exception as exc:  # network errors of every kind: retry, then report
            last = exc
    raise MXNetError(
        f"download: could not download {url} to {fname} ({last!r}). If this machine is "
        f"offline, place the file at {fname} yourself."
    ) from last


def _fetch(url: str, out: Any, verify_ssl: bool) -> None:
    """Copy ``url`` into the file object ``out``: with ``requests`` where it is installed (as
    MXNet does, so code that mocks ``requests.get`` works), else with the standard library."""
    try:
        import requests
    except ImportError:
        requests = None
    if requests is not None:
        r = requests.get(url, stream=True, verify=verify_ssl)
        if r.status_code != 200:
            raise RuntimeError(f"Failed downloading url {url}")
        for chunk in r.iter_content(chunk_size=1 << 20):
            if chunk:
                out.write(chunk)
        return
    import ssl

    context = None if verify_ssl else ssl._create_unverified_context()
    with urllib.request.urlopen(url, timeout=30, context=context) as r:
        if getattr(r, "status", 200) != 200:
            raise RuntimeError(f"Failed downloading url {url}")
        shutil.copyfileobj(r, out, 1 << 20)


def _get_repo_url() -> str:
    """Return the base URL for Gluon dataset and model repository."""
    repo_url = os.environ.get(
        "MXNET_GLUON_REPO", "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/"
    )
    return repo_url if repo_url.endswith("/") else repo_url + "/"


def _get_repo_file_url(namespace: str, filename: str) -> str:
    """Return the URL for hosted file in Gluon repository."""
    return f"{_get_repo_url()}{namespace}/{filename}"


class HookHandle:
    """A handle that can attach/detach a hook."""

    def __init__(self) -> None:
        self._hooks_dict_ref: Any = None
        self._id: int | None = None

    def attach(self, hooks_dict: dict, hook: Any) -> None:
        if self._hooks_dict_ref:
            raise MXNetError("The same handle cannot be attached twice.")
        self._id = id(hook)
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self) -> None:
        hooks_dict = self._hooks_dict_ref()
        if hooks_dict is not None and self._id in hooks_dict:
            del hooks_dict[self._id]

    def __getstate__(self) -> tuple:
        return (self._hooks_dict_ref(), self._id)

    def __setstate__(self, state: tuple) -> None:
        target = state[0] if state[0] is not None else collections.OrderedDict()
        self._keep = target  # a weakref alone would let an unpickled dict go at once
        self._hooks_dict_ref = weakref.ref(target)
        self._id = state[1]

    def __enter__(self) -> HookHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.detach()
