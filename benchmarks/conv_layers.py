"""Forward+backward milliseconds (median) of the layers real CNNs run, under mx.autograd,
float32, mxlite vs MXNet 1.9.1 (oneDNN) in one run; each ``<layer>_ms_ratio`` is mxlite's time
over MXNet's. Layers: ResNet's convolutions (3x3 64->64 on (32, 64, 56, 56), 1x1 64->256 on
(32, 64, 28, 28), 3x3 stride 2 128->256 on (32, 128, 28, 28), the 7x7 stride 2 stem 3->64 on
(16, 3, 112, 112), without the data gradient a first layer never needs), MobileNet's depthwise
3x3 on (32, 64, 56, 56), pooling (max 2x2/s2; max 3x3/s2/p1 on (32, 64, 56, 56); avg 3x3/s1/p1
on (32, 64, 28, 28); max 3x3/s2 'full' on (32, 64, 55, 55)), BatchNorm on (32, 64, 56, 56) and
FullyConnected (32, 4096) -> 1000. Issue 12 asks for pooling <= 1.5x, convolutions <= 1.2x,
depthwise <= 2x, BatchNorm and FullyConnected <= 1.2x. On a shared machine run
``--rounds 5``: fresh processes of both, alternating, medians over the rounds.
Usage: python benchmarks/conv_layers.py [--rounds N] [--repeat N] [--layers a,b,...]."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import import_mx, median_time, parser, run  # noqa: E402

# name: (input shapes, index of the inputs that get a gradient, layer)
Layer = tuple[list[tuple[int, ...]], tuple[int, ...], Callable[..., Any]]


def _layers(mx: Any) -> dict[str, Layer]:
    nd = mx.nd

    def conv(stride: int, pad: int, f: int, k: int, groups: int = 1) -> Callable[..., Any]:
        return lambda x, w, b: nd.Convolution(
            x,
            w,
            b,
            kernel=(k, k),
            stride=(stride, stride),
            pad=(pad, pad),
            num_filter=f,
            num_group=groups,
        )

    def pool(k: int, s: int, p: int, kind: str = "max", conv: str = "valid") -> Callable:
        return lambda x: nd.Pooling(
            x, kernel=(k, k), stride=(s, s), pad=(p, p), pool_type=kind, pooling_convention=conv
        )

    all3 = (0, 1, 2)
    return {
        "conv3x3": ([(32, 64, 56, 56), (64, 64, 3, 3), (64,)], all3, conv(1, 1, 64, 3)),
        "conv1x1": ([(32, 64, 28, 28), (256, 64, 1, 1), (256,)], all3, conv(1, 0, 256, 1)),
        "conv3x3s2": ([(32, 128, 28, 28), (256, 128, 3, 3), (256,)], all3, conv(2, 1, 256, 3)),
        "stem7x7s2": ([(16, 3, 112, 112), (64, 3, 7, 7), (64,)], (1, 2), conv(2, 3, 64, 7)),
        "depthwise3x3": ([(32, 64, 56, 56), (64, 1, 3, 3), (64,)], all3, conv(1, 1, 64, 3, 64)),
        "pool2x2": ([(32, 64, 56, 56)], (0,), pool(2, 2, 0)),
        "maxpool3x3s2p1": ([(32, 64, 56, 56)], (0,), pool(3, 2, 1)),
        "avgpool3x3s1p1": ([(32, 64, 28, 28)], (0,), pool(3, 1, 1, "avg")),
        "maxpool3x3s2full": ([(32, 64, 55, 55)], (0,), pool(3, 2, 0, "max", "full")),
        "bn": (
            [(32, 64, 56, 56), (64,), (64,), (64,), (64,)],
            all3,
            lambda x, g, b, m, v: nd.BatchNorm(x, g, b, m, v),
        ),
        "fc": (
            [(32, 4096), (1000, 4096), (1000,)],
            all3,
            lambda x, w, b: nd.FullyConnected(x, w, b, num_hidden=1000),
        ),
    }


LAYERS = tuple(_layers(type("_", (), {"nd": None})).keys())


def measure(impl: str, repeat: int, only: tuple[str, ...] = LAYERS) -> dict[str, float]:
    mx = import_mx(impl)
    nd = mx.nd
    out: dict[str, Any] = {}
    for name, (shapes, grads, fn) in _layers(mx).items():
        if name not in only:
            continue
        inputs = [nd.random.uniform(-1, 1, shape=s) for s in shapes]
        if name == "bn":
            inputs[4] = nd.ones(shapes[4])  # moving variance must be positive
        for i in grads:
            inputs[i].attach_grad()

        def step(fn=fn, inputs=inputs) -> None:
            with mx.autograd.record():
                y = fn(*inputs)
            y.backward()
            nd.waitall()

        out[f"{name}_ms"] = round(median_time(step, repeat) * 1e3, 2)
    return out


if __name__ == "__main__":
    p = parser(__doc__)
    p.add_argument("--layers", default=",".join(LAYERS), help="comma-separated subset")
    args = p.parse_args()
    only = tuple(args.layers.split(","))
    args.child_args = ["--layers", args.layers]
    run(
        "conv_layers",
        lambda impl, repeat: measure(impl, repeat, only),
        args,
        [f"{n}_ms" for n in only],
    )
