"""Gluon in NumPy-array mode (tests/gluon/test_np_mode.py; the programs of
tests/gluon/np_mode_cases.py): case ``data`` holds the inputs and initial parameters, case
``mxnet`` what MXNet computed with them (losses per step, accuracies, final parameters, outputs,
the rnn layers' outputs, input gradients and states). The LeNet trained is exported beside the
file (``lenet_np-symbol.json``, ``lenet_np-0000.params``)."""

import mxnet as mx
from core import Golden, load_module

FILE = "tests/gluon/golden/np_mode.npz"


def record(golden: Golden) -> None:
    c = load_module("tests/gluon/np_mode_cases.py")
    mx.random.seed(3)
    data = c.make_data(mx)
    out = c.run_program(mx, data, str(golden.path.parent / "lenet_np"))
    out.update(c.run_rnn(mx))
    golden.put("data", {}, **data)
    golden.put("mxnet", {}, **out)
