"""BatchNormWithReLU, quantize_asym and the quantized_* operators on MXNet 1.9.1's CPU (MKLDNN)
build (tests/operator/contrib/test_quantized_ops.py), for the cases and the graph of
tests/operator/contrib/quant_cases.py; each case runs in a forked child, as some of MXNet's
quantized kernels crash the process, and a case it cannot run keeps the reason. The entry
``graph`` holds the graph's outputs and its symbol JSON as MXNet saves it."""

from typing import Any

import mxnet as mx
from core import Golden, isolated, load_module

FILE = "tests/operator/contrib/golden/quant.npz"


def _call(mx, op, ins, params):
    try:
        args = [mx.nd.array(a, dtype=a.dtype) for a in ins.values()]
        outs = getattr(mx.nd.contrib, op)(*args, **params)
        return outs if isinstance(outs, (list, tuple)) else [outs]
    except mx.base.MXNetError:
        # MXNet's imperative call of quantized_elemwise_mul miscounts its outputs; its
        # executor runs it
        sym = getattr(mx.sym.contrib, op)(*[mx.sym.var(k) for k in ins], **params)
        feed = {k: mx.nd.array(a, dtype=a.dtype) for k, a in ins.items()}
        return sym.bind(mx.cpu(), feed).forward()


def _outputs(op: str, ins: dict, params: dict) -> dict:
    return {f"out{i}": o.asnumpy() for i, o in enumerate(_call(mx, op, ins, params))}


def _graph(c: Any) -> tuple[str, dict]:
    sym, ins = c.graph(mx), c.graph_inputs()
    outs = sym.bind(mx.cpu(), {k: mx.nd.array(a, dtype=a.dtype) for k, a in ins.items()}).forward()
    return sym.tojson(), {f"out{i}": o.asnumpy() for i, o in enumerate(outs)}


def record(golden: Golden) -> None:
    c = load_module("tests/operator/contrib/quant_cases.py")
    for case, op, ins, params in c.cases():
        golden.put_isolated(case, {"op": op}, _outputs, op, ins, params, why="skipped")
    text, outs = isolated(_graph, c)
    golden.put("graph", {"json": text}, **outs)
