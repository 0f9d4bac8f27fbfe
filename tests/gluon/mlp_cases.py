"""The small Gluon networks built the same way on MXNet 1.9.1 and on mxlite (``mx`` is either):
``tools/golden/cases/gluon.py`` records what MXNet names and computes (the training run of
:func:`train` too, and a step of each layer and loss of its tables), test_block.py,
test_hybrid_block.py, test_trainer.py, nn/test_layers.py and test_loss.py compare."""

from __future__ import annotations

import contextlib
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


def layer_step(
    mx: Any, ctor: str, x: Any, values: Any, head: Any, hybridize: bool = False
) -> tuple:
    """One training step of the layer ``ctor`` (``nn.…``, evaluated with ``nn`` in scope) on the
    NDArray ``x`` (indices for an Embedding, which takes no input gradient): each parameter is
    set to ``values(name, parameter)`` (kept where None), the layer hybridized or not (through
    the executor even for one operator), its output run backward from ``head(shape)``. Returns
    the parameters by structural name, their values before the step, the output and the head."""
    block = eval(ctor, {"nn": mx.gluon.nn})  # noqa: S307 (the golden table's constructors)
    block.initialize(mx.init.Normal(0.5))
    block(x)  # finish deferred initialization
    params = block._collect_params_with_prefix()
    for name, p in params.items():
        value = values(name, p)
        if value is not None:
            p.set_data(mx.nd.array(value))
    before = {name: p.data().asnumpy() for name, p in params.items()}
    if hybridize:
        block.hybridize(inline_limit=0)
    if not ctor.startswith("nn.Embedding"):
        x.attach_grad()
    with mx.autograd.record():
        y = block(x)
    h = head(y.shape)
    y.backward(mx.nd.array(h))
    return params, before, y, h


def loss_step(mx: Any, ctor: str, arrays: list, wrt: list, hybridize: bool = False) -> Any:
    """The loss ``ctor`` (``gluon.loss.…``) of the NDArrays ``arrays``, hybridized or not; where
    ``wrt`` (the positions given a gradient) is not empty, recorded and run backward. Its
    value."""
    loss = eval(ctor, {"gluon": mx.gluon})  # noqa: S307 (the golden table's constructors)
    if hybridize:
        loss.hybridize()
    for i in wrt:
        arrays[i].attach_grad()
    with mx.autograd.record() if wrt else contextlib.nullcontext():
        value = loss(*arrays)
    if wrt:
        value.backward()
    return value
