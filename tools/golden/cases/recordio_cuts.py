"""RecordIO on damaged files (tests/recordio/test_recordio_damage.py): a 12-record file written
by MXNet (``twelve.rec``/``twelve.idx`` beside the golden file) and, in case ``twelve``, its
``records`` and ``stray`` bytes (hex) and ``mxnet_bogus``: the cuts where MXNet's
``MXRecordIO.read()`` returns a record that was never written, on a copy of the file cut at that
position and extended by the stray bytes."""

import tempfile
from pathlib import Path

import mxnet as mx
from core import Golden, load_module

FILE = "tests/recordio/golden/recordio_cuts.npz"
c = load_module("tests/recordio/recordio_cases.py")
MAGIC = c.MAGIC
RECORDS = [b"", b"a", b"abcd", b"hello world", MAGIC, b"xy" + MAGIC + b"zw", b"12345",
           b"record seven", b"1234" + MAGIC + b"5678", b"nine!", b"ten ten ten",
           b"twelfth rec"]  # fmt: skip
STRAY = b"\x5a\xa5\x3c"


def read_all(path: str) -> list[bytes]:
    """The records MXNet reads from ``path`` before the end or the damage it sees."""
    reader, got = mx.recordio.MXRecordIO(path, "r"), []
    try:
        while (rec := reader.read()) is not None:
            got.append(rec)
    except Exception:  # MXNet's reader stops at the damage it sees
        pass
    reader.close()
    return got


def record(golden: Golden) -> None:
    rec = golden.path.parent / "twelve.rec"
    c.write_records(mx.recordio, rec, RECORDS, rec.with_suffix(".idx"))
    data, bogus = rec.read_bytes(), []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cut.rec"
        for cut in range(len(data) + 1):
            path.write_bytes(data[:cut] + STRAY)
            got = read_all(str(path))
            if got != RECORDS[: len(got)]:
                bogus.append(cut)
    meta = {"records": [r.hex() for r in RECORDS], "stray": STRAY.hex(), "mxnet_bogus": bogus}
    golden.put("twelve", meta)
