"""The MKLDNN / MKLDNN_QUANTIZE backends (``Symbol.get_backend_symbol``) against MXNet 1.9.1:
partitioned graphs' JSON, fused against unfused outputs, and quantized models MXNet wrote
(golden file from ``tools/golden/cases/mkldnn_backend.py``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import mxlite as mx
from tests.golden_file import TESTS, GoldenFile
from tests.symbol.mkldnn_cases import quantized_block

PATH = TESTS / "symbol/golden/mkldnn_backend.npz"


@pytest.fixture(scope="module")
def golden() -> GoldenFile:
    if not PATH.exists():
        pytest.skip("golden file missing: run tools/golden/run.py mkldnn_backend")
    return GoldenFile(PATH)


def _bind(sym: mx.sym.Symbol, arrays: dict, data: np.ndarray, arg: str, aux: str):
    args = {k[len(arg) :]: mx.nd.array(v, dtype=v.dtype) for k, v in arrays.items()
            if k.startswith(arg)}  # fmt: skip
    auxs = {k[len(aux) :]: mx.nd.array(v, dtype=v.dtype) for k, v in arrays.items()
            if k.startswith(aux)}  # fmt: skip
    exe = sym.bind(mx.cpu(), {"data": mx.nd.array(data), **args}, aux_states=auxs,
                   grad_req="null")  # fmt: skip
    return exe.forward(is_train=False)[0].asnumpy()


def test_float_partition_json_matches_mxnet(golden: GoldenFile) -> None:
    case = golden.cases["float"]
    sym = mx.sym.load_json(case["json"])
    assert sym.get_backend_symbol("MKLDNN").tojson() == case["partitioned"]


def test_partitioned_json_round_trip(golden: GoldenFile) -> None:
    text = golden.cases["float"]["partitioned"]
    assert mx.sym.load_json(text).tojson() == text
    text = golden.cases["quant"]["final"]
    assert mx.sym.load_json(text).tojson() == text


def test_fused_float_matches_unfused(golden: GoldenFile) -> None:
    case, arrays = golden.cases["float"], golden.arrays("float")
    fused = mx.sym.load_json(case["partitioned"])
    plain = mx.sym.load_json(case["json"])
    got = _bind(fused, arrays, arrays["data"], "arg:", "aux:")
    want = _bind(plain, arrays, arrays["data"], "arg:", "aux:")
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got, arrays["ref"], rtol=1e-4, atol=1e-5)


def test_post_quantize_json_matches_mxnet(golden: GoldenFile) -> None:
    case = golden.cases["quant"]
    sym = mx.sym.load_json(case["pre"])
    assert sym.get_backend_symbol("MKLDNN_QUANTIZE").tojson() == case["final"]


@pytest.mark.parametrize("products", ["auto", "float"])
def test_quantized_model_from_mxnet_gives_mxnet_outputs(
    golden: GoldenFile, monkeypatch: pytest.MonkeyPatch, products: str
) -> None:
    """On the integer products (onnxruntime, where installed) and on float32 ones."""
    monkeypatch.setenv("MXLITE_INT8_GEMM", products)
    case, arrays = golden.cases["quant"], golden.arrays("quant")
    data = golden.arrays("float")["data"]
    got = _bind(mx.sym.load_json(case["final"]), arrays, data, "qarg:", "qaux:")
    want = arrays["out"]
    # the float output of the last int8 layer: within one level of its int8 input's range
    step = np.abs(want).max() / 127
    np.testing.assert_allclose(got, want, rtol=0, atol=step)


def test_unknown_backend_is_refused() -> None:
    with pytest.raises(mx.MXNetError, match="get_backend_symbol.*backend"):
        mx.sym.var("x").get_backend_symbol("TensorRT")


def test_selector_shapes_match_mxnet(golden: GoldenFile) -> None:
    """A convolution read twice, the sum's chain on the right, sigmoid/leaky/clip/tanh,
    Dropout and identity removed, FC with sigmoid, square and clip."""
    case = golden.cases["shapes"]
    sym = mx.sym.load_json(case["json"])
    assert sym.get_backend_symbol("MKLDNN").tojson() == case["partitioned"]
    assert sym.get_backend_symbol("MKLDNN_QUANTIZE").tojson() == case["quantize_partitioned"]


def test_selector_shapes_outputs(golden: GoldenFile) -> None:
    case, arrays = golden.cases["shapes"], golden.arrays("shapes")
    for key in ("partitioned", "quantize_partitioned"):
        got = _bind(mx.sym.load_json(case[key]), arrays, arrays["data"], "arg:", "aux:")
        np.testing.assert_allclose(got, arrays["ref"], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["quant_none", "quant_channel", "quant_concat"])
def test_quantized_variants_match_mxnet(golden: GoldenFile, name: str) -> None:
    """No calibration (int32 convolutions, requantize at run time), channel-wise FC, and
    concat (scale alignment) with quantized elemwise_add/mul taking their requantize."""
    case, arrays = golden.cases[name], golden.arrays(name)
    assert (
        mx.sym.load_json(case["pre"]).get_backend_symbol("MKLDNN_QUANTIZE").tojson()
        == (case["final"])
    )
    got = _bind(mx.sym.load_json(case["final"]), arrays, arrays["data"], "qarg:", "qaux:")
    want = arrays["out0"]
    np.testing.assert_allclose(got, want, rtol=0, atol=np.abs(want).max() / 127)


def _quantize_net_or_skip():
    try:
        return mx.contrib.quantization.quantize_net
    except (AttributeError, ImportError, RuntimeError):
        pytest.skip("mx.contrib.quantization.quantize_net is not in this tree yet")


def test_quantize_net_graph_is_mxnets(golden: GoldenFile) -> None:
    """mx.contrib.quantization.quantize_net (its MKLDNN_QUANTIZE calls are these passes) makes
    MXNet's graph of the same network, calibrated ranges within float rounding, and its
    outputs within one int8 level."""
    _quantize_net_or_skip()
    arrays = golden.arrays("float")
    params = {k[4:]: v for k, v in arrays.items() if k.startswith(("arg:", "aux:"))}
    sym = mx.sym.load_json(golden.cases["float"]["json"])
    qnet = quantized_block(mx, sym, params, arrays["data"])
    got = json.loads(qnet._cached_graph[1].tojson())
    want = json.loads(golden.cases["quantize_net"]["json"])
    assert len(got["nodes"]) == len(want["nodes"])
    for g, w in zip(got["nodes"], want["nodes"]):
        ga, wa = g.get("attrs", {}), w.get("attrs", {})
        assert (g["op"], g["name"], g["inputs"], sorted(ga)) == (
            w["op"],
            w["name"],
            w["inputs"],
            sorted(wa),
        )
        for k, v in wa.items():
            if k.endswith("_calib_range"):
                assert float(ga[k]) == pytest.approx(float(v), rel=1e-4, abs=1e-6)
            else:
                assert ga[k] == v
    want_out = golden.arrays("quantize_net")["out"]
    got_out = qnet(mx.nd.array(arrays["data"])).asnumpy()
    np.testing.assert_allclose(got_out, want_out, rtol=0, atol=np.abs(want_out).max() / 127)
