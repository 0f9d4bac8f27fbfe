"""The records of tests/recordio/test_recordio.py, shared with tools/golden/cases/data.py and
recordio_cuts.py, which write them with MXNet 1.9.1 into tests/recordio/golden/. Plain bytes
and NumPy; :func:`packed` and :func:`write_records` take either implementation's ``recordio``
module."""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

MAGIC = struct.pack("<I", 0xCED7230A)  # the mark that starts every record
# records around the mark: the mark inside a record at an unaligned offset is data, at an
# aligned offset the record is split into parts
TRICKY = [b"", b"a", b"abcd", b"hello world", MAGIC, MAGIC * 3,
          b"xy" + MAGIC + b"zw",  # unaligned: not split
          b"1234" + MAGIC + b"5678" + MAGIC,  # aligned: split into parts
          MAGIC + b"tail", bytes(range(256)) * 3]  # fmt: skip
# the labels of the packed headers: scalars and several values
LABELS = [3.0, 0.5, [1.0, 2.0, 3.5], np.arange(5, dtype=np.float32)]


def packed(recordio: Any) -> list[bytes]:
    """``recordio.pack`` of a header per :data:`LABELS` entry ``i`` (id ``7 i``, id2 1) and
    the payload ``payload<i>``."""
    return [recordio.pack(recordio.IRHeader(0, lab, i * 7, 1), b"payload%d" % i)
            for i, lab in enumerate(LABELS)]  # fmt: skip


def write_records(recordio: Any, rec: Any, records: list, idx: Any = None) -> None:
    """``records`` written in order to the file ``rec`` by ``recordio.MXRecordIO``, or, where
    the index file ``idx`` is given, by ``MXIndexedRecordIO`` under the keys 0, 1, ..."""
    if idx is None:
        writer = recordio.MXRecordIO(str(rec), "w")
        for r in records:
            writer.write(r)
    else:
        writer = recordio.MXIndexedRecordIO(str(idx), str(rec), "w")
        for i, r in enumerate(records):
            writer.write_idx(i, r)
    writer.close()
