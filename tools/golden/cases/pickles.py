"""Pickles made by MXNet 1.9.1 (tests/run/test_pickles.py): the objects of
tests/run/pickle_check.py pickled into tests/run/golden/pickles, and each one's summary."""

from __future__ import annotations

import importlib.util
from typing import Any

import mxnet as mx
from core import ROOT

FILE = "tests/run/golden/pickles/expected.npz"
SEED = 0


def record(golden: Any) -> None:
    path = ROOT / "tests" / "run" / "pickle_check.py"
    spec = importlib.util.spec_from_file_location("pickle_check", path)
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    for name, summary in check.write(mx, str(golden.path.parent)).items():
        golden.put(name, {}, **summary)
