"""What MXNet 1.9.1's NDArrayIter and ResizeIter yield (tests/io/test_ndarray_iter.py; the cases
of tests/io/ndarray_iter_cases.py, which describes the layout): metadata-only entries, one per
case, ``{"spec": how to build the iterator, "mxnet": its result}``."""

import mxnet as mx
from core import Golden, load_module

FILE = "tests/io/golden/ndarray_iter.npz"


def record(golden: Golden) -> None:
    c = load_module("tests/io/ndarray_iter_cases.py")
    for spec in c.SPECS:
        golden.put(spec["name"], {"spec": spec, "mxnet": c.run(mx, spec)})
