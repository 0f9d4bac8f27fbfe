"""MXNet 1.9.1's transformer passes of its CPU backends on a small self-attention graph
(interleaved query-key products, softmax, attention-weighted values): ``float``: the ``MKLDNN``
partition and the fused outputs; ``quant``: ``quantize_model`` of the ``MKLDNN_QUANTIZE``
partition with naive calibration, the final partition and MXNet's outputs of it; ``uneven``:
the query-key products where 3 * heads does not divide the width (MXNet reads the rows at its
own stride)."""

from __future__ import annotations

import mxnet as mx
from core import infer, quantize_mkldnn

FILE = "tests/symbol/golden/mkldnn_selfatt.npz"
SEED = 3


def attention_symbol(F, heads: int = 2):  # noqa: N803 (mx or mxlite)
    qkv = F.sym.var("data")
    qk = F.sym.contrib.interleaved_matmul_selfatt_qk(qkv, heads=heads, name="qk")
    att = F.sym.softmax(qk, axis=-1, name="att")
    return F.sym.contrib.interleaved_matmul_selfatt_valatt(qkv, att, heads=heads, name="valatt")


def record(golden) -> None:
    data = golden.rng.uniform(-1, 1, (5, 2, 24)).astype("float32")
    sym = attention_symbol(mx)
    part = sym.get_backend_symbol("MKLDNN")
    fused = infer(part, {"data": mx.nd.array(data)})[0]
    golden.put("float", {"partitioned": part.tojson()}, data=data, out=fused.asnumpy())
    _, final, _, _ = quantize_mkldnn(sym, {}, {}, data, calib_mode="naive")
    quant = infer(final, {"data": mx.nd.array(data)})[0]
    golden.put("quant", {"final": final.tojson()}, out=quant.asnumpy())
    uneven = golden.rng.uniform(-1, 1, (4, 2, 20)).astype("float32")
    out = mx.nd.contrib.interleaved_matmul_selfatt_qk(mx.nd.array(uneven), heads=3)
    golden.put("uneven", {"heads": 3}, data=uneven, out=out.asnumpy())
