"""``gluon.contrib.estimator.CheckpointHandler`` runs (tests/gluon/contrib/
test_checkpoint_handler.py):
per scenario, the files the handler leaves in its folder (``files``, in the metadata), the
estimator's ``max_epoch``/``max_batch`` after a resumed fit, and the network's parameters at
the end (``<param name>``). Every run starts from the same parameters (``setup``) on the same
12 examples (3 batches of 4 per epoch); plain SGD without shuffling."""

from __future__ import annotations

import logging
import os
import tempfile
import warnings
from typing import Any

import mxnet as mx
from mxnet import gluon
from mxnet.gluon.contrib.estimator import CheckpointHandler, Estimator

FILE = "tests/gluon/contrib/golden/checkpoint_handler.npz"
SEED = 0

# (scenario, [(fit keyword arguments, handler keyword arguments), ...]): the fits run one
# after the other on one folder, each with a fresh network and estimator
# fmt: off
SCENARIOS = [
    ("epochs_max2", [({"epochs": 4}, {"max_checkpoints": 2})]),
    ("batches_period2", [({"batches": 7}, {"batch_period": 2, "epoch_period": None,
                                           "max_checkpoints": 3})]),
    ("epoch_period2", [({"epochs": 5}, {"epoch_period": 2})]),
    ("resume_epochs", [({"epochs": 2}, {}),
                       ({"epochs": 5}, {"resume_from_checkpoint": True, "max_checkpoints": 2})]),
    ("resume_batches", [({"batches": 5}, {"batch_period": 2, "epoch_period": None}),
                        ({"batches": 9}, {"batch_period": 2, "epoch_period": None,
                                          "resume_from_checkpoint": True})]),
    ("resume_nothing", [({"epochs": 2}, {"resume_from_checkpoint": True})]),
    ("save_best", [({"epochs": 3}, {"save_best": True, "mode": "max", "model_prefix": "net"})]),
    ("hybridized", [({"epochs": 1}, {"model_prefix": "h"})]),
]
# fmt: on


def make_net(hybridize: bool) -> Any:
    net = gluon.nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(gluon.nn.Dense(4, activation="relu", in_units=3))
        net.add(gluon.nn.Dense(2, in_units=4))
    net.initialize()
    if hybridize:
        net.hybridize()
    return net


def record(golden: Any) -> None:
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    rng = golden.rng
    x = rng.uniform(-1, 1, (12, 3)).astype("float32")
    y = rng.randint(0, 2, 12).astype("float32")
    names = sorted(make_net(False).collect_params().keys())
    shapes = {k: v.shape for k, v in make_net(False).collect_params().items()}
    init = {k: rng.uniform(-0.5, 0.5, shapes[k]).astype("float32") for k in names}
    golden.put("setup", {}, x=x, y=y, **init)
    for scenario, fits in SCENARIOS:
        with tempfile.TemporaryDirectory() as d:
            meta: dict[str, Any] = {"fits": fits}
            for fit_kwargs, handler_kwargs in fits:
                net = make_net(scenario == "hybridized")
                for k, p in net.collect_params().items():
                    p.set_data(mx.nd.array(init[k]))
                loss = gluon.loss.SoftmaxCrossEntropyLoss()
                trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
                acc = mx.metric.Accuracy()
                est = Estimator(net, loss, train_metrics=acc, trainer=trainer, context=mx.cpu())
                kw = dict(handler_kwargs)
                if kw.get("save_best"):
                    kw["monitor"] = acc
                handler = CheckpointHandler(d, **kw)
                loader = gluon.data.DataLoader(gluon.data.ArrayDataset(x, y), batch_size=4)
                est.fit(loader, event_handlers=[handler], **fit_kwargs)
            meta["files"] = sorted(os.listdir(d))
            meta["max_epoch"], meta["max_batch"] = est.max_epoch, est.max_batch
            meta["saved_checkpoints"] = list(handler.saved_checkpoints)
            params = {k: v.data().asnumpy() for k, v in net.collect_params().items()}
            golden.put(scenario, meta, **params)
