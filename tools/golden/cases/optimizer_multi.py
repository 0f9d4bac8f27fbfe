"""The multi_* fused SGD operators (tests/operator/test_optimizer_multi.py): per case, the
initial weights and states (seeded 100 + case index), three in-place update steps (out=weights)
and, after each step ``s``, the gradients given (``step<s>/grad_<i>``) and the weights and
states MXNet left (``step<s>/out_<name>``)."""

import mxnet as mx
import numpy as np
from core import Golden

FILE = "tests/operator/golden/optimizer_multi.npz"
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


def record(golden: Golden) -> None:
    for ci, (case, op, dtype, params) in enumerate(CASES):
        rng = np.random.RandomState(100 + ci)
        arrays: dict[str, np.ndarray] = {}
        n = params.pop("num_weights", len(SHAPES))
        shapes = SHAPES[:n]
        params = dict(params, lrs=LRS[:n], wds=WDS[:n], num_weights=n)
        inputs, weights, states = [], [], []  # per weight: [weight, grad, mom?, weight32?]
        for i, shape in enumerate(shapes):
            w = arrays[f"weight_{i}"] = rng.uniform(-1, 1, shape).astype(dtype)
            weights.append(mx.nd.array(w, dtype=dtype))
            group = [weights[-1], None]
            if "mom" in op:  # float32 momenta with the float32 master weights
                mom_dtype = "float32" if "_mp_" in op else dtype
                m = arrays[f"mom_{i}"] = rng.uniform(-0.1, 0.1, shape).astype(mom_dtype)
                group.append(mx.nd.array(m, dtype=mom_dtype))
                states.append((f"mom_{i}", group[-1]))
            if "_mp_" in op:
                group.append(mx.nd.array(w.astype("float32"), dtype="float32"))
                states.append((f"weight32_{i}", group[-1]))
            inputs.append(group)
        for step in range(STEPS):
            flat = []
            for i, (group, shape) in enumerate(zip(inputs, shapes)):
                g = rng.uniform(-2, 2, shape).astype(dtype)
                arrays[f"step{step}/grad_{i}"] = g
                group[1] = mx.nd.array(g, dtype=dtype)
                flat += group
            getattr(mx.nd, op)(*flat, out=weights if n > 1 else weights[0], **params)
            for i, wnd in enumerate(weights):
                arrays[f"step{step}/out_weight_{i}"] = wnd.asnumpy()
            for name, s in states:
                arrays[f"step{step}/out_{name}"] = s.asnumpy()
        golden.put(case, {"op": op, "dtype": dtype, "params": params, "n": n}, **arrays)
