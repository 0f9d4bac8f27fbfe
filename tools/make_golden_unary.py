"""Record golden values of the unary and misc operators from real MXNet 1.9.1.

Run with MXNet's interpreter (never imports mxlite):

    /tmp/mxref/bin/python tools/make_golden_unary.py

Writes tests/operator/golden/unary.npz (arrays "<case>/in<i>", "<case>/out",
"<case>/head", "<case>/grad<i>") and unary.json (case -> op, params, number of inputs,
whether gradients were recorded). Fixed seeds; inputs are drawn inside each operator's domain,
plus one case of edge values (halves, 0, nan, poles) per operator.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import mxnet as mx
import numpy as np

OUT = Path(__file__).resolve().parent.parent / "tests" / "operator" / "golden"
RNG = np.random.RandomState(20240917)

# op -> (low, high, edge values)
UNARY = {
    "abs": (-2, 2, [-1.5, 0.0, 2.0, -0.0]),
    "sign": (-2, 2, [-1.5, 0.0, 2.0, -0.0]),
    "round": (-3, 3, [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997, -0.49999997]),
    "rint": (-3, 3, [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.49999997]),
    "ceil": (-3, 3, [-2.5, -0.5, 0.0, 0.5, 2.0, 2.5]),
    "floor": (-3, 3, [-2.5, -0.5, 0.0, 0.5, 2.0, 2.5]),
    "trunc": (-3, 3, [-2.5, -0.5, 0.0, 0.5, 2.0, 2.5]),
    "fix": (-3, 3, [-2.5, -0.5, 0.0, 0.5, 2.0, 2.5]),
    "square": (-2, 2, [0.0, -3.0, 1e3]),
    "sqrt": (0.1, 4, [0.0, 1.0, 4.0, 9.0]),
    "rsqrt": (0.1, 4, [1.0, 4.0, 0.25]),
    "cbrt": (-4, 4, [-8.0, 0.5, 27.0]),
    "rcbrt": (0.1, 4, [-8.0, 0.5, 27.0]),
    "exp": (-3, 3, [0.0, -20.0, 10.0]),
    "expm1": (-3, 3, [0.0, 1e-6, -1e-6]),
    "log": (0.1, 5, [1.0, 1e-3, 100.0]),
    "log10": (0.1, 5, [1.0, 10.0, 1e-3]),
    "log2": (0.1, 5, [1.0, 8.0, 0.125]),
    "log1p": (-0.5, 3, [0.0, 1e-6, -0.9]),
    "sin": (-3, 3, [0.0, 1.5707964]),
    "cos": (-3, 3, [0.0, 3.1415927]),
    "tan": (-1.2, 1.2, [0.0, 0.7853982]),
    "arcsin": (-0.95, 0.95, [0.0, 1.0, -1.0]),
    "arccos": (-0.95, 0.95, [0.0, 1.0, -1.0]),
    "arctan": (-3, 3, [0.0, 1e3]),
    "sinh": (-3, 3, [0.0]),
    "cosh": (-3, 3, [0.0]),
    "tanh": (-3, 3, [0.0, 20.0]),
    "arcsinh": (-3, 3, [0.0]),
    "arccosh": (1.1, 4, [1.0, 1.5]),
    "arctanh": (-0.9, 0.9, [0.0, 0.5]),
    "degrees": (-3, 3, [0.0, 3.1415927]),
    "radians": (-180, 180, [0.0, 180.0]),
    "reciprocal": (0.2, 3, [-0.5, 2.0, 4.0]),
    "negative": (-3, 3, [0.0, 1.0]),
    "relu": (-2, 2, [0.0, -0.0, 1.0, -1.0]),
    "sigmoid": (-4, 4, [0.0, 30.0, -30.0]),
    "softsign": (-4, 4, [0.0, 1.0, -1.0]),
    "erf": (-2.5, 2.5, [0.0, 3.5, -0.1]),
    "erfinv": (-0.95, 0.95, [0.0, 0.999, -0.5]),
    "gamma": (0.2, 4.5, [1.0, 2.0, 0.5, -0.5, -1.5, 5.5]),
    "gammaln": (0.2, 4.5, [1.0, 2.0, 0.5, -0.5, -1.5, 10.5]),
    "logical_not": (-1, 1, [0.0, 1.0, -2.0]),
    "identity": (-2, 2, [0.0]),
    "_copy": (-2, 2, [0.0]),
    "BlockGrad": (-2, 2, [0.0]),
    "stop_gradient": (-2, 2, [0.0]),
}
NO_FP16 = {"erfinv", "gamma", "gammaln"}  # half precision makes these too coarse to compare
INT_FORWARD = [o for o in UNARY if o not in ("erfinv",)]
INT8_WRAP = {"exp", "expm1", "degrees", "tan", "negative", "sqrt", "gamma", "square"}

cases: dict[str, dict] = {}
arrays: dict[str, np.ndarray] = {}


def fn(op: str):
    f = getattr(mx.nd, op, None)
    return f if f is not None else getattr(mx.nd._internal, op)


def record(
    name: str,
    op: str,
    inputs: list[np.ndarray],
    params: dict,
    grad: bool = True,
    head_dtype: str | None = None,
) -> None:
    xs = [mx.nd.array(a, dtype=a.dtype) for a in inputs]
    if grad:
        for x in xs:
            x.attach_grad()
        with mx.autograd.record():
            y = fn(op)(*xs, **params)
        ydt = head_dtype or str(y.dtype.__name__ if hasattr(y.dtype, "__name__") else y.dtype)
        head = RNG.uniform(-1, 1, size=y.shape).astype(ydt)
        y.backward(mx.nd.array(head, dtype=head.dtype))
        arrays[f"{name}/head"] = head
        for i, x in enumerate(xs):
            arrays[f"{name}/grad{i}"] = x.grad.asnumpy()
    else:
        y = fn(op)(*xs, **params)
    for i, a in enumerate(inputs):
        arrays[f"{name}/in{i}"] = a
    arrays[f"{name}/out"] = y.asnumpy()
    cases[name] = {"op": op, "params": params, "n_in": len(inputs), "grad": grad}


def unary_cases() -> None:
    for op, (lo, hi, edge) in UNARY.items():
        for dt in ("float32", "float64", "float16"):
            if dt == "float16" and op in NO_FP16:
                continue
            x = RNG.uniform(lo, hi, size=(3, 4)).astype(dt)
            record(f"{op}-{dt}", op, [x], {})
        e = np.array(edge, dtype="float32")
        record(f"{op}-edge", op, [e], {}, grad=op not in ("rcbrt",))
        if op in INT_FORWARD:
            for dt in ("int32", "uint8") + (("int8",) if op in INT8_WRAP else ()):
                vals = RNG.randint(0 if dt == "uint8" else -5, 6, size=(8,)).astype(dt)
                record(f"{op}-{dt}", op, [vals], {}, grad=False)


def param_cases() -> None:
    x = RNG.uniform(-3, 3, size=(3, 4)).astype("float32")
    for i, (a, b) in enumerate([(0.2, 0.5), (0.7, 0.1)]):
        record(f"hard_sigmoid-{i}", "hard_sigmoid", [x], {"alpha": a, "beta": b})
    record("hard_sigmoid-float64", "hard_sigmoid", [x.astype("float64")], {})
    record("hard_sigmoid-float16", "hard_sigmoid", [x.astype("float16")], {})
    for i, s in enumerate([1.0, 0.5, 2.0]):
        record(f"smooth_l1-{i}", "smooth_l1", [x], {"scalar": s})
    record("smooth_l1-float64", "smooth_l1", [x.astype("float64")], {"scalar": 1.5})
    record(
        "smooth_l1-edge",
        "smooth_l1",
        [np.array([-1, 1, 0, 0.25, -0.25], "float32")],
        {"scalar": 2.0},
    )
    for op in ("Cast", "cast"):
        for dt in ("float64", "float16", "int32", "uint8"):
            record(f"{op}-{dt}", op, [x], {"dtype": dt}, grad=dt.startswith("float"), head_dtype=dt)
    record(
        "Cast-from-int", "Cast", [np.array([1, -2, 3], "int32")], {"dtype": "float32"}, grad=False
    )
    for i, (lo, hi) in enumerate([(-1.0, 1.0), (0.3, 2.5), (-5.0, -4.0)]):
        record(f"clip-{i}", "clip", [x], {"a_min": lo, "a_max": hi})
    record("clip-float64", "clip", [x.astype("float64")], {"a_min": -0.5, "a_max": 0.5})
    record(
        "clip-int32",
        "clip",
        [np.arange(-4, 5, dtype="int32")],
        {"a_min": -1.5, "a_max": 2.7},
        grad=False,
    )
    record(
        "clip-edge",
        "clip",
        [np.array([-1, 1, 0.5, np.nan], "float32")],
        {"a_min": -1.0, "a_max": 1.0},
    )


def misc_cases() -> None:
    x = RNG.uniform(-3, 3, size=(3, 4)).astype("float32")
    y = RNG.uniform(-3, 3, size=(3, 4)).astype("float32")
    cond = (RNG.uniform(size=(3, 4)) > 0.5).astype("float32") * RNG.choice([1, -2], (3, 4))
    record("where-same", "where", [cond.astype("float32"), x, y], {})
    record("where-rows", "where", [np.array([1, 0, 3], "float32"), x, y], {})
    record(
        "where-float64",
        "where",
        [cond.astype("float64"), x.astype("float64"), y.astype("float64")],
        {},
    )
    record("where-intcond", "where", [cond.astype("int32"), x, y], {}, grad=False)
    z = RNG.uniform(-3, 3, size=(3, 4)).astype("float32")
    record("add_n-3", "add_n", [x, y, z], {})
    record("add_n-1", "add_n", [x], {})
    record("ElementWiseSum-2", "ElementWiseSum", [x.astype("float64"), y.astype("float64")], {})
    for op in ("zeros_like", "ones_like"):
        record(f"{op}-float32", op, [x], {})
        record(f"{op}-int32", op, [np.array([1, 2, 3], "int32")], {}, grad=False)
    creation = [
        ("_zeros", {"shape": (2, 3)}),
        ("_zeros", {"shape": (2,), "dtype": "int32"}),
        ("_ones", {"shape": (3, 1), "dtype": "float64"}),
        ("_ones", {"shape": (4,), "dtype": "uint8"}),
        ("_full", {"shape": (2, 2), "value": 2.7}),
        ("_full", {"shape": (3,), "value": -2.7, "dtype": "int32"}),
        ("_full", {"shape": (3,), "value": 0.1, "dtype": "float64"}),
        ("_arange", {"start": 3}),
        ("_arange", {"start": 1, "stop": 4, "step": 0.5, "repeat": 2}),
        ("_arange", {"start": 5, "stop": 1, "step": -1.5, "dtype": "int32"}),
        ("_arange", {"start": 1.5, "stop": 5, "dtype": "int32"}),
        ("_arange", {"start": -3.7, "stop": 3, "dtype": "uint8"}),
        ("_arange", {"start": 0.1, "stop": 2.0, "step": 0.3, "dtype": "float64"}),
        ("_arange", {"start": 0, "stop": 1, "step": 0.1, "dtype": "float16"}),
        ("_eye", {"N": 3}),
        ("_eye", {"N": 3, "M": 4, "k": 1, "dtype": "int32"}),
        ("_eye", {"N": 3, "k": -5}),
        ("_eye", {"N": 2, "M": 3, "k": -1}),
        ("_linspace", {"start": 0, "stop": 1, "num": 5}),
        ("_linspace", {"start": -1, "stop": 2, "num": 4, "endpoint": False, "dtype": "float64"}),
        ("_linspace", {"start": 0, "stop": 10, "num": 7, "dtype": "int32"}),
        ("_linspace", {"start": 0, "stop": 1, "num": 1}),
    ]
    for i, (op, params) in enumerate(creation):
        cases[f"{op}-{i}"] = {"op": op, "params": params, "n_in": 0, "grad": False}
        arrays[f"{op}-{i}/out"] = fn(op)(**params).asnumpy()


def main() -> None:
    unary_cases()
    param_cases()
    misc_cases()
    OUT.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT / "unary.npz", **arrays)
    (OUT / "unary.json").write_text(json.dumps(cases, indent=0, sort_keys=True) + "\n")
    size = (OUT / "unary.npz").stat().st_size
    print(
        f"{len(cases)} cases, {len(arrays)} arrays, {size / 1024:.0f} KB, "
        f"mxnet {mx.__version__}, pi={math.pi:.3f}"
    )


if __name__ == "__main__":
    main()
