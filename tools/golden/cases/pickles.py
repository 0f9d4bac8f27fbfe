"""Pickles made by MXNet 1.9.1 (tests/run/test_pickles.py): the objects of
tests/run/pickle_check.py pickled into tests/run/golden/pickles, and each one's summary."""

import mxnet as mx
from core import Golden, load_module

FILE = "tests/run/golden/pickles/expected.npz"


def record(golden: Golden) -> None:
    check = load_module("tests/run/pickle_check.py")
    for name, summary in check.write(mx, str(golden.path.parent)).items():
        golden.put(name, {}, **summary)
