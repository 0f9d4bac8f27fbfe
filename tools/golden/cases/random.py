"""The deterministic facts of MXNet 1.9.1's random sampling (tests/operator/test_random.py).
Random streams cannot match MXNet's, so the file holds, in the metadata-only entry ``random``,
only what does not depend on them:

* ``cases``: calls of ``mx.nd`` functions (``func`` is a dotted path under ``mx.nd``; NDArray
  arguments are ``{"nd": values, "dtype": name}``) with, for each, the output shapes and
  dtypes or ``"error": true``; where the values are certain (a one-point distribution) also
  the values, and where ``grad`` is set the input gradients of autograd with head gradient
  ``head`` (per output).
* ``params``: for each operator, its parameters as MXNet's docstring lists them:
  ``[name, type words, default text or null when required]``.
* ``arguments``: each operator's input names (``list_arguments`` of its symbol).
"""

from __future__ import annotations

import json
import re
from typing import Any

import mxnet as mx
import numpy as np

FILE = "tests/operator/golden/random.npz"
SEED = 0


def nd(values, dtype="float32"):
    return {"nd": values, "dtype": dtype}


DISTS = ["uniform", "normal", "gamma", "exponential", "poisson", "negative_binomial"]
DISTS.append("generalized_negative_binomial")

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


def decode(a):
    if isinstance(a, dict) and "nd" in a:
        return mx.nd.array(np.array(a["nd"]), dtype=a["dtype"])
    return a


def lookup(path: str):
    obj = mx.nd
    for part in path.split("."):
        obj = getattr(obj, part)
    return obj


def run(func, args, kwargs, extra):
    case = {"func": func, "args": args, "kwargs": kwargs, **extra}
    xs = [decode(a) for a in args]
    kw = {k: decode(v) for k, v in kwargs.items()}
    grad = extra.get("grad")
    try:
        if grad is not None:
            for i in grad:
                xs[i].attach_grad()
            with mx.autograd.record():
                out = lookup(func)(*xs, **kw)
        else:
            out = lookup(func)(*xs, **kw)
        outs = out if isinstance(out, list) else [out]
        mx.nd.waitall()
        case["shapes"] = [list(o.shape) for o in outs]
        case["dtypes"] = [np.dtype(o.dtype).name for o in outs]
        if extra.get("values"):
            case["values"] = [o.asnumpy().tolist() for o in outs]
        if grad is not None:
            head = extra.get("head")
            if head is None:
                heads = [mx.nd.ones(o.shape, dtype=o.dtype) * 2 for o in outs]
            else:
                heads = [mx.nd.array(np.array(h), dtype=o.dtype) for h, o in zip(head, outs)]
            mx.autograd.backward(outs, heads)
            case["grads"] = [xs[i].grad.asnumpy().tolist() for i in grad]
    except Exception as exc:  # noqa: BLE001  (any failure is the recorded fact)
        case["error"] = True
        case["message"] = str(exc).strip().splitlines()[-1][:200] if str(exc).strip() else ""
    return case


_PARAM_RE = re.compile(r"^(\w+) : (.+?)(?:,\s?(optional), default=(.*)|, required)?$")


def _function(op: str):
    if op.endswith("_like"):  # MXNet files these under mx.nd.random only
        return getattr(mx.nd.random, op[len("_random_") :])
    return getattr(mx.nd._internal, op)


def params_of(op: str):
    text = _function(op).__doc__.split("Parameters\n----------\n", 1)[1]
    out = []
    for line in text.splitlines():
        if not line or line.startswith(" ") or line.startswith("out :"):
            continue
        m = _PARAM_RE.match(line)
        if m is None or "NDArray" in m.group(2):
            continue
        out.append([m.group(1), m.group(2), m.group(4)])
    return out


def params_of_inputs(op: str):
    doc = _function(op).__doc__.split("Parameters\n----------\n", 1)[1]
    return [ln.split(" : ")[0] for ln in doc.splitlines() if ln.endswith(" : NDArray")]


def _jsonable(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, type):
        return np.dtype(value).name
    raise TypeError(f"cannot write {value!r} to JSON")


def record(golden: Any) -> None:
    data = {
        "cases": [run(*c) for c in CASES],
        "params": {op: params_of(op) for op in OPS},
        "arguments": {op: params_of_inputs(op) for op in OPS},
    }
    golden.put("random", json.loads(json.dumps(data, default=_jsonable)))
