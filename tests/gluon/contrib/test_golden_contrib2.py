"""Blocks built the same way under MXNet 1.9.1 and mxlite (tools/golden/cases/contrib2.py):
the deformable convolution layers of gluon.contrib.cnn, contrib.rnn's dynamic_unroll and
boolean_mask in a hybridized block; parameters, outputs and gradients against MXNet's."""

import numpy as np
import pytest

import mxlite as mx

from ...golden_file import load
from . import block_cases

_GOLD = load("gluon/contrib/golden/contrib2_gluon.npz")
_META = [{"name": k, **m} for k, m in _GOLD.cases.items()]


@pytest.mark.parametrize("meta", _META, ids=[m["name"] for m in _META])
def test_block_matches_mxnet(meta):
    name = meta["name"]
    ins = [_GOLD[f"{name}/in{i}"] for i in range(meta["n_in"])]
    params, xs, outs = block_cases.run(
        mx, name, lambda shapes: ins, lambda pname, shape: _GOLD[f"{name}/param/{pname}"],
        lambda outs: [_GOLD[f"{name}/head{i}"] for i in range(len(outs))],
    )[1:]  # fmt: skip
    assert sorted(params.keys()) == meta["params"]  # MXNet's parameter names
    assert len(outs) == meta["n_out"]
    tol = dict(rtol=1e-4, atol=1e-5)
    for i, o in enumerate(outs):
        np.testing.assert_allclose(o.asnumpy(), _GOLD[f"{name}/out{i}"], **tol)
    if not meta["grad"]:
        return
    for i, x in enumerate(xs):
        np.testing.assert_allclose(x.grad.asnumpy(), _GOLD[f"{name}/ingrad{i}"], **tol)
    for pname in meta["params"]:
        np.testing.assert_allclose(
            params[pname].grad().asnumpy(), _GOLD[f"{name}/grad/{pname}"], **tol
        )


def test_deformable_layer_shapes_and_repr():
    from mxlite.gluon.contrib.cnn import DeformableConvolution, ModulatedDeformableConvolution

    layer = DeformableConvolution(6, kernel_size=(3, 2), groups=2, in_channels=4, use_bias=False)
    assert layer.deformable_conv_weight.shape == (6, 2, 3, 2)
    assert layer.offset_weight.shape == (12, 2, 3, 2)
    assert repr(layer) == (
        "DeformableConvolution(2 -> 6, kernel_size=(3, 2), stride=(1, 1), groups=2, bias=False)"
    )
    mod = ModulatedDeformableConvolution(2, kernel_size=3, num_deformable_group=2)
    assert mod.offset_bias.shape == (54,)  # 2 offsets and a mask per point and group
    with pytest.raises(mx.base.MXNetError, match="NCHW"):
        DeformableConvolution(2, layout="NCW")
