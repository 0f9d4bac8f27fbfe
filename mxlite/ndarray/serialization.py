"""MXNet's binary NDArray format (``mx.nd.save`` / ``mx.nd.load``), on plain NumPy arrays.

Design note
-----------
This module knows bytes and NumPy only; ``NDArray`` wraps it. A file is a *list*::

    uint64 0x112 (list magic) | uint64 0 (reserved) | uint64 n | n arrays | uint64 k | k names

with ``k`` either 0 (``load`` gives a list) or ``n`` (a dict), each name a uint64 length and
UTF-8 bytes. All integers are little-endian. One array (also the raw bytes MXNet pickles) is::

    uint32 magic | int32 storage type | int32 ndim | int64 dims[ndim]
    | int32 dev_type | int32 dev_id | int32 type flag | the elements, C order

MXNet 1.9.1 writes magic V2 (0xF993FAC9), or V3 (0xF993FACA) while numpy-shape semantics are on
(``np_shape=True`` here). Readers also take the two older layouts MXNet 1.9.1 still reads: V1
(0xF993FAC8: no storage type field) and the magic-less one whose first word is ndim, followed by
uint32 dims. Sparse arrays (storage type 1 row_sparse, 2 csr) are in serialization_sparse.py.

Two cases MXNet leaves ambiguous, decided here:

- In V2, ndim 0 meant "empty NDArray, nothing follows" before MXNet 1.5, but 1.9.1 writes a
  0-d array that way *with* its context and one element. We read the 1.9.1 layout, and report
  the old empty array (recognised by an impossible device type) as unsupported; MXNet 1.9.1's
  Python ``load`` cannot return one either.
- V3 shapes may hold -1 (unknown); 1.9.1 cannot write such arrays, so they are refused.

Every length read from the input is checked against the bytes that are left before anything
is allocated, so a corrupt file fails fast with :class:`~mxlite.base.MXNetError` naming the
file, the array and the field. Element data goes through ``numpy.frombuffer`` (buffers) or
``readinto`` (files) with one copy, and out through the array's own buffer, never a loop.

>>> import numpy as np
>>> buf = dumps({"w": np.ones((2, 3), dtype="float32")})
>>> loaded = loads(buf)
>>> loaded["w"].data.shape, loaded["w"].dev_type
((2, 3), 1)
"""

from __future__ import annotations

import os
import struct
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..base import MXNetError
from ..fileio import atomic_write
from .serialization_io import (
    _DEV_TYPES,
    _MAX_NDIM,
    NDARRAY_V2_MAGIC,
    _BufferSource,
    _check_context,
    _FileSource,
    _flag_of,
    _raw,
    _read_context,
    _read_elements,
    _read_flag,
    _read_shape,
    _Source,
)
from .serialization_sparse import SparseParts, read_sparse, sparse_chunks

__all__ = [
    "SavedArray",
    "SparseParts",
    "dumps",
    "loads",
    "save",
    "load",
    "dumps_array",
    "loads_array",
]

LIST_MAGIC = 0x112
NDARRAY_V1_MAGIC = 0xF993FAC8
NDARRAY_V3_MAGIC = 0xF993FACA

_STYPE_DEFAULT = 0
_SPARSE_STYPES = {1: "row_sparse", 2: "csr"}
ArraysLike = Sequence[np.ndarray] | Mapping[str, np.ndarray]


class SavedArray:
    """One array read from an MXNet file: its data and the context it was saved from.

    Parameters
    ----------
    data : numpy.ndarray
        The elements, in native byte order; the array owns its memory.
    dev_type : int, default 1
        MXNet's device type (1 cpu, 2 gpu, 3 cpu_pinned, 5 cpu_shared).
    dev_id : int, default 0
        The device id.
    """

    __slots__ = ("data", "dev_type", "dev_id", "np_shape", "sparse")

    def __init__(
        self,
        data: np.ndarray,
        dev_type: int = 1,
        dev_id: int = 0,
        np_shape: bool = False,
        sparse: Any = None,
    ) -> None:
        self.data = data
        self.dev_type = dev_type
        self.dev_id = dev_id
        self.np_shape = np_shape  # written in MXNet's numpy-shape (V3) layout
        self.sparse = sparse  # the parts of a sparse array (then ``data`` is its values)

    def __repr__(self) -> str:
        dev = _DEV_TYPES.get(self.dev_type, str(self.dev_type))
        data = self.data
        return f"SavedArray(shape={data.shape}, dtype={data.dtype}, ctx={dev}({self.dev_id}))"


Loaded = list[SavedArray] | dict[str, SavedArray]


# ----------------------------------------------------------------------------- reading


def _read_array(src: _Source, label: str) -> SavedArray:
    (magic,) = src.unpack("<I", f"the magic number of {label}")
    if magic in (NDARRAY_V2_MAGIC, NDARRAY_V3_MAGIC):
        (stype,) = src.unpack("<i", f"the storage type of {label}")
        if stype in _SPARSE_STYPES:
            if magic == NDARRAY_V3_MAGIC:
                raise src.error(f"{label}: MXNet never writes sparse arrays in the V3 layout")
            data, dev_type, dev_id, parts = read_sparse(src, label, _SPARSE_STYPES[stype])
            return SavedArray(data, dev_type, dev_id, False, parts)
        if stype != _STYPE_DEFAULT:
            raise src.error(f"{label} has unknown storage type {stype}; expected 0, 1 or 2")
        shape = _read_shape(src, label, "<i", "q")
        if any(d < 0 for d in shape):
            kind = "an unknown (-1) dimension" if magic == NDARRAY_V3_MAGIC else "a negative dim"
            raise src.error(f"{label} has {kind} in its shape {shape}")
    elif magic == NDARRAY_V1_MAGIC:
        shape = _read_shape(src, label, "<i", "q")
        if any(d < 0 for d in shape):
            raise src.error(f"{label} has a negative dim in its shape {shape}")
    else:
        # The oldest layout has no magic: this word is ndim, and uint32 dims follow.
        if magic > _MAX_NDIM:
            raise src.error(
                f"{label} starts with 0x{magic:08X}, which is neither an NDArray magic number "
                f"(0x{NDARRAY_V2_MAGIC:08X}, 0x{NDARRAY_V3_MAGIC:08X}, 0x{NDARRAY_V1_MAGIC:08X}) "
                "nor the ndim of MXNet's oldest format: not an MXNet NDArray, or corrupt"
            )
        shape = src.unpack(f"<{magic}I", f"the shape of {label}")

    dev_type, dev_id = _read_context(src, label)
    if dev_type not in _DEV_TYPES:
        if magic == NDARRAY_V2_MAGIC and not shape:
            raise src.error(
                f"{label} is an empty NDArray with no shape (as MXNet before 1.5 saved them); "
                "neither mxlite nor MXNet 1.9.1 can load it"
            )
        raise src.error(
            f"{label} has device type {dev_type}; expected one of "
            + ", ".join(f"{v}({k})" for k, v in _DEV_TYPES.items())
        )
    native = _read_flag(src, label)
    data = _read_elements(src, native, shape, f"the data of {label} {shape}")
    return SavedArray(data, dev_type, dev_id, magic == NDARRAY_V3_MAGIC)


def _read_list(src: _Source) -> Loaded:
    header, _reserved = src.unpack("<QQ", "the file header")
    if header != LIST_MAGIC:
        raise src.error(
            f"not an MXNet NDArray file: header 0x{header:X}, expected 0x{LIST_MAGIC:X}"
        )
    (count,) = src.unpack("<Q", "the number of arrays")
    # Each array takes at least 4 bytes, so a larger count cannot be honest.
    if count > src.remaining // 4:
        raise src.error(f"claims {count} arrays, but only {src.remaining} bytes follow")
    arrays = [_read_array(src, f"array {i}") for i in range(count)]
    (nnames,) = src.unpack("<Q", "the number of names")
    if nnames not in (0, count):
        raise src.error(f"has {count} arrays but {nnames} names; expected 0 or {count}")
    names = []
    for i in range(nnames):
        (length,) = src.unpack("<Q", f"the length of name {i}")
        raw = bytes(src.take(length, f"name {i}"))
        try:
            names.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise src.error(f"name {i} is not valid UTF-8: {raw[:40]!r}") from exc
    if src.remaining:
        raise src.error(f"{src.remaining} bytes of unexpected data after the last name")
    if not names:
        return arrays
    return dict(zip(names, arrays, strict=True))


def loads(buf: bytes | bytearray | memoryview) -> Loaded:
    """Read the bytes of a file written by ``mx.nd.save``.

    Parameters
    ----------
    buf : bytes
        The whole file.

    Returns
    -------
    list of SavedArray, or dict of str to SavedArray
        A dict when the file holds names.
    """
    return _read_list(_BufferSource("loads", buf))


def load(fname: str | os.PathLike) -> Loaded:
    """Read a file written by ``mx.nd.save`` (or :func:`save`).

    Parameters
    ----------
    fname : str
        The filename.

    Returns
    -------
    list of SavedArray, or dict of str to SavedArray
        A dict when the file holds names.
    """
    path = _check_fname("load", fname)
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed below; _FileSource reads from it
    except OSError as exc:
        raise MXNetError(f"load: cannot open file {path!r}: {exc.strerror}") from exc
    with f:
        return _read_list(_FileSource("load", path, f))


def loads_array(buf: bytes | bytearray | memoryview) -> SavedArray:
    """Read one array from MXNet's raw bytes of a single NDArray (as pickles hold them).

    Parameters
    ----------
    buf : bytes
        Exactly the bytes of one array, as :func:`dumps_array` writes them.

    Returns
    -------
    SavedArray
    """
    src = _BufferSource("loads_array", buf)
    out = _read_array(src, "the array")
    if src.remaining:
        raise src.error(f"{src.remaining} bytes of unexpected data after the array")
    return out


# ----------------------------------------------------------------------------- writing


def _array_chunks(
    func: str, label: str, arr: Any, context: tuple[int, int], np_shape: bool
) -> list[bytes | memoryview]:
    if isinstance(arr, SparseParts):
        return sparse_chunks(func, label, arr, context, np_shape)
    if not isinstance(arr, (np.ndarray, np.generic)):
        raise MXNetError(f"{func}: {label} must be a numpy.ndarray, got {type(arr).__name__}")
    flag = _flag_of(func, label, arr)
    dev_type, dev_id = _check_context(func, label, context)
    magic = NDARRAY_V3_MAGIC if np_shape else NDARRAY_V2_MAGIC
    head = struct.pack(f"<Iii{arr.ndim}qiii", magic, _STYPE_DEFAULT, arr.ndim, *arr.shape,
                       dev_type, dev_id, flag)  # fmt: skip
    return [head, _raw(arr)]


def _list_chunks(
    func: str,
    arrays: ArraysLike,
    contexts: Sequence[tuple[int, int]] | None,
    np_shape: bool,
) -> list[bytes | memoryview]:
    if isinstance(arrays, Mapping):
        names = list(arrays.keys())
        values = list(arrays.values())
        for key in names:
            if not isinstance(key, str):
                raise MXNetError(f"{func}: dict keys must be str, got {type(key).__name__}")
    elif isinstance(arrays, (list, tuple)):
        names, values = [], list(arrays)
    else:
        raise MXNetError(
            f"{func}: argument 'arrays' must be a list of arrays or a dict of str to arrays, "
            f"got {type(arrays).__name__}"
        )
    if contexts is None:
        contexts = [(1, 0)] * len(values)
    elif len(contexts) != len(values):
        raise MXNetError(
            f"{func}: argument 'contexts' has {len(contexts)} entries for {len(values)} arrays"
        )
    chunks: list[bytes | memoryview] = [struct.pack("<QQQ", LIST_MAGIC, 0, len(values))]
    for i, (arr, ctx) in enumerate(zip(values, contexts, strict=True)):
        label = f"array {names[i]!r}" if names else f"array {i}"
        chunks.extend(_array_chunks(func, label, arr, ctx, np_shape))
    chunks.append(struct.pack("<Q", len(names)))
    for key in names:
        raw = key.encode("utf-8")
        chunks.append(struct.pack("<Q", len(raw)) + raw)
    return chunks


def dumps(
    arrays: ArraysLike,
    contexts: Sequence[tuple[int, int]] | None = None,
    *,
    np_shape: bool = False,
) -> bytes:
    """The bytes ``mx.nd.save`` writes for ``arrays``.

    Parameters
    ----------
    arrays : list of numpy.ndarray, or dict of str to numpy.ndarray
        A dict saves the names too, and loads back as a dict.
    contexts : list of (int, int), optional
        ``(dev_type, dev_id)`` per array, as MXNet records it; default ``(1, 0)`` (cpu(0)).
    np_shape : bool, default False
        Write format V3, as MXNet does while numpy-shape semantics are on.

    Returns
    -------
    bytes
    """
    return b"".join(_list_chunks("dumps", arrays, contexts, np_shape))


def dumps_array(
    arr: np.ndarray, context: tuple[int, int] = (1, 0), *, np_shape: bool = False
) -> bytes:
    """MXNet's raw bytes of one NDArray, with no list header (what NDArray pickles hold).

    Parameters
    ----------
    arr : numpy.ndarray
        The array.
    context : (int, int), default (1, 0)
        ``(dev_type, dev_id)`` to record.
    np_shape : bool, default False
        Write format V3, as MXNet does while numpy-shape semantics are on.

    Returns
    -------
    bytes
    """
    return b"".join(_array_chunks("dumps_array", "the array", arr, context, np_shape))


def save(
    fname: str | os.PathLike,
    arrays: ArraysLike,
    contexts: Sequence[tuple[int, int]] | None = None,
    *,
    np_shape: bool = False,
) -> None:
    """Write ``arrays`` to ``fname`` in ``mx.nd.save``'s format, atomically.

    The bytes go to a temporary file in the same directory, which is flushed to disk and then
    renamed over ``fname``; on any error ``fname`` is left as it was and the temporary file is
    removed.

    Parameters
    ----------
    fname : str
        The filename.
    arrays : list of numpy.ndarray, or dict of str to numpy.ndarray
        The data to save.
    contexts : list of (int, int), optional
        ``(dev_type, dev_id)`` per array; default cpu(0).
    np_shape : bool, default False
        Write format V3, as MXNet does while numpy-shape semantics are on.
    """
    path = _check_fname("save", fname)
    chunks = _list_chunks("save", arrays, contexts, np_shape)  # bad input fails before any I/O
    with atomic_write(path, "wb", "save") as f:
        for chunk in chunks:
            f.write(chunk)


def _check_fname(func: str, fname: object) -> str:
    if not isinstance(fname, (str, os.PathLike)):
        raise MXNetError(f"{func}: argument 'fname' must be a str path, got {type(fname).__name__}")
    path = os.fspath(fname)
    if not isinstance(path, str):
        raise MXNetError(f"{func}: argument 'fname' must be a str path, got bytes")
    return path
