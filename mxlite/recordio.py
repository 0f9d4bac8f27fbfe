"""``mx.recordio``: MXNet's RecordIO files (``.rec`` and ``.idx``), byte for byte.

A ``.rec`` file is a sequence of records. Each record is written as one or more *parts*:
a 4-byte magic number ``0xced7230a``, a 4-byte word ``cflag << 29 | length`` and ``length``
bytes of data, zero-padded to a multiple of 4. A record whose data holds the magic number at a
4-aligned offset is cut there (the magic itself is dropped and put back by the reader), so that
a reader can find record starts by scanning for the magic: ``cflag`` is 0 for a whole record,
1 for a first part, 2 for a middle part and 3 for a last part. An ``.idx`` file holds one line
``key<TAB>offset`` per record. (This is dmlc-core's format, which MXNet uses.)

Readers check every length a header claims against the bytes left in the file, a record's
zero padding, and that the end of the file or room for a record header follows it, and raise
``MXNetError`` naming the file and the offset on any damage (so a file cut inside a record and
extended by stray bytes does not yield a record that was never written). Writers write to a
temporary file in the target's folder and rename it over the target at ``close()``, so a
``.rec`` is never seen half-written.

>>> import mxlite as mx, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "tmp.rec")
>>> writer = mx.recordio.MXRecordIO(path, "w")
>>> for i in range(3):
...     writer.write(b"record_%d" % i)
>>> writer.close()
>>> reader = mx.recordio.MXRecordIO(path, "r")
>>> reader.read(), reader.read()
(b'record_0', b'record_1')
"""

from __future__ import annotations

import array
import io
import numbers
import os
import struct
import threading
from collections import namedtuple
from multiprocessing import current_process
from typing import Any, BinaryIO

import numpy as np

from .base import MXNetError
from .fileio import atomic_write

__all__ = [
    "MXRecordIO",
    "MXIndexedRecordIO",
    "IRHeader",
    "pack",
    "unpack",
    "pack_img",
    "unpack_img",
]

MAGIC = 0xCED7230A
_MAGIC_BYTES = struct.pack("<I", MAGIC)
_LEN_MASK = (1 << 29) - 1


def _pad4(n: int) -> int:
    return (n + 3) & ~3


def encode_record(buf: bytes) -> bytes:
    """The bytes that one record ``buf`` takes in a ``.rec`` file (header, parts, padding)."""
    raw = bytes(buf)
    size = len(raw)
    if size >= 1 << 29:
        raise MXNetError(f"MXRecordIO.write: a record must be under 2**29 bytes, got {size}")
    out = []
    start = 0
    pos = raw.find(_MAGIC_BYTES)
    while pos != -1:
        if pos % 4 == 0:
            out.append(struct.pack("<II", MAGIC, ((1 if start == 0 else 2) << 29) | (pos - start)))
            out.append(raw[start:pos])
            start = pos + 4
            pos = raw.find(_MAGIC_BYTES, start)
        else:
            pos = raw.find(_MAGIC_BYTES, pos + 1)
    if start == 0:
        return b"".join((struct.pack("<II", MAGIC, size), raw, b"\0" * (_pad4(size) - size)))
    out.append(struct.pack("<II", MAGIC, (3 << 29) | (size - start)))
    out.append(raw[start:])
    out.append(b"\0" * (_pad4(size) - size))
    return b"".join(out)


def read_record(f: BinaryIO, uri: str, file_size: int, skip: bool = False) -> bytes | None:
    """Read the record at the current position of ``f``; None at the end of the file.

    With ``skip`` the data is seeked over, not read, and ``b""`` is returned for a record.
    Raises ``MXNetError`` naming ``uri`` and the offset when the file is truncated or corrupt.
    """
    parts = []
    while True:
        offset = f.tell()
        head = f.read(8)
        if not head:
            if parts:
                raise MXNetError(
                    f"RecordIO file {uri!r} is corrupt at offset {offset}: the file ends inside "
                    "a record split into parts"
                )
            return None
        if len(head) < 8:
            raise MXNetError(
                f"RecordIO file {uri!r} is truncated at offset {offset}: {len(head)} bytes left "
                "where an 8-byte record header was expected"
            )
        magic, lrec = struct.unpack("<II", head)
        if magic != MAGIC:
            raise MXNetError(
                f"RecordIO file {uri!r} is corrupt at offset {offset}: expected the magic "
                f"number 0x{MAGIC:08x}, found 0x{magic:08x}"
            )
        cflag = lrec >> 29
        length = lrec & _LEN_MASK
        left = file_size - offset - 8
        if _pad4(length) > left:
            raise MXNetError(
                f"RecordIO file {uri!r} is truncated at offset {offset}: the record header claims "
                f"{length} bytes, only {max(left, 0)} are left"
            )
        if (cflag in (0, 1)) == bool(parts) or cflag > 3:
            raise MXNetError(
                f"RecordIO file {uri!r} is corrupt at offset {offset}: unexpected part flag {cflag}"
            )
        last = cflag in (0, 3)
        if skip:
            f.seek(length if last else _pad4(length), os.SEEK_CUR)
            parts.append(b"")
            if last:
                _check_record_end(f, uri, file_size, offset, f.read(_pad4(length) - length))
                return b""
            continue
        data = f.read(_pad4(length))
        parts.append(data[:length])
        if last:
            _check_record_end(f, uri, file_size, offset, data[length:])
            return _MAGIC_BYTES.join(parts)


def _check_record_end(f: BinaryIO, uri: str, file_size: int, offset: int, padding: bytes) -> None:
    """Raise where the bytes around the end of a record show that it is not what was written:
    a file cut inside a record and extended by stray bytes (an interrupted copy, a disk error)
    would otherwise yield a record made of the remaining data and those bytes. A writer pads
    each record with zeros to 4 bytes, and a record is followed by the end of the file or by
    the next record's 8-byte header (whose magic number the next read checks: a damaged next
    header does not make this record unreadable). ``offset`` is where the record's last part
    starts; ``f`` stands after its padding, and is left there."""
    if padding.strip(b"\0"):
        raise MXNetError(
            f"RecordIO file {uri!r} is damaged at offset {offset}: the record's padding to 4 "
            f"bytes is {padding.hex()}, not zeros (the file was cut inside it and bytes added?)"
        )
    end = f.tell()
    left = file_size - end
    if left == 0:
        return
    if left < 8:
        raise MXNetError(
            f"RecordIO file {uri!r} is damaged after the record at offset {offset}: {left} "
            f"stray bytes at offset {end}, too few for a record header (the file was cut "
            "inside this record and bytes added?)"
        )


def scan_records(path: str) -> np.ndarray:
    """The ``(start, end)`` byte offsets of every record of the ``.rec`` file ``path``, as an
    ``(n, 2)`` int64 array (compact for files of millions of records), checking each header on
    the way (an ``MXNetError`` names the file and offset of any damage)."""
    offsets = array.array("q", [0])
    with _open_or_raise(path, "rb", path) as f:
        size = os.fstat(f.fileno()).st_size
        while read_record(f, path, size, skip=True) is not None:
            offsets.append(f.tell())
    bounds = np.frombuffer(offsets, dtype=np.int64)
    return np.stack([bounds[:-1], bounds[1:]], axis=1)


def record_payload(buf: bytes, uri: str, offset: int) -> bytes:
    """The data of the record whose file bytes (as ``scan_records`` delimits them) are ``buf``."""
    if len(buf) >= 8:
        magic, lrec = struct.unpack_from("<II", buf)
        if magic == MAGIC and lrec >> 29 == 0 and _pad4(lrec & _LEN_MASK) + 8 == len(buf):
            return buf[8 : 8 + (lrec & _LEN_MASK)]
    try:
        record = read_record(io.BytesIO(buf), uri, len(buf))
    except MXNetError as exc:
        raise MXNetError(f"RecordIO file {uri!r}: bad record at offset {offset}: {exc}") from exc
    if record is None:
        raise MXNetError(f"RecordIO file {uri!r}: no record at offset {offset}")
    return record


class MXRecordIO:
    """Reads/writes `RecordIO` data format, supporting sequential read and write.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), 'tmp.rec')
    >>> record = mx.recordio.MXRecordIO(path, 'w')
    >>> for i in range(5):
    ...    record.write(b'record_%d' % i)
    >>> record.close()
    >>> record = mx.recordio.MXRecordIO(path, 'r')
    >>> record.read()
    b'record_0'

    Parameters
    ----------
    uri : string
        Path to the record file.
    flag : string
        'w' for write or 'r' for read.
    """

    def __init__(self, uri: str | os.PathLike, flag: str) -> None:
        self.uri = os.fspath(uri)
        self.flag = flag
        self.pid: int | None = None
        self.is_open = False
        self.writable = False
        self._file: BinaryIO | None = None
        self._writing: Any = None  # the fileio.atomic_write context of a file being written
        self._size = 0
        # Makes seek + read one step for threads sharing a reader (DataLoader's thread_pool).
        self._lock = threading.Lock()
        self.open()

    def open(self) -> None:
        """Opens the record file."""
        if self.flag == "w":
            self._writing = atomic_write(self.uri, "wb", "MXRecordIO")
            self._file = self._writing.__enter__()
            self.writable = True
        elif self.flag == "r":
            self._file = _open_or_raise(self.uri, "rb", self.uri)
            self._size = os.fstat(self._file.fileno()).st_size
            self.writable = False
        else:
            raise ValueError(f"MXRecordIO: invalid flag {self.flag!r}; expected 'r' or 'w'")
        self.pid = current_process().pid
        self.is_open = True

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - nothing can be reported from a finaliser
            pass

    def __enter__(self) -> MXRecordIO:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __getstate__(self) -> dict:
        """Override pickling behavior: the file is closed and reopened on unpickling."""
        is_open = self.is_open
        self.close()
        d = dict(self.__dict__)
        d["is_open"] = is_open
        d["_file"] = None
        d["_writing"] = None
        del d["_lock"]
        return d

    def __setstate__(self, d: dict) -> None:
        """Restore from pickled."""
        self.__dict__ = d
        self._lock = threading.Lock()
        is_open = d["is_open"]
        self.is_open = False
        if is_open:
            self.open()

    def _check_pid(self, allow_reset: bool = False) -> None:
        """Check process id to ensure integrity, reset if in new process."""
        if self.pid != current_process().pid:
            if allow_reset:
                self.reset()
            else:
                raise RuntimeError("Forbidden operation in multiple processes")

    def close(self) -> None:
        """Closes the record file; a file being written gets its final name now."""
        if not self.is_open:
            return
        self.is_open = False
        self.pid = None
        f, self._file = self._file, None
        if not self.writable:
            f.close()
            return
        writing, self._writing = self._writing, None
        writing.__exit__(None, None, None)  # flush, fsync, rename over the target

    def reset(self) -> None:
        """Resets the pointer to first item.

        If the record is opened with 'w', this function will truncate the file to empty.
        """
        self.close()
        self.open()

    def _require_open(self, func: str, writable: bool) -> None:
        if not self.is_open:
            raise MXNetError(f"MXRecordIO.{func}: the file {self.uri!r} is closed")
        if self.writable != writable:
            mode = "'w'" if writable else "'r'"
            raise MXNetError(f"MXRecordIO.{func}: needs a file opened with flag {mode}")

    def write(self, buf: bytes) -> None:
        """Inserts a string buffer as a record.

        Parameters
        ----------
        buf : bytes
            Buffer to write.
        """
        self._require_open("write", True)
        self._check_pid(allow_reset=False)
        if isinstance(buf, str):
            raise MXNetError("MXRecordIO.write: argument 'buf' must be bytes, got str")
        self._file.write(encode_record(buf))

    def read(self) -> bytes | None:
        """Returns record as a string; None at the end of the file.

        Returns
        -------
        buf : bytes
            Buffer read.
        """
        self._require_open("read", False)
        self._check_pid(allow_reset=False)
        return read_record(self._file, self.uri, self._size)

    def _seek(self, pos: int) -> None:
        if not 0 <= pos <= self._size:
            raise MXNetError(
                f"RecordIO file {self.uri!r}: offset {pos} lies outside the file "
                f"({self._size} bytes)"
            )
        self._file.seek(pos)

    def _tell(self) -> int:
        return self._file.tell()


class MXIndexedRecordIO(MXRecordIO):
    """Reads/writes `RecordIO` data format, supporting random access.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> idx, rec = os.path.join(folder, 'tmp.idx'), os.path.join(folder, 'tmp.rec')
    >>> record = mx.recordio.MXIndexedRecordIO(idx, rec, 'w')
    >>> for i in range(5):
    ...     record.write_idx(i, b'record_%d' % i)
    >>> record.close()
    >>> record = mx.recordio.MXIndexedRecordIO(idx, rec, 'r')
    >>> record.read_idx(3)
    b'record_3'

    Parameters
    ----------
    idx_path : str
        Path to the index file.
    uri : str
        Path to the record file. Only supports seekable file types.
    flag : str
        'w' for write or 'r' for read.
    key_type : type
        Data type for keys.
    """

    def __init__(
        self, idx_path: str | os.PathLike, uri: str | os.PathLike, flag: str, key_type: type = int
    ) -> None:
        self.idx_path = os.fspath(idx_path)
        self.idx: dict = {}
        self.keys: list = []
        self.key_type = key_type
        self.fidx: Any = None
        self._idx_writing: Any = None
        super().__init__(uri, flag)

    def open(self) -> None:
        super().open()
        self.idx = {}
        self.keys = []
        if self.writable:
            self._idx_writing = atomic_write(self.idx_path, "w", "MXIndexedRecordIO")
            self.fidx = self._idx_writing.__enter__()
            return
        with _open_or_raise(self.idx_path, "r", self.idx_path) as f:
            for lineno, line in enumerate(f, 1):
                fields = line.strip().split("\t")
                if fields == [""]:
                    continue
                try:
                    key = self.key_type(fields[0])
                    pos = int(fields[1])
                except (ValueError, IndexError) as exc:
                    raise MXNetError(
                        f"index file {self.idx_path!r} line {lineno}: expected "
                        f"'key<TAB>offset', got {line.rstrip()!r}"
                    ) from exc
                self.idx[key] = pos
                self.keys.append(key)

    def close(self) -> None:
        """Closes the record file."""
        if not self.is_open:
            return
        writable = self.writable
        super().close()
        if writable and self._idx_writing is not None:
            writing, self._idx_writing = self._idx_writing, None
            writing.__exit__(None, None, None)
        self.fidx = None

    def __getstate__(self) -> dict:
        """Override pickling behavior."""
        d = super().__getstate__()
        d["fidx"] = None
        d["_idx_writing"] = None
        return d

    def seek(self, idx: Any) -> None:
        """Sets the current read pointer position to the record with key ``idx``."""
        self._require_open("seek", False)
        self._check_pid(allow_reset=True)
        if idx not in self.idx:
            raise KeyError(f"MXIndexedRecordIO.seek: key {idx!r} is not in {self.idx_path!r}")
        self._seek(self.idx[idx])

    def tell(self) -> int:
        """Returns the current position of write head."""
        self._require_open("tell", True)
        return self._tell()

    def read_idx(self, idx: Any) -> bytes | None:
        """Returns the record at given index."""
        with self._lock:
            self.seek(idx)
            record = self.read()
        if record is None:  # the .idx points at the end of a .rec that was cut short
            raise MXNetError(
                f"RecordIO file {self.uri!r}: {self.idx_path!r} gives key {idx!r} offset "
                f"{self.idx[idx]}, the end of the file: the .rec is truncated"
            )
        return record

    def write_idx(self, idx: Any, buf: bytes) -> None:
        """Inserts input record at given index.

        Parameters
        ----------
        idx : int
            Index of a file.
        buf : bytes
            Record to write.
        """
        key = self.key_type(idx)
        pos = self.tell()
        self.write(buf)
        self.fidx.write(f"{key}\t{pos}\n")
        self.idx[key] = pos
        self.keys.append(key)


IRHeader = namedtuple("HEADER", ["flag", "label", "id", "id2"])
IRHeader.__doc__ = """Header of an image record: ``flag`` (the number of labels when the label
is an array, else free), ``label`` (a float or an array of floats), ``id`` and ``id2`` (the
record's id, low and high bits)."""

_IR_FORMAT = "IfQQ"
_IR_SIZE = struct.calcsize(_IR_FORMAT)


def pack(header: Any, s: bytes) -> bytes:
    """Pack a string into MXImageRecord.

    Parameters
    ----------
    header : IRHeader
        Header of the image record. ``header.label`` can be a number or an array.
    s : bytes
        Raw image string to be packed.

    Returns
    -------
    s : bytes
        The packed string.
    """
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
    else:
        label = np.asarray(header.label, dtype=np.float32)
        header = header._replace(flag=label.size, label=0)
        s = label.tobytes() + bytes(s)
    return struct.pack(_IR_FORMAT, *header) + bytes(s)


def unpack(s: bytes) -> tuple[Any, bytes]:
    """Unpack a MXImageRecord to string.

    Parameters
    ----------
    s : bytes
        String buffer from ``MXRecordIO.read``.

    Returns
    -------
    header : IRHeader
        Header of the image record.
    s : bytes
        Unpacked string.
    """
    if len(s) < _IR_SIZE:
        raise MXNetError(
            f"recordio.unpack: a packed record has at least {_IR_SIZE} bytes, got {len(s)}"
        )
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        if len(s) < header.flag * 4:
            raise MXNetError(
                f"recordio.unpack: the header claims {header.flag} labels ({header.flag * 4} "
                f"bytes), only {len(s)} bytes follow"
            )
        header = header._replace(label=np.frombuffer(s, np.float32, header.flag))
        s = s[header.flag * 4 :]
    return header, s


def unpack_img(s: bytes, iscolor: int = -1) -> tuple[Any, np.ndarray]:
    """Unpack a MXImageRecord to image.

    Parameters
    ----------
    s : bytes
        String buffer from ``MXRecordIO.read``.
    iscolor : int
        Image format option for ``cv2.imdecode``.

    Returns
    -------
    header : IRHeader
        Header of the image record.
    img : numpy.ndarray
        Unpacked image (BGR, as OpenCV decodes it).
    """
    from .opencv import require_cv2

    cv2 = require_cv2("recordio.unpack_img")
    header, s = unpack(s)
    img = cv2.imdecode(np.frombuffer(s, dtype=np.uint8), iscolor)
    return header, img


def pack_img(header: Any, img: np.ndarray, quality: int = 95, img_fmt: str = ".jpg") -> bytes:
    """Pack an image into ``MXImageRecord``.

    Parameters
    ----------
    header : IRHeader
        Header of the image record.
    img : numpy.ndarray
        Image to be packed (BGR, as OpenCV expects).
    quality : int
        Quality for JPEG encoding in range 1-100, or compression for PNG encoding in range 1-9.
    img_fmt : str
        Encoding of the image (.jpg for JPEG, .png for PNG).

    Returns
    -------
    s : bytes
        The packed string.
    """
    from .opencv import require_cv2

    cv2 = require_cv2("recordio.pack_img")
    encode_params = None
    if img_fmt.upper() in (".JPG", ".JPEG"):
        encode_params = [cv2.IMWRITE_JPEG_QUALITY, quality]
    elif img_fmt.upper() == ".PNG":
        encode_params = [cv2.IMWRITE_PNG_COMPRESSION, quality]
    ret, buf = cv2.imencode(img_fmt, img, encode_params)
    if not ret:
        raise MXNetError(f"recordio.pack_img: OpenCV failed to encode the image as {img_fmt!r}")
    return pack(header, buf.tobytes())


def _open_or_raise(path: str, mode: str, shown: str) -> Any:
    try:
        return open(path, mode)  # noqa: SIM115 - the caller owns and closes it
    except OSError as exc:
        raise MXNetError(f"cannot open file {shown!r} ({mode!r}): {exc.strerror}") from exc
