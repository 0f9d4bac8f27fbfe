"""MXNet 1.9.1's transformer passes of its CPU backends on a small self-attention graph
(interleaved query-key products, softmax, attention-weighted values): ``float``: the ``MKLDNN``
partition and the fused outputs; ``quant``: ``quantize_model`` of the ``MKLDNN_QUANTIZE``
partition with naive calibration, the final partition and MXNet's outputs of it; ``uneven``:
the query-key products where 3 * heads does not divide the width (MXNet reads the rows at its
own stride)."""

from __future__ import annotations

import mxnet as mx

FILE = "tests/symbol/golden/mkldnn_selfatt.npz"
SEED = 3


def attention_symbol(F, heads: int = 2):  # noqa: N803 (mx or mxlite)
    qkv = F.sym.var("data")
    qk = F.sym.contrib.interleaved_matmul_selfatt_qk(qkv, heads=heads, name="qk")
    att = F.sym.softmax(qk, axis=-1, name="att")
    return F.sym.contrib.interleaved_matmul_selfatt_valatt(qkv, att, heads=heads, name="valatt")


def record(golden) -> None:
    from mxnet.contrib import quantization as q

    data = golden.rng.uniform(-1, 1, (5, 2, 24)).astype("float32")
    sym = attention_symbol(mx)
    part = sym.get_backend_symbol("MKLDNN")
    fused = part.bind(mx.cpu(), {"data": mx.nd.array(data)}, grad_req="null")
    golden.put("float", {"partitioned": part.tojson()}, data=data,
               out=fused.forward(is_train=False)[0].asnumpy())  # fmt: skip

    calib = mx.io.NDArrayIter(data=mx.nd.array(data), batch_size=len(data))
    qsym, qargs, qaux = q.quantize_model(
        sym.get_backend_symbol("MKLDNN_QUANTIZE"), {}, {}, ctx=mx.cpu(), calib_mode="naive",
        calib_data=calib, num_calib_examples=len(data), quantized_dtype="auto",
        quantize_mode="full", logger=None,
    )  # fmt: skip
    final = qsym.get_backend_symbol("MKLDNN_QUANTIZE")
    qexe = final.bind(mx.cpu(), {"data": mx.nd.array(data)}, grad_req="null")
    golden.put("quant", {"final": final.tojson()}, out=qexe.forward(is_train=False)[0].asnumpy())

    uneven = golden.rng.uniform(-1, 1, (4, 2, 20)).astype("float32")
    out = mx.nd.contrib.interleaved_matmul_selfatt_qk(mx.nd.array(uneven), heads=3)
    golden.put("uneven", {"heads": 3}, data=uneven, out=out.asnumpy())
