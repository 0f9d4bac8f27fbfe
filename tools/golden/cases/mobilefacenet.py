"""A small MobileFaceNet trained with Module (tests/module/test_mobilefacenet.py), with MXNet's
default (oneDNN) kernels: case ``run`` holds what ``tests/module/mobilefacenet_case.py`` returns
after ``STEPS`` steps, and ``spread/<key>`` for the last step's parameters and the losses: how
far MXNet's own result moves when the input is scaled by ``1 + 1e-4`` (the test's tolerance).

MXNet's reference kernels (``MXNET_MKLDNN_ENABLED=0``) are not the reference here: they give
every PReLU slope gradient times the slope (see the test module)."""

import mxnet as mx
import numpy as np
from core import Golden, load_module

FILE = "tests/module/golden/mobilefacenet.npz"
STEPS = 3


def record(golden: Golden) -> None:
    case = load_module("tests/module/mobilefacenet_case.py")
    got = case.run(mx, STEPS)
    batches = case.batches
    case.batches = lambda n: ((x * np.float32(1 + 1e-4), y) for x, y in batches(n))
    moved = case.run(mx, STEPS)
    for key, value in moved.items():
        if key.startswith(f"after{STEPS}/") or key == "losses":
            got[f"spread/{key}"] = np.abs(value - got[key])
    golden.put("run", {"steps": STEPS}, **got)
