"""``mx.model.FeedForward`` runs, made the same way on MXNet 1.9.1 and on mxlite (``mx`` is
either): ``tools/golden/cases/feedforward.py`` records MXNet's parameters, predictions and
scores, ``test_feedforward.py`` compares. ``setup`` is the golden file's entry of that name: the
data ``x``, ``y``, the evaluation data ``xe``, ``ye`` and the initial parameters ``arg:<name>``
and auxiliary states ``aux:<name>``."""

from __future__ import annotations

from typing import Any

# (case, FeedForward keyword arguments, fit keyword arguments, number of contexts)
# fmt: off
CASES = [
    ("sgd_mom", {"num_epoch": 2, "learning_rate": 0.1, "momentum": 0.9, "wd": 0.001}, {}, 1),
    ("sgd_epoch_size", {"num_epoch": 2, "epoch_size": 2, "learning_rate": 0.2}, {}, 1),
    ("adam_two_ctx", {"num_epoch": 2, "optimizer": "adam", "learning_rate": 0.01}, {}, 2),
    ("sgd_two_ctx_no_kv", {"num_epoch": 1, "learning_rate": 0.1}, {"kvstore": None}, 2),
]
# fmt: on


def network(mx: Any) -> Any:
    """A small MLP with BatchNorm (so auxiliary states move too)."""
    data = mx.sym.var("data")
    h = mx.sym.FullyConnected(data, num_hidden=6, name="fc1")
    h = mx.sym.Activation(h, act_type="relu", name="relu1")
    h = mx.sym.BatchNorm(h, name="bn1")
    h = mx.sym.FullyConnected(h, num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(h, name="softmax")


def params(mx: Any, setup: Any, kind: str) -> dict[str, Any]:
    """The initial ``arg`` parameters or ``aux`` states of ``setup``, as NDArrays."""
    return {k[4:]: mx.nd.array(v) for k, v in setup.items() if k.startswith(kind + ":")}


def model(mx: Any, setup: Any, **kwargs: Any) -> Any:
    """A FeedForward of :func:`network` from the initial parameters of ``setup``."""
    return mx.model.FeedForward(network(mx), arg_params=params(mx, setup, "arg"),
                                aux_params=params(mx, setup, "aux"), **kwargs)  # fmt: skip


def fit(mx: Any, setup: Any, kwargs: dict, fit_kwargs: dict, n_ctx: int) -> Any:
    """A case's model after ``fit`` on ``n_ctx`` contexts."""
    m = model(mx, setup, ctx=[mx.cpu(i) for i in range(n_ctx)], **kwargs)
    x, y, xe, ye = setup["x"], setup["y"], setup["xe"], setup["ye"]
    m.fit(mx.io.NDArrayIter(x, y, 4), eval_data=mx.io.NDArrayIter(xe, ye, 4), **fit_kwargs)
    return m
