"""The transformer passes of the MKLDNN backends (``_sg_mkldnn_selfatt_qk``/``_valatt``) against
MXNet 1.9.1 (``tools/golden/cases/mkldnn_selfatt.py``): the partitions MXNet writes, the float
and quantized outputs, and the query-key products at widths 3 * heads does not divide."""

from __future__ import annotations

import json

import numpy as np
import pytest

import mxlite as mx
from tests.golden_file import TESTS, GoldenFile

PATH = TESTS / "symbol/golden/mkldnn_selfatt.npz"


@pytest.fixture(scope="module")
def golden() -> GoldenFile:
    if not PATH.exists():
        pytest.skip(f"no golden file {PATH.name}")
    return GoldenFile(PATH)


def _symbol() -> mx.sym.Symbol:
    qkv = mx.sym.var("data")
    qk = mx.sym.contrib.interleaved_matmul_selfatt_qk(qkv, heads=2, name="qk")
    att = mx.sym.softmax(qk, axis=-1, name="att")
    return mx.sym.contrib.interleaved_matmul_selfatt_valatt(qkv, att, heads=2, name="valatt")


def _run(sym: mx.sym.Symbol, data: np.ndarray) -> np.ndarray:
    exe = sym.bind(mx.cpu(), {"data": mx.nd.array(data)}, grad_req="null")
    return exe.forward(is_train=False)[0].asnumpy()


def test_partition_is_mxnets_and_computes_the_same(golden: GoldenFile) -> None:
    case, arrays = golden.cases["float"], golden.arrays("float")
    part = _symbol().get_backend_symbol("MKLDNN")
    assert json.loads(part.tojson()) == json.loads(case["partitioned"])
    got = _run(part, arrays["data"])
    np.testing.assert_allclose(got, arrays["out"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got, _run(_symbol(), arrays["data"]), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("products", ["auto", "float"])
def test_quantized_model_is_mxnets(golden: GoldenFile, monkeypatch, products: str) -> None:
    """quantize_model with naive calibration gives MXNet's final graph (both products with a
    dequantize after them: float output) and its outputs within one int8 level."""
    monkeypatch.setenv("MXLITE_INT8_GEMM", products)
    data = golden.arrays("float")["data"]
    calib = mx.io.NDArrayIter(data=mx.nd.array(data), batch_size=len(data))
    qsym, _, _ = mx.contrib.quantization.quantize_model(
        _symbol().get_backend_symbol("MKLDNN_QUANTIZE"), {}, {}, ctx=mx.cpu(),
        calib_mode="naive", calib_data=calib, num_calib_examples=len(data),
        quantized_dtype="auto", quantize_mode="full", logger=None,
    )  # fmt: skip
    final = qsym.get_backend_symbol("MKLDNN_QUANTIZE")
    assert json.loads(final.tojson()) == json.loads(golden.cases["quant"]["final"])
    want = golden.arrays("quant")["out"]
    got = _run(mx.sym.load_json(golden.cases["quant"]["final"]), data)
    step = np.abs(data).max() / 127
    np.testing.assert_allclose(got, want, rtol=0, atol=step)


def test_query_key_products_at_uneven_widths_are_mxnets(golden: GoldenFile) -> None:
    arrays = golden.arrays("uneven")
    got = mx.nd.contrib.interleaved_matmul_selfatt_qk(mx.nd.array(arrays["data"]), heads=3)
    np.testing.assert_allclose(got.asnumpy(), arrays["out"], rtol=1e-5, atol=1e-6)
