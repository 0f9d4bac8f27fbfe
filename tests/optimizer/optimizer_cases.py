"""Optimizer runs and learning-rate schedules, built the same way on MXNet 1.9.1 and on mxlite:
``tools/golden/cases/optimizer.py`` records what MXNet computes, ``test_optimizer.py`` and
``tests/test_lr_scheduler.py`` compare."""

from __future__ import annotations

from typing import Any

STEPS = 4
SHAPES = [(3, 4), (5,)]
NAMES = {0: "fc_weight", 1: "fc_bias"}
COMMON = {"wd": 0.01, "clip_gradient": 0.8, "rescale_grad": 0.5}
MP = {"multi_precision": True, **COMMON}
# (case, optimizer, its arguments, dtype); "lr_scheduler": "factor" is FACTOR
# fmt: off
CASES = [
    ("sgd_plain", "sgd", {"learning_rate": 0.1}, "float32"),
    ("sgd_mom", "sgd", {"learning_rate": 0.1, "momentum": 0.9, **COMMON}, "float32"),
    ("sgd_mom_f64", "sgd", {"learning_rate": 0.1, "momentum": 0.9, **COMMON}, "float64"),
    ("sgd_mp_mom", "sgd", {"learning_rate": 0.1, "momentum": 0.9, **MP}, "float16"),
    ("sgd_mp", "sgd", {"learning_rate": 0.1, **MP}, "float16"),
    ("sgd_f16", "sgd", {"learning_rate": 0.1, "momentum": 0.9}, "float16"),
    ("nag", "nag", {"learning_rate": 0.1, "momentum": 0.9, **COMMON}, "float32"),
    ("nag_nomom", "nag", {"learning_rate": 0.1, **COMMON}, "float32"),
    ("nag_mp", "nag", {"learning_rate": 0.1, "momentum": 0.9, **MP}, "float16"),
    ("adam", "adam", {"learning_rate": 0.01, **COMMON}, "float32"),
    ("adam_f64", "adam", {"learning_rate": 0.01, "beta1": 0.8, **COMMON}, "float64"),
    ("adam_mp", "adam", {"learning_rate": 0.01, **MP}, "float16"),
    ("adagrad", "adagrad", {"learning_rate": 0.1, **COMMON}, "float32"),
    ("adadelta", "adadelta", {"rho": 0.8, **COMMON}, "float32"),
    ("rmsprop", "rmsprop", {"learning_rate": 0.01, **COMMON}, "float32"),
    ("rmsprop_centered", "rmsprop",
     {"learning_rate": 0.01, "centered": True, "clip_weights": 0.9, **COMMON}, "float32"),
    ("adamax", "adamax", {**COMMON}, "float32"),
    ("nadam", "nadam", {**COMMON}, "float32"),
    ("ftrl", "ftrl", {"lamda1": 0.01, **COMMON}, "float32"),
    ("ftml", "ftml", {"learning_rate": 0.01, **COMMON}, "float32"),
    ("signum", "signum", {"learning_rate": 0.01, "wd_lh": 0.02, **COMMON}, "float32"),
    ("signsgd", "signum", {"learning_rate": 0.01, "momentum": 0.0, **COMMON}, "float32"),
    ("lamb", "lamb", {"learning_rate": 0.01, **COMMON}, "float32"),
    ("lamb_bounds", "lamb", {"learning_rate": 0.01, "lower_bound": 0.5, "upper_bound": 2.0,
                             "bias_correction": False, **COMMON}, "float32"),
    ("lamb_mp", "lamb", {"learning_rate": 0.01, **MP}, "float16"),
    ("dcasgd", "dcasgd", {"learning_rate": 0.1, **COMMON}, "float32"),
    ("sgd_sched", "sgd", {"momentum": 0.5, "lr_scheduler": "factor"}, "float32"),
    # the large-batch optimizers (tests/optimizer/test_large_batch.py)
    ("lars", "lars", {"learning_rate": 0.1}, "float32"),
    ("lars_mom", "lars", {"learning_rate": 0.1, "momentum": 0.9, "eta": 0.01, **COMMON},
     "float32"),
    ("lars_eps_nocorr", "lars", {"learning_rate": 0.1, "momentum": 0.9, "eps": 0.1,
     "momentum_correction": False, **COMMON}, "float32"),
    ("lars_sched", "lars", {"momentum": 0.5, "eta": 0.1, "lr_scheduler": "factor"}, "float32"),
    ("lars_f64", "lars", {"learning_rate": 0.1, "momentum": 0.9, **COMMON}, "float64"),
    ("lars_mp", "lars", {"learning_rate": 0.1, "momentum": 0.9, **MP}, "float16"),
    ("lbsgd", "lbsgd", {"learning_rate": 0.1, **COMMON}, "float32"),
    ("lbsgd_mom_scale", "lbsgd", {"learning_rate": 0.1, "momentum": 0.9, "batch_scale": 2,
     "warmup_epochs": 1, "updates_per_epoch": 4, **COMMON}, "float32"),
    ("lbsgd_power2", "lbsgd", {"learning_rate": 0.1, "batch_scale": 3, "warmup_epochs": 2,
     "updates_per_epoch": 1, "warmup_strategy": "power2", "begin_epoch": 1}, "float32"),
    ("lbsgd_sqrt", "lbsgd", {"learning_rate": 0.1, "momentum": 0.5, "batch_scale": 4,
     "warmup_epochs": 1, "updates_per_epoch": 3, "warmup_strategy": "sqrt"}, "float32"),
    ("lbsgd_lars", "lbsgd", {"learning_rate": 0.1, "momentum": 0.9, "warmup_strategy": "lars",
     **COMMON}, "float32"),
    ("lbsgd_mp", "lbsgd", {"learning_rate": 0.1, "momentum": 0.9, **MP}, "float16"),
    ("test", "test", {"rescale_grad": 0.5}, "float32"),
]
# the schedules compared over updates 0..19: name -> (class, its arguments)
SCHEDULES = {
    "factor": ("FactorScheduler", {"step": 3, "factor": 0.7, "stop_factor_lr": 0.004,
                                   "base_lr": 0.1}),
    "factor_warm": ("FactorScheduler", {"step": 3, "factor": 0.7, "base_lr": 0.1,
                                        "warmup_steps": 4, "warmup_begin_lr": 0.01}),
    "multifactor": ("MultiFactorScheduler", {"step": [3, 7, 12], "factor": 0.5, "base_lr": 0.1}),
    "multifactor_warm_const": ("MultiFactorScheduler", {
        "step": [5, 9], "factor": 0.5, "base_lr": 0.1, "warmup_steps": 4,
        "warmup_begin_lr": 0.02, "warmup_mode": "constant"}),
    "poly": ("PolyScheduler", {"max_update": 15, "base_lr": 0.1, "pwr": 2, "final_lr": 0.001}),
    "poly_warm": ("PolyScheduler", {"max_update": 15, "base_lr": 0.1, "pwr": 3,
                                    "warmup_steps": 5, "warmup_begin_lr": 0.01}),
    "cosine": ("CosineScheduler", {"max_update": 15, "base_lr": 0.1, "final_lr": 0.002}),
    "cosine_warm": ("CosineScheduler", {"max_update": 15, "base_lr": 0.1, "warmup_steps": 4,
                                        "warmup_mode": "constant", "warmup_begin_lr": 0.05}),
}
# fmt: on
FACTOR = ("FactorScheduler", {"step": 2, "factor": 0.5, "base_lr": 0.2})


def schedule(mx: Any, spec: tuple[str, dict]) -> Any:
    """The ``mx.lr_scheduler`` object of ``(class, arguments)``."""
    return getattr(mx.lr_scheduler, spec[0])(**spec[1])


def values(sched: Any) -> list[float]:
    """The learning rates one schedule gives at updates 0..19, asked in that order."""
    return [sched(n) for n in range(20)]


def optimizer(mx: Any, name: str, kwargs: dict) -> Any:
    """The optimizer of a case, with the case's per-parameter multipliers."""
    kwargs = dict(kwargs)
    if kwargs.pop("lr_scheduler", None) == "factor":
        kwargs["lr_scheduler"] = schedule(mx, FACTOR)
    opt = mx.optimizer.create(name, param_idx2name=NAMES, **kwargs)
    opt.set_lr_mult({"fc_bias": 2.0})
    opt.set_wd_mult({"fc_weight": 3.0})
    return opt


def update_sequence(mx: Any, name: str, kwargs: dict, dtype: str, value: Any) -> dict:
    """:data:`STEPS` list calls of an updater of the case's optimizer on weights of
    :data:`SHAPES` in ``dtype``; ``value(key, shape, dtype)`` gives the starting weights
    (``w0_<i>``) and each step's gradients (``g<step>_<i>``). Returns those and the weights after
    each step (``w<step + 1>_<i>``), by key."""
    upd = mx.optimizer.get_updater(optimizer(mx, name, kwargs))
    rec = {f"w0_{i}": value(f"w0_{i}", s, dtype) for i, s in enumerate(SHAPES)}
    ws = [mx.nd.array(w, dtype=dtype) for w in rec.values()]
    for step in range(STEPS):
        grads = {f"g{step}_{i}": value(f"g{step}_{i}", s, dtype) for i, s in enumerate(SHAPES)}
        rec.update(grads)
        upd([0, 1], [mx.nd.array(g, dtype=dtype) for g in grads.values()], ws)
        rec.update({f"w{step + 1}_{i}": w.asnumpy() for i, w in enumerate(ws)})
    return rec
