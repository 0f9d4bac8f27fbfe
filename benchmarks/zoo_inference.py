"""Milliseconds per hybridized inference call of a Gluon model-zoo network (``resnet50_v1`` by
default, 3x224x224, ``pretrained=False``, waiting for the output) at batch 1 and 16, mxlite vs
MXNet 1.9.1 in one run. The first calls (warm-up, not timed) let mxlite's convolutions choose
their algorithm and make their cached Winograd kernels. Issue 28 asks for <= 0.9x MXNet's time
for resnet50_v1 at batch 1 and 16 (goal 0.8x). ``b<N>_cpu_ms`` is the process's CPU time per
call (all threads), steadier than wall time on a shared machine for comparing two mxlite trees
(not against MXNet, whose OpenMP threads spin while they wait).
Usage: python benchmarks/zoo_inference.py [--model NAME] [--batches 1,16] [--size 224]
[--impl mxlite|mxnet|both] [--repeat N] [--rounds N]."""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import import_mx, median_time, parser, run  # noqa: E402


def measure(impl: str, repeat: int, model: str, batches: list[int], size: int) -> dict:
    mx = import_mx(impl)
    net = mx.gluon.model_zoo.vision.get_model(model, pretrained=False)
    net.initialize(mx.init.Xavier())
    net.hybridize()
    out = {}
    for batch in batches:
        x = mx.nd.random.uniform(shape=(batch, 3, size, size))

        def infer(x: object = x) -> None:
            net(x).wait_to_read()

        infer()  # the first call binds (and, on mxlite, tunes); median_time warms up again
        out[f"b{batch}_ms"] = round(1000 * median_time(infer, repeat), 3)
        cpu = []
        for _ in range(repeat):
            start = time.process_time()
            infer()
            cpu.append(time.process_time() - start)
        out[f"b{batch}_cpu_ms"] = round(1000 * statistics.median(cpu), 3)
    return out


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--model", default="resnet50_v1")
    p.add_argument("--batches", default="1,16")
    p.add_argument("--size", type=int, default=224)
    args = p.parse_args()
    batches = [int(b) for b in args.batches.split(",")]
    args.child_args = ["--model", args.model, "--batches", args.batches, "--size", str(args.size)]
    run(
        f"zoo_inference_{args.model}",
        lambda impl, repeat: measure(impl, repeat, args.model, batches, args.size),
        args,
        [f"b{b}_ms" for b in batches],
    )


if __name__ == "__main__":
    main()
