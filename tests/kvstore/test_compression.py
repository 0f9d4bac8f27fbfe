"""2-bit gradient compression: the values, residuals and packed words of MXNet 1.9.1."""

from __future__ import annotations

import numpy as np
import pytest

from mxlite.base import MXNetError
from mxlite.kvstore.compression import TwoBitCompression, parse_params


def test_quantize_thresholds_and_keeps_residuals():
    comp = TwoBitCompression(0.5)
    res = np.zeros(5, np.float32)
    grad = np.array([0.7, -0.6, 0.2, -0.2, 0.5], np.float32)
    packed = comp.quantize(grad, res)
    assert packed.dtype == np.float32 and packed.size == 1
    np.testing.assert_allclose(comp.dequantize(packed, 5), [0.5, -0.5, 0, 0, 0.5])
    np.testing.assert_allclose(res, [0.2, -0.1, 0.2, -0.2, 0.0], atol=1e-7)
    # the residual carries over: 0.2 + 0.4 crosses the threshold next time
    again = comp.dequantize(comp.quantize(np.array([0, 0, 0.4, 0, 0], np.float32), res), 5)
    np.testing.assert_allclose(again, [0, 0, 0.5, 0, 0])


def test_packing_is_mxnets_bit_layout():
    comp = TwoBitCompression(1.0)
    grad = np.zeros(17, np.float32)
    grad[0], grad[1], grad[5], grad[16] = 1, -1, 1, -1
    packed = comp.quantize(grad, np.zeros(17, np.float32))
    raw = packed.view(np.uint8)
    assert packed.size == 2  # ceil(17 / 16) words
    # element 0 -> 0xc0, element 1 -> 0x20 (byte 0); element 5 -> 0x30 (byte 1)
    assert list(raw[:4]) == [0xC0 | 0x20, 0x30, 0, 0]
    assert raw[4] == 0x80


@pytest.mark.parametrize(
    "params, match",
    [
        ("2bit", "must be a dict"),
        ({"type": "1bit"}, "Unknown type.*1bit"),
        ({"type": "2bit", "threshold": 0}, "threshold must be greater than 0"),
        ({"type": "2bit", "thresh": 1}, "unknown compression parameters"),
    ],
)
def test_bad_params(params, match):
    with pytest.raises(MXNetError, match=match):
        parse_params("set_gradient_compression", params)


def test_params_default_threshold_and_none():
    assert parse_params("f", {"type": "2bit"}).threshold == 0.5
    assert parse_params("f", {"type": "none"}) is None
