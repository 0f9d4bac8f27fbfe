"""``mx.contrib.quantization`` against MXNet 1.9.1 (tests/contrib/golden/quantization.npz, from
tools/golden/cases/quantization.py): for the graphs and options of quant_cases.py, the
quantized symbol's JSON (calibrated thresholds included) and quantized parameters equal MXNet's;
outputs equal MXNet's where its CPU kernels run the graph, and stay near the float model's; the
Gluon path's output is within quantization error of MXNet's MKLDNN-fused one."""

from __future__ import annotations

import json

import numpy as np
import pytest

import mxlite as mx
from tests.contrib import quant_cases as c
from tests.golden_file import load

GOLDEN = load("contrib/golden/quantization.npz")
CASES = {name: (graph, kwargs) for name, graph, kwargs in c.CASES}


@pytest.fixture(scope="module")
def quantized() -> dict:
    return {name: c.quantize(mx, graph, kwargs) for name, (graph, kwargs) in CASES.items()}


_RANGES = ("min_calib_range", "max_calib_range")


def _split_ranges(text: str) -> tuple[dict, list]:
    """The graph of JSON ``text`` without its calibrated ranges, and the ranges."""
    graph = json.loads(text)
    # MXNet's MKLDNN build counts max Pooling's hidden workspace output in node_row_ptr; the
    # JSON mxlite writes is that of MXNet's other builds (both load either)
    del graph["node_row_ptr"]
    ranges = []
    for node in graph["nodes"]:
        for key in _RANGES:
            if key in node.get("attrs", {}):
                ranges.append((node["name"], key, float(node["attrs"].pop(key))))
    return graph, ranges


@pytest.mark.parametrize("case", list(CASES))
def test_quantized_json_equals_mxnets(case: str, quantized: dict) -> None:
    got, got_ranges = _split_ranges(quantized[case][0].tojson())
    want, want_ranges = _split_ranges(GOLDEN.cases[case]["json"])
    assert got == want
    # the ranges come from float layer outputs, which may differ in the last bit; an entropy
    # threshold is the argmin of a flat divergence curve over 8001-bin histograms, which
    # such a bit can move by a bin or a few
    assert [r[:2] for r in got_ranges] == [r[:2] for r in want_ranges]
    rtol = 0.01 if "entropy" in case else 1e-5
    np.testing.assert_allclose([r[2] for r in got_ranges], [r[2] for r in want_ranges],
                               rtol=rtol, atol=1e-6)  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_quantized_params_equal_mxnets(case: str, quantized: dict) -> None:
    qargs = quantized[case][1]
    want = {k[4:]: v for k, v in GOLDEN.arrays(case).items() if k.startswith("arg:")}
    assert sorted(qargs) == sorted(want)
    for name, value in want.items():
        got = qargs[name].asnumpy()
        assert got.dtype == value.dtype, name
        np.testing.assert_array_equal(got, value, err_msg=name)


@pytest.mark.parametrize("case", [k for k in CASES if "out0" in GOLDEN.arrays(k)])
def test_quantized_outputs_equal_mxnets(case: str, quantized: dict) -> None:
    got = c.forward(mx, *quantized[case])
    # MXNet's MKLDNN kernels round some steps half to even where mxlite's round half away
    np.testing.assert_allclose(got, GOLDEN.arrays(case)["out0"], rtol=0, atol=0.01)


# With uint8 data (uint8, or auto on these non-negative images) the unfused quantized
# convolution adds its int8 bias unscaled and reads the data as 127 levels, as MXNet's CPU
# kernel does: only MXNet's fused graph (MKLDNN_QUANTIZE) is accurate there. These cases
# quantize the data to int8.
_INT8 = [k for k, (_, kw) in CASES.items() if kw.get("quantized_dtype", "int8") == "int8"]


@pytest.mark.parametrize("case", [k for k in _INT8 if k != "none-int8"])
def test_quantized_outputs_stay_near_the_float_models(case: str, quantized: dict) -> None:
    want = GOLDEN.arrays(f"float-{CASES[case][0]}")["out0"]
    got = c.forward(mx, *quantized[case])
    np.testing.assert_allclose(got, want, rtol=0, atol=0.03)


def test_uncalibrated_quantized_batchnorm_is_refused_as_in_mxnet(quantized: dict) -> None:
    # MXNet's CPU quantized BatchNorm needs calibrated ranges; so does mxlite's
    with pytest.raises(mx.base.MXNetError, match="calib"):
        c.forward(mx, *quantized["none-int8"])


def _check_gluon(dtype: str) -> None:
    gold = GOLDEN.arrays(f"gluon-naive-{dtype}")
    got = c.quantize_gluon(mx, "naive", dtype)
    # MXNet runs its MKLDNN-fused graph; the two differ by int8 rounding, each near float
    scale = np.abs(gold["float0"]).max()
    np.testing.assert_allclose(got, gold["out0"], rtol=0, atol=0.1 * scale)
    np.testing.assert_allclose(got, gold["float0"], rtol=0, atol=0.1 * scale)


def test_quantize_net_int8_output_is_within_quantization_error_of_mxnets() -> None:
    _check_gluon("int8")


def test_quantize_net_auto_output_is_within_quantization_error_of_mxnets() -> None:
    _check_gluon("auto")
