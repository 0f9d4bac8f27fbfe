"""Bounds-checked reading and the field codecs of MXNet's NDArray format, shared by
serialization.py (dense arrays, lists of arrays) and serialization_sparse.py (sparse arrays).

Every length read from the input is checked against the bytes that are left before anything
is allocated, so a corrupt file fails fast with :class:`~mxlite.base.MXNetError` naming the
file, the array and the field.
"""

from __future__ import annotations

import os
import struct
from typing import BinaryIO

import numpy as np

from ..base import BFLOAT16, DTYPE_MX_TO_NP, MX_BFLOAT16, DTypeError, MXNetError, storage_dtype

__all__: list[str] = []

NDARRAY_V2_MAGIC = 0xF993FAC9
# Context::DeviceType in MXNet: cpu 1, gpu 2, cpu_pinned 3, cpu_shared 5 (4 is unused).
_DEV_TYPES = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
# NumPy 2 allows 64 dims (1.x: 32); anything above cannot be an array, so it is corruption.
_MAX_NDIM = 64

# Flags keyed by (kind, itemsize), so that equal dtypes under different scalar types (on Linux
# np.longlong is not np.int64, yet both are 'i8') and either byte order find the same flag;
# bfloat16 (kind 'V', like any record) is looked up by its dtype.
_FLAG_BY_KIND = {
    (np.dtype(t).kind, np.dtype(t).itemsize): flag
    for flag, t in DTYPE_MX_TO_NP.items()
    if t is not None and flag != 12
}
_BF16_FLAG = 12


class _Source:
    """Bounds-checked little-endian reads, with errors that say where and what."""

    def __init__(self, func: str, where: str, size: int) -> None:
        self.func = func
        self.where = where
        self.size = size
        self.pos = 0

    @property
    def remaining(self) -> int:
        return self.size - self.pos

    def error(self, what: str) -> MXNetError:
        return MXNetError(f"{self.func}: {self.where}: {what}")

    def need(self, nbytes: int, what: str) -> None:
        if nbytes > self.remaining:
            raise self.error(
                f"truncated or corrupt: {what} needs {nbytes} bytes at offset {self.pos}, "
                f"but only {self.remaining} are left"
            )

    def take(self, size: int, what: str) -> bytes | memoryview:
        self.need(size, what)
        return self._take(size, what)

    def unpack(self, fmt: str, what: str) -> tuple:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt), what))

    def elements(self, dtype: np.dtype, shape: tuple[int, ...], what: str) -> np.ndarray:
        """A new C-ordered array of little-endian ``dtype`` that owns its memory."""
        count = 1
        for d in shape:
            count *= d
        self.need(count * dtype.itemsize, what)
        try:
            return self._elements(dtype, shape, count * dtype.itemsize, what)
        except ValueError as exc:  # e.g. more dims than this NumPy allows
            raise self.error(f"{what}: {exc}") from exc

    def _take(self, size: int, what: str) -> bytes | memoryview:
        raise NotImplementedError

    def _elements(
        self, dtype: np.dtype, shape: tuple[int, ...], nbytes: int, what: str
    ) -> np.ndarray:
        raise NotImplementedError


class _BufferSource(_Source):
    def __init__(self, func: str, buf: bytes | bytearray | memoryview) -> None:
        if not isinstance(buf, (bytes, bytearray, memoryview)):
            raise MXNetError(f"{func}: argument 'buf' must be bytes, got {type(buf).__name__}")
        self.view = memoryview(buf).cast("B")
        super().__init__(func, "buffer", self.view.nbytes)

    def _take(self, size: int, what: str) -> memoryview:
        out = self.view[self.pos : self.pos + size]
        self.pos += size
        return out

    def _elements(
        self, dtype: np.dtype, shape: tuple[int, ...], nbytes: int, what: str
    ) -> np.ndarray:
        flat = np.frombuffer(
            self.view, dtype=dtype, count=nbytes // dtype.itemsize, offset=self.pos
        )
        out = flat.reshape(shape).copy()
        self.pos += nbytes
        return out


class _FileSource(_Source):
    def __init__(self, func: str, fname: str, f: BinaryIO) -> None:
        self.f = f
        super().__init__(func, f"file {fname!r}", os.fstat(f.fileno()).st_size)

    def _short_read(self, got: int, size: int, what: str) -> MXNetError:
        return self.error(
            f"{what}: the file ended after {got} of {size} bytes (did it change meanwhile?)"
        )

    def _take(self, size: int, what: str) -> bytes:
        out = self.f.read(size)
        if len(out) != size:
            raise self._short_read(len(out), size, what)
        self.pos += size
        return out

    def _elements(
        self, dtype: np.dtype, shape: tuple[int, ...], nbytes: int, what: str
    ) -> np.ndarray:
        out = np.empty(shape, dtype=dtype)
        raw = memoryview(out.reshape(-1).view(np.uint8))
        got = 0
        while got < raw.nbytes:
            n = self.f.readinto(raw[got:])
            if not n:
                raise self._short_read(got, raw.nbytes, what)
            got += n
        self.pos += got
        return out


def _read_context(src: _Source, label: str) -> tuple[int, int]:
    return src.unpack("<ii", f"the context of {label}")


def _read_flag(src: _Source, label: str) -> np.dtype:
    (flag,) = src.unpack("<i", f"the type flag of {label}")
    if flag not in DTYPE_MX_TO_NP or flag < 0:
        raise src.error(f"{label} has unknown type flag {flag}")
    return storage_dtype(DTYPE_MX_TO_NP[flag])


def _read_elements(src: _Source, native: np.dtype, shape: tuple, what: str) -> np.ndarray:
    data = src.elements(native.newbyteorder("<"), shape, what)
    if data.dtype != native:
        data = data.astype(native)
    if native == np.bool_:
        # MXNet stores bools as raw bytes; make any nonzero byte a proper True.
        raw = data.view(np.uint8)
        np.not_equal(raw, 0, out=data)
    return data


def _read_shape(src: _Source, label: str, ndim_fmt: str, dim_code: str) -> tuple[int, ...]:
    (ndim,) = src.unpack(ndim_fmt, f"the ndim of {label}")
    if ndim < 0:
        raise src.error(f"{label} has an unknown shape (ndim {ndim}); MXNet cannot save one")
    if ndim > _MAX_NDIM:
        raise src.error(f"{label} claims ndim {ndim}; at most {_MAX_NDIM} is possible")
    return src.unpack(f"<{ndim}{dim_code}", f"the shape of {label}")


def _flag_of(func: str, label: str, arr: np.ndarray) -> int:
    if arr.dtype == BFLOAT16 or arr.dtype == MX_BFLOAT16:  # as arrays hold it, as asnumpy gives it
        return _BF16_FLAG
    flag = _FLAG_BY_KIND.get((arr.dtype.kind, arr.dtype.itemsize))
    if flag is None or arr.dtype.fields is not None:
        raise DTypeError(
            f"{func}: {label} has dtype {arr.dtype}; MXNet files hold "
            + ", ".join(storage_dtype(t).name for t in DTYPE_MX_TO_NP.values() if t is not None)
        )
    return flag


def _raw(arr: np.ndarray) -> memoryview:
    little = arr.dtype.newbyteorder("<")
    return memoryview(np.ascontiguousarray(arr, dtype=little).reshape(-1).view(np.uint8))


def _check_context(func: str, label: str, context: object) -> tuple[int, int]:
    ok = (
        isinstance(context, (tuple, list))
        and len(context) == 2
        and all(isinstance(v, (int, np.integer)) for v in context)
    )
    if not ok or int(context[0]) not in _DEV_TYPES or not 0 <= int(context[1]) < 2**31:
        raise MXNetError(
            f"{func}: the context of {label} must be (dev_type, dev_id) with dev_type in "
            f"{sorted(_DEV_TYPES)} and 0 <= dev_id < 2**31, got {context!r}"
        )
    return int(context[0]), int(context[1])
