"""mx.rnn's convolutional cells against MXNet 1.9.1 (graph JSON and outputs recorded by
tools/golden/cases/contrib.py)."""

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from mxlite.rnn import conv_cells

from ..golden_file import load
from ..operator.contrib import graph_cases

_GOLD = load("operator/contrib/golden/contrib.npz")
_META = [{"name": k, **m} for k, m in _GOLD.cases.items() if m.get("kind") == "conv_cell"]


@pytest.mark.parametrize("meta", _META, ids=[m["cls"] for m in _META])
def test_conv_cell_matches_mxnet(meta):
    cell, net = graph_cases.conv_cell(mx, meta["cls"])
    assert net.tojson() == meta["json"]
    assert sorted(cell.params._params) == [
        "c_h2h_bias",
        "c_h2h_weight",
        "c_i2h_bias",
        "c_i2h_weight",
    ]
    args = {n: mx.nd.array(_GOLD[f"{meta['name']}/arg_{n}"]) for n in meta["args"]}
    outs = net.bind(mx.cpu(), args).forward()
    for i, o in enumerate(outs):
        np.testing.assert_allclose(o.asnumpy(), _GOLD[f"{meta['name']}/out{i}"], rtol=1e-5,
                                   atol=1e-6)  # fmt: skip


def test_even_h2h_kernel_is_refused():
    with pytest.raises(MXNetError, match="odd"):
        conv_cells.ConvLSTMCell(input_shape=(1, 2, 5, 4), num_hidden=3, h2h_kernel=(2, 3))
