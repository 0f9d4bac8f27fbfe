"""BatchNorm_v1 (mxlite/operator/nn/batch_norm_v1.py): BatchNorm's computation on axis 1, with
the batch variance as third output, as MXNet 1.9.1 gives it."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError


def _bind(op, **kw):
    rng = np.random.default_rng(0)
    x = rng.random((4, 3, 2, 2), dtype=np.float32)
    args = {
        "data": mx.nd.array(x),
        "bn_gamma": mx.nd.array([0.5, 1.5, 2.0]),
        "bn_beta": mx.nd.array([0.1, -0.2, 0.3]),
    }
    grads = {k: mx.nd.zeros(v.shape) for k, v in args.items()}
    aux = {"bn_moving_mean": mx.nd.array([0.1, 0.2, 0.3]), "bn_moving_var": mx.nd.array([1, 2, 3])}
    sym = op(mx.sym.var("data"), output_mean_var=True, name="bn", **kw)
    return x, sym.bind(mx.cpu(), args, grads, aux_states=aux)


@pytest.mark.parametrize("fix_gamma", [False, True])
def test_batch_norm_v1_outputs_the_variance_and_trains_as_batch_norm(fix_gamma):
    x, v1 = _bind(mx.sym.BatchNorm_v1, fix_gamma=fix_gamma)
    _, v2 = _bind(mx.sym.BatchNorm, fix_gamma=fix_gamma)
    head = [mx.nd.array(np.linspace(-1, 1, 48).reshape(4, 3, 2, 2)), mx.nd.zeros(3), mx.nd.zeros(3)]
    out1, out2 = v1.forward(is_train=True), v2.forward(is_train=True)
    np.testing.assert_allclose(out1[0].asnumpy(), out2[0].asnumpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out1[1].asnumpy(), x.mean(axis=(0, 2, 3)), rtol=1e-6)
    np.testing.assert_allclose(out1[2].asnumpy(), x.var(axis=(0, 2, 3)), rtol=1e-4)
    v1.backward(head)
    v2.backward(head)
    for k in ("data", "bn_gamma", "bn_beta"):
        np.testing.assert_allclose(
            v1.grad_dict[k].asnumpy(), v2.grad_dict[k].asnumpy(), rtol=1e-4, atol=1e-5
        )
    for k in ("bn_moving_mean", "bn_moving_var"):  # updated by the backward, as BatchNorm
        np.testing.assert_allclose(v1.aux_dict[k].asnumpy(), v2.aux_dict[k].asnumpy(), rtol=1e-5)


def test_batch_norm_v1_in_inference_gives_the_moving_statistics():
    _, exe = _bind(mx.sym.BatchNorm_v1, fix_gamma=False)
    out = exe.forward(is_train=False)
    assert out[1].asnumpy().tolist() == pytest.approx([0.1, 0.2, 0.3])
    assert out[2].asnumpy().tolist() == [1, 2, 3]


def test_batch_norm_v1_is_float32_only_and_initialises_its_statistics():
    d = mx.sym.var("data")
    attrs = mx.sym.BatchNorm_v1(d, name="bn").attr_dict()
    assert attrs["bn_moving_var"]["__init__"] == '["one", {}]'
    with pytest.raises(DTypeError, match="BatchNorm_v1.*float32 only"):
        mx.sym.BatchNorm_v1(d).infer_type(data="float64")
