"""Cells of *Dive into Deep Learning*'s MXNet code (d2l-ai/d2l-en at v1.0.3) on mxlite's
``mxnet`` alias (tests/run/test_d2l.py; needs d2l beside the reference MXNet, as the ``d2l``
family): one case per chapter of tests/run/d2l_book_cases.py, with its arrays and seconds."""

from __future__ import annotations

from typing import Any

from core import run_case_file

FILE = "tests/run/golden/d2l/d2l_book_cases.npz"
SEED = 0


def record(golden: Any) -> None:
    golden.take(*run_case_file("tests/run/d2l_book_cases.py"))
