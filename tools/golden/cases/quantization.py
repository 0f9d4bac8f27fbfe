"""``mx.contrib.quantization`` on MXNet 1.9.1, for the graphs and options of
tests/contrib/quant_cases.py: for each ``quantize_model`` case, the quantized symbol's JSON
(thresholds included), the quantized parameters and, where MXNet's CPU kernels run the graph,
its output on the test data (else the reason); the float model's output (``float-<graph>``);
and ``gluon-naive-<dtype>``, the output of ``quantize_net`` (naive calibration, int8 or auto)
on a small Gluon net with MXNet's MKLDNN-fused CPU graph, which mxlite's output is compared
with, not its JSON.

Calibration runs with ``MXNET_SUBGRAPH_BACKEND=NONE`` (see quant_cases.py)."""

import os
from typing import Any

import mxnet as mx
from core import Golden, isolated, load_module, nd_arrays

FILE = "tests/contrib/golden/quantization.npz"
os.environ["MXNET_SUBGRAPH_BACKEND"] = "NONE"


def _quantize(c: Any, graph: str, kwargs: dict) -> tuple[str, dict]:
    qsym, qargs, qaux = c.quantize(mx, graph, kwargs)
    arrays = {f"arg:{k}": v.asnumpy() for k, v in qargs.items()}
    return qsym.tojson(), arrays


def _forward(c: Any, graph: str, kwargs: dict) -> dict:
    qsym, qargs, qaux = c.quantize(mx, graph, kwargs)
    return {"out0": c.forward(mx, qsym, qargs, qaux)}


def _float(c: Any, graph: str) -> dict:
    args, aux = c.params(graph)
    sym = c.GRAPHS[graph](mx)
    return {"out0": c.forward(mx, sym, nd_arrays(args), nd_arrays(aux))}


def record(golden: Golden) -> None:
    c = load_module("tests/contrib/quant_cases.py")
    for case, graph, kwargs in c.CASES:
        text, arrays = isolated(_quantize, c, graph, kwargs)
        meta = {"graph": graph, "kwargs": kwargs, "json": text}
        outs = isolated(_forward, c, graph, kwargs)
        if isinstance(outs, str):
            meta["skipped"] = outs
            outs = {}
        golden.put(case, meta, **arrays, **outs)
    for graph in c.GRAPHS:
        golden.put(f"float-{graph}", {"graph": graph}, **isolated(_float, c, graph))
    gluon_float = isolated(_gluon_float, c)
    for dtype in ("int8", "auto"):
        golden.put(
            f"gluon-naive-{dtype}",
            {"calib_mode": "naive", "quantized_dtype": dtype},
            out0=isolated(c.quantize_gluon, mx, "naive", dtype),
            float0=gluon_float,
        )


def _gluon_float(c: Any) -> Any:
    _, test = c.data()
    return c.gluon_net(mx)(mx.nd.array(test)).asnumpy()
