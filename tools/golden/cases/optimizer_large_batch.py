"""LARS, LBSGD and Test update sequences (tests/optimizer/test_large_batch.py), recorded by the
run of tools/golden/cases/optimizer.py (same weights, gradients, names and multipliers): one
case per optimizer run, plus ``setup``."""

from __future__ import annotations

from typing import Any

from core import load_module

BASE = load_module("tools/golden/cases/optimizer.py")
FILE = "tests/optimizer/golden/optimizer_large_batch.npz"
SEED = 0

COMMON = {"wd": 0.01, "clip_gradient": 0.8, "rescale_grad": 0.5}
# fmt: off
CASES = [
    ("lars", "lars", {"learning_rate": 0.1}, "float32"),
    ("lars_mom", "lars", {"learning_rate": 0.1, "momentum": 0.9, "eta": 0.01, **COMMON},
     "float32"),
    ("lars_eps_nocorr", "lars", {"learning_rate": 0.1, "momentum": 0.9, "eps": 0.1,
     "momentum_correction": False, **COMMON}, "float32"),
    ("lars_sched", "lars", {"momentum": 0.5, "eta": 0.1, "lr_scheduler": "factor"}, "float32"),
    ("lars_f64", "lars", {"learning_rate": 0.1, "momentum": 0.9, **COMMON}, "float64"),
    ("lars_mp", "lars", {"learning_rate": 0.1, "momentum": 0.9, "multi_precision": True,
     **COMMON}, "float16"),
    ("lbsgd", "lbsgd", {"learning_rate": 0.1, **COMMON}, "float32"),
    ("lbsgd_mom_scale", "lbsgd", {"learning_rate": 0.1, "momentum": 0.9, "batch_scale": 2,
     "warmup_epochs": 1, "updates_per_epoch": 4, **COMMON}, "float32"),
    ("lbsgd_power2", "lbsgd", {"learning_rate": 0.1, "batch_scale": 3, "warmup_epochs": 2,
     "updates_per_epoch": 1, "warmup_strategy": "power2", "begin_epoch": 1}, "float32"),
    ("lbsgd_sqrt", "lbsgd", {"learning_rate": 0.1, "momentum": 0.5, "batch_scale": 4,
     "warmup_epochs": 1, "updates_per_epoch": 3, "warmup_strategy": "sqrt"}, "float32"),
    ("lbsgd_lars", "lbsgd", {"learning_rate": 0.1, "momentum": 0.9, "warmup_strategy": "lars",
     **COMMON}, "float32"),
    ("lbsgd_mp", "lbsgd", {"learning_rate": 0.1, "momentum": 0.9, "multi_precision": True,
     **COMMON}, "float16"),
    ("test", "test", {"rescale_grad": 0.5}, "float32"),
]
# fmt: on


def record(golden: Any) -> None:
    arrays, meta = {}, []
    for case, opt_name, kwargs, dtype in CASES:
        for k, v in BASE.run_case(opt_name, kwargs, dtype).items():
            arrays[f"{case}/{k}"] = v
        meta.append({"case": case, "optimizer": opt_name, "kwargs": kwargs, "dtype": dtype})
    golden.take(arrays, meta, key="case")
    golden.put("setup", {"steps": BASE.STEPS, "shapes": BASE.SHAPES, "names": BASE.NAMES})
