"""Large operations where the kernel dominates: element-wise ``a + b`` on 4096x4096 float32
(allocating a new result) and a 1024x1024x1024 ``dot``, in milliseconds; mxlite vs NumPy
directly (required: at most 1.1x NumPy) and MXNet 1.9.1 in the same run."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import import_mx, median_time, parser, run  # noqa: E402


def measure(impl: str, repeat: int) -> dict[str, float]:
    mx = import_mx(impl)
    nd = mx.nd
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4096, 4096), dtype=np.float32)
    y = rng.standard_normal((4096, 4096), dtype=np.float32)
    p = rng.standard_normal((1024, 1024), dtype=np.float32)
    q = rng.standard_normal((1024, 1024), dtype=np.float32)
    a, b, m, n = nd.array(x), nd.array(y), nd.array(p), nd.array(q)
    nd.waitall()

    def add() -> None:
        c = a + b
        c.wait_to_read()

    def dot() -> None:
        c = nd.dot(m, n)
        c.wait_to_read()

    out = {
        "add_ms": round(median_time(add, repeat) * 1e3, 2),
        "dot_ms": round(median_time(dot, repeat) * 1e3, 2),
    }
    if impl == "mxlite":
        out["numpy_add_ms"] = round(median_time(lambda: x + y, repeat) * 1e3, 2)
        out["numpy_dot_ms"] = round(median_time(lambda: p @ q, repeat) * 1e3, 2)
        out["add_vs_numpy"] = round(out["add_ms"] / out["numpy_add_ms"], 3)
        out["dot_vs_numpy"] = round(out["dot_ms"] / out["numpy_dot_ms"], 3)
    return out


if __name__ == "__main__":
    run("ndarray_large_ops", measure, parser(__doc__).parse_args(), ["add_ms", "dot_ms"])
