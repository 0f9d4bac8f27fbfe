"""The fused optimizer update operators: values from MXNet 1.9.1, in-place state updates
through mx.nd, engine dependencies on the mutated states, and parameter errors.
(Whole update sequences against MXNet are in tests/optimizer.)"""

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError

W = [1.0, 1.0, 1.0, 1.0]
G = [0.0, 1.0, 2.0, 3.0]


def test_sgd_mom_update_out_weight_mutates_weight_and_mom():
    w, g, mom = mx.nd.array(W), mx.nd.array(G), mx.nd.zeros(4)
    res = mx.nd.sgd_mom_update(w, g, mom, lr=0.1, momentum=0.9, wd=0.01, out=w)
    assert res is w
    # recorded from MXNet 1.9.1
    np.testing.assert_allclose(w.asnumpy(), [0.999, 0.899, 0.799, 0.699], rtol=1e-6)
    np.testing.assert_allclose(mom.asnumpy(), [-0.001, -0.101, -0.201, -0.301], rtol=1e-6)


def test_adam_update_values_and_states():
    w, g = mx.nd.array([0.999, 0.899, 0.799, 0.699]), mx.nd.array(G)
    mean, var = mx.nd.zeros(4), mx.nd.zeros(4)
    out = mx.nd.adam_update(w, g, mean, var, lr=0.1)
    np.testing.assert_allclose(out.asnumpy(), [0.999, 0.5827702, 0.48277017, 0.38277015], rtol=1e-6)
    np.testing.assert_allclose(mean.asnumpy(), [0.0, 0.1, 0.2, 0.3], rtol=1e-6)
    np.testing.assert_allclose(w.asnumpy(), [0.999, 0.899, 0.799, 0.699], rtol=1e-6)


def test_states_are_auxiliary_and_serialised_by_engine():
    prop = mx.operator.registry.get("mp_sgd_mom_update").get_prop({"lr": 0.1})
    assert prop.list_arguments() == ["weight", "grad"]
    assert prop.list_auxiliary_states() == ["mom", "weight32"]
    w16 = mx.nd.array([1.0, 2.0], dtype="float16")
    g16 = mx.nd.array([1.0, 1.0], dtype="float16")
    mom, w32 = mx.nd.zeros(2), w16.astype("float32")
    for _ in range(3):
        mx.nd.mp_sgd_mom_update(w16, g16, mom, w32, lr=0.1, momentum=0.5, out=w16)
    # mom: -0.1, -0.15, -0.175 ; w32 moves by their sum
    np.testing.assert_allclose(mom.asnumpy(), [-0.175, -0.175], rtol=1e-6)
    np.testing.assert_allclose(w32.asnumpy(), [0.575, 1.575], rtol=1e-6)
    assert w16.dtype == np.float16


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_sgd_update_formula_and_clip(dtype):
    w = np.array([1.0, -1.0, 0.5], dtype)
    g = np.array([4.0, -4.0, 0.2], dtype)
    out = mx.nd.sgd_update(mx.nd.array(w, dtype=dtype), mx.nd.array(g, dtype=dtype), lr=0.5,
                           wd=0.1, rescale_grad=0.5, clip_gradient=1.0)  # fmt: skip
    want = (1 - 0.05) * w - 0.5 * np.clip(0.5 * g, -1, 1)
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-6)
    assert out.dtype == np.dtype(dtype)


def test_nag_in_place_uses_new_weight_for_momentum():
    # MXNet's kernel reads the weight after writing the output: in place, that is the new one
    w, g, mom = mx.nd.array([1.0]), mx.nd.array([1.0]), mx.nd.array([0.5])
    mx.nd.nag_mom_update(w, g, mom, lr=0.1, momentum=0.9, wd=0.5, out=w)
    m = 0.45
    new_w = 1.0 - m + 1.9 * (m - 0.1 * (1.0 + 0.5))
    np.testing.assert_allclose(w.asnumpy(), [new_w], rtol=1e-6)
    np.testing.assert_allclose(mom.asnumpy(), [m - 0.1 * (1.0 + 0.5 * new_w)], rtol=1e-6)
    w2, mom2 = mx.nd.array([1.0]), mx.nd.array([0.5])
    mx.nd.nag_mom_update(w2, g, mom2, lr=0.1, momentum=0.9, wd=0.5)
    np.testing.assert_allclose(mom2.asnumpy(), [m - 0.1 * 1.5], rtol=1e-6)


def test_signum_ftrl_rmsprop_run():
    w, g = mx.nd.array([0.5, -0.5]), mx.nd.array([1.0, -2.0])
    mom = mx.nd.zeros(2)
    out = mx.nd.signum_update(w, g, mom, lr=0.1, momentum=0.9)
    np.testing.assert_allclose(out.asnumpy(), [0.4, -0.4], rtol=1e-6)
    z, n = mx.nd.zeros(2), mx.nd.zeros(2)
    mx.nd.ftrl_update(w, g, z, n, lr=0.1)
    np.testing.assert_allclose(n.asnumpy(), [1.0, 4.0])
    nn = mx.nd.zeros(2)
    out = mx.nd.rmsprop_update(w, g, nn, lr=0.1, clip_weights=0.45)
    assert np.all(np.abs(out.asnumpy()) <= 0.45 + 1e-7)


def test_lamb_phase2_shapes_and_trust_ratio():
    w, g = mx.nd.array([1.0, 2.0]), mx.nd.array([0.5, 0.5])
    out = mx.nd.lamb_update_phase2(w, g, mx.nd.array([2.0]), mx.nd.array([4.0]), lr=0.1)
    np.testing.assert_allclose(out.asnumpy(), [1.0 - 0.05 * 0.5, 2.0 - 0.05 * 0.5], rtol=1e-6)
    with pytest.raises(MXNetError, match="lamb_update_phase2.*r1"):
        mx.nd.lamb_update_phase2(w, g, mx.nd.array([2.0, 1.0]), mx.nd.array([4.0]), lr=0.1)


def test_errors_name_operator_and_argument():
    w, g = mx.nd.ones(3), mx.nd.ones(3)
    with pytest.raises(MXNetError, match="sgd_update.*lr"):
        mx.nd.sgd_update(w, g)
    with pytest.raises(MXNetError, match="sgd_mom_update.*moment"):
        mx.nd.sgd_mom_update(w, g, mx.nd.zeros(3), lr=0.1, moment=0.9)
    # states are checked when the update runs: the error surfaces at the next wait
    with pytest.raises(MXNetError, match="adam_update.*var"):
        mx.nd.adam_update(w, g, mx.nd.zeros(3), mx.nd.zeros(4), lr=0.1).asnumpy()
    with pytest.raises(MXNetError, match="mp_sgd_update.*weight32"):
        mx.nd.mp_sgd_update(w, g, mx.nd.zeros(3, dtype="float16"), lr=0.1).asnumpy()
    with pytest.raises(MXNetError, match="ftml_update.*beta1"):
        mx.nd.ftml_update(w, g, w, w, w, lr=0.1, t=1, beta1=1.5)
