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


def record(golden: Golden) -> None:
    for case, opt_name, kwargs, dtype in c.CASES:
        rng = np.random.RandomState(7)  # weights in [-1, 1), gradients in [-2, 2)

        def value(key: str, shape: tuple, dt: str, rng: np.random.RandomState = rng) -> np.ndarray:
            return rng.uniform(*((-1, 1) if key[0] == "w" else (-2, 2)), shape).astype(dt)

        meta = {"optimizer": opt_name, "kwargs": kwargs, "dtype": dtype}
        golden.put(case, meta, **c.update_sequence(mx, opt_name, kwargs, dtype, value))
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
