"""Optimizer update sequences, lr schedules and an updater states file (tests/optimizer,
tests/test_lr_scheduler.py; the runs of tests/optimizer/optimizer_cases.py, the large-batch
optimizers among them): one case per optimizer run; ``setup`` (steps, shapes, names and the lr
schedules); ``sgd_updater_after`` (weights and gradients after three updates, whose state is
saved to tests/optimizer/golden/sgd_updater.states) and ``sgd_updater_next`` (one more step)."""

import mxnet as mx
import numpy as np
from core import Golden, load_module

FILE = "tests/optimizer/golden/optimizer.npz"
c = load_module("tests/optimizer/optimizer_cases.py")


def run_case(opt_name: str, kwargs: dict, dtype: str) -> dict:
    upd = mx.optimizer.get_updater(c.optimizer(mx, opt_name, kwargs))
    rng = np.random.RandomState(7)
    w0 = [rng.uniform(-1, 1, s).astype(dtype) for s in c.SHAPES]
    grads = [[rng.uniform(-2, 2, s).astype(dtype) for s in c.SHAPES] for _ in range(c.STEPS)]
    ws = [mx.nd.array(w, dtype=dtype) for w in w0]
    rec = {f"w0_{i}": w for i, w in enumerate(w0)}
    for step in range(c.STEPS):
        rec.update({f"g{step}_{i}": g for i, g in enumerate(grads[step])})
        upd([0, 1], [mx.nd.array(g, dtype=dtype) for g in grads[step]], ws)
        rec.update({f"w{step + 1}_{i}": w.asnumpy() for i, w in enumerate(ws)})
    return rec


def record(golden: Golden) -> None:
    for case, opt_name, kwargs, dtype in c.CASES:
        meta = {"optimizer": opt_name, "kwargs": kwargs, "dtype": dtype}
        golden.put(case, meta, **run_case(opt_name, kwargs, dtype))
    schedules = {k: c.values(c.schedule(mx, v)) for k, v in c.SCHEDULES.items()}
    setup = {"steps": c.STEPS, "shapes": c.SHAPES, "names": c.NAMES, "schedules": schedules}
    golden.put("setup", setup)
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
