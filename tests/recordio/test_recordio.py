"""mx.recordio: byte-identical files with MXNet 1.9.1, damage reported clearly, atomic writes."""

from __future__ import annotations

import io
import os
import pickle
import struct

import numpy as np
import pytest

import mxlite as mx
from mxlite import recordio
from mxlite.base import MXNetError
from mxlite.recordio import IRHeader, MXIndexedRecordIO, MXRecordIO, unpack
from tests.golden_file import load
from tests.recordio import recordio_cases
from tests.recordio.recordio_cases import LABELS, TRICKY

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def test_written_files_equal_mxnets(tmp_path):
    rec, idx = str(tmp_path / "t.rec"), str(tmp_path / "t.idx")
    recordio_cases.write_records(recordio, rec, TRICKY, idx)
    assert _read(rec) == _read(os.path.join(GOLDEN, "tricky.rec"))
    assert _read(idx) == _read(os.path.join(GOLDEN, "tricky.idx"))


def test_reads_mxnets_files_sequentially_and_by_key():
    rec, idx = os.path.join(GOLDEN, "tricky.rec"), os.path.join(GOLDEN, "tricky.idx")
    reader = MXRecordIO(rec, "r")
    assert [reader.read() for _ in TRICKY] == TRICKY
    assert reader.read() is None
    reader.reset()
    assert reader.read() == TRICKY[0]
    reader.close()
    indexed = MXIndexedRecordIO(idx, rec, "r")
    assert indexed.keys == list(range(len(TRICKY)))
    for i in reversed(range(len(TRICKY))):
        assert indexed.read_idx(i) == TRICKY[i]


def test_pack_equals_mxnet_and_unpack_round_trips():
    want = [bytes.fromhex(h) for h in load("io/golden/data.npz").cases["packed"]["hex"]]
    assert recordio_cases.packed(recordio) == want
    reader = MXRecordIO(os.path.join(GOLDEN, "packed.rec"), "r")
    for i, lab in enumerate(LABELS):
        header, payload = unpack(reader.read())
        assert payload == b"payload%d" % i and header.id == i * 7 and header.id2 == 1
        np.testing.assert_array_equal(header.label, np.asarray(lab, np.float32))
        assert header.flag == (0 if np.ndim(lab) == 0 else len(lab))


def test_every_truncation_raises_a_clear_error():
    data = _read(os.path.join(GOLDEN, "tricky.rec"))
    boundaries = {0}
    reader = MXRecordIO(os.path.join(GOLDEN, "tricky.rec"), "r")
    while reader.read() is not None:
        boundaries.add(reader._file.tell())
    for cut in range(len(data)):
        stream = io.BytesIO(data[:cut])  # what a reader of a file cut there sees
        if cut in boundaries:
            while recordio.read_record(stream, "cut.rec", cut) is not None:
                pass
            continue
        with pytest.raises(MXNetError, match=r"cut\.rec.*offset \d+"):
            while recordio.read_record(stream, "cut.rec", cut) is not None:
                pass


def test_corrupt_magic_and_oversized_length_name_file_and_offset(tmp_path):
    data = bytearray(_read(os.path.join(GOLDEN, "tricky.rec")))
    path = str(tmp_path / "bad.rec")
    bad = bytearray(data)
    bad[8] ^= 0xFF  # the second record's magic (the first record is empty: 8 bytes)
    with open(path, "wb") as f:
        f.write(bad)
    reader = MXRecordIO(path, "r")
    assert reader.read() == b""
    with pytest.raises(MXNetError, match=r"bad\.rec.*offset 8.*magic"):
        reader.read()
    huge = bytearray(data)
    huge[12:16] = struct.pack("<I", (1 << 29) - 1)  # a length far past the end of the file
    with open(path, "wb") as f:
        f.write(huge)
    reader = MXRecordIO(path, "r")
    reader.read()
    with pytest.raises(MXNetError, match=r"offset 8.*claims"):
        reader.read()


def test_writer_is_atomic_and_leaves_no_temporary_files(tmp_path):
    rec, idx = str(tmp_path / "a.rec"), str(tmp_path / "a.idx")
    writer = MXIndexedRecordIO(idx, rec, "w")
    writer.write_idx(0, b"x")
    assert not os.path.exists(rec) and not os.path.exists(idx)
    writer.close()
    assert sorted(os.listdir(tmp_path)) == ["a.idx", "a.rec"]
    with pytest.raises(MXNetError, match="closed"):
        writer.write(b"y")


def test_tell_and_string_keys(tmp_path):
    rec, idx = str(tmp_path / "k.rec"), str(tmp_path / "k.idx")
    writer = MXIndexedRecordIO(idx, rec, "w", key_type=str)
    positions = []
    for key in ("a", "bb", "c"):
        positions.append(writer.tell())
        writer.write_idx(key, key.encode() * 5)
    writer.close()
    assert positions == [0, 16, 36]
    reader = MXIndexedRecordIO(idx, rec, "r", key_type=str)
    assert reader.keys == ["a", "bb", "c"] and reader.read_idx("bb") == b"bbbbbbbbbb"
    with pytest.raises(KeyError, match="'zz'"):
        reader.read_idx("zz")


def test_pickled_reader_reopens():
    rec, idx = os.path.join(GOLDEN, "tricky.rec"), os.path.join(GOLDEN, "tricky.idx")
    reader = MXIndexedRecordIO(idx, rec, "r")
    clone = pickle.loads(pickle.dumps(reader))
    assert clone.read_idx(3) == TRICKY[3]
    assert mx.recordio.MXRecordIO is MXRecordIO


def test_bad_flag_and_str_record(tmp_path):
    with pytest.raises(ValueError, match="flag"):
        MXRecordIO(str(tmp_path / "x.rec"), "a")
    writer = MXRecordIO(str(tmp_path / "x.rec"), "w")
    with pytest.raises(MXNetError, match="bytes"):
        writer.write("text")
    writer.close()
    with pytest.raises(MXNetError, match="nothere.rec"):
        MXRecordIO(str(tmp_path / "nothere.rec"), "r")


def test_pack_img_round_trip():
    cv2 = pytest.importorskip("cv2")
    img = np.random.RandomState(0).randint(0, 255, (8, 6, 3)).astype(np.uint8)
    s = mx.recordio.pack_img(IRHeader(0, 2.0, 5, 0), img, img_fmt=".png")
    header, back = mx.recordio.unpack_img(s)
    assert header.label == 2.0 and header.id == 5
    np.testing.assert_array_equal(back, img)
    assert cv2 is not None
