"""mx.recordio on damaged files: a ``.rec`` cut inside a record and extended by stray bytes (an
interrupted copy, a disk error) never yields a record that was never written, read in sequence
or through the ``.idx``; MXNet 1.9.1 returns such records (tools/golden/cases/recordio_cuts.py
recorded where), mxlite raises naming the file and offset wherever the file shows the damage.
"""

from __future__ import annotations

import os

import pytest

from mxlite import recordio
from mxlite.base import MXNetError
from mxlite.recordio import MXIndexedRecordIO, MXRecordIO
from tests.golden_file import load
from tests.recordio.recordio_cases import write_records

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")


def _golden() -> tuple[list[bytes], bytes, list[int]]:
    g = load("recordio/golden/recordio_cuts.npz").cases["twelve"]
    return [bytes.fromhex(r) for r in g["records"]], bytes.fromhex(g["stray"]), g["mxnet_bogus"]


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _read_all(path: str) -> tuple[list[bytes], MXNetError | None]:
    reader = MXRecordIO(path, "r")
    got: list[bytes] = []
    try:
        while (rec := reader.read()) is not None:
            got.append(rec)
    except MXNetError as exc:
        return got, exc
    finally:
        reader.close()
    return got, None


def _invisible(buf: bytes, got: list[bytes]) -> bool:
    """Whether ``buf`` is exactly the file a writer makes of ``got``: a cut that left no trace
    (the stray bytes completed the record and its zero padding) cannot be told apart."""
    return b"".join(recordio.encode_record(r) for r in got) == buf


def test_intact_file_is_byte_for_byte_mxnets_and_reads_back(tmp_path):
    records, _, _ = _golden()
    rec, idx = str(tmp_path / "twelve.rec"), str(tmp_path / "twelve.idx")
    write_records(recordio, rec, records, idx)
    assert _read(rec) == _read(os.path.join(GOLDEN, "twelve.rec"))
    assert _read(idx) == _read(os.path.join(GOLDEN, "twelve.idx"))
    assert _read_all(os.path.join(GOLDEN, "twelve.rec")) == (records, None)
    reader = MXIndexedRecordIO(os.path.join(GOLDEN, "twelve.idx"), rec, "r")
    assert [reader.read_idx(i) for i in reversed(range(12))] == records[::-1]
    reader.close()


# a few stray bytes (under a header's 8): with more, the bytes after a filled-up record read
# as the next record's (damaged) header, which raises at that header, as for a record intact
# before a damaged one
@pytest.mark.parametrize(
    "stray", [None, b"\x01", b"\xff\xfe", b"\0\0\0", b"stray", b"\0" * 7], ids=repr
)
def test_no_cut_with_stray_bytes_yields_a_record_never_written(tmp_path, stray):
    records, golden_stray, mxnet_bogus = _golden()
    stray = golden_stray if stray is None else stray
    data = _read(os.path.join(GOLDEN, "twelve.rec"))
    path = str(tmp_path / "cut.rec")
    caught, invisible = [], []
    for cut in range(len(data) + 1):
        buf = data[:cut] + stray
        with open(path, "wb") as f:
            f.write(buf)
        got, err = _read_all(path)
        if err is not None:
            assert "cut.rec" in str(err) and "offset" in str(err)
        if got != records[: len(got)]:  # a bogus record: only where nothing shows the damage
            assert err is None and _invisible(buf, got), (cut, got[-1])
            invisible.append(cut)
        elif err is not None:
            caught.append(cut)
        reader = MXIndexedRecordIO(os.path.join(GOLDEN, "twelve.idx"), path, "r")
        for key, want in enumerate(records):
            try:
                rec = reader.read_idx(key)
            except MXNetError as exc:
                assert "cut.rec" in str(exc) and "offset" in str(exc)
                continue
            assert rec == want or _invisible(buf, _read_all(path)[0]), (cut, key, rec)
        reader.close()
    if stray == golden_stray:  # where MXNet returns a bogus record, mxlite raises unless the
        # stray bytes completed the record exactly (4 of MXNet's 18 here)
        assert set(mxnet_bogus) <= set(caught) | set(invisible)
        assert len(set(mxnet_bogus) & set(caught)) == 14
