"""Milliseconds per inference call of Gluon's ``resnet18_v1`` (``pretrained=False``, batch 16,
3x224x224, waiting for the output): the float32 network hybridized (``f32_ms``) and the INT8
network ``mx.contrib.quantization.quantize_net`` makes of it with naive calibration on one
batch (``int8_ms``), mxlite vs MXNet 1.9.1 in one run; ``int8_speedup`` = f32_ms / int8_ms
within each implementation (the two networks called alternately, medians). Issue 30 asks
that mxlite's INT8 network run at least as fast as its float32 one (``int8_speedup`` >= 1),
with MXNet's figures beside it.

Until mxlite has ``quantize_net`` (the ``quant`` branch), mxlite's INT8 figure is taken on the
files real MXNet's ``quantize_net`` wrote for the same architecture (symbol JSON with its
``_sg_mkldnn_*`` nodes and parameters, loaded with ``SymbolBlock.imports``): the same graph
mxlite's quantize_net is to produce, so the figure measures mxlite's INT8 kernels; the JSON
says which (``mxlite_int8_from``). The MXNet run writes those files to ``--qdir`` first.
Usage: python benchmarks/quantized_resnet.py [--batch 16] [--size 224] [--qdir DIR]
[--impl mxlite|mxnet|both] [--repeat N] [--rounds N]."""

from __future__ import annotations

import os
import statistics
import subprocess
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


def _save(mx: Any, qnet: Any, qdir: str) -> None:
    """The quantized SymbolBlock as a symbol file and a parameter file (arg:/aux: keys)."""
    os.makedirs(qdir, exist_ok=True)
    sym = qnet._cached_graph[1]
    params = {p.name: p for p in qnet.collect_params().values()}
    aux = set(sym.list_auxiliary_states())
    save = {("aux:" if n in aux else "arg:") + n: params[n].data() for n in params}
    sym.save(os.path.join(qdir, "qnet-symbol.json"))
    mx.nd.save(os.path.join(qdir, "qnet-0000.params"), save)


def _has_quantize_net(mx: Any) -> bool:
    try:
        return callable(mx.contrib.quantization.quantize_net)
    except (AttributeError, ImportError, NotImplementedError, RuntimeError):
        return False


def measure(impl: str, repeat: int, batch: int, size: int, qdir: str) -> dict:
    """Both networks of one implementation, called alternately (so both see the same load on a
    shared machine), after warm-up calls; medians."""
    mx = import_mx(impl)
    net = _network(mx)
    x = mx.nd.random.uniform(-1, 1, shape=(batch, 3, size, size))
    out: dict[str, Any] = {}
    if impl == "mxnet" or _has_quantize_net(mx):
        qnet = _quantize_net(mx, net, x)
        if impl == "mxnet":
            _save(mx, qnet, qdir)
        out["int8_from"] = "quantize_net"
    else:
        qnet = mx.gluon.SymbolBlock.imports(
            os.path.join(qdir, "qnet-symbol.json"), ["data"],
            os.path.join(qdir, "qnet-0000.params"),
        )  # fmt: skip
        out["int8_from"] = "mxnet_quantize_net_files"
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
    p.add_argument("--qdir", default="/tmp/mxlite-bench-quantized-resnet18")
    args = p.parse_args()
    args.child_args = ["--batch", str(args.batch), "--size", str(args.size), "--qdir", args.qdir]
    need_files = not os.path.exists(os.path.join(args.qdir, "qnet-symbol.json"))
    if not args.child and args.impl != "mxnet" and need_files:
        # mxlite without quantize_net measures the files MXNet's quantize_net writes
        cmd = [args.mxnet_python, sys.argv[0], "--impl", "mxnet", "--repeat", "1", "--child"]
        subprocess.run(cmd + args.child_args, capture_output=True, check=False)
    run(
        f"quantized_{MODEL}_b{args.batch}",
        lambda impl, repeat: measure(impl, repeat, args.batch, args.size, args.qdir),
        args,
        ["f32_ms", "int8_ms"],
    )


if __name__ == "__main__":
    main()
