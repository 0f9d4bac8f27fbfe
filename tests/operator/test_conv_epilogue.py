"""The convolution epilogue that ``executor/fuse.py`` fuses (``Operator.forward_epilogue``):
``max(conv(x) + bias + residual, 0)`` in the output pass, by every algorithm and kernel path
(1x1, im2col with the bias in the product, grouped, depthwise, Winograd, onnxruntime), with
the residual a separate array or the output itself, equal to the separate passes within
float32 rounding."""

from __future__ import annotations

import numpy as np
import pytest

from mxlite.operator.nn import _conv_algo
from mxlite.operator.nn._conv_util import Geometry

TOL = 1e-5  # of the output scale

# (data shape, weight shape, kernel, pad, groups)
CASES = {
    "pointwise": ((2, 8, 5, 5), (6, 8, 1, 1), (1, 1), (0, 0), 1),
    "pointwise_groups": ((2, 8, 5, 5), (6, 4, 1, 1), (1, 1), (0, 0), 2),
    "3x3": ((3, 4, 7, 9), (5, 4, 3, 3), (3, 3), (1, 1), 1),
    "3x3_groups": ((2, 8, 6, 6), (8, 4, 3, 3), (3, 3), (1, 1), 2),
    "depthwise": ((2, 6, 6, 6), (6, 1, 3, 3), (3, 3), (1, 1), 6),
}


class _WeightVar:
    """Stands for a weight's engine var: an inference forward that may keep what it derives."""

    version = 0


@pytest.mark.parametrize("algo", ["im2col", "winograd2", "winograd4", "onnxruntime", "auto"])
@pytest.mark.parametrize("alias", [False, True])
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("case", sorted(CASES))
def test_epilogue_equals_separate_passes(
    case: str, bias: bool, alias: bool, algo: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MXLITE_CONV_ALGO", algo)
    if algo == "onnxruntime":
        pytest.importorskip("onnxruntime")
    var = _WeightVar()
    xs, ws, kernel, pad, groups = CASES[case]
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, xs).astype(np.float32)
    w = rng.uniform(-1, 1, ws).astype(np.float32)
    b = rng.uniform(-1, 1, ws[0]).astype(np.float32) if bias else None
    geom = Geometry(kernel, (1, 1), (1, 1), pad, groups, False)
    spatial = tuple(s + 2 * p - k + 1 for s, p, k in zip(xs[2:], pad, kernel))
    y = _conv_algo.conv_forward(np, x, w, geom, spatial, bias=b)
    residual = rng.uniform(-1, 1, y.shape).astype(np.float32)
    want = np.maximum(y + residual, 0)
    out = residual.copy() if alias else np.empty_like(y)
    res = out if alias else residual
    got = _conv_algo.conv_forward(
        np, x, w, geom, spatial, out=out, bias=b, weight_var=var, residual=res, relu=True
    )
    assert got is out
    assert np.abs(got - want).max() <= TOL * np.abs(want).max()
    relu_only = _conv_algo.conv_forward(np, x, w, geom, spatial, bias=b, weight_var=var, relu=True)
    assert np.abs(relu_only - np.maximum(y, 0)).max() <= TOL * np.abs(y).max()
