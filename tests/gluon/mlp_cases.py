"""The small Gluon networks built the same way on MXNet 1.9.1 and on mxlite (``mx`` is either):
``tools/golden/cases/gluon.py`` records what MXNet names and computes (the training run of
:func:`train` too), test_block.py, test_hybrid_block.py and test_trainer.py compare."""

from __future__ import annotations

import json
from typing import Any

# the optimizers of the short training run: name -> arguments
OPTIMIZERS = {"sgd": {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-3},
              "adam": {"learning_rate": 0.01}}  # fmt: skip


def make_mlp(mx: Any) -> Any:
    nn = mx.gluon.nn
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(8, activation="relu"), nn.BatchNorm(), nn.Dense(3))
    return net


def train(
    mx: Any, params: str, x: Any, label: Any, opt: str, hybrid: bool, steps: int = 8
) -> tuple:
    """The short training run: the MLP from the parameter file ``params``, hybridized or not,
    ``steps`` full-batch steps of ``opt`` (:data:`OPTIMIZERS`) on softmax cross-entropy:
    the network, its Trainer and each step's mean loss (before the update)."""
    net = make_mlp(mx)
    net.load_parameters(params)
    if hybrid:
        net.hybridize()
    trainer = mx.gluon.Trainer(net.collect_params(), opt, OPTIMIZERS[opt])
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    values = []
    for _ in range(steps):
        with mx.autograd.record():
            loss = loss_fn(net(mx.nd.array(x)), mx.nd.array(label))
        loss.backward()
        trainer.step(x.shape[0])
        values.append(float(loss.mean().asscalar()))
    return net, trainer, values


def inner_class(mx: Any) -> type:
    """A block with a child, a parameter of its own and a nested sequence."""
    nn = mx.gluon.nn

    class _Inner(mx.gluon.HybridBlock):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense = nn.Dense(3)
                self.extra = self.params.get("extra", shape=(3,))
                self.body = nn.HybridSequential()
                self.body.add(nn.Dense(4), nn.BatchNorm())

        def hybrid_forward(self, F: Any, x: Any, extra: Any) -> Any:
            return F.broadcast_add(self.body(self.dense(x)).sum(axis=1, keepdims=True), extra)

    return _Inner


def block_names(mx: Any) -> dict:
    """Parameter names (full and structural) and prefixes of nested blocks, and the node names
    of the MLP's symbol after hybridize; call it in a fresh name scope."""
    nn, inner = mx.gluon.nn, inner_class(mx)
    a, b, seq = inner(), inner(prefix="custom_"), nn.Sequential()
    with seq.name_scope():
        seq.add(nn.Dense(2), inner(), nn.Conv2D(2, 1), nn.Dense(2, prefix="named_"))
    names = {}
    for key, block in (("inner", a), ("custom", b), ("seq", seq)):
        names[key] = {"full": list(block.collect_params().keys()),
                      "structural": sorted(block._collect_params_with_prefix()),
                      "prefix": block.prefix}  # fmt: skip
    net = make_mlp(mx)
    net.initialize()
    net.hybridize()
    net(mx.nd.ones((2, 5)))
    names["mlp_nodes"] = [n["name"] for n in json.loads(net._cached_graph[1].tojson())["nodes"]]
    names["mlp_prefix"] = net.prefix
    return names
