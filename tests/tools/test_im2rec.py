"""python -m mxlite.tools.im2rec: the same .lst files and records as MXNet's tools/im2rec.py."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from mxlite import recordio
from mxlite.tools import im2rec

from ..image._golden import image_folder
from ..io.data_cases import IM2REC

pytest.importorskip("cv2")
GOLDEN = os.path.join(os.path.dirname(__file__), "..", "io", "golden", "im2rec")

# the runs of MXNet's script (tools/golden/cases/data.py); "pass" packs in three threads here
CASES = {**IM2REC, "pass": (IM2REC["pass"][0], [*IM2REC["pass"][1], "--num-thread", "3"])}


def _read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _records(path: str) -> list:
    reader = recordio.MXRecordIO(path, "r")
    out = []
    while (rec := reader.read()) is not None:
        out.append(recordio.unpack(rec))
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_lists_and_records_equal_mxnets(tmp_path, case, capsys):
    folder = image_folder(str(tmp_path / "images"))
    work = tmp_path / "out"
    work.mkdir()
    list_args, pack_args = CASES[case]
    root = folder if "--recursive" in list_args else os.path.join(folder, "dog")
    prefix = str(work / case)
    im2rec.main([prefix, root, *list_args])
    if pack_args is not None:
        im2rec.main([prefix, root, *pack_args])
    made = sorted(os.listdir(work))
    assert made == sorted(f for f in os.listdir(GOLDEN) if f.startswith(case))
    for name in made:
        ours, theirs = _read(str(work / name)), _read(os.path.join(GOLDEN, name))
        assert ours == theirs, name


def test_pack_label_and_module_entry_point(tmp_path):
    folder = image_folder(str(tmp_path / "images"))
    work = tmp_path / "out"
    work.mkdir()
    with open(os.path.join(GOLDEN, "multi.lst")) as src, open(work / "multi.lst", "w") as dst:
        dst.write(src.read())
    subprocess.run(
        [
            sys.executable,
            "-m",
            "mxlite.tools.im2rec",
            str(work / "multi"),
            folder,
            "--pack-label",
            "--pass-through",
        ],
        check=True,
        capture_output=True,
    )
    got = _records(str(work / "multi.rec"))
    want = _records(os.path.join(GOLDEN, "multi.rec"))
    assert [h.id for h, _ in got] == [h.id for h, _ in want]
    for (h1, _), (h2, _) in zip(got, want):
        assert h1.flag == h2.flag == 2 and list(h1.label) == list(h2.label)
