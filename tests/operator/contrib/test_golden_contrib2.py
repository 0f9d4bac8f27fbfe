"""DeformablePSROIPooling, quantize_v2, requantize and the multi-tensor LAMB updates against
values recorded from MXNet 1.9.1 (tools/golden/cases/contrib2.py)."""

import numpy as np
import pytest

import mxlite as mx

from ...golden_file import load
from . import graph_cases

_GOLD = load("operator/contrib/golden/contrib2_ops.npz")
_META = [{"name": k, **m} for k, m in _GOLD.cases.items()]
_OPS = [m for m in _META if "kind" not in m]
_LAMB = [m for m in _META if m.get("kind") == "lamb"]


def _nd(a):
    return mx.nd.array(a, dtype=a.dtype)


def _params(meta):
    return {k: tuple(v) if isinstance(v, list) else v for k, v in meta["params"].items()}


@pytest.mark.parametrize("meta", _OPS, ids=[m["name"] for m in _OPS])
def test_operator_matches_mxnet(meta):
    name = meta["name"]
    ins = [_nd(_GOLD[f"{name}/in{i}"]) for i in range(meta["n_in"])]
    fn = getattr(mx.nd.contrib, meta["fn"])
    grads = [i for i in range(meta["n_in"]) if meta["grad"] and i != 1]
    for i in grads:
        ins[i].attach_grad()
    with mx.autograd.record():
        outs = fn(*ins, **_params(meta))
    outs = outs if isinstance(outs, list) else [outs]
    assert len(outs) == meta["n_out"]
    for i, o in enumerate(outs):
        want = _GOLD[f"{name}/out{i}"]
        assert o.dtype == want.dtype and o.shape == want.shape
        if name.startswith("quantize_v2"):
            # MXNet 1.9.1's CPU (MKLDNN) kernel: round(x * (127.5 or 255.5) / max|range|)
            np.testing.assert_array_equal(o.asnumpy(), want)
        elif want.dtype.kind == "i":
            # MKLDNN rounds half to even where the reference kernel rounds half away from
            # zero: a level apart at most
            assert np.abs(o.asnumpy().astype(np.int64) - want).max() <= 1
        else:
            np.testing.assert_allclose(o.asnumpy(), want, rtol=1e-5, atol=1e-6)
    if not grads:
        return
    mx.autograd.backward(outs, [_nd(_GOLD[f"{name}/head{i}"]) for i in range(len(outs))])
    for i in grads:
        np.testing.assert_allclose(
            ins[i].grad.asnumpy(), _GOLD[f"{name}/grad{i}"], rtol=1e-4, atol=1e-5
        )


@pytest.mark.parametrize("meta", _LAMB, ids=[m["name"] for m in _LAMB])
def test_multi_lamb_update_matches_mxnet(meta):
    name = meta["name"]
    ins = [_nd(_GOLD[f"{name}/in{i}"]) for i in range(meta["n_in"])]
    for i, a in enumerate(graph_cases.lamb(mx, meta["mp"], ins, _params(meta))):
        want = _GOLD[f"{name}/after{i}"]
        tol = 1e-3 if want.dtype == np.float16 else 1e-5
        np.testing.assert_allclose(a.asnumpy(), want, rtol=tol, atol=tol)


def test_multi_lamb_update_checks_its_lists():
    w = [mx.nd.ones((2,))]
    with pytest.raises(mx.base.ParamError, match="step_count"):
        mx.nd.contrib.multi_lamb_update(w, w, w, w, step_count=(1, 2), lrs=(0.1,), wds=(0.0,))


def test_deformable_psroi_pooling_checks_trans():
    data, rois = mx.nd.ones((1, 8, 4, 4)), mx.nd.array([[0, 0, 0, 3, 3]])
    with pytest.raises(mx.base.ShapeError, match="trans must be 4-D"):
        mx.nd.contrib.DeformablePSROIPooling(
            data, rois, mx.nd.ones((1, 2)), spatial_scale=1.0, output_dim=2, group_size=2,
            pooled_size=2,
        )  # fmt: skip


def test_quantize_v2_and_requantize_check_dtypes():
    with pytest.raises(mx.base.DTypeError, match="float32, int8 or uint8"):
        mx.nd.contrib.quantize_v2(mx.nd.ones((2,), dtype="float64"))
    with pytest.raises(mx.base.DTypeError, match="int32"):
        mx.nd.contrib.requantize(mx.nd.ones((2,)), mx.nd.array([0.0]), mx.nd.array([1.0]))
