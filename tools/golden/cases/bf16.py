"""bfloat16 on MXNet 1.9.1's CPU build (oneDNN): for each case of
tests/operator/bfloat16_cases.py, the operator's output on bfloat16 inputs as raw bits
(``out_bits``, uint16); ``edges``: ``amp_cast`` to bfloat16 of ``bfloat16_cases.EDGES`` (its
bits, as ``asnumpy()`` gives them: the ``bfloat16`` field of MXNet's record dtype) and the bits
``astype`` makes of them; ``params``: the bytes ``mx.nd.save`` writes for a dict of one
bfloat16 and one float32 array; ``convert``: ``amp.convert_model`` of
tests/contrib/amp/amp_cases.py's ``mlp`` to bfloat16 with ``cast_optional_params``: the bits of
each bfloat16 parameter, and the converted model's output bits before its final cast."""

import os
import tempfile
from typing import Any

import mxnet as mx
import numpy as np
from core import Golden, infer, isolated, load_module, nd_arrays

FILE = "tests/operator/golden/bf16.npz"


def _bits(a: Any) -> np.ndarray:
    return a.asnumpy()["bfloat16"]


def _op(c: Any, op: str, inputs: list, params: dict, fp32: list) -> dict:
    out = c.run(mx, op, inputs, params, fp32)
    return {"out_bits": _bits(out)}


def _edges(c: Any) -> dict:
    x = mx.nd.array(c.EDGES)
    return {"amp_cast": _bits(mx.nd.amp_cast(x, dtype=c.BF16)), "astype": _bits(x.astype(c.BF16))}


def _params(c: Any) -> bytes:
    bf = mx.nd.amp_cast(mx.nd.array(c.EDGES[:6].reshape(2, 3)), dtype=c.BF16)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "x.params")
        mx.nd.save(path, {"bf": bf, "f32": mx.nd.array([1.5, -2.0])})
        with open(path, "rb") as f:
            return f.read()


def _convert() -> dict:
    from mxnet.contrib import amp

    a = load_module("tests/contrib/amp/amp_cases.py")
    data, args, aux = a.params(mx, "mlp")
    sym = a.GRAPHS["mlp"](mx)
    conv, cargs, caux = amp.convert_model(sym, nd_arrays(args), {}, target_dtype="bfloat16",
                                          cast_optional_params=True)  # fmt: skip
    out = {f"arg:{k}": _bits(v) for k, v in cargs.items() if v.dtype == amp.amp.bfloat16}
    out["out0"] = infer(conv, {**nd_arrays(data), **cargs})[0].asnumpy()
    return out


def record(golden: Golden) -> None:
    c = load_module("tests/operator/bfloat16_cases.py")
    for name, op, inputs, params, fp32 in c.cases():
        meta = {"op": op, "params": params, "fp32": fp32}
        golden.put_isolated(name, meta, _op, c, op, inputs, params, fp32)
    golden.put("edges", {}, **isolated(_edges, c))
    golden.put("params", {}, raw=np.frombuffer(isolated(_params, c), np.uint8))
    golden.put("convert", {}, **isolated(_convert))
