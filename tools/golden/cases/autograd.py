"""mx.autograd (tests/test_autograd.py): the gradients MXNet 1.9.1 gives for the cases of
tests/autograd_cases.py (functions of ``mx``, shared with the test), and the loss curve of its
small network under SGD (``train/<array>`` and ``train/loss``)."""

import mxnet as mx
import numpy as np
from core import Golden, load_module

FILE = "tests/golden/autograd.npz"


def record(golden: Golden) -> None:
    c = load_module("tests/autograd_cases.py")
    for seed, case in enumerate(c.CASES):
        xs = c.case_inputs(case, seed)
        heads = None
        if case.head_grads:
            rng = np.random.RandomState(100 + seed)
            probe = [mx.nd.array(a) for a in xs]
            if case.prepare is not None:
                case.prepare(mx, probe)
            shapes = c.head_shapes(mx, case, probe)
            heads = [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
        grads = c.run_case(mx, case, xs, heads)
        arrays = {f"in{i}": x for i, x in enumerate(xs)}
        arrays.update({f"head{j}": h for j, h in enumerate(heads or [])})
        arrays.update({f"grad{i}": g for i, g in enumerate(grads)})
        golden.put(case.name, {"head_grads": case.head_grads}, **arrays)
    data = c.train_data()
    golden.put("train", {"steps": c.STEPS}, loss=c.train(mx, data), **data)
