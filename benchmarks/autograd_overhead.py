"""Microseconds per operator for autograd on tiny arrays: a chain of 20 element-wise ops on shape
(10,) float32 recorded under ``autograd.record()``, then ``backward()`` and ``waitall``; mxlite
vs MXNet 1.9.1 in one run. Also reported: the same chain without recording (the imperative
floor) and the recorded forward and the backward separately. Issue 7."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import import_mx, median_time, parser, run  # noqa: E402

CHAIN = 20  # operators per graph
ROUNDS = 300  # graphs per timing


def measure(impl: str, repeat: int) -> dict[str, float]:
    mx = import_mx(impl)
    nd, ag = mx.nd, mx.autograd
    x = nd.ones((10,)) * 0.5
    w = nd.ones((10,)) * 1.01
    x.attach_grad()
    w.attach_grad()
    nd.waitall()

    def chain() -> object:
        y = x
        for i in range(CHAIN // 4):  # four different element-wise ops per turn
            y = y * w
            y = y + x
            y = y - 0.25 * (i + 1)
            y = y / w
        return y

    def plain() -> None:
        for _ in range(ROUNDS):
            chain()
        nd.waitall()

    def recorded_forward() -> None:
        for _ in range(ROUNDS):
            with ag.record():
                chain()
        nd.waitall()

    heads = []

    def record_for_backward() -> None:
        with ag.record():
            heads[:] = [chain() for _ in range(ROUNDS)]
        nd.waitall()

    def backward_only() -> None:
        for y in heads:
            y.backward()
        nd.waitall()

    def record_and_backward() -> None:
        for _ in range(ROUNDS):
            with ag.record():
                y = chain()
            y.backward()
        nd.waitall()

    n = ROUNDS * CHAIN
    # backward consumes its graph, so each timing of it needs graphs recorded just before
    backward_times = []
    for _ in range(repeat + 1):  # the first is a warm-up, as in median_time
        record_for_backward()
        t = time.perf_counter()
        backward_only()
        backward_times.append(time.perf_counter() - t)
    return {
        "record_backward_us": round(median_time(record_and_backward, repeat) / n * 1e6, 2),
        "recorded_forward_us": round(median_time(recorded_forward, repeat) / n * 1e6, 2),
        "backward_us": round(statistics.median(backward_times[1:]) / n * 1e6, 2),
        "no_record_us": round(median_time(plain, repeat) / n * 1e6, 2),
    }


if __name__ == "__main__":
    run(
        "autograd_overhead",
        measure,
        parser(__doc__).parse_args(),
        ["record_backward_us", "recorded_forward_us", "backward_us", "no_record_us"],
    )
