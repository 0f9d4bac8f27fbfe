"""The deterministic facts of MXNet 1.9.1's random sampling (tests/operator/test_random.py; the
calls of tests/operator/random_cases.py). Random streams cannot match MXNet's, so the file
holds, in the metadata-only entry ``random``, only what does not depend on them:

* ``cases``: calls of ``mx.nd`` functions (``func`` is a dotted path under ``mx.nd``; NDArray
  arguments are ``{"nd": values, "dtype": name}``) with, for each, the output shapes and
  dtypes or ``"error": true``; where the values are certain (a one-point distribution) also
  the values, and where ``grad`` is set the input gradients of autograd with head gradient
  ``head`` (per output).
* ``params``: for each operator, its parameters as MXNet's docstring lists them:
  ``[name, type words, default text or null when required]``.
* ``arguments``: each operator's input names (``list_arguments`` of its symbol).
"""

import json
import re

import mxnet as mx
import numpy as np
from core import Golden, load_module, nd_function

FILE = "tests/operator/golden/random.npz"
c = load_module("tests/operator/random_cases.py")


def run(func: str, args: list, kwargs: dict, extra: dict) -> dict:
    case = {"func": func, "args": args, "kwargs": kwargs, **extra}
    try:
        xs, outs = c.call(mx, case)
        case["shapes"] = [list(o.shape) for o in outs]
        case["dtypes"] = [np.dtype(o.dtype).name for o in outs]
        if extra.get("values"):
            case["values"] = [o.asnumpy().tolist() for o in outs]
        if extra.get("grad") is not None:
            case["grads"] = [xs[i].grad.asnumpy().tolist() for i in extra["grad"]]
    except Exception as exc:  # noqa: BLE001  (any failure is the recorded fact)
        case["error"] = True
        case["message"] = str(exc).strip().splitlines()[-1][:200] if str(exc).strip() else ""
    return case


_PARAM_RE = re.compile(r"^(\w+) : (.+?)(?:,\s?(optional), default=(.*)|, required)?$")


def params_of(op: str):
    text = nd_function(op).__doc__.split("Parameters\n----------\n", 1)[1]
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
    doc = nd_function(op).__doc__.split("Parameters\n----------\n", 1)[1]
    return [ln.split(" : ")[0] for ln in doc.splitlines() if ln.endswith(" : NDArray")]


def _jsonable(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, type):
        return np.dtype(value).name
    raise TypeError(f"cannot write {value!r} to JSON")


def record(golden: Golden) -> None:
    data = {
        "cases": [run(*case) for case in c.CASES],
        "params": {op: params_of(op) for op in c.OPS},
        "arguments": {op: params_of_inputs(op) for op in c.OPS},
    }
    golden.put("random", json.loads(json.dumps(data, default=_jsonable)))
