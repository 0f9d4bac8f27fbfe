"""Module's API: data parallelism, prediction forms, parameters, reshape, errors."""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from mxlite.module.executor_group import _split_input_slice


def mlp() -> mx.sym.Symbol:
    net = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=6, name="fc1")
    net = mx.sym.Activation(net, act_type="relu")
    net = mx.sym.FullyConnected(net, num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(net, name="softmax")


def data(n: int = 16) -> tuple[np.ndarray, np.ndarray]:
    i = np.arange(n)
    x = np.cos(np.arange(n * 5).reshape(n, 5) * 0.37).astype(np.float32)
    return x, (i % 3).astype(np.float32)


def params() -> dict:
    rs = np.random.RandomState(3)
    return {
        "fc1_weight": mx.nd.array(rs.uniform(-0.5, 0.5, (6, 5))),
        "fc1_bias": mx.nd.zeros((6,)),
        "fc2_weight": mx.nd.array(rs.uniform(-0.5, 0.5, (3, 6))),
        "fc2_bias": mx.nd.zeros((3,)),
    }


def trained(context, steps: int = 3, **kw) -> mx.mod.Module:
    x, y = data()
    mod = mx.mod.Module(mlp(), context=context, **kw)
    mod.bind(data_shapes=[("data", (8, 5))], label_shapes=[("softmax_label", (8,))])
    mod.init_params(arg_params=params())
    mod.init_optimizer(optimizer="sgd", optimizer_params={"learning_rate": 0.5, "momentum": 0.9})
    it = mx.io.NDArrayIter(x, y, batch_size=8)
    for _ in range(steps):
        it.reset()
        for batch in it:
            mod.forward_backward(batch)
            mod.update()
    return mod


def test_split_input_slice_follows_the_work_load() -> None:
    assert _split_input_slice(8, [1, 1]) == [slice(0, 4), slice(4, 8)]
    assert _split_input_slice(8, [1, 3]) == [slice(0, 2), slice(2, 8)]
    assert _split_input_slice(7, [1, 1, 1]) == [slice(0, 2), slice(2, 4), slice(4, 7)]
    with pytest.raises(MXNetError, match="too small"):
        _split_input_slice(1, [1, 1])


@pytest.mark.parametrize("work_load_list", [None, [1, 3]])
def test_data_parallel_matches_one_context(work_load_list) -> None:
    one = trained(mx.cpu(0))
    two = trained([mx.cpu(0), mx.cpu(1)], work_load_list=work_load_list)
    assert [e._ctx for e in two._exec_group.execs] == [mx.cpu(0), mx.cpu(1)]
    a1, _ = one.get_params()
    a2, _ = two.get_params()
    for name in a1:
        np.testing.assert_allclose(a2[name].asnumpy(), a1[name].asnumpy(), rtol=1e-5, atol=1e-6)
    x, _ = data()
    p1 = one.predict(mx.io.NDArrayIter(x, None, batch_size=8)).asnumpy()
    p2 = two.predict(mx.io.NDArrayIter(x, None, batch_size=8)).asnumpy()
    np.testing.assert_allclose(p2, p1, rtol=1e-5, atol=1e-6)
    pieces = two.get_outputs(merge_multi_context=False)
    expected = [4, 4] if work_load_list is None else [2, 6]
    assert [p.shape[0] for p in pieces[0]] == expected


def test_predict_forms_and_padding() -> None:
    mod = trained(mx.cpu(), steps=1)
    x, y = data(12)
    it = mx.io.NDArrayIter(x, y, batch_size=8, last_batch_handle="pad")
    merged = mod.predict(it)
    assert merged.shape == (12, 3)  # the 4 padded rows are dropped
    listed = mod.predict(it, always_output_list=True)
    assert isinstance(listed, list) and len(listed) == 1
    per_batch = mod.predict(it, merge_batches=False)
    assert [b[0].shape[0] for b in per_batch] == [8, 4]
    assert mod.predict(it, num_batch=1).shape == (8, 3)
    outs = [(o[0].shape[0], n) for o, n, _ in mod.iter_predict(it)]
    assert outs == [(8, 0), (4, 1)]
    np.testing.assert_allclose(
        mod.predict(x[:8]).asnumpy(), merged.asnumpy()[:8], rtol=1e-6, atol=1e-7
    )
    with pytest.raises(MXNetError, match="eval_data"):
        mod.predict([1, 2, 3])


def test_forward_reshapes_for_a_new_batch_size() -> None:
    mod = trained(mx.cpu(), steps=1)
    x, y = data(16)
    full = mod.predict(mx.io.NDArrayIter(x, None, batch_size=8)).asnumpy()
    mod.forward(mx.io.DataBatch([mx.nd.array(x[:3])], [mx.nd.array(y[:3])]), is_train=False)
    assert mod.get_outputs()[0].shape == (3, 3)
    np.testing.assert_allclose(mod.get_outputs()[0].asnumpy(), full[:3], rtol=1e-6, atol=1e-7)
    assert mod.output_shapes == [("softmax_output", (3, 3))]


def test_score_and_metric_logging(caplog) -> None:
    x, y = data()
    mod = mx.mod.Module(mlp())
    with caplog.at_level(logging.INFO):
        mod.fit(
            mx.io.NDArrayIter(x, y, batch_size=8),
            eval_data=mx.io.NDArrayIter(x, y, batch_size=8),
            optimizer_params={"learning_rate": 0.1},
            num_epoch=2,
        )
    text = caplog.text
    assert "Epoch[1] Train-accuracy=" in text
    assert "Epoch[0] Time cost=" in text
    assert "Epoch[1] Validation-accuracy=" in text
    res = mod.score(mx.io.NDArrayIter(x, y, batch_size=8), ["acc", "ce"])
    assert [n for n, _ in res] == ["accuracy", "cross-entropy"]
    with pytest.raises(MXNetError, match="num_epoch"):
        mod.fit(mx.io.NDArrayIter(x, y, batch_size=8))


def test_save_and_load_params(tmp_path: Path) -> None:
    mod = trained(mx.cpu())
    fname = str(tmp_path / "p.params")
    mod.save_params(fname)
    saved = mx.nd.load(fname)
    assert set(saved) == {"arg:fc1_weight", "arg:fc1_bias", "arg:fc2_weight", "arg:fc2_bias"}
    other = mx.mod.Module(mlp())
    with pytest.warns(UserWarning, match="label_shapes"):  # MXNet warns too
        other.bind(data_shapes=[("data", (8, 5))], for_training=False)
    other.load_params(fname)
    a, _ = other.get_params()
    b, _ = mod.get_params()
    np.testing.assert_array_equal(a["fc2_weight"].asnumpy(), b["fc2_weight"].asnumpy())


def test_init_params_rules() -> None:
    mod = mx.mod.Module(mlp())
    with pytest.raises(MXNetError, match="bind"):
        mod.init_params()
    mod.bind(data_shapes=[("data", (8, 5))], label_shapes=[("softmax_label", (8,))])
    partial = params()
    del partial["fc2_weight"]
    with pytest.raises(MXNetError, match="fc2_weight"):
        mod.init_params(arg_params=partial)
    mod.init_params(mx.init.Constant(0.25), arg_params=partial, allow_missing=True)
    args, _ = mod.get_params()
    np.testing.assert_array_equal(args["fc2_weight"].asnumpy(), np.full((3, 6), 0.25, "f4"))
    with pytest.warns(UserWarning, match="already initialized"):
        mod.init_params()
    with pytest.raises(MXNetError, match="init_optimizer"):
        mod.update()


def test_bad_names_and_shapes() -> None:
    with pytest.raises(ValueError, match="data_names"):
        mx.mod.Module(mlp(), data_names=["image"])
    mod = mx.mod.Module(mlp())
    with pytest.raises(ValueError, match="data_shapes"):
        mod.bind(data_shapes=[("image", (8, 5))])
    with pytest.raises(MXNetError, match="unknown KVStore type 'nope'"):
        two = trained([mx.cpu(0), mx.cpu(1)], steps=0)
        two.init_optimizer(kvstore="nope", force_init=True)


def test_input_grads_and_fixed_params() -> None:
    x, y = data(8)
    mod = mx.mod.Module(mlp(), fixed_param_names=["fc1_weight"])
    mod.bind(
        data_shapes=[("data", (8, 5))],
        label_shapes=[("softmax_label", (8,))],
        inputs_need_grad=True,
    )
    mod.init_params(arg_params=params())
    mod.init_optimizer(optimizer_params={"learning_rate": 1.0})
    mod.forward_backward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)]))
    (grad,) = mod.get_input_grads()
    assert grad.shape == (8, 5) and np.abs(grad.asnumpy()).sum() > 0
    mod.update()
    args, _ = mod.get_params()
    np.testing.assert_array_equal(args["fc1_weight"].asnumpy(), params()["fc1_weight"].asnumpy())
    assert not np.array_equal(args["fc2_weight"].asnumpy(), params()["fc2_weight"].asnumpy())


def test_checkpoint_helpers(tmp_path: Path) -> None:
    mod = trained(mx.cpu(), steps=1)
    args, auxs = mod.get_params()
    prefix = str(tmp_path / "m")
    mx.model.save_checkpoint(prefix, 7, mod.symbol, args, auxs)
    sym, a2, x2 = mx.model.load_checkpoint(prefix, 7)
    assert sym.list_arguments() == mod.symbol.list_arguments()
    assert set(a2) == set(args) and x2 == {}
    assert mx.model.BatchEndParam is mx.callback.BatchEndParam


def test_group2ctxs_reach_each_executor():
    with mx.AttrScope(ctx_group="dev1"):
        a = mx.sym.var("a") * 2
    with mx.AttrScope(ctx_group="dev2"):
        c = a + mx.sym.var("b")
    shapes = [("a", (4, 3)), ("b", (4, 3))]
    cases = [
        ({"dev1": mx.cpu(2), "dev2": mx.cpu(3)}, [(2, 3), (2, 3)]),
        ({"dev1": [mx.cpu(2)], "dev2": [mx.cpu(3), mx.cpu(4)]}, [(2, 3), (2, 4)]),
        ([{"dev1": mx.cpu(5)}, {"dev1": mx.cpu(6)}], None),
    ]
    for group2ctxs, want in cases:
        mod = mx.mod.Module(
            c, data_names=["a", "b"], label_names=None, context=[mx.cpu(0), mx.cpu(1)],
            group2ctxs=group2ctxs,
        )  # fmt: skip
        mod.bind(data_shapes=shapes, inputs_need_grad=True)
        got = [e._group2ctx for e in mod._exec_group.execs]
        if want is None:
            assert got == group2ctxs
        else:
            assert got == [{"dev1": mx.cpu(i), "dev2": mx.cpu(j)} for i, j in want]


def test_group2ctxs_bad_input():
    c = mx.sym.var("a") + mx.sym.var("b")
    for bad in ({"dev1": [mx.cpu(2)] * 3}, [{"dev1": mx.cpu(2)}], "cpu"):
        mod = mx.mod.Module(
            c, data_names=["a", "b"], label_names=None, context=[mx.cpu(0), mx.cpu(1)],
            group2ctxs=bad,
        )  # fmt: skip
        with pytest.raises(MXNetError, match="group2ctxs"):
            mod.bind(data_shapes=[("a", (4, 3)), ("b", (4, 3))])


def test_executor_group_takes_name_shape_pairs():
    from mxlite.module.executor_group import DataParallelExecutorGroup

    sym = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    group = DataParallelExecutorGroup(
        symbol=sym, contexts=[mx.cpu()], workload=None, data_shapes=[("data", (4, 3))],
        label_shapes=None, param_names=["fc_weight", "fc_bias"], for_training=True,
        inputs_need_grad=False,
    )  # fmt: skip
    assert group.data_shapes[0].name == "data"
    assert group.grad_req == {"data": "null", "fc_weight": "write", "fc_bias": "write"}


def test_bind_and_reshape_document_the_input_shapes_alike():
    text = (
        "data_shapes : list of (str, tuple)\n            Typically is ``data_iter.provide_data``."
        "\n        label_shapes : list of (str, tuple)\n"
        "            Typically is ``data_iter.provide_label``.\n"
    )
    for method in (mx.mod.Module.bind, mx.mod.Module.reshape, mx.mod.BucketingModule.bind):
        assert text in method.__doc__
        assert "{" not in method.__doc__
    assert "grad_req : str, list of str" in mx.mod.Module.bind.__doc__


@pytest.mark.parametrize("name", ["data_names", "output_names"])
def test_a_base_module_subclass_without_names_has_not_implemented_them(name) -> None:
    class Bare(mx.mod.BaseModule):
        pass

    with pytest.raises(NotImplementedError, match=name):
        getattr(Bare(), name)
