"""BucketingModule and SequentialModule against the plain Module they must agree with."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError

from .test_module import data, mlp, params


def sym_gen(seq_len: int):
    """A bucket per sequence length: mean over time, then the shared MLP."""
    x = mx.sym.var("data")
    pooled = mx.sym.mean(x, axis=1)
    net = mx.sym.FullyConnected(pooled, num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(net, name="softmax"), ("data",), ("softmax_label",)


def seq_batch(seq_len: int, start: int) -> mx.io.DataBatch:
    x = np.sin(np.arange(8 * seq_len * 5).reshape(8, seq_len, 5) * 0.1 + start).astype("f4")
    y = (np.arange(8) % 3).astype("f4")
    return mx.io.DataBatch(
        [mx.nd.array(x)],
        [mx.nd.array(y)],
        bucket_key=seq_len,
        provide_data=[mx.io.DataDesc("data", x.shape)],
        provide_label=[mx.io.DataDesc("softmax_label", y.shape)],
    )


FC = {"fc_weight": mx.nd.array(np.linspace(-1, 1, 15).reshape(3, 5)), "fc_bias": mx.nd.zeros(3)}


def test_bucketing_shares_parameters_across_buckets(tmp_path: Path) -> None:
    bm = mx.mod.BucketingModule(sym_gen, default_bucket_key=10)
    bm.bind(data_shapes=[("data", (8, 10, 5))], label_shapes=[("softmax_label", (8,))])
    bm.init_params(arg_params=FC)
    bm.init_optimizer(optimizer_params={"learning_rate": 0.5})
    # the same updates on one plain module that sees each batch's own shape
    ref = mx.mod.Module(sym_gen(10)[0])
    ref.bind(data_shapes=[("data", (8, 10, 5))], label_shapes=[("softmax_label", (8,))])
    ref.init_params(arg_params=FC)
    ref.init_optimizer(optimizer_params={"learning_rate": 0.5})
    for key, start in [(10, 0), (4, 1), (7, 2), (4, 3)]:
        for mod in (bm, ref):
            mod.forward_backward(seq_batch(key, start))
            mod.update()
    assert sorted(bm._buckets) == [4, 7, 10]
    assert bm.output_shapes == [("softmax_output", (8, 3))]
    got, _ = bm.get_params()
    want, _ = ref.get_params()
    for name in want:
        np.testing.assert_allclose(got[name].asnumpy(), want[name].asnumpy(), rtol=1e-6)
    assert not np.allclose(got["fc_weight"].asnumpy(), FC["fc_weight"].asnumpy())

    prefix = str(tmp_path / "bk")
    bm.save_checkpoint(prefix, 2)
    loaded = mx.mod.BucketingModule.load(prefix, 2, sym_gen=sym_gen, default_bucket_key=10)
    loaded.bind(data_shapes=[("data", (8, 10, 5))], label_shapes=[("softmax_label", (8,))])
    back, _ = loaded.get_params()
    np.testing.assert_array_equal(back["fc_weight"].asnumpy(), got["fc_weight"].asnumpy())
    with pytest.raises(MXNetError, match="default_bucket_key"):
        mx.mod.BucketingModule(sym_gen)


def test_sequential_equals_one_module() -> None:
    x, y = data(8)
    body = mx.sym.Activation(
        mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=6, name="fc1"), act_type="relu"
    )
    head = mx.sym.SoftmaxOutput(
        mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc2"), name="softmax"
    )
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(body, label_names=None))
    seq.add(mx.mod.Module(head), take_labels=True, auto_wiring=True)
    seq.bind(data_shapes=[("data", (8, 5))], label_shapes=[("softmax_label", (8,))])
    seq.init_params(arg_params=params())
    seq.init_optimizer(optimizer_params={"learning_rate": 0.5})
    one = mx.mod.Module(mlp())
    one.bind(data_shapes=[("data", (8, 5))], label_shapes=[("softmax_label", (8,))])
    one.init_params(arg_params=params())
    one.init_optimizer(optimizer_params={"learning_rate": 0.5})
    batch = mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)])
    for _ in range(3):
        for mod in (seq, one):
            mod.forward_backward(batch)
            mod.update()
    a, _ = seq.get_params()
    b, _ = one.get_params()
    assert set(a) == set(b)
    for name in b:
        np.testing.assert_allclose(a[name].asnumpy(), b[name].asnumpy(), rtol=1e-5, atol=1e-6)
    res_seq = seq.score(mx.io.NDArrayIter(x, y, batch_size=8), "acc")
    res_one = one.score(mx.io.NDArrayIter(x, y, batch_size=8), "acc")
    assert res_seq == res_one
    with pytest.raises(MXNetError, match="meta"):
        seq.add(mx.mod.Module(head), take_label=True)


def test_module_kinds_share_the_input_name_checks() -> None:
    """Module and BucketingModule check their names in one place; the warning for a label
    that is not an argument points at the caller, the error for data names at the name."""
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    with pytest.warns(UserWarning, match="label_names=\\['nope'\\]") as record:
        mx.mod.Module(net, label_names=["nope"])
    assert record[0].filename == __file__
    with pytest.warns(UserWarning) as record:
        mx.mod.BucketingModule(lambda key: (net, ("data",), ("nope",)), default_bucket_key=1)
    assert record[0].filename == __file__
    with pytest.raises(mx.base.ParamError, match="data_names=\\['x'\\]"):
        mx.mod.BucketingModule(lambda key: (net, ("x",), None), default_bucket_key=1)


def test_init_optimizer_twice_is_skipped_in_every_module_kind(caplog) -> None:
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    seq = mx.mod.SequentialModule().add(mx.mod.Module(net, label_names=None))
    seq.bind([("data", (1, 3))], None)
    seq.init_params()
    seq.init_optimizer()
    with caplog.at_level("WARNING"):
        seq.init_optimizer()
    assert "optimizer already initialized, ignoring." in caplog.text
    with pytest.raises(mx.MXNetError, match="SequentialModule.init_optimizer: call bind"):
        mx.mod.SequentialModule().init_optimizer()


def test_setup_steps_are_one_signature_and_one_set_of_checks(caplog) -> None:
    """bind, init_params and init_optimizer are written once (setup_steps.py) with MXNet's
    signatures; each kind keeps MXNet's answer to a step asked for twice."""
    import inspect

    for step in ("bind", "init_params", "init_optimizer"):
        want = inspect.signature(getattr(mx.mod.BaseModule, step))
        for kind in (mx.mod.Module, mx.mod.BucketingModule, mx.mod.SequentialModule):
            assert inspect.signature(getattr(kind, step)) == want, (kind, step)
    assert inspect.signature(mx.mod.BaseModule.init_params).parameters["initializer"].default
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    mod = mx.mod.Module(net, label_names=None)
    seq = mx.mod.SequentialModule().add(mx.mod.Module(net, label_names=None))
    bm = mx.mod.BucketingModule(lambda key: (net, ("data",), None), default_bucket_key=1)
    for m in (mod, seq, bm):
        m.bind([("data", (1, 3))], None)
        m.init_params()
        m.init_optimizer()
        caplog.clear()
        with caplog.at_level("WARNING"):
            m.bind([("data", (1, 3))], None)
        assert "Already bound, ignoring bind()" in caplog.text
        assert m.label_shapes is None
    with pytest.warns(UserWarning, match="init_params call ignored"):
        mod.init_params()
    for m in (seq, bm):  # silent, as MXNet's containers
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            m.init_params()
    caplog.clear()
    with caplog.at_level("WARNING"):
        mod.init_optimizer()
    assert "optimizer already initialized, ignoring..." in caplog.text
    with pytest.raises(MXNetError, match="inputs_need_grad"):
        mx.mod.Module(net, label_names=None).bind([("data", (1, 3))], None, False, True)
    with pytest.raises(MXNetError, match="SequentialModule.bind: inputs_need_grad"):
        mx.mod.SequentialModule().add(mx.mod.Module(net, label_names=None)).bind(
            [("data", (1, 3))], None, for_training=False, inputs_need_grad=True
        )
    with pytest.raises(MXNetError, match="SequentialModule.init_params: call bind"):
        mx.mod.SequentialModule().init_params()


def test_module_and_bucketing_hand_their_computation_on_one_way() -> None:
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    bm = mx.mod.BucketingModule(lambda key: (net, ("data",), None), default_bucket_key=1)
    for name in ("backward", "get_outputs", "get_input_grads", "get_states", "set_states"):
        assert getattr(mx.mod.Module, name) is getattr(mx.mod.BucketingModule, name)
    with pytest.raises(MXNetError, match="BucketingModule.get_outputs: call bind"):
        bm.get_outputs()
    bm.bind([("data", (2, 3))], None, for_training=True, inputs_need_grad=True)
    bm.init_params()
    bm.forward(mx.io.DataBatch([mx.nd.ones((2, 3))], None), is_train=True)
    bm.backward([mx.nd.ones((2, 2))])
    assert bm.get_outputs()[0].shape == (2, 2)
    assert bm.get_input_grads()[0].shape == (2, 3)
    assert bm.get_states(merge_multi_context=False) == []
