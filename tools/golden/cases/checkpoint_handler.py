"""``gluon.contrib.estimator.CheckpointHandler`` runs (tests/gluon/contrib/
test_checkpoint_handler.py; the scenarios of tests/gluon/contrib/checkpoint_cases.py): per
scenario, the files the handler leaves in its folder (``files``, in the metadata), the
estimator's ``max_epoch``/``max_batch`` after a resumed fit, and the network's parameters at the
end (``<param name>``); ``setup``: the examples ``x``, ``y`` and the parameters every run starts
from."""

import logging
import os
import tempfile
import warnings

import mxnet as mx
from core import Golden, load_module

FILE = "tests/gluon/contrib/golden/checkpoint_handler.npz"
c = load_module("tests/gluon/contrib/checkpoint_cases.py")


def record(golden: Golden) -> None:
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    rng = golden.rng
    x = rng.uniform(-1, 1, (12, 3)).astype("float32")
    y = rng.randint(0, 2, 12).astype("float32")
    shapes = {k: v.shape for k, v in c.make_net(mx, False).collect_params().items()}
    setup = {k: rng.uniform(-0.5, 0.5, shapes[k]).astype("float32") for k in sorted(shapes)}
    golden.put("setup", {}, x=x, y=y, **setup)
    setup.update(x=x, y=y)
    for scenario, fits in c.SCENARIOS:
        with tempfile.TemporaryDirectory() as d:
            for fit_kwargs, handler_kwargs in fits:
                net, est, handler = c.fit(mx, d, setup, fit_kwargs, handler_kwargs,
                                          scenario == "hybridized")  # fmt: skip
            meta = {"fits": fits, "files": sorted(os.listdir(d)), "max_epoch": est.max_epoch,
                    "max_batch": est.max_batch}  # fmt: skip
            meta["saved_checkpoints"] = list(handler.saved_checkpoints)
            params = {k: v.data().asnumpy() for k, v in net.collect_params().items()}
            golden.put(scenario, meta, **params)
