"""Initializers and metrics (tests/test_initializer.py, tests/test_metric.py): the cases of
tests/init_metric_cases.py (functions of ``mx``, shared with the tests) as MXNet 1.9.1 runs
them; metadata-only entries ``init``, ``init_stats``, ``metric_inputs`` and ``metric``."""

import mxnet as mx
from core import Golden, load_module

FILE = "tests/golden/init_metric.npz"


def record(golden: Golden) -> None:
    c = load_module("tests/init_metric_cases.py")
    data = c.metric_inputs()
    golden.put("init", c.init_cases(mx))
    golden.put("init_stats", c.init_stats(mx))
    golden.put("metric_inputs", data)
    golden.put("metric", c.metric_cases(mx, data))
