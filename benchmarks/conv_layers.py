"""Forward+backward milliseconds (median) of the layers real CNNs run, under mx.autograd, float32,
mxlite vs MXNet 1.9.1 (oneDNN) in one run; each ``<layer>_ms_ratio`` is mxlite's time over
MXNet's. Layers: ResNet's convolutions (3x3 64->64 on (32, 64, 56, 56), 1x1 64->256 on (32, 64,
28, 28), 3x3 stride 2 128->256 on (32, 128, 28, 28), the 7x7 stride 2 stem 3->64 on (16, 3, 112,
112), without the data gradient a first layer never needs), MobileNet's depthwise 3x3 on (32,
64, 56, 56), the 3x3 convolutions of ResNet's later stages (128, 256, 512 channels on 28x28,
14x14, 7x7) and DenseNet's growth layer (128 -> 32 on 28x28), pooling (max 2x2/s2; max 3x3/s2/p1
on (32, 64, 56, 56); avg 3x3/s1/p1 on (32, 64, 28, 28); max 3x3/s2 'full' on (32, 64, 55, 55)),
BatchNorm on (32, 64, 56, 56) and FullyConnected (32, 4096) -> 1000. Issue 12 asks for pooling
<= 1.5x, convolutions <= 1.2x, depthwise <= 2x, BatchNorm and FullyConnected <= 1.2x. On a
shared machine run ``--rounds 5``: fresh processes of both, alternating, medians over the
rounds. ``--algos im2col,auto`` runs mxlite once per ``MXLITE_CONV_ALGO`` setting in each round
(and MXNet, each first in turn), for ratios before and after a change of algorithm in one run.
``--shapes mobilenet`` measures instead MobileNet v1's depthwise 3x3 layers (pad 1, no bias, one
filter per channel) at batch 8 and 224 px, as ``train_imagenet.py --network mobilenet`` runs
them: forward under ``autograd.record`` (``_fwd``) and forward+backward (data and weight
gradients), each also as process CPU time (all threads, ``_cpu``), which a busy machine disturbs
less; ``step_`` figures sum one training step's layers (each shape times its count).
Usage: python benchmarks/conv_layers.py [--rounds N] [--repeat N] [--layers a,b,...]
[--algos a,b,...] [--shapes layers|mobilenet]."""

from __future__ import annotations

import json
import os
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import _child, import_mx, median_time, parser, run, timed_runs  # noqa: E402

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
        "conv3x3_128": ([(32, 128, 28, 28), (128, 128, 3, 3), (128,)], all3, conv(1, 1, 128, 3)),
        "conv3x3_256": ([(32, 256, 14, 14), (256, 256, 3, 3), (256,)], all3, conv(1, 1, 256, 3)),
        "conv3x3_512": ([(32, 512, 7, 7), (512, 512, 3, 3), (512,)], all3, conv(1, 1, 512, 3)),
        "dense3x3": ([(32, 128, 28, 28), (32, 128, 3, 3), (32,)], all3, conv(1, 1, 32, 3)),
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

# MobileNet v1's depthwise layers at batch 8, 224 px: name -> (channels, size, stride, count)
MOBILENET = {
    "dw32s112": (32, 112, 1, 1),
    "dw64s112s2": (64, 112, 2, 1),
    "dw128s56": (128, 56, 1, 1),
    "dw128s56s2": (128, 56, 2, 1),
    "dw256s28": (256, 28, 1, 1),
    "dw256s28s2": (256, 28, 2, 1),
    "dw512s14": (512, 14, 1, 5),
    "dw512s14s2": (512, 14, 2, 1),
    "dw1024s7": (1024, 7, 1, 1),
}


def measure_mobilenet(impl: str, repeat: int, only: tuple[str, ...]) -> dict[str, float]:
    """Per depthwise layer: median wall and CPU milliseconds of the forward (recorded) and of
    forward+backward; and their sums over one step of MobileNet v1."""
    mx = import_mx(impl)
    nd = mx.nd
    out: dict[str, Any] = {}
    for name, (c, size, stride, _count) in MOBILENET.items():
        if name not in only:
            continue
        x = nd.random.uniform(-1, 1, shape=(8, c, size, size))
        w = nd.random.uniform(-1, 1, shape=(c, 1, 3, 3))
        for a in (x, w):
            a.attach_grad()

        def fwd(x=x, w=w, c=c, stride=stride) -> Any:
            with mx.autograd.record():
                y = nd.Convolution(
                    x,
                    w,
                    kernel=(3, 3),
                    stride=(stride, stride),
                    pad=(1, 1),
                    num_filter=c,
                    num_group=c,
                    no_bias=True,
                )
            return y

        def fwd_only(fwd=fwd) -> None:
            fwd()
            nd.waitall()

        def step(fwd=fwd) -> None:
            fwd().backward()
            nd.waitall()

        for key, fn in (("fwd_", fwd_only), ("", step)):
            wall, cpu = timed_runs(fn, repeat)
            out[f"{name}_{key}ms"] = round(statistics.median(wall) * 1e3, 2)
            out[f"{name}_{key}cpu_ms"] = round(statistics.median(cpu) * 1e3, 2)
    for key in ("fwd_ms", "fwd_cpu_ms", "ms", "cpu_ms"):
        parts = [(f"{n}_{key}", MOBILENET[n][3]) for n in only if f"{n}_{key}" in out]
        if parts:
            out[f"step_{key}"] = round(sum(out[k] * count for k, count in parts), 2)
    return out


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


def compare_algos(args: Any, algos: list[str], only: tuple[str, ...]) -> dict[str, Any]:
    """Each round: a fresh mxlite process per algorithm setting and one MXNet process, each
    going first in turn; medians over the rounds of each figure and of each per-round ratio to
    MXNet."""
    rounds = []
    impls = [*algos, "mxnet"]
    for i in range(args.rounds):
        fig = {}
        for impl in impls[i % len(impls) :] + impls[: i % len(impls)]:  # each goes first in turn
            if impl != "mxnet":
                os.environ["MXLITE_CONV_ALGO"] = impl
            fig[impl] = _child(args, "mxnet" if impl == "mxnet" else "mxlite")
        rounds.append(fig)
    result: dict[str, Any] = {"benchmark": "conv_layers", "rounds": args.rounds}
    for name in only:
        key = f"{name}_ms"
        for impl in (*algos, "mxnet"):
            result[f"{impl}_{key}"] = statistics.median(r[impl][key] for r in rounds)
        for algo in algos:
            per = [r[algo][key] / r["mxnet"][key] for r in rounds]
            result[f"{algo}_{key}_ratio"] = round(statistics.median(per), 3)
            result[f"{algo}_{key}_ratio_per_round"] = [round(r, 3) for r in per]
    return result


if __name__ == "__main__":
    p = parser(__doc__)
    p.add_argument("--layers", default=",".join(LAYERS), help="comma-separated subset")
    p.add_argument("--algos", default="", help="MXLITE_CONV_ALGO settings to compare")
    p.add_argument(
        "--shapes",
        choices=("layers", "mobilenet"),
        default="layers",
        help="the layers above, or MobileNet v1's depthwise layers (batch 8, 224 px)",
    )
    args = p.parse_args()
    if args.shapes == "mobilenet":
        names = tuple(MOBILENET) if args.layers == ",".join(LAYERS) else args.layers.split(",")
        args.child_args = ["--shapes", "mobilenet", "--layers", ",".join(names)]
        keys = [
            f"{n}_{k}" for n in (*names, "step") for k in ("fwd_ms", "fwd_cpu_ms", "ms", "cpu_ms")
        ]
        run("conv_layers", lambda impl, repeat: measure_mobilenet(impl, repeat, names), args, keys)
        sys.exit()
    only = tuple(args.layers.split(","))
    args.child_args = ["--layers", args.layers]
    if args.algos and not args.child:
        print(json.dumps(compare_algos(args, args.algos.split(","), only)))
        sys.exit()
    run(
        "conv_layers",
        lambda impl, repeat: measure(impl, repeat, only),
        args,
        [f"{n}_ms" for n in only],
    )
