"""KVStore throughput, in GB/s of values pushed plus pulled.

local: push + pull of 10 keys of 4 MB (float32) each, from one and from two contexts, on a
'local' store; mxlite vs MXNet 1.9.1 in the same run (required >= 0.8x, goal >= 1.2x).

dist (``--dist``): push + pull of one 4 MB key on a 'dist_sync' store in a 2-worker job
(``python -m mxlite.launch -n 2``), beside a raw mpi4py ``Allreduce`` of the same buffer in
the same job (required >= 0.5x of raw MPI, goal >= 0.8x), and, with ``--impl both``, MXNet
1.9.1's own ps-lite ``dist_sync`` (2 workers, 1 server, 1 scheduler on this machine).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import MXREF, import_mx, median_time, parser, run  # noqa: E402

KEYS = 10
ELEMS = 1 << 20  # 4 MB of float32
GB = 1e9


def measure(impl: str, repeat: int) -> dict[str, float]:
    mx = import_mx(impl)
    out: dict[str, float] = {}
    for nctx in (1, 2):
        ctxs = [mx.cpu(i) for i in range(nctx)]
        kv = mx.kv.create("local")
        keys = list(range(KEYS))
        kv.init(keys, [mx.nd.zeros(ELEMS) for _ in keys])
        vals = [[mx.nd.ones(ELEMS, ctx=c) for c in ctxs] for _ in keys]
        outs = [[mx.nd.zeros(ELEMS, ctx=c) for c in ctxs] for _ in keys]
        mx.nd.waitall()

        def step(kv=kv, keys=keys, vals=vals, outs=outs) -> None:
            kv.push(keys, vals)
            kv.pull(keys, out=outs)
            mx.nd.waitall()

        t = median_time(step, repeat)
        moved = 2 * KEYS * nctx * ELEMS * 4
        out[f"gbps_{nctx}ctx"] = round(moved / t / GB, 3)
        out[f"ms_{nctx}ctx"] = round(t * 1e3, 2)
    return out


# ---- dist_sync on 2 workers ------------------------------------------------------------------


def dist_rank(repeat: int) -> None:
    """One rank of the mxlite job: dist_sync push+pull, then raw Allreduce, same buffer size."""
    from mpi4py import MPI

    import mxlite as mx

    kv = mx.kv.create("dist_sync")
    kv.init(0, mx.nd.zeros(ELEMS))
    val, res = mx.nd.ones(ELEMS), mx.nd.zeros(ELEMS)

    def kv_step() -> None:
        kv.push(0, val)
        kv.pull(0, out=res)
        res.wait_to_read()

    def kv_pushpull() -> None:
        kv.pushpull(0, val, out=res)
        res.wait_to_read()

    def kv_inplace() -> None:  # the value becomes the sum, as the raw in-place Allreduce
        kv.pushpull(0, val)
        val.wait_to_read()

    buf = np.ones(ELEMS, np.float32)

    def mpi_step() -> None:
        MPI.COMM_WORLD.Allreduce(MPI.IN_PLACE, buf, op=MPI.SUM)

    # Interleaved, so that both see the same load on a shared machine.
    kv_step()
    mpi_step()
    t_kv, t_pp, t_in, t_mpi = [], [], [], []
    for _ in range(repeat):
        kv._barrier()
        t = time.perf_counter()
        kv_step()
        t_kv.append(time.perf_counter() - t)
        kv._barrier()
        t = time.perf_counter()
        kv_pushpull()
        t_pp.append(time.perf_counter() - t)
        kv._barrier()
        t = time.perf_counter()
        kv_inplace()
        t_in.append(time.perf_counter() - t)
        MPI.COMM_WORLD.Barrier()
        t = time.perf_counter()
        mpi_step()
        t_mpi.append(time.perf_counter() - t)
    t_kv, t_pp, t_in, t_mpi = (statistics.median(t) for t in (t_kv, t_pp, t_in, t_mpi))
    if kv.rank == 0:
        figures = {
            "dist_sync_gbps": round(ELEMS * 4 / t_kv / GB, 3),
            "pushpull_gbps": round(ELEMS * 4 / t_pp / GB, 3),
            "pushpull_inplace_gbps": round(ELEMS * 4 / t_in / GB, 3),
            "raw_allreduce_gbps": round(ELEMS * 4 / t_mpi / GB, 3),
        }
        raw = figures["raw_allreduce_gbps"]
        figures["vs_raw_mpi"] = round(figures["dist_sync_gbps"] / raw, 3)
        figures["pushpull_vs_raw_mpi"] = round(figures["pushpull_gbps"] / raw, 3)
        figures["inplace_vs_raw_mpi"] = round(figures["pushpull_inplace_gbps"] / raw, 3)
        print("RESULT " + json.dumps(figures), flush=True)


def mxnet_worker(repeat: int) -> None:
    """A worker of MXNet's ps-lite job (DMLC_* set by mxnet_dist)."""
    import mxnet as mx

    kv = mx.kv.create("dist_sync")
    kv.init(0, mx.nd.zeros(ELEMS))
    val, res = mx.nd.ones(ELEMS), mx.nd.zeros(ELEMS)

    def kv_step() -> None:
        kv.push(0, val)
        kv.pull(0, out=res)
        res.wait_to_read()

    kv._barrier()
    t = median_time(kv_step, repeat)
    if kv.rank == 0:
        print("RESULT " + json.dumps({"dist_sync_gbps": round(ELEMS * 4 / t / GB, 3)}), flush=True)


def _result(text: str) -> dict:
    for line in text.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    return {"error": text.strip().splitlines()[-3:]}


def mxlite_dist(repeat: int) -> dict:
    root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    cmd = [sys.executable, "-m", "mxlite.launch", "-n", "2", __file__, "--dist-rank"]
    cmd += ["--repeat", str(repeat)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    return _result(done.stdout + done.stderr)


def mxnet_dist(python: str, repeat: int) -> dict:
    """MXNet 1.9.1's dist_sync: a scheduler, a server and two workers on this machine."""
    if not os.path.exists(python):
        return {"error": f"no MXNet at {python}"}
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = dict(
        os.environ,
        DMLC_PS_ROOT_URI="127.0.0.1",
        DMLC_PS_ROOT_PORT=str(port),
        DMLC_NUM_SERVER="1",
        DMLC_NUM_WORKER="2",
        PS_VERBOSE="0",
    )
    procs = []
    for role in ("scheduler", "server"):
        env = dict(base, DMLC_ROLE=role)
        procs.append(subprocess.Popen([python, "-c", "import mxnet"], env=env))
    time.sleep(1)  # ps-lite workers must find the scheduler listening
    workers = [
        subprocess.Popen(
            [python, __file__, "--mxnet-worker", "--repeat", str(repeat)],
            env=dict(base, DMLC_ROLE="worker"),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for _ in range(2)
    ]
    text = "".join(w.communicate(timeout=600)[0] for w in workers)
    for p in procs:
        p.wait(timeout=60)
    return _result(text)


if __name__ == "__main__":
    p = parser(__doc__)
    p.add_argument("--dist", action="store_true", help="measure dist_sync on 2 workers")
    p.add_argument("--dist-rank", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--mxnet-worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.dist_rank:
        dist_rank(args.repeat)
    elif args.mxnet_worker:
        mxnet_worker(args.repeat)
    elif args.dist:
        result = {"benchmark": "kvstore_dist_sync_2_workers", "mxlite": mxlite_dist(args.repeat)}
        if args.impl == "both":
            result["mxnet"] = mxnet_dist(args.mxnet_python or MXREF, args.repeat)
            a = result["mxlite"].get("dist_sync_gbps")
            b = result["mxnet"].get("dist_sync_gbps")
            if a and b:
                result["vs_mxnet_ps_lite"] = round(a / b, 3)
        print(json.dumps(result))
    else:
        run("kvstore_local", measure, args, ["gbps_1ctx", "gbps_2ctx"])
