"""The GEMM floor of a network on this machine: every Convolution and FullyConnected layer as
the matrix products an im2col implementation calls, each product timed alone with NumPy's
BLAS, summed. A convolution of ``G`` groups, ``C`` input and ``F`` output channels, a ``kh x kw``
kernel and ``P`` output pixels over the batch calls, per group, the forward
``(F/G x C/G*kh*kw) @ (C/G*kh*kw x P)``, and in training the data gradient
``(C/G*kh*kw x F/G) @ (F/G x P)`` (not for a layer reading the network's input) and the weight
gradient ``(F/G x P) @ (P x C/G*kh*kw)``; a fully connected layer of batch ``B`` the forward
``(B x K) @ (K x N)`` and its two gradients. The products run as mxlite runs them: float32,
NumPy's BLAS at mxlite's thread setting (``MXLITE_BLAS_THREADS``, set through threadpoolctl by
``engine.openmp``; default one thread) with each product split over the kernel threads
(``operator.parallel.matmul``; ``OMP_NUM_THREADS``, else the cores), the groups of a grouped
convolution as one batched product split over the threads by groups. Products of the same
shape are timed once (the least of ``--repeat`` runs: a floor is what the machine can do, and
other processes only add time) and counted as often as they occur.

One JSON line per network: ``floor_ms`` (the sum), its parts (``fwd_ms``, ``dgrad_ms``,
``wgrad_ms``; ``grouped_ms``, the share of grouped and depthwise layers, whose many tiny
products are far from what BLAS does best), ``gflop`` (2 x multiply-adds), ``gemms``, the
threads, ``floor_cpu_ms`` (the same sum of process CPU times, all threads: steadier on a busy
machine), and with ``--measure`` mxlite's own time for the same work (a hybridized inference
call; a training step: forward under ``autograd.record``, backward and ``Trainer.step`` with
SGD and momentum, as ``gluon_train``; the least of ``--repeat`` runs, wall and CPU) and
``ratio`` = measured / floor (``cpu_ratio`` of the CPU times). mxlite's 3x3 stride-1
convolutions run Winograd (``MXLITE_CONV_ALGO``), which does fewer multiplies than these
products, and inference below the thread count may run onnxruntime's MLAS kernels, faster than
NumPy's BLAS on thin products: a ratio below 1 is possible there.
Networks: resnet50_v1 inference at batch 1 and 16, resnet18_v1 training steps at batch 8 and
32 and 112 and 224 px (10 classes, as ``gluon_train``), mobilenetv2_1.0 inference at batch 1
and 16, GluonCV's resnet50_v1b inference at batch 1 and 16 when GluonCV is installed; all at
224 px unless said.
Usage: python benchmarks/gemm_floor.py [--only NAME[,NAME]] [--repeat N] [--measure]."""

from __future__ import annotations

import ast
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _common, gluon_train, clients
from _common import timed_runs  # noqa: E402


def best_times(fn: Any, repeat: int) -> tuple[float, float]:
    """The least wall time and the least process CPU time (all threads) of ``fn()`` over
    ``repeat`` runs after one warm-up, in seconds: a floor is what the machine can do, and
    other processes only ever add to a run's time."""
    wall, cpu = timed_runs(fn, repeat)
    return min(wall), min(cpu)


# name -> (builder, mode, batch, size); builders take mxlite
NETWORKS = {
    "resnet50_v1_b1": ("zoo:resnet50_v1", "inference", 1, 224),
    "resnet50_v1_b16": ("zoo:resnet50_v1", "inference", 16, 224),
    "resnet18_v1_train_b8_112": ("train:resnet18_v1", "training", 8, 112),
    "resnet18_v1_train_b32_112": ("train:resnet18_v1", "training", 32, 112),
    "resnet18_v1_train_b8_224": ("train:resnet18_v1", "training", 8, 224),
    "resnet18_v1_train_b32_224": ("train:resnet18_v1", "training", 32, 224),
    "mobilenetv2_1.0_b1": ("zoo:mobilenetv2_1.0", "inference", 1, 224),
    "mobilenetv2_1.0_b16": ("zoo:mobilenetv2_1.0", "inference", 16, 224),
    "gluoncv_resnet50_v1b_b1": ("gluoncv:resnet50_v1b", "inference", 1, 224),
    "gluoncv_resnet50_v1b_b16": ("gluoncv:resnet50_v1b", "inference", 16, 224),
}


def build(mx: Any, spec: str) -> Any:
    """The Gluon network of ``spec`` (``zoo:``, ``train:`` from gluon_train, ``gluoncv:``),
    initialized; None when GluonCV is missing."""
    kind, name = spec.split(":")
    if kind == "zoo":
        net = mx.gluon.model_zoo.vision.get_model(name, pretrained=False)
    elif kind == "train":
        from gluon_train import resnet18_v1

        net = resnet18_v1(mx)
    else:
        try:
            from clients import import_gluoncv

            _, gluoncv = import_gluoncv("mxlite")
        except ImportError:
            return None
        net = gluoncv.model_zoo.get_model(name, pretrained=False)
    net.initialize(mx.init.Xavier())
    return net


def layer_gemms(mx: Any, net: Any, shape: tuple, training: bool) -> list[tuple]:
    """``(part, groups, M, N, K)`` of every product the network's convolutions and fully
    connected layers call (``part``: fwd, dgrad, wgrad)."""
    sym = net(mx.sym.var("data"))
    internals = sym.get_internals()
    _, out_shapes, _ = internals.infer_shape(data=shape)
    shapes = dict(zip(internals.list_outputs(), out_shapes))
    nodes = json.loads(sym.tojson())["nodes"]

    def shape_of(nid: int, idx: int) -> tuple:
        node = nodes[nid]
        if node["op"] == "null":
            return tuple(shapes[node["name"]])
        for key in (f"{node['name']}_output", f"{node['name']}_output{idx}"):
            if key in shapes:
                return tuple(shapes[key])
        raise KeyError(node["name"])

    out: list[tuple] = []
    for node in nodes:
        op, attrs = node["op"], node.get("attrs", {})
        if op not in ("Convolution", "FullyConnected"):
            continue
        nid, idx = node["inputs"][0][:2]
        x = shape_of(nid, idx)
        first = nodes[nid]["op"] == "null"  # reads the network's input: no data gradient
        if op == "Convolution":
            kernel = ast.literal_eval(attrs["kernel"])
            g = int(attrs.get("num_group", 1))
            f = int(attrs["num_filter"]) // g
            k = x[1] // g * int(np.prod(kernel))
            y = shapes[f"{node['name']}_output"]
            p = y[0] * int(np.prod(y[2:]))
            out.append(("fwd", g, f, p, k))
            if training:
                if not first:
                    out.append(("dgrad", g, k, p, f))
                out.append(("wgrad", g, f, k, p))
        else:
            flatten = attrs.get("flatten", "True") in ("True", "true", "1")
            b = x[0] if flatten else int(np.prod(x[:-1]))
            k = int(np.prod(x[1:])) if flatten else x[-1]
            n = int(attrs["num_hidden"])
            out.append(("fwd", 1, b, n, k))
            if training:
                if not first:
                    out.append(("dgrad", 1, b, k, n))
                out.append(("wgrad", 1, n, k, b))
    return out


def time_gemm(groups: int, m: int, n: int, k: int, repeat: int) -> tuple[float, float]:
    """:func:`best_times` of one product (``groups`` of ``(m x k) @ (k x n)``) as mxlite runs it."""
    from mxlite.operator import parallel

    rng = np.random.default_rng(0)
    if groups == 1:
        a = rng.random((m, k), dtype=np.float32)
        b = rng.random((k, n), dtype=np.float32)
        out = np.empty((m, n), np.float32)

        def run() -> None:
            parallel.matmul(np, a, b, out)

    else:
        a = rng.random((groups, m, k), dtype=np.float32)
        b = rng.random((groups, k, n), dtype=np.float32)
        out = np.empty((groups, m, n), np.float32)

        def block(a_: Any, b_: Any, o_: Any) -> None:
            np.matmul(a_, b_, out=o_)

        def run() -> None:
            parallel.over_rows(block, groups, groups * (m * k + k * n + m * n), a, b, out)

    return best_times(run, repeat)


def measure_network(mx: Any, net: Any, mode: str, shape: tuple, repeat: int) -> tuple:
    """:func:`best_times` of mxlite's hybridized inference call or training step."""
    rng = np.random.RandomState(0)
    x = mx.nd.array(rng.uniform(-1, 1, shape).astype(np.float32))
    net.hybridize(static_alloc=True, static_shape=True)
    if mode == "inference":

        def call() -> None:
            net(x).wait_to_read()

        call()
        return best_times(call, repeat)
    y = mx.nd.array(rng.randint(0, 10, shape[0]).astype(np.float32))
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    net(x)
    trainer = mx.gluon.Trainer(
        net.collect_params(), "sgd", {"learning_rate": 0.01, "momentum": 0.9}
    )

    def step() -> None:
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(shape[0])
        mx.nd.waitall()

    step()
    return best_times(step, repeat)


def floor(name: str, repeat: int, measure: bool) -> dict | None:
    import mxlite as mx
    from mxlite.engine import openmp

    openmp.apply_blas_setting()
    spec, mode, batch, size = NETWORKS[name]
    net = build(mx, spec)
    if net is None:
        return None
    shape = (batch, 3, size, size)
    gemms = layer_gemms(mx, net, shape, mode == "training")
    counts: dict[tuple, int] = {}
    for g in gemms:
        counts[g[1:]] = counts.get(g[1:], 0) + 1
    times = {s: time_gemm(*s, repeat) for s in counts}
    seconds = {s: t[0] for s, t in times.items()}
    parts = dict.fromkeys(("fwd", "dgrad", "wgrad", "grouped"), 0.0)
    for part, *s in gemms:
        parts[part] += seconds[tuple(s)]
        if s[0] > 1:
            parts["grouped"] += seconds[tuple(s)]
    total = sum(seconds[g[1:]] for g in gemms)
    total_cpu = sum(times[g[1:]][1] for g in gemms)
    result: dict[str, Any] = {
        "benchmark": "gemm_floor",
        "network": name,
        "mode": mode,
        "batch": batch,
        "size": size,
        "gemms": len(gemms),
        "distinct_shapes": len(counts),
        "gflop": round(sum(2.0 * g * m * n * k for _, g, m, n, k in gemms) / 1e9, 3),
        "floor_ms": round(1000 * total, 2),
        "floor_cpu_ms": round(1000 * total_cpu, 2),
    }
    for part, s in parts.items():
        if part in ("fwd", "grouped") or mode == "training":
            result[f"{part}_ms"] = round(1000 * s, 2)
    result["blas_threads"] = openmp.blas_threads()
    result["kernel_threads"] = openmp.kernel_threads()
    if measure:
        wall, cpu = measure_network(mx, net, mode, shape, repeat)
        result["mxlite_ms"] = round(1000 * wall, 2)
        result["mxlite_cpu_ms"] = round(1000 * cpu, 2)
        result["ratio"] = round(wall / total, 3)
        result["cpu_ratio"] = round(cpu / total_cpu, 3)
    return result


def main() -> None:
    import argparse

    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--only", default="", help="comma-separated names of NETWORKS (default all)")
    p.add_argument("--repeat", type=int, default=3, help="repetitions; the least time is reported")
    p.add_argument("--measure", action="store_true", help="also time mxlite on the network")
    args = p.parse_args()
    names = [n for n in args.only.split(",") if n] or list(NETWORKS)
    unknown = [n for n in names if n not in NETWORKS]
    if unknown:
        p.error(f"unknown network {unknown}; choose from {list(NETWORKS)}")
    for name in names:
        start = time.perf_counter()
        result = floor(name, args.repeat, args.measure)
        if result is None:
            print(json.dumps({"benchmark": "gemm_floor", "network": name, "error": "no GluonCV"}))
            continue
        result["script_s"] = round(time.perf_counter() - start, 1)
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
