"""Pooled versus unpooled allocation of a large buffer: the figure behind the storage pools.

Each cycle allocates a 64 MiB buffer, writes one byte in each of its pages (so every page is
really mapped) and frees it. A pool hands the same, already mapped block back each time; an
unpooled allocation gets fresh pages from the system and pays a page fault for each one.
Prints one JSON line: the median microseconds per cycle for the Naive and Round pools, the
Unpooled allocator and plain ``numpy.empty``, and the pooled/unpooled ratios.

Only ``--impl mxlite`` exists: real MXNet has no Python-level allocator API (its storage
manager is reachable only from C++), so there is no like-for-like MXNet run to compare with.

    python benchmarks/storage_pool.py [--cycles 50] [--mib 64]
"""

from __future__ import annotations

import argparse
import json
import mmap
import statistics
import time

import numpy as np

import mxlite as mx
from mxlite import storage


def cycle_pool(pool: storage.Pool, nbytes: int, page: int) -> float:
    t0 = time.perf_counter()
    h = pool.alloc(nbytes, mx.cpu())
    h.buffer[::page] = 1
    pool.free(h)
    return time.perf_counter() - t0


def cycle_numpy(nbytes: int, page: int) -> float:
    t0 = time.perf_counter()
    buf = np.empty(nbytes, dtype=np.uint8)
    buf[::page] = 1
    del buf
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--impl", choices=["mxlite"], default="mxlite")
    parser.add_argument("--cycles", type=int, default=50)
    parser.add_argument("--mib", type=int, default=64)
    args = parser.parse_args()
    nbytes, page = args.mib << 20, mmap.PAGESIZE

    medians: dict[str, float] = {}
    for kind in ("Naive", "Round", "Unpooled"):
        pool = storage.Pool(mx.cpu(), kind)
        cycle_pool(pool, nbytes, page)  # warm-up: the pools' first cycle is a miss
        times = [cycle_pool(pool, nbytes, page) for _ in range(args.cycles)]
        pool.release_all()
        medians[kind] = statistics.median(times) * 1e6
    cycle_numpy(nbytes, page)
    medians["numpy_empty"] = (
        statistics.median(cycle_numpy(nbytes, page) for _ in range(args.cycles)) * 1e6
    )

    print(
        json.dumps(
            {
                "benchmark": "storage_pool",
                "impl": args.impl,
                "nbytes": nbytes,
                "cycles": args.cycles,
                "median_us": {k: round(v, 1) for k, v in medians.items()},
                "ratio_pooled_unpooled": {
                    k: round(medians[k] / medians["Unpooled"], 4) for k in ("Naive", "Round")
                },
            }
        )
    )


if __name__ == "__main__":
    main()
