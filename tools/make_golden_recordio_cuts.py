"""Write a 12-record RecordIO file (``.rec`` and ``.idx``) with real MXNet 1.9.1 into
tests/recordio/golden/twelve.{rec,idx}, and record in twelve.json the records and, for a copy
of the file cut at every position and extended by a few stray bytes, the cuts where MXNet's
``MXRecordIO.read()`` returns a record that was never written (for
tests/recordio/test_recordio_damage.py).

Run under the reference interpreter (never imported by mxlite)::

    /tmp/mxref/bin/python tools/make_golden_recordio_cuts.py
"""

from __future__ import annotations

import json
import os
import struct
import tempfile

import mxnet as mx

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "tests", "recordio", "golden")
MAGIC = struct.pack("<I", 0xCED7230A)
RECORDS = [
    b"",
    b"a",
    b"abcd",
    b"hello world",
    MAGIC,
    b"xy" + MAGIC + b"zw",
    b"12345",
    b"record seven",
    b"1234" + MAGIC + b"5678",
    b"nine!",
    b"ten ten ten",
    b"twelfth rec",
]
STRAY = b"\x5a\xa5\x3c"


def read_all(path: str) -> tuple[list[bytes], bool]:
    """The records MXNet reads from ``path`` and whether it ended without an error."""
    reader = mx.recordio.MXRecordIO(path, "r")
    got = []
    try:
        while True:
            rec = reader.read()
            if rec is None:
                return got, True
            got.append(rec)
    except Exception:  # MXNet's reader stops at the damage it sees
        return got, False
    finally:
        reader.close()


def main() -> None:
    rec, idx = os.path.join(GOLDEN, "twelve.rec"), os.path.join(GOLDEN, "twelve.idx")
    writer = mx.recordio.MXIndexedRecordIO(idx, rec, "w")
    for i, r in enumerate(RECORDS):
        writer.write_idx(i, r)
    writer.close()
    with open(rec, "rb") as f:
        data = f.read()
    bogus = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "cut.rec")
        for cut in range(len(data) + 1):
            with open(path, "wb") as f:
                f.write(data[:cut] + STRAY)
            got, _ = read_all(path)
            if got != RECORDS[: len(got)]:
                bogus.append(cut)
    with open(os.path.join(GOLDEN, "twelve.json"), "w") as f:
        json.dump(
            {"records": [r.hex() for r in RECORDS], "stray": STRAY.hex(), "mxnet_bogus": bogus},
            f,
            indent=1,
        )
    print(f"{len(data) + 1} cuts, MXNet returned a bogus record for {len(bogus)}: {bogus}")


if __name__ == "__main__":
    main()
