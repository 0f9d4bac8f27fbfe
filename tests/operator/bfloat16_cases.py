"""bfloat16 operator calls, shared by tests/operator/test_bfloat16.py and
tools/golden/cases/bf16.py (which records what MXNet 1.9.1's CPU build makes of them): each case
names an operator, its float32 inputs (cast to bfloat16 by ``amp_cast`` before the call, except
those listed in ``fp32``) and its parameters; the result is compared as raw bfloat16 bits."""

from __future__ import annotations

from typing import Any

import numpy as np

# MXNet's record dtype for bfloat16
BF16 = np.dtype([("bfloat16", np.uint16)])


def _u(rng: np.random.RandomState, shape: tuple, low: float = -2.0, high: float = 2.0) -> Any:
    return rng.uniform(low, high, shape).astype(np.float32)


def cases() -> list[tuple[str, str, list[np.ndarray], dict, list[int]]]:
    """(name, operator, inputs, parameters, indices of the inputs kept float32)."""
    rng = np.random.RandomState(11)
    x4 = _u(rng, (2, 3, 6, 6))
    v = _u(rng, (4, 6))
    return [
        ("conv", "Convolution", [x4, _u(rng, (4, 3, 3, 3)), _u(rng, (4,))],
         {"kernel": (3, 3), "num_filter": 4, "pad": (1, 1)}, []),
        ("fc", "FullyConnected", [v, _u(rng, (5, 6)), _u(rng, (5,))], {"num_hidden": 5}, []),
        ("bn", "BatchNorm", [x4, _u(rng, (3,), 0.5, 1.5), _u(rng, (3,)), _u(rng, (3,)),
                             _u(rng, (3,), 0.5, 1.5)],
         {"use_global_stats": True, "fix_gamma": False}, [1, 2, 3, 4]),
        ("pool_max", "Pooling", [x4], {"kernel": (3, 3), "pool_type": "max"}, []),
        ("pool_avg_full", "Pooling", [x4],
         {"kernel": (3, 3), "stride": (2, 2), "pool_type": "avg", "pooling_convention": "full"},
         []),
        ("relu", "Activation", [v], {"act_type": "relu"}, []),
        ("sigmoid", "Activation", [v], {"act_type": "sigmoid"}, []),
        ("tanh", "Activation", [v], {"act_type": "tanh"}, []),
        ("add", "elemwise_add", [v, _u(rng, (4, 6))], {}, []),
        ("concat", "Concat", [v, _u(rng, (4, 6))], {"dim": 1}, []),
        ("abs", "abs", [v], {}, []),
        ("sqrt", "sqrt", [_u(rng, (4, 6), 0.1, 4.0)], {}, []),
        ("square", "square", [v], {}, []),
        ("clip", "clip", [v], {"a_min": -0.5, "a_max": 0.5}, []),
        ("flatten", "Flatten", [x4], {}, []),
        ("exp", "exp", [v], {}, []),
        ("sum", "sum", [v], {"axis": 1}, []),
        ("softmax", "softmax", [v], {}, []),
    ]  # fmt: skip


def run(mx: Any, op: str, inputs: list[np.ndarray], params: dict, fp32: list[int]) -> Any:
    """The operator's first output on the case's inputs, with ``mx`` (mxnet or mxlite)."""
    xs = [mx.nd.array(a) for a in inputs]
    xs = [x if i in fp32 else mx.nd.amp_cast(x, dtype=BF16) for i, x in enumerate(xs)]
    f = getattr(mx.nd, op)
    out = f(*xs, **params)
    return out[0] if isinstance(out, (list, tuple)) else out


# values at the edges of bfloat16: ties, the float16 maximum, float32's extremes and specials
EDGES = np.array([1.0, 2.5, 3.14159, -1e-3, 65504.0, 1e38, 3.3e38, 3.4028235e38, 1e-40,
                  -0.0, np.nan, np.inf, -np.inf, 1.00390625, 1.01171875], np.float32)  # fmt: skip
