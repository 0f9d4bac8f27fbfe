"""Shared plumbing for the benchmarks: run one workload under mxlite and, in the same run,
under real MXNet 1.9.1 (a subprocess of /tmp/mxref/bin/python, or --mxnet-python), and print
one JSON line with medians and ratios. Benchmarks never assert; CI never runs them."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

MXREF = os.environ.get("MXREF_PYTHON", "/tmp/mxref/bin/python")


def parser(doc: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=doc)
    p.add_argument(
        "--impl",
        choices=("mxlite", "mxnet", "both"),
        default="both",
        help="which implementation to measure (both: mxlite, then MXNet, one run)",
    )
    p.add_argument("--mxnet-python", default=MXREF, help="a Python with mxnet==1.9.1")
    p.add_argument("--repeat", type=int, default=5, help="repetitions; medians are reported")
    p.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="with --impl both: rounds of one fresh mxlite process then one MXNet process, "
        "alternating; figures are medians over the rounds (use 3+ on a shared machine)",
    )
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    return p


def import_mx(impl: str) -> Any:
    if impl == "mxnet":
        import mxnet as mx  # only in the child run under the reference Python
    else:
        import mxlite as mx
    return mx


def timed_runs(fn: Callable[[], Any], repeat: int) -> tuple[list[float], list[float]]:
    """The wall times and process CPU times (all threads) of ``repeat`` runs of ``fn()``, in
    seconds, after one warm-up."""
    fn()
    wall, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return wall, cpu


def case_ms(cases: dict[str, Callable[[], Any]], repeat: int, wait: Callable[[], Any]) -> dict:
    """``{"<name>_ms": median wall milliseconds}`` of each case followed by ``wait()`` (e.g.
    ``mx.nd.waitall``), over ``repeat`` runs after one warm-up."""
    out: dict[str, float] = {}
    for name, fn in cases.items():

        def call(fn: Callable[[], Any] = fn) -> None:
            fn()
            wait()

        out[f"{name}_ms"] = round(statistics.median(timed_runs(call, repeat)[0]) * 1e3, 3)
    return out


def median_time(fn: Callable[[], Any], repeat: int) -> float:
    """Median wall time of ``fn()`` in seconds over ``repeat`` runs (after one warm-up)."""
    return statistics.median(timed_runs(fn, repeat)[0])


def run(
    name: str, measure: Callable[[str, int], dict[str, float]], args: Any, ratio_keys: list[str]
) -> None:
    """Measure the chosen implementations and print one JSON line.

    ``measure(impl, repeat)`` returns figures (lower is better); with both implementations,
    ``<key>_ratio`` = mxlite / mxnet is added for each of ``ratio_keys``.
    """
    if args.child:
        print(json.dumps(measure(args.impl, args.repeat)))
        return
    result: dict[str, Any] = {"benchmark": name}
    impls = ["mxlite", "mxnet"] if args.impl == "both" else [args.impl]
    if args.rounds <= 1:
        rounds = [{impl: _figures(measure, args, impl) for impl in impls}]
    else:
        # every round runs each implementation in a fresh process, back to back, so that
        # both see the same load on a shared machine
        rounds = [{impl: _child(args, impl) for impl in impls} for _ in range(args.rounds)]
    for impl in impls:
        for k in rounds[0][impl]:
            vals = [r[impl].get(k) for r in rounds]
            nums = [v for v in vals if isinstance(v, (int, float))]
            result[f"{impl}_{k}"] = statistics.median(nums) if len(nums) == len(vals) else vals[0]
    if len(impls) == 2:
        for k in ratio_keys:
            a, b = result.get(f"mxlite_{k}"), result.get(f"mxnet_{k}")
            if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b:
                result[f"{k}_ratio"] = round(a / b, 3)
                if len(rounds) > 1:
                    per = [_ratio(r["mxlite"].get(k), r["mxnet"].get(k)) for r in rounds]
                    result[f"{k}_ratio_per_round"] = per
    print(json.dumps(result))


def _ratio(a: Any, b: Any) -> float | None:
    ok = isinstance(a, (int, float)) and isinstance(b, (int, float)) and b
    return round(a / b, 3) if ok else None


def _figures(measure: Callable[[str, int], dict[str, float]], args: Any, impl: str) -> dict:
    return measure("mxlite", args.repeat) if impl == "mxlite" else _child(args, impl)


def _child(args: Any, impl: str) -> dict[str, float]:
    python = sys.executable if impl == "mxlite" else args.mxnet_python
    if not os.path.exists(python):
        return {"error": f"no MXNet at {python}"}  # type: ignore[dict-item]
    cmd = [python, sys.argv[0], "--impl", impl, "--repeat", str(args.repeat), "--child"]
    cmd += getattr(args, "child_args", [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1:]}  # type: ignore[dict-item]
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_epochs(name: str, doc: str, epoch_fn: Callable[[str, int], Callable[[], Any]]) -> None:
    """``main`` of a benchmark of seconds per training epoch: ``epoch_fn(impl, batches)`` gives
    a function running one epoch of ``--batches`` batches; ``--profile`` cProfiles one mxlite
    epoch instead of measuring."""
    p = parser(doc)
    p.add_argument("--batches", type=int, default=20, help="batches per epoch")
    p.add_argument("--profile", action="store_true", help="cProfile one mxlite epoch")
    args = p.parse_args()
    if args.profile:
        import cProfile
        import pstats

        fn = epoch_fn("mxlite", args.batches)
        fn()
        prof = cProfile.Profile()
        prof.runcall(fn)
        pstats.Stats(prof).sort_stats("tottime").print_stats(30)
        return
    # the child is started with the common options only: hand it ours by environment
    env = f"{name.upper()}_BATCHES"
    if args.child:
        args.batches = int(os.environ.get(env, args.batches))
    else:
        os.environ[env] = str(args.batches)

    def measure(impl: str, repeat: int) -> dict:
        seconds = median_time(epoch_fn(impl, args.batches), repeat)
        return {"s_per_epoch": round(seconds, 4), "batches": args.batches}

    run(name, measure, args, ["s_per_epoch"])
