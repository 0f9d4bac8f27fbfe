"""Engine overhead: the cost of one no-op function, pushed and run, in microseconds.

Four workloads of ``--n`` no-op functions (default 100,000) for each engine kind:

* ``chain_push_sync``: every function mutates one var (a dependency chain), ``push_sync``;
* ``independent_push_sync``: each function mutates its own var, ``push_sync``;
* ``chain_opr`` / ``independent_opr``: the same with operators made once by ``new_operator``
  (not timed) and pushed with ``push``.

Each is timed from the first push until ``wait_for_all`` returns; the figure is the median over
``--repeat`` runs (default 5) of time / n. In the same run, the baseline pushes the same no-ops
through ``concurrent.futures.ThreadPoolExecutor(max_workers=1).submit`` and waits for every
future; ``per_device_vs_tpe`` gives ThreadedEnginePerDevice / ThreadPoolExecutor for each
workload (the issue asks for at most 0.5, aiming at 0.25).

Real MXNet has no Python API to push Python functions to its engine, so there is no
``--impl mxnet`` for this benchmark: the thread pool of the standard library is the baseline.

Prints one JSON line. Usage: ``python benchmarks/engine_overhead.py [--kind K] [--n N]``.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import gc
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mxlite import engine  # noqa: E402
from mxlite.context import cpu  # noqa: E402

KINDS = ["NaiveEngine", "ThreadedEngine", "ThreadedEnginePerDevice"]
WORKLOADS = ["chain_push_sync", "independent_push_sync", "chain_opr", "independent_opr"]


def noop_sync(rctx: engine.RunContext) -> None:
    return None


def noop_async(rctx: engine.RunContext, on_complete: Callable[..., None]) -> None:
    on_complete()


def noop() -> None:
    return None


def time_engine(eng: engine.Engine, workload: str, n: int) -> float:
    """Seconds to push ``n`` no-ops of ``workload`` and wait for them."""
    ctx = cpu()
    chain = workload.startswith("chain")
    vars_ = [eng.new_var()] * n if chain else [eng.new_var() for _ in range(n)]
    gc.collect()
    if workload.endswith("opr"):
        if chain:
            oprs = [eng.new_operator(noop_async, (), (vars_[0],))] * n
        else:
            oprs = [eng.new_operator(noop_async, (), (v,)) for v in vars_]
        push = eng.push
        t0 = time.perf_counter()
        for opr in oprs:
            push(opr, ctx)
        eng.wait_for_all()
        return time.perf_counter() - t0
    push_sync = eng.push_sync
    t0 = time.perf_counter()
    for v in vars_:
        push_sync(noop_sync, ctx, (), (v,))
    eng.wait_for_all()
    return time.perf_counter() - t0


def time_tpe(n: int) -> float:
    """Seconds to submit ``n`` no-ops to a one-thread ThreadPoolExecutor and wait for them."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(noop).result()  # start the worker outside the timing, as engines do
        gc.collect()
        submit = pool.submit
        t0 = time.perf_counter()
        futures = [submit(noop) for _ in range(n)]
        concurrent.futures.wait(futures)
        return time.perf_counter() - t0


def per_function_us(seconds: list[float], n: int) -> float:
    return round(statistics.median(seconds) / n * 1e6, 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=[*KINDS, "all"], default="all")
    parser.add_argument("--n", type=int, default=100_000, help="functions per run")
    parser.add_argument("--repeat", type=int, default=5, help="runs; the median is reported")
    args = parser.parse_args()
    kinds = KINDS if args.kind == "all" else [args.kind]

    results: dict[str, dict[str, float]] = {}
    for kind in kinds:
        eng = engine.create(kind)
        time_engine(eng, "chain_push_sync", 1000)  # start the workers outside the timing
        results[kind] = {
            w: per_function_us([time_engine(eng, w, args.n) for _ in range(args.repeat)], args.n)
            for w in WORKLOADS
        }
        eng.shutdown()
    tpe = per_function_us([time_tpe(args.n) for _ in range(args.repeat)], args.n)

    out: dict[str, object] = {
        "benchmark": "engine_overhead",
        "impl": "mxlite",
        "unit": "us per function (median)",
        "n": args.n,
        "repeat": args.repeat,
        "python": platform.python_version(),
        "engines": results,
        "thread_pool_executor": tpe,
    }
    if "ThreadedEnginePerDevice" in results:
        per_dev = results["ThreadedEnginePerDevice"]
        out["per_device_vs_tpe"] = {w: round(per_dev[w] / tpe, 3) for w in WORKLOADS}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
