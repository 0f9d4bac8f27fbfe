"""Forward+backward milliseconds (median) of the common CNN layers under mx.autograd, mxlite vs
MXNet 1.9.1 in one run: Convolution 3x3 64->64 on (32, 64, 56, 56) with pad 1, max Pooling 2x2
stride 2 and BatchNorm on the same tensor, FullyConnected (32, 4096) -> 1000. Layers whose
operator mxlite does not have yet are reported as null. Issue 4 asks for each within 3x of
MXNet's CPU time."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import import_mx, median_time, parser, run  # noqa: E402

LAYERS = ("conv", "pool", "bn", "fc")


def _layers(mx: Any) -> dict[str, tuple[list[tuple[int, ...]], Callable[..., Any]] | None]:
    nd = mx.nd
    image = (32, 64, 56, 56)
    return {
        "conv": (
            [image, (64, 64, 3, 3), (64,)],
            lambda x, w, b: nd.Convolution(x, w, b, kernel=(3, 3), pad=(1, 1), num_filter=64),
        ),
        "pool": (
            [image],
            lambda x: nd.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type="max"),
        )
        if hasattr(nd, "Pooling")
        else None,
        "bn": (
            [image, (64,), (64,), (64,), (64,)],
            lambda x, g, b, m, v: nd.BatchNorm(x, g, b, m, v),
        )
        if hasattr(nd, "BatchNorm")
        else None,
        "fc": (
            [(32, 4096), (1000, 4096), (1000,)],
            lambda x, w, b: nd.FullyConnected(x, w, b, num_hidden=1000),
        ),
    }


def measure(impl: str, repeat: int) -> dict[str, float]:
    mx = import_mx(impl)
    nd = mx.nd
    out: dict[str, Any] = {}
    for name, spec in _layers(mx).items():
        if spec is None:
            out[f"{name}_ms"] = None
            continue
        shapes, fn = spec
        inputs = [nd.random.uniform(-1, 1, shape=s) for s in shapes]
        if name == "bn":
            inputs[4] = nd.ones(shapes[4])  # moving variance must be positive
        for a in inputs[:3]:
            a.attach_grad()

        def step(fn=fn, inputs=inputs) -> None:
            with mx.autograd.record():
                y = fn(*inputs)
            y.backward()
            nd.waitall()

        out[f"{name}_ms"] = round(median_time(step, repeat) * 1e3, 2)
    return out


if __name__ == "__main__":
    run("conv_layers", measure, parser(__doc__).parse_args(), [f"{n}_ms" for n in LAYERS])
