"""Calls of MXNet 1.9.1's random sampling functions whose facts do not depend on the random
streams (shapes, dtypes, errors, one-point values, gradients), made the same way on MXNet and on
mxlite (``mx`` is either): ``tools/golden/cases/random.py`` records what MXNet gives,
``test_random.py`` compares."""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np


def nd(values: Any, dtype: str = "float32") -> dict:
    """An NDArray argument, as the table and the golden file write it."""
    return {"nd": values, "dtype": dtype}


DISTS = ["uniform", "normal", "gamma", "exponential", "poisson", "negative_binomial",
         "generalized_negative_binomial"]  # fmt: skip

# (func, args, kwargs, extra) with extra: {"values": True} and/or {"grad": [...], "head": x}
# fmt: off
CASES = [
    # scalar parameters: _random_X through mx.nd.random
    ("random.uniform", [], {}, {}),
    ("random.uniform", [-1, 1], {"shape": (2, 3)}, {}),
    ("random.uniform", [0, 1], {"shape": 4, "dtype": "float64"}, {}),
    ("random.uniform", [0, 1], {"shape": (2, 2), "dtype": "float16"}, {}),
    ("random.uniform", [0, 1], {"shape": (2,), "dtype": "int32"}, {}),
    ("random.uniform", [2, 1], {"shape": 3}, {}),
    ("random.uniform", [0, 1], {"shape": 2, "dtype": None}, {}),
    ("random.uniform", [np.float32(0), 1], {"shape": 2, "dtype": np.float16}, {}),
    ("random.uniform", [1.5, 1.5], {"shape": 3}, {"values": True}),
    ("random.normal", [], {"shape": (3, 1)}, {}),
    ("random.normal", [0, 0], {"shape": 3}, {}),
    ("random.normal", [1, 2], {"shape": (2, 2), "dtype": "float64"}, {}),
    ("random.randn", [2, 3], {"loc": 5, "scale": 1}, {}),
    ("random.randn", [4], {}, {}),
    ("random.gamma", [2, 3], {"shape": (5,)}, {}),
    ("random.gamma", [0, 1], {"shape": 3}, {}),
    ("random.gamma", [1, -1], {"shape": 3}, {}),
    ("random.exponential", [2], {"shape": (2, 2)}, {}),
    ("random.exponential", [-1], {"shape": 2}, {}),
    ("random.poisson", [3], {"shape": (4,), "dtype": "float16"}, {}),
    ("random.poisson", [0], {"shape": (4,)}, {"values": True}),
    ("random.poisson", [-1], {"shape": (4,)}, {}),
    ("random.negative_binomial", [3, 0.4], {"shape": (2, 3)}, {}),
    ("random.negative_binomial", [0, 0.5], {"shape": (3,)}, {"values": True}),
    ("random.negative_binomial", [2, 1.0], {"shape": (3,)}, {"values": True}),
    ("random.negative_binomial", [2.5, 0.5], {"shape": (3,)}, {}),
    ("random.negative_binomial", [-1, 0.5], {"shape": (3,)}, {}),
    ("random.generalized_negative_binomial", [2.0, 0.3], {"shape": (2, 2)}, {}),
    ("random.generalized_negative_binomial", [0.0, 0.0], {"shape": (3,)}, {"values": True}),
    ("random.generalized_negative_binomial", [-1.0, 0.5], {"shape": (3,)}, {}),
    ("random.randint", [0, 10], {"shape": (3, 2)}, {}),
    ("random.randint", [-5, 5], {"shape": 4, "dtype": "int64"}, {}),
    ("random.randint", [0, 10], {"shape": 4, "dtype": "float32"}, {}),
    ("random.randint", [5, 4], {"shape": 4}, {}),
    ("random.randint", [3, 4], {"shape": 4}, {"values": True}),
    ("random.randint", [0.5, 4], {"shape": 4}, {}),
    # public aliases of the scalar forms
    ("random_uniform", [], {"low": 2, "high": 2, "shape": (2,)}, {"values": True}),
    ("uniform", [], {"shape": (1, 2)}, {}),
    ("normal", [], {"shape": (3,), "dtype": "float64"}, {}),
    ("random_normal", [], {"shape": (3,)}, {}),
    ("random_gamma", [], {"shape": (3,)}, {}),
    ("random_exponential", [], {"shape": (3,)}, {}),
    ("random_poisson", [], {"lam": 0, "shape": (2,)}, {"values": True}),
    ("random_negative_binomial", [], {"shape": (3,)}, {}),
    ("random_generalized_negative_binomial", [], {"shape": (3,)}, {}),
    ("random_randint", [], {"low": 0, "high": 3, "shape": (3,)}, {}),
    ("_internal._random_uniform", [], {}, {}),
    ("_internal._random_uniform", [], {"shape": (2, 0)}, {}),
    # the _like forms
    ("random.uniform_like", [nd([[0, 1, 2]])], {"low": 1, "high": 1}, {"values": True}),
    ("random.normal_like", [nd([[0, 1], [2, 3]], "float64")], {}, {"grad": [0]}),
    ("random.gamma_like", [nd([0, 1], "float16")], {"alpha": 2}, {}),
    ("random.exponential_like", [nd([0, 1, 2])], {"lam": 2}, {}),
    ("random.poisson_like", [nd([0, 1, 2])], {"lam": 0}, {"values": True}),
    ("random.poisson_like", [nd([0, 1, 2])], {"lam": -1}, {}),
    ("random.negative_binomial_like", [nd([0, 1, 2])], {"k": 2, "p": 0.5}, {}),
    ("random.generalized_negative_binomial_like", [nd([0, 1])], {"mu": 1}, {}),
    ("random.uniform_like", [nd([0, 1, 2], "int32")], {}, {}),
    # NDArray parameters: _sample_X through mx.nd.random
    ("random.uniform", [nd([0, 1]), nd([1, 2])], {"shape": (3, 4)}, {}),
    ("random.uniform", [nd([[0, 1]]), nd([[1, 2]])], {}, {"grad": [0, 1]}),
    ("random.uniform", [nd([1, 2], "float64"), nd([1, 2], "float64")], {}, {"values": True}),
    ("random.uniform", [nd([0, 1], "int32"), nd([1, 2], "int32")], {"shape": 2}, {}),
    ("random.uniform", [nd([0, 1]), nd([1, 2], "float64")], {}, {}),
    ("random.uniform", [nd([0, 1]), nd([1, 2, 3])], {}, {}),
    ("random.uniform", [nd([0, 1]), 2], {}, {}),
    ("random.uniform", [nd([0, 1]), nd([1, 2])], {"shape": (2, 0)}, {}),
    ("random.normal", [nd([0, 1]), nd([1, 2])], {"shape": 2, "dtype": "float64"}, {}),
    ("random.normal", [nd([5.0]), nd([1.0])], {"shape": 3}, {"grad": [0, 1]}),
    ("random.randn", [2], {"loc": nd([0, 1]), "scale": nd([1, 1])}, {}),
    ("random.gamma", [nd([1, 2]), nd([1, 1])], {"shape": (3,), "dtype": "float16"}, {}),
    ("random.exponential", [nd([1, 2])], {"shape": 2}, {}),
    ("random.poisson", [nd([0, 0], "float64")], {"shape": 2}, {"values": True}),
    ("random.poisson", [nd([1, 2], "uint8")], {"shape": (2, 2)}, {}),
    ("random.negative_binomial", [nd([1, 2]), nd([0.5, 1.0])], {"shape": 2}, {}),
    ("random.generalized_negative_binomial", [nd([0, 0]), nd([0, 0])], {}, {"values": True}),
    ("random.randint", [nd([0]), nd([2])], {}, {}),
    ("sample_uniform", [nd([0, 1]), nd([1, 2])], {"shape": 2}, {}),
    ("sample_normal", [nd([0, 1]), nd([1, 2])], {}, {}),
    ("sample_gamma", [nd([1, 2]), nd([1, 2])], {"dtype": "float64"}, {}),
    ("sample_exponential", [nd([1, 2])], {"shape": (1, 2)}, {}),
    ("sample_poisson", [nd([1, 2])], {}, {}),
    ("sample_negative_binomial", [nd([1, 2]), nd([0.5, 0.5])], {}, {}),
    ("sample_generalized_negative_binomial", [nd([1, 2]), nd([0.5, 0.5])], {}, {}),
    ("_internal._sample_uniform", [nd([[0, 1], [2, 3]]), nd([[1, 2], [3, 4]])], {"shape": 3}, {}),
    ("_internal._sample_poisson", [nd([1.0, 2.0])], {"shape": (2,), "dtype": "int32"}, {}),
    # multinomial
    ("random.multinomial", [nd([0.1, 0.9])], {}, {}),
    ("random.multinomial", [nd([0.1, 0.9])], {"shape": (2, 3)}, {}),
    ("random.multinomial", [nd([[0.1, 0.9]] * 4)], {"shape": (2, 3), "get_prob": True}, {}),
    ("random.multinomial", [nd([[0.1, 0.9]] * 4, "float64")], {"get_prob": True}, {}),
    ("random.multinomial", [nd([[0.1, 0.9]] * 4, "float16")], {"dtype": "float32"}, {}),
    ("random.multinomial", [nd([[0.1, 0.9]] * 4)], {"dtype": "uint8", "shape": 2}, {}),
    ("random.multinomial", [nd([[0.1, 0.9]] * 4, "int32")], {}, {}),
    ("random.multinomial", [nd([[0.1, 0.9]] * 4)], {"dtype": "int64"}, {}),
    ("random.multinomial", [nd([[0.1, 0.9]] * 4)], {"shape": (2, 0)}, {}),
    ("random.multinomial", [nd([[0, 1, 0], [1, 0, 0], [0, 0, 1]])], {"shape": 2, "get_prob": True},
     {"values": True, "grad": [0], "head": [[[1, 2], [3, 4], [5, 6]], [[1, 1], [2, 2], [3, 3]]]}),
    ("random.multinomial", [nd([[0, 1, 0], [1, 0, 0]], "float64")], {"shape": 3},
     {"values": True, "grad": [0]}),
    ("sample_multinomial", [nd([[0.0, 0.0, 1.0]])], {}, {"values": True}),
    # shuffle
    ("random.shuffle", [nd([[1, 2], [3, 4], [5, 6]])], {}, {}),
    ("random.shuffle", [nd([7, 7, 7], "int32")], {}, {"values": True}),
    ("random.shuffle", [nd([[[1.0]]], "float64")], {}, {"values": True}),
    ("shuffle", [nd([[1, 2], [1, 2]], "float16")], {}, {"values": True}),
    ("_internal._shuffle", [nd([[1, 2, 3]] * 3, "uint8")], {}, {"values": True}),
]
# fmt: on

OPS = (
    [f"_random_{d}" for d in DISTS]
    + ["_random_randint"]
    + [f"_random_{d}_like" for d in DISTS]
    + [f"_sample_{d}" for d in DISTS]
    + ["_sample_multinomial", "_shuffle"]
)


def decode(mx: Any, a: Any) -> Any:
    if isinstance(a, dict) and "nd" in a:
        return mx.nd.array(np.array(a["nd"]), dtype=a["dtype"])
    return tuple(a) if isinstance(a, list) else a  # JSON wrote the tuples as lists


def lookup(mx: Any, path: str) -> Any:
    obj = mx.nd
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def call(mx: Any, case: dict) -> tuple[list, list]:
    """Run one case (``func``, ``args``, ``kwargs``, and ``grad``, ``head`` where set): its
    inputs and outputs, after the backward pass where the case takes gradients."""
    xs = [decode(mx, a) for a in case["args"]]
    kw = {k: decode(mx, v) for k, v in case["kwargs"].items()}
    grad = case.get("grad")
    for i in grad or ():
        xs[i].attach_grad()
    with mx.autograd.record() if grad is not None else contextlib.nullcontext():
        out = lookup(mx, case["func"])(*xs, **kw)
    outs = out if isinstance(out, list) else [out]
    for o in outs:
        o.wait_to_read()
    if grad is not None:
        head = case.get("head")
        if head is None:
            heads = [mx.nd.ones(o.shape, dtype=o.dtype) * 2 for o in outs]
        else:
            heads = [mx.nd.array(np.array(h), dtype=o.dtype) for h, o in zip(head, outs)]
        mx.autograd.backward(outs, heads)
    return xs, outs
