"""mx.rnn checkpoints: fused weights are saved unpacked and packed again on load."""

import numpy as np

import mxlite as mx


def _fused_model():
    cell = mx.rnn.FusedRNNCell(3, num_layers=1, mode="gru", prefix="g_")
    out, _ = cell.unroll(2, mx.sym.Variable("data"), layout="TNC", merge_outputs=True,
                         begin_state=cell.begin_state(func=mx.sym.Variable))  # fmt: skip
    size = out.infer_shape_partial(data=(2, 1, 4))[0][1][0]
    params = {"g_parameters": mx.nd.array(np.arange(size, dtype=np.float32) / size)}
    return cell, out, params


def test_save_and_load_rnn_checkpoint_round_trip(tmp_path):
    cell, sym, params = _fused_model()
    prefix = str(tmp_path / "m")
    mx.rnn.save_rnn_checkpoint(cell, prefix, 3, sym, params, {})
    saved = mx.nd.load(prefix + "-0003.params")
    assert "arg:g_l0_i2h_r_weight" in saved and "arg:g_parameters" not in saved
    sym2, arg, aux = mx.rnn.load_rnn_checkpoint([cell], prefix, 3)
    assert sym2.list_arguments() == sym.list_arguments()
    np.testing.assert_array_equal(arg["g_parameters"].asnumpy(), params["g_parameters"].asnumpy())
    assert aux == {}


def test_do_rnn_checkpoint_saves_every_period(tmp_path):
    cell, sym, params = _fused_model()
    prefix = str(tmp_path / "cb")
    callback = mx.rnn.do_rnn_checkpoint(cell, prefix, period=2)
    for epoch in range(4):
        callback(epoch, sym, params, {})
    assert sorted(p.name for p in tmp_path.glob("cb-*.params")) == ["cb-0002.params",
                                                                    "cb-0004.params"]  # fmt: skip
