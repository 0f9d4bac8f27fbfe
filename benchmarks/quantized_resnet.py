"""Milliseconds per inference call of Gluon's ``resnet18_v1`` (``pretrained=False``, batch 16,
3x224x224, waiting for the output): the float32 network hybridized (``f32_ms``) and the INT8
network ``mx.contrib.quantization.quantize_net`` makes of it with naive calibration on one
batch (``int8_ms``), mxlite vs MXNet 1.9.1 in one run; ``int8_speedup`` = f32_ms / int8_ms
within each implementation (the two networks called alternately, medians). Issue 30 asks
that mxlite's INT8 network run at least as fast as its float32 one (``int8_speedup`` >= 1),
with MXNet's figures beside it.
Usage: python benchmarks/quantized_resnet.py [--batch 16] [--size 224]
[--impl mxlite|mxnet|both] [--repeat N] [--rounds N]."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import import_mx, parser, run  # noqa: E402

MODEL = "resnet18_v1"


def _network(mx: Any) -> Any:
    mx.random.seed(0)
    net = mx.gluon.model_zoo.vision.get_model(MODEL, pretrained=False)
    net.initialize(mx.init.Xavier())
    net.hybridize()
    return net


def _quantize_net(mx: Any, net: Any, x: Any) -> Any:
    """``quantize_net`` with naive calibration on ``x`` (one batch)."""
    data = mx.gluon.data.ArrayDataset(x, mx.nd.zeros((x.shape[0],)))
    calib = mx.gluon.data.DataLoader(data, batch_size=x.shape[0])
    return mx.contrib.quantization.quantize_net(
        net, quantized_dtype="auto", calib_mode="naive", calib_data=calib,
        num_calib_examples=x.shape[0], ctx=mx.cpu(),
    )  # fmt: skip


def measure(impl: str, repeat: int, batch: int, size: int) -> dict:
    """Both networks of one implementation, called alternately (so both see the same load on a
    shared machine), after warm-up calls; medians."""
    mx = import_mx(impl)
    net = _network(mx)
    x = mx.nd.random.uniform(-1, 1, shape=(batch, 3, size, size))
    out: dict[str, Any] = {}
    qnet = _quantize_net(mx, net, x)
    qnet.hybridize()
    nets = {"f32": net, "int8": qnet}
    times: dict[str, list[float]] = {k: [] for k in nets}
    for _ in range(2):  # the first calls bind and choose the convolution algorithms
        for n in nets.values():
            n(x).wait_to_read()
    for _ in range(repeat):
        for k, n in nets.items():
            start = time.perf_counter()
            n(x).wait_to_read()
            times[k].append(time.perf_counter() - start)
    for k, ts in times.items():
        out[f"{k}_ms"] = round(1000 * statistics.median(ts), 3)
    out["int8_speedup"] = round(out["f32_ms"] / out["int8_ms"], 3)
    return out


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--size", type=int, default=224)
    args = p.parse_args()
    args.child_args = ["--batch", str(args.batch), "--size", str(args.size)]
    run(
        f"quantized_{MODEL}_b{args.batch}",
        lambda impl, repeat: measure(impl, repeat, args.batch, args.size),
        args,
        ["f32_ms", "int8_ms"],
    )


if __name__ == "__main__":
    main()
