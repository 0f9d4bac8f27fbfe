"""CheckpointHandler runs, made the same way on MXNet 1.9.1 and on mxlite (``mx`` is either):
``tools/golden/cases/checkpoint_handler.py`` records MXNet's files and parameters,
``test_checkpoint_handler.py`` compares. Every run starts from the same parameters on the same
12 examples (3 batches of 4 per epoch); plain SGD without shuffling."""

from __future__ import annotations

from importlib import import_module
from typing import Any

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


def make_net(mx: Any, hybridize: bool, init: Any = None) -> Any:
    """The two-layer network, its parameters set to ``init`` (name -> array) when given."""
    net = mx.gluon.nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(4, activation="relu", in_units=3))
        net.add(mx.gluon.nn.Dense(2, in_units=4))
    net.initialize()
    for k, p in net.collect_params().items() if init is not None else ():
        p.set_data(mx.nd.array(init[k]))
    if hybridize:
        net.hybridize()
    return net


def fit(mx: Any, folder: str, setup: Any, fit_kwargs: dict, handler_kwargs: dict,
        hybridize: bool) -> tuple:  # fmt: skip
    """One fit of a fresh network (``setup``: ``x``, ``y`` and the parameters) and estimator
    with a CheckpointHandler on ``folder``: the network, the estimator and the handler."""
    est_mod = import_module(f"{mx.__name__}.gluon.contrib.estimator")
    gluon = mx.gluon
    net = make_net(mx, hybridize, setup)
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    acc = mx.metric.Accuracy()
    est = est_mod.Estimator(net, gluon.loss.SoftmaxCrossEntropyLoss(), train_metrics=acc,
                            trainer=trainer, context=mx.cpu())  # fmt: skip
    kw = dict(handler_kwargs)
    if kw.get("save_best"):
        kw["monitor"] = acc
    handler = est_mod.CheckpointHandler(folder, **kw)
    data = gluon.data.ArrayDataset(setup["x"], setup["y"])
    est.fit(gluon.data.DataLoader(data, batch_size=4), event_handlers=[handler], **fit_kwargs)
    return net, est, handler
