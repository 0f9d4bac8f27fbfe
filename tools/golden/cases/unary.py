"""Unary and misc operators (tests/operator/test_unary.py, test_misc.py): inputs drawn inside
each operator's domain in float32/64/16, one case of edge values (halves, 0, nan, poles) per
operator, integer inputs where MXNet accepts them, the parameterised ones, and creation."""

import numpy as np

FILE = "tests/operator/golden/unary.npz"
SEED = 20240917
HALVES = [-2.5, -0.5, 0.0, 0.5, 2.0, 2.5]
# op -> (low, high, edge values)
UNARY = {
    "abs": (-2, 2, [-1.5, 0.0, 2.0, -0.0]),
    "sign": (-2, 2, [-1.5, 0.0, 2.0, -0.0]),
    "round": (-3, 3, [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999997, -0.49999997]),
    "rint": (-3, 3, [-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 0.49999997]),
    "ceil": (-3, 3, HALVES),
    "floor": (-3, 3, HALVES),
    "trunc": (-3, 3, HALVES),
    "fix": (-3, 3, HALVES),
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
INT8_WRAP = {"exp", "expm1", "degrees", "tan", "negative", "sqrt", "gamma", "square"}
NO_GRAD = {"grad": False}
CREATION = [
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


def cases(rng: np.random.RandomState):
    for op, (lo, hi, edge) in UNARY.items():
        for dt in ("float32", "float64") + (() if op in NO_FP16 else ("float16",)):
            yield f"{op}-{dt}", op, [rng.uniform(lo, hi, size=(3, 4)).astype(dt)], {}, {}
        yield f"{op}-edge", op, [np.array(edge, "float32")], {}, {"grad": op != "rcbrt"}
        if op != "erfinv":
            for dt in ("int32", "uint8") + (("int8",) if op in INT8_WRAP else ()):
                v = rng.randint(0 if dt == "uint8" else -5, 6, size=(8,)).astype(dt)
                yield f"{op}-{dt}", op, [v], {}, NO_GRAD
    x = rng.uniform(-3, 3, size=(3, 4)).astype("float32")
    for i, (a, b) in enumerate([(0.2, 0.5), (0.7, 0.1)]):
        yield f"hard_sigmoid-{i}", "hard_sigmoid", [x], {"alpha": a, "beta": b}, {}
    for dt in ("float64", "float16"):
        yield f"hard_sigmoid-{dt}", "hard_sigmoid", [x.astype(dt)], {}, {}
    for i, s in enumerate([1.0, 0.5, 2.0]):
        yield f"smooth_l1-{i}", "smooth_l1", [x], {"scalar": s}, {}
    yield "smooth_l1-float64", "smooth_l1", [x.astype("float64")], {"scalar": 1.5}, {}
    edge = np.array([-1, 1, 0, 0.25, -0.25], "float32")
    yield "smooth_l1-edge", "smooth_l1", [edge], {"scalar": 2.0}, {}
    for op in ("Cast", "cast"):
        for dt in ("float64", "float16", "int32", "uint8"):
            opts = {"grad": dt.startswith("float"), "head_dtype": dt}
            yield f"{op}-{dt}", op, [x], {"dtype": dt}, opts
    yield "Cast-from-int", "Cast", [np.array([1, -2, 3], "int32")], {"dtype": "float32"}, NO_GRAD
    for i, (lo, hi) in enumerate([(-1.0, 1.0), (0.3, 2.5), (-5.0, -4.0)]):
        yield f"clip-{i}", "clip", [x], {"a_min": lo, "a_max": hi}, {}
    yield "clip-float64", "clip", [x.astype("float64")], {"a_min": -0.5, "a_max": 0.5}, {}
    ints = np.arange(-4, 5, dtype="int32")
    yield "clip-int32", "clip", [ints], {"a_min": -1.5, "a_max": 2.7}, NO_GRAD
    nan = np.array([-1, 1, 0.5, np.nan], "float32")
    yield "clip-edge", "clip", [nan], {"a_min": -1.0, "a_max": 1.0}, {}
    x = rng.uniform(-3, 3, size=(3, 4)).astype("float32")
    y = rng.uniform(-3, 3, size=(3, 4)).astype("float32")
    cond = (rng.uniform(size=(3, 4)) > 0.5).astype("float32") * rng.choice([1, -2], (3, 4))
    yield "where-same", "where", [cond.astype("float32"), x, y], {}, {}
    yield "where-rows", "where", [np.array([1, 0, 3], "float32"), x, y], {}, {}
    f64 = [a.astype("float64") for a in (cond, x, y)]
    yield "where-float64", "where", f64, {}, {}
    yield "where-intcond", "where", [cond.astype("int32"), x, y], {}, NO_GRAD
    z = rng.uniform(-3, 3, size=(3, 4)).astype("float32")
    yield "add_n-3", "add_n", [x, y, z], {}, {}
    yield "add_n-1", "add_n", [x], {}, {}
    yield "ElementWiseSum-2", "ElementWiseSum", [x.astype("float64"), y.astype("float64")], {}, {}
    for op in ("zeros_like", "ones_like"):
        yield f"{op}-float32", op, [x], {}, {}
        yield f"{op}-int32", op, [np.array([1, 2, 3], "int32")], {}, NO_GRAD
    for i, (op, params) in enumerate(CREATION):
        yield f"{op}-{i}", op, [], params, NO_GRAD
