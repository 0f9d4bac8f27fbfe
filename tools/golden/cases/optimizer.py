"""Optimizer update sequences, lr schedules and an updater states file (tests/optimizer,
tests/test_lr_scheduler.py): one case per optimizer run; ``setup`` (steps, shapes, names and the
lr schedules); ``sgd_updater_after`` (weights and gradients after three updates, whose state is
saved to tests/optimizer/golden/sgd_updater.states) and ``sgd_updater_next`` (one more step)."""

from __future__ import annotations

from typing import Any

import mxnet as mx
import numpy as np

FILE = "tests/optimizer/golden/optimizer.npz"
SEED = 0
STEPS = 4
SHAPES = [(3, 4), (5,)]
NAMES = {0: "fc_weight", 1: "fc_bias"}

COMMON = {"wd": 0.01, "clip_gradient": 0.8, "rescale_grad": 0.5}
# fmt: off
CASES = [
    ("sgd_plain", "sgd", {"learning_rate": 0.1}, "float32"),
    ("sgd_mom", "sgd", {"learning_rate": 0.1, "momentum": 0.9, **COMMON}, "float32"),
    ("sgd_mom_f64", "sgd", {"learning_rate": 0.1, "momentum": 0.9, **COMMON}, "float64"),
    ("sgd_mp_mom", "sgd",
     {"learning_rate": 0.1, "momentum": 0.9, "multi_precision": True, ** COMMON}, "float16"),
    ("sgd_mp", "sgd", {"learning_rate": 0.1, "multi_precision": True, **COMMON}, "float16"),
    ("sgd_f16", "sgd", {"learning_rate": 0.1, "momentum": 0.9}, "float16"),
    ("nag", "nag", {"learning_rate": 0.1, "momentum": 0.9, **COMMON}, "float32"),
    ("nag_nomom", "nag", {"learning_rate": 0.1, **COMMON}, "float32"),
    ("nag_mp", "nag", {"learning_rate": 0.1, "momentum": 0.9, "multi_precision": True, ** COMMON},
     "float16"),
    ("adam", "adam", {"learning_rate": 0.01, **COMMON}, "float32"),
    ("adam_f64", "adam", {"learning_rate": 0.01, "beta1": 0.8, **COMMON}, "float64"),
    ("adam_mp", "adam", {"learning_rate": 0.01, "multi_precision": True, **COMMON}, "float16"),
    ("adagrad", "adagrad", {"learning_rate": 0.1, **COMMON}, "float32"),
    ("adadelta", "adadelta", {"rho": 0.8, **COMMON}, "float32"),
    ("rmsprop", "rmsprop", {"learning_rate": 0.01, **COMMON}, "float32"),
    ("rmsprop_centered", "rmsprop",
     {"learning_rate": 0.01, "centered": True, "clip_weights": 0.9, ** COMMON}, "float32"),
    ("adamax", "adamax", {**COMMON}, "float32"),
    ("nadam", "nadam", {**COMMON}, "float32"),
    ("ftrl", "ftrl", {"lamda1": 0.01, **COMMON}, "float32"),
    ("ftml", "ftml", {"learning_rate": 0.01, **COMMON}, "float32"),
    ("signum", "signum", {"learning_rate": 0.01, "wd_lh": 0.02, **COMMON}, "float32"),
    ("signsgd", "signum", {"learning_rate": 0.01, "momentum": 0.0, **COMMON}, "float32"),
    ("lamb", "lamb", {"learning_rate": 0.01, **COMMON}, "float32"),
    ("lamb_bounds", "lamb", {"learning_rate": 0.01, "lower_bound": 0.5, "upper_bound": 2.0,
      "bias_correction": False, ** COMMON}, "float32"),
    ("lamb_mp", "lamb", {"learning_rate": 0.01, "multi_precision": True, **COMMON}, "float16"),
    ("dcasgd", "dcasgd", {"learning_rate": 0.1, **COMMON}, "float32"),
    ("sgd_sched", "sgd", {"momentum": 0.5, "lr_scheduler": "factor"}, "float32"),
]
# fmt: on


def run_case(opt_name, kwargs, dtype):
    kwargs = dict(kwargs)
    if kwargs.pop("lr_scheduler", None) == "factor":
        kwargs["lr_scheduler"] = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.2)
    opt = mx.optimizer.create(opt_name, param_idx2name=NAMES, **kwargs)
    opt.set_lr_mult({"fc_bias": 2.0})
    opt.set_wd_mult({"fc_weight": 3.0})
    upd = mx.optimizer.get_updater(opt)
    rng = np.random.RandomState(7)
    w0 = [rng.uniform(-1, 1, s).astype(dtype) for s in SHAPES]
    grads = [[rng.uniform(-2, 2, s).astype(dtype) for s in SHAPES] for _ in range(STEPS)]
    ws = [mx.nd.array(w, dtype=dtype) for w in w0]
    rec = {}
    for i, w in enumerate(w0):
        rec[f"w0_{i}"] = w
    for step in range(STEPS):
        for i in range(len(SHAPES)):
            rec[f"g{step}_{i}"] = grads[step][i]
        upd([0, 1], [mx.nd.array(g, dtype=dtype) for g in grads[step]], ws)
        for i, w in enumerate(ws):
            rec[f"w{step + 1}_{i}"] = w.asnumpy()
    return rec


def schedules():
    F = mx.lr_scheduler
    out = {}
    mk = {
        "factor": lambda: F.FactorScheduler(step=3, factor=0.7, stop_factor_lr=0.004, base_lr=0.1),
        "factor_warm": lambda: F.FactorScheduler(
            step=3, factor=0.7, base_lr=0.1, warmup_steps=4, warmup_begin_lr=0.01
        ),
        "multifactor": lambda: F.MultiFactorScheduler(step=[3, 7, 12], factor=0.5, base_lr=0.1),
        "multifactor_warm_const": lambda: F.MultiFactorScheduler(
            step=[5, 9],
            factor=0.5,
            base_lr=0.1,
            warmup_steps=4,
            warmup_begin_lr=0.02,
            warmup_mode="constant",
        ),
        "poly": lambda: F.PolyScheduler(max_update=15, base_lr=0.1, pwr=2, final_lr=0.001),
        "poly_warm": lambda: F.PolyScheduler(
            max_update=15, base_lr=0.1, pwr=3, warmup_steps=5, warmup_begin_lr=0.01
        ),
        "cosine": lambda: F.CosineScheduler(max_update=15, base_lr=0.1, final_lr=0.002),
        "cosine_warm": lambda: F.CosineScheduler(
            max_update=15, base_lr=0.1, warmup_steps=4, warmup_mode="constant", warmup_begin_lr=0.05
        ),
    }
    for name, make in mk.items():
        s = make()
        out[name] = [s(n) for n in range(0, 20)]
    return out


def record(golden: Any) -> None:
    arrays, meta = {}, []
    for case, opt_name, kwargs, dtype in CASES:
        for k, v in run_case(opt_name, kwargs, dtype).items():
            arrays[f"{case}/{k}"] = v
        meta.append({"case": case, "optimizer": opt_name, "kwargs": kwargs, "dtype": dtype})
    golden.take(arrays, meta, key="case")
    golden.put(
        "setup", {"steps": STEPS, "shapes": SHAPES, "names": NAMES, "schedules": schedules()}
    )
    # an updater states file with the optimizer (SGD momentum, float32 and a mp float16 one)
    opt = mx.optimizer.SGD(
        learning_rate=0.1,
        momentum=0.9,
        wd=0.01,
        multi_precision=True,
        lr_scheduler=mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.1),
    )
    upd = mx.optimizer.get_updater(opt)
    w = [mx.nd.array([[1.0, -2.0], [0.5, 3.0]]), mx.nd.array([1.0, 2.0, 3.0], dtype="float16")]
    g = [mx.nd.array([[0.1, 0.2], [-0.3, 0.4]]), mx.nd.array([0.5, -0.5, 1.0], dtype="float16")]
    for _ in range(3):
        upd([0, 1], g, w)
    with open(golden.path.parent / "sgd_updater.states", "wb") as f:
        f.write(upd.get_states(dump_optimizer=True))
    after = {"w0": w[0], "w1": w[1], "g0": g[0], "g1": g[1]}
    golden.put("sgd_updater_after", {}, **{k: v.asnumpy() for k, v in after.items()})
    # one more step from the saved state, to check that resuming gives MXNet's next values
    upd([0, 1], g, w)
    golden.put("sgd_updater_next", {}, w0=w[0].asnumpy(), w1=w[1].asnumpy())
