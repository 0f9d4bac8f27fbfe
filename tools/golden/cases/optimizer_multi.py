"""The multi_* fused SGD operators (tests/operator/test_optimizer_multi.py): per case, the
initial weights and states (seeded 100 + case index), three in-place update steps (out=weights)
and, after each step ``s``, the gradients given (``step<s>/grad_<i>``) and the weights and
states MXNet left (``step<s>/out_<name>``)."""

import mxnet as mx
import numpy as np
from core import Golden, load_module

FILE = "tests/operator/golden/optimizer_multi.npz"
c = load_module("tests/operator/optimizer_multi_cases.py")  # the steps, made again by the test
STEPS = 3
SHAPES = [(3, 4), (5,), (2, 1, 3)]

# (case name, op, weight dtype, params); num_weights = len(SHAPES) unless given
# fmt: off
CASES = [
    ("sgd_f32", "multi_sgd_update", "float32", {}),
    ("sgd_f64_clip", "multi_sgd_update", "float64", {"clip_gradient": 0.3, "rescale_grad": 0.5}),
    ("sgd_f16", "multi_sgd_update", "float16", {"rescale_grad": 2.0}),
    ("mom_f32", "multi_sgd_mom_update", "float32", {"momentum": 0.9}),
    ("mom_f32_clip", "multi_sgd_mom_update", "float32",
     {"momentum": 0.8, "clip_gradient": 0.25, "rescale_grad": 0.7}),
    ("mom_f64", "multi_sgd_mom_update", "float64", {"momentum": 0.5, "rescale_grad": 1.5}),
    ("mom_f16", "multi_sgd_mom_update", "float16", {"momentum": 0.9}),
    ("mp_f16", "multi_mp_sgd_update", "float16", {"clip_gradient": 0.5}),
    ("mp_f32", "multi_mp_sgd_update", "float32", {"rescale_grad": 0.25}),
    ("mpmom_f16", "multi_mp_sgd_mom_update", "float16", {"momentum": 0.9, "rescale_grad": 0.5}),
    ("mpmom_f16_clip", "multi_mp_sgd_mom_update", "float16",
     {"momentum": 0.7, "clip_gradient": 0.2}),
    ("mom_one", "multi_sgd_mom_update", "float32", {"momentum": 0.9, "num_weights": 1}),
]
# fmt: on
LRS = (0.1, 0.05, 0.2)
WDS = (0.0, 0.01, 0.1)


RANGES = {"weight": 1, "mom": 0.1, "grad": 2}  # each value uniform in [-r, r)


def record(golden: Golden) -> None:
    for ci, (case, op, dtype, params) in enumerate(CASES):
        rng = np.random.RandomState(100 + ci)
        n = params.pop("num_weights", len(SHAPES))
        params = dict(params, lrs=LRS[:n], wds=WDS[:n], num_weights=n)

        def value(key: str, i: int, dt: str, rng: np.random.RandomState = rng) -> np.ndarray:
            r = RANGES[key.rsplit("_", 1)[0].split("/")[-1]]
            return rng.uniform(-r, r, SHAPES[i]).astype(dt)

        arrays = c.multi_sgd_steps(mx, op, dtype, params, n, value, STEPS)
        golden.put(case, {"op": op, "dtype": dtype, "params": params, "n": n}, **arrays)
