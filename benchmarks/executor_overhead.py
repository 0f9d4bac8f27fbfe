"""Microseconds per forward+backward of a 20-layer MLP of width 16 (batch 4), bound once with
simple_bind, so that per-operator overhead dominates; mxlite vs MXNet 1.9.1 in one run.
Issue 5 asks for mxlite <= MXNet."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import import_mx, median_time, parser, run  # noqa: E402

LAYERS, WIDTH, BATCH, N = 20, 16, 4, 200


def measure(impl: str, repeat: int) -> dict[str, float]:
    mx = import_mx(impl)
    h = mx.sym.var("data")
    for i in range(LAYERS):
        h = mx.sym.FullyConnected(h, num_hidden=WIDTH, name=f"fc{i}")
        h = mx.sym.Activation(h, act_type="relu", name=f"relu{i}")
    if hasattr(h, "simple_bind"):
        exe = h.simple_bind(mx.cpu(), data=(BATCH, WIDTH))
    else:  # until Symbol.simple_bind is attached
        from mxlite.executor import simple_bind

        exe = simple_bind(h, mx.cpu(), data=(BATCH, WIDTH))
    for arr in exe.arg_arrays:
        arr[:] = 0.1
    head = mx.nd.ones((BATCH, WIDTH))

    def loop() -> None:
        for _ in range(N):
            exe.forward(is_train=True)
            exe.backward([head])
        mx.nd.waitall()

    return {"fwd_bwd_us": round(median_time(loop, repeat) / N * 1e6, 2)}


if __name__ == "__main__":
    run("executor_overhead", measure, parser(__doc__).parse_args(), ["fwd_bwd_us"])
