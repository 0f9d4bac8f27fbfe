"""Microseconds per ``c = a + b`` on shape (10,) float32: 20,000 operations then waitall,
dependent (each result feeds the next) and independent; mxlite vs MXNet 1.9.1 in one run, and
NumPy's own ``a + b`` as the floor. Issue 3 asks for mxlite <= MXNet (goal 0.5x)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import import_mx, median_time, parser, run  # noqa: E402

N = 20_000


def measure(impl: str, repeat: int) -> dict[str, float]:
    mx = import_mx(impl)
    nd = mx.nd
    a = nd.ones((10,))
    b = nd.ones((10,))
    nd.waitall()

    def dependent() -> None:
        c = a
        for _ in range(N):
            c = c + b
        nd.waitall()

    def independent() -> None:
        for _ in range(N):
            c = a + b  # noqa: F841
        nd.waitall()

    out = {
        "dependent_us": round(median_time(dependent, repeat) / N * 1e6, 2),
        "independent_us": round(median_time(independent, repeat) / N * 1e6, 2),
    }
    if impl == "mxlite":
        x, y = a.asnumpy(), b.asnumpy()

        def numpy_floor() -> None:
            for _ in range(N):
                z = x + y  # noqa: F841

        out["numpy_us"] = round(median_time(numpy_floor, repeat) / N * 1e6, 2)
    return out


if __name__ == "__main__":
    run(
        "ndarray_small_ops",
        measure,
        parser(__doc__).parse_args(),
        ["dependent_us", "independent_us"],
    )
