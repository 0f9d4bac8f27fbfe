"""Microseconds per ``c = a + b`` on mx.np arrays of shape (10,) float32 (20,000 operations
then waitall, each result feeding the next), and milliseconds for a d2l-style linear
regression from scratch (np.dot, **, .sum(), attach_grad, backward, SGD by hand; 1,000 steps
on 1,000 x 2 data, batch 10): mxlite vs MXNet 1.9.1 in one run. Issue 26 asks for <= 0.8x."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import import_mx, median_time, parser, run  # noqa: E402

N = 20_000
STEPS = 1_000


def measure(impl: str, repeat: int) -> dict[str, float]:
    mx = import_mx(impl)
    np, npx, autograd = mx.np, mx.npx, mx.autograd
    npx.set_np()
    a = np.ones((10,))
    b = np.ones((10,))
    npx.waitall()

    def dependent() -> None:
        c = a
        for _ in range(N):
            c = c + b
        npx.waitall()

    mx.random.seed(0)
    features = np.random.normal(0, 1, (1000, 2))
    labels = np.dot(features, np.array([2.0, -3.4])) + 4.2

    def linreg() -> None:
        w = np.random.normal(0, 0.01, (2, 1))
        bias = np.zeros(1)
        w.attach_grad()
        bias.attach_grad()
        for step in range(STEPS):
            i = (step * 10) % 1000
            x, y = features[i : i + 10], labels[i : i + 10]
            with autograd.record():
                loss = ((np.dot(x, w) + bias - y.reshape(-1, 1)) ** 2 / 2).sum()
            loss.backward()
            for p in (w, bias):
                p[:] = p - 0.03 * p.grad / 10
        npx.waitall()

    return {
        "dependent_us": round(median_time(dependent, repeat) / N * 1e6, 2),
        "linreg_ms": round(median_time(linreg, repeat) * 1e3, 1),
    }


if __name__ == "__main__":
    run("numpy_small_ops", measure, parser(__doc__).parse_args(), ["dependent_us", "linreg_ms"])
