"""gluon.contrib.nn and gluon.contrib.rnn: pixel shuffles against their NumPy definition,
concurrent blocks, the projected LSTM cell and variational dropout."""

import numpy as np
import pytest

import mxlite as mx
from mxlite.gluon import contrib, nn, rnn


def _shuffle_reference(x, factors):
    # (N, C*prod(f), *S) -> (N, C, S0*f0, S1*f1, ...)
    n, cf, *spatial = x.shape
    k = len(factors)
    c = cf // int(np.prod(factors))
    y = x.reshape(n, c, *factors, *spatial)
    order = [0, 1] + [a for i in range(k) for a in (2 + k + i, 2 + i)]
    y = y.transpose(order)
    return y.reshape(n, c, *[s * f for s, f in zip(spatial, factors)])


@pytest.mark.parametrize(
    "layer,shape,factors",
    [
        (contrib.nn.PixelShuffle1D(2), (1, 4, 3), (2,)),
        (contrib.nn.PixelShuffle2D((2, 3)), (2, 12, 2, 3), (2, 3)),
        (contrib.nn.PixelShuffle3D(2), (1, 16, 2, 1, 2), (2, 2, 2)),
    ],
)
def test_pixel_shuffle(layer, shape, factors):
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    want = _shuffle_reference(x, factors)
    np.testing.assert_array_equal(layer(mx.nd.array(x)).asnumpy(), want)
    layer.hybridize()
    np.testing.assert_array_equal(layer(mx.nd.array(x)).asnumpy(), want)


def test_concurrent_and_identity():
    for cls in (contrib.nn.HybridConcurrent, contrib.nn.Concurrent):
        model = cls(axis=1)
        model.add(nn.Dense(4, in_units=3), nn.Dense(2, in_units=3), contrib.nn.Identity())
        model.initialize()
        assert model(mx.nd.ones((5, 3))).shape == (5, 9)
    assert contrib.nn.SyncBatchNorm is nn.SyncBatchNorm


def test_sparse_embedding_needs_a_trainer():
    # as MXNet: the row_sparse weight's rows come through the Trainer's store
    layer = contrib.nn.SparseEmbedding(10, 4)
    layer.initialize()
    assert layer.weight.stype == "row_sparse" and layer.weight._grad_stype == "row_sparse"
    with pytest.raises(RuntimeError, match="Trainer"):
        layer(mx.nd.array([3, 4, 2]))


def test_lstmp_cell_names_shapes_and_values():
    cell = contrib.rnn.LSTMPCell(6, 3, prefix="p_")
    outs, _ = cell.unroll(2, [mx.sym.var("a"), mx.sym.var("b")])
    assert mx.sym.Group(outs).list_outputs() == ["p_t0_out_output", "p_t1_out_output"]
    assert sorted(cell.collect_params()) == [
        "p_h2h_bias", "p_h2h_weight", "p_h2r_weight", "p_i2h_bias", "p_i2h_weight",
    ]  # fmt: skip
    cell.initialize(mx.init.Uniform(0.5))
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (2, 3, 4)))
    out, (r, c) = cell.unroll(3, x, merge_outputs=True)
    assert out.shape == (2, 3, 3) and r.shape == (2, 3) and c.shape == (2, 6)
    # the fused LSTM with a projection computes the same
    layer = rnn.LSTM(6, projection_size=3, input_size=4, layout="NTC")
    layer.initialize()
    p = cell.collect_params()
    for name in ("i2h_weight", "h2h_weight", "h2r_weight", "i2h_bias", "h2h_bias"):
        getattr(layer, "l0_" + name).set_data(p["p_" + name].data())
    np.testing.assert_allclose(layer(x).asnumpy(), out.asnumpy(), rtol=1e-5, atol=1e-6)


def test_variational_dropout_keeps_one_mask_per_sequence():
    base = rnn.RNNCell(5, prefix="r_")
    cell = contrib.rnn.VariationalDropoutCell(base, drop_inputs=0.5, drop_outputs=0.5)
    cell.initialize()
    x = mx.nd.ones((2, 4, 3))
    with mx.autograd.record():
        out, _ = cell.unroll(4, x, merge_outputs=True)
    zero = out.asnumpy() == 0
    # the output mask is shared by every step
    assert (zero == zero[:, :1]).all() and zero.any()
    stepped = contrib.rnn.VariationalDropoutCell(rnn.RNNCell(5, prefix="s_"), drop_states=0.5)
    stepped.initialize()
    with mx.autograd.record():
        assert stepped.unroll(4, x, merge_outputs=True)[0].shape == (2, 4, 5)
    with pytest.raises(mx.base.MXNetError, match="bidirectional"):
        contrib.rnn.VariationalDropoutCell(
            rnn.BidirectionalCell(rnn.RNNCell(2), rnn.RNNCell(2)), drop_states=0.5
        )


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("dims", [1, 2, 3])
def test_conv_cells_shapes_and_names(kind, dims):
    cls = getattr(contrib.rnn, f"Conv{dims}D{kind}Cell")
    spatial = (7, 6, 5)[:dims]
    cell = cls((2, *spatial), 3, 3, 3, prefix="c_")
    outs, _ = cell.unroll(2, [mx.sym.var("a"), mx.sym.var("b")])
    group = mx.sym.Group(outs)
    assert group.list_outputs() == ["c_t0_out_output", "c_t1_out_output"]
    out_spatial = tuple(s - 2 for s in spatial)
    shapes = group.infer_shape(a=(1, 2, *spatial), b=(1, 2, *spatial))[1]
    assert shapes == [(1, 3, *out_spatial)] * 2


def test_conv_cell_infers_channels_and_matches_hybridized():
    cell = contrib.rnn.Conv1DLSTMCell((0, 7), 4, (3,), (3,), i2h_pad=(1,))
    cell.initialize(mx.init.Uniform(0.3))
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (2, 3, 5, 7)))
    out, states = cell.unroll(3, x, merge_outputs=True)
    assert cell.i2h_weight.shape == (16, 5, 3) and out.shape == (2, 3, 4, 7)
    cell.hybridize()
    out2, _ = cell.unroll(3, x, merge_outputs=True)
    np.testing.assert_allclose(out2.asnumpy(), out.asnumpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(mx.base.MXNetError, match="odd"):
        contrib.rnn.Conv2DGRUCell((1, 4, 4), 2, 3, 2)


def test_interval_sampler():
    assert list(contrib.data.IntervalSampler(7, 3)) == [0, 3, 6, 1, 4, 2, 5]
    assert list(contrib.data.IntervalSampler(7, 3, rollover=False)) == [0, 3, 6]
    assert len(contrib.data.IntervalSampler(7, 3, rollover=False)) == 3
    with pytest.raises(ValueError):
        contrib.data.IntervalSampler(3, 3)
