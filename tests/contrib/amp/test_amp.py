"""mx.contrib.amp: the lists, init's wrapping of the operator functions, loss scaling with a
Gluon Trainer, and the checks of convert_symbol's arguments.

``amp.init`` changes mx.nd and mx.sym for the rest of the process, as in MXNet, so the tests
that need it run in a child interpreter."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from mxlite.contrib import amp
from mxlite.contrib.amp.loss_scaler import LossScaler

ROOT = Path(__file__).resolve().parents[3]


def _child(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_lists_as_mxnet() -> None:
    assert amp.list_lp16_ops("float16") == ["Convolution", "Deconvolution", "FullyConnected", "RNN"]
    assert amp.list_lp16_ops("bfloat16") == ["Convolution", "FullyConnected"]
    assert ("Activation", "act_type", ["softrelu"]) in amp.list_conditional_fp32_ops("float16")
    assert "Concat" in amp.list_widest_type_cast("float16")
    assert amp.list_lp16_use_fp32_params("float16") is None
    assert amp.list_lp16_use_fp32_params(amp.amp.bfloat16)["BatchNorm"][0] == ""
    assert "SoftmaxOutput" in amp.list_loss_output_functions("bfloat16")
    for target in ("float16", "bfloat16"):
        groups = [amp.list_lp16_ops(target), amp.list_fp32_ops(target),
                  amp.list_lp16_fp32_ops(target), amp.list_widest_type_cast(target),
                  [c[0] for c in amp.list_conditional_fp32_ops(target)]]  # fmt: skip
        names = [n for g in groups for n in g]
        assert len(names) == len(set(names))  # no operator in two lists


def test_list_of_unknown_target_names_it() -> None:
    with pytest.raises(MXNetError, match="list_fp32_ops.*target_dtype.*int8"):
        amp.list_fp32_ops("int8")


def test_convert_symbol_checks_arguments_as_mxnet() -> None:
    x, y = mx.sym.var("x"), mx.sym.var("y")
    res = mx.sym.FullyConnected(x, y, num_hidden=10, no_bias=True) + mx.sym.sin(y)
    bad = [
        {"target_dtype_ops": ["FullyConnected"], "fp32_ops": ["elemwise_add"]},
        {"target_dtype_ops": ["FullyConnected"], "fp32_ops": ["Activation"],
         "conditional_fp32_ops": [("Activation", "act_type", ["selu"])]},
        {"target_dtype_ops": ["FullyConnected"], "fp32_ops": ["FullyConnected"]},
        {"target_dtype": "int8"},
    ]  # fmt: skip
    for kwargs in bad:
        with pytest.raises(AssertionError):
            amp.convert_symbol(res, **{"target_dtype": "float16", **kwargs})


def test_conditional_fp32_follows_the_parameter() -> None:
    x, y = mx.sym.var("x"), mx.sym.var("y")
    fc = mx.sym.FullyConnected(x, y, num_hidden=10, no_bias=True, name="fc")
    same = amp.convert_symbol(
        fc,
        "float16",
        target_dtype_ops=[],
        fp32_ops=["sin"],
        conditional_fp32_ops=[("FullyConnected", "no_bias", ["False"])],
    )
    assert [n["op"] for n in _nodes(same)] == ["null", "null", "FullyConnected", "amp_cast"]
    cast = amp.convert_symbol(
        fc,
        "float16",
        target_dtype_ops=[],
        fp32_ops=["sin"],
        conditional_fp32_ops=[("FullyConnected", "no_bias", ["True"])],
    )
    assert [n["name"] for n in _nodes(cast)] == [
        "x", "x_amp_cast_float32", "y", "y_amp_cast_float32", "fc"]  # fmt: skip


def _nodes(sym: mx.sym.Symbol) -> list:
    import json

    return json.loads(sym.tojson(remove_amp_cast=False))["nodes"]


def test_convert_leaves_the_original_symbol_alone() -> None:
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    before = fc.tojson()
    amp.convert_symbol(fc, "float16", data_names=["data"], cast_optional_params=True)
    assert fc.tojson() == before


def test_bfloat16_model_converts_and_runs() -> None:
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    args = {"fc_weight": mx.nd.ones((3, 4)) * 1.00390625, "fc_bias": mx.nd.ones((3,))}
    conv, cargs, _ = amp.convert_model(fc, args, {}, "bfloat16", cast_optional_params=True)
    assert cargs["fc_weight"].dtype == amp.amp.bfloat16  # MXNet's record dtype
    # 1 + 2**-8 is a tie between two bfloat16 values: it rounds to the even one, 1.0
    assert (cargs["fc_weight"].asnumpy()["bfloat16"] == 0x3F80).all()
    arg_types, out_types, _ = conv.infer_type(data="float32")
    assert arg_types[1] == amp.amp.bfloat16 and out_types == [np.float32]
    exe = conv.bind(mx.cpu(), {"data": mx.nd.ones((2, 4)), **cargs}, grad_req="null")
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), np.full((2, 3), 5.0, np.float32))


def test_remove_amp_cast_on_save() -> None:
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
    conv = amp.convert_symbol(fc, "float16")
    ops = [n["op"] for n in _nodes(conv)]
    assert ops.count("amp_cast") == 4
    import json

    nodes = json.loads(conv.tojson())["nodes"]
    # the casts the FullyConnected read are gone; the output's cast to float32 stays
    assert [n["op"] for n in nodes] == ["null", "null", "null", "FullyConnected", "amp_cast"]
    assert nodes[3]["inputs"] == [[0, 0, 0], [1, 0, 0], [2, 0, 0]]


def test_loss_scaler_halves_on_overflow_and_grows_after_a_run() -> None:
    scaler = LossScaler()
    p = mx.gluon.Parameter("w", shape=(2,))
    p.initialize()
    with mx.autograd.record():
        (p.data() * 2).sum().backward()
    assert scaler.has_overflow([p]) is False
    assert scaler.loss_scale == 2.0**16
    p.grad()[:] = np.inf
    assert scaler.has_overflow([p]) is True
    p.grad()[:] = 1
    assert scaler.has_overflow([p]) is False
    assert scaler.loss_scale == 2.0**15
    scaler._scale_seq_len = 2
    scaler.has_overflow([p])
    scaler.has_overflow([p])
    assert scaler.loss_scale == 2.0**16


def test_init_trainer_needs_init() -> None:
    _child(
        """
        import mxlite as mx
        from mxlite.contrib import amp
        net = mx.gluon.nn.Dense(2)
        net.initialize()
        trainer = mx.gluon.Trainer(net.collect_params(), "sgd")
        try:
            amp.init_trainer(trainer)
        except mx.base.MXNetError as e:
            assert "amp.init" in str(e)
        else:
            raise SystemExit("no error")
        """
    )


def test_init_wraps_functions_and_training_skips_overflow() -> None:
    out = _child(
        """
        import numpy as np
        import mxlite as mx
        from mxlite.contrib import amp
        amp.init("float16", target_precision_ops=["FullyConnected"])
        x = mx.sym.var("x")
        fc = mx.sym.FullyConnected(x, num_hidden=2, name="fc")
        print([n for n in fc.get_internals().list_outputs()])
        # nd: float32 arrays are cast to float16 on CPU too, where MXNet has no float16
        # FullyConnected: the call fails as it does there
        try:
            mx.nd.FullyConnected(mx.nd.ones((2, 3)), mx.nd.ones((2, 3)), no_bias=True,
                                 num_hidden=2).asnumpy()
        except mx.base.MXNetError as e:
            print("float16" in str(e))
        print(mx.nd.exp(mx.nd.ones((2, 3), dtype="float16")).dtype.__name__)

        class Scale(mx.gluon.HybridBlock):
            def __init__(self):
                super().__init__()
                self.weight = self.params.get("weight", shape=(1, 3), init=mx.init.One())

            def hybrid_forward(self, F, x, weight):
                return F.broadcast_mul(x, weight)

        net = Scale()
        net.initialize()
        trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
        amp.init_trainer(trainer)
        w0 = net.weight.data().asnumpy().copy()
        with mx.autograd.record():
            loss = (net(mx.nd.ones((4, 3)) * np.float32(1e30)) ** 2).sum()
            with amp.scale_loss(loss, trainer) as scaled:
                scaled.backward()
        trainer.step(4)
        print(bool(np.array_equal(w0, net.weight.data().asnumpy())))
        print(trainer._amp_loss_scaler.loss_scale, trainer._amp_loss_scaler._next_loss_scale)
        """
    )
    lines = out.split("\n")
    # what MXNet 1.9.1 gives
    assert (
        lines[0] == "['x', 'amp_cast0_output', 'fc_weight', 'amp_cast1_output', 'fc_bias', "
        "'amp_cast2_output', 'fc_output']"
    )
    assert lines[1] == "True"
    assert lines[2] == "float16"  # on CPU only bfloat16 is cast back to float32, as in MXNet
    assert lines[3] == "True"  # the overflowed step updated nothing
    # ... and the next step's scale is halved (the scale moves at the next check, as in MXNet)
    assert lines[4] == f"{2.0**16} {2.0**15}"


def test_unscale_applies_the_trainer_scale() -> None:
    _child(
        """
        import numpy as np
        import mxlite as mx
        from mxlite.contrib import amp
        amp.init(target_precision_ops=[])  # no float16 FullyConnected on CPU
        net = mx.gluon.nn.Dense(1, in_units=2)
        net.initialize(mx.init.One())
        trainer = mx.gluon.Trainer(net.collect_params(), "sgd")
        amp.init_trainer(trainer)
        with mx.autograd.record():
            loss = net(mx.nd.ones((1, 2))).sum()
            with amp.scale_loss(loss, trainer) as scaled:
                scaled.backward()
        assert float(net.weight.grad().asnumpy()[0, 0]) == 2.0**16
        amp.unscale(trainer)
        assert float(net.weight.grad().asnumpy()[0, 0]) == 1.0
        assert trainer._scale == 1.0
        """
    )


def test_convert_hybrid_block_casts_parameters() -> None:
    net = mx.gluon.nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(4, activation="relu"), mx.gluon.nn.Dense(2))
    net.initialize()
    with pytest.raises(RuntimeError, match="hybridize"):
        amp.convert_hybrid_block(net, "float16", ctx=mx.cpu())
    net.hybridize()
    x = mx.nd.ones((3, 5))
    want = net(x).asnumpy()
    conv = amp.convert_hybrid_block(net, "float16", cast_optional_params=True, ctx=mx.cpu())
    params = conv.collect_params()
    assert {np.dtype(p.dtype).name for p in params.values()} == {"float16"}
    w = net.collect_params()["net_dense0_weight"].data().asnumpy()
    np.testing.assert_array_equal(params["net_dense0_weight"].data().asnumpy(), w.astype("f2"))
    # a model that runs no float16 operator converts and runs on CPU
    keep = amp.convert_hybrid_block(net, "float16", target_dtype_ops=[], ctx=mx.cpu())
    assert {np.dtype(p.dtype).name for p in keep.collect_params().values()} == {"float32"}
    np.testing.assert_allclose(keep(x).asnumpy(), want, rtol=1e-6)


def test_convert_bucketing_module() -> None:
    def sym_gen(key: int):
        data = mx.sym.var("data")
        fc = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
        return mx.sym.SoftmaxOutput(fc, name="softmax"), ("data",), ("softmax_label",)

    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=5, context=mx.cpu())
    mod.bind(data_shapes=[("data", (2, 5))], label_shapes=[("softmax_label", (2,))])
    mod.init_params()
    conv = amp.amp.convert_bucketing_module(mod, "float16", cast_optional_params=True)
    assert list(conv._buckets) == [5]
    sym = conv._buckets[5].symbol
    assert "fc_output_amp_cast_float32_output" in sym.get_internals().list_outputs()
    assert conv._curr_module._arg_params["fc_weight"].dtype == np.float16


def test_init_bfloat16_wraps_as_mxnet() -> None:
    out = _child(
        """
        import mxlite as mx
        from mxlite.contrib import amp
        amp.init("bfloat16")
        x = mx.sym.var("x")
        print(mx.sym.Convolution(x, kernel=(1, 1), num_filter=2, name="c")
              .get_internals().list_outputs())
        print(mx.sym.BatchNorm(x, name="bn").get_internals().list_outputs())
        a = mx.sym.elemwise_add(mx.sym.var("p"), mx.sym.var("q"), name="add")
        print(a.get_internals().list_outputs())
        d, label = mx.nd.array([[1.0, 2.0]]), mx.nd.array([0.0])
        d.attach_grad()
        with mx.autograd.record():
            o = mx.nd.SoftmaxOutput(d, label)
        o.backward()
        print(d.grad.asnumpy().tolist())
        """
    )
    # what MXNet 1.9.1 prints for the same script
    assert out.split("\n")[:4] == [
        "['x', 'amp_cast0_output', 'c_weight', 'amp_cast1_output', 'c_bias', "
        "'amp_cast2_output', 'c_output']",
        "['x', 'bn_gamma', 'bn_beta', 'bn_moving_mean', 'bn_moving_var', 'bn_output']",
        "['p', 'q', 'amp_multicast0_output0', 'amp_multicast0_output1', 'add_output']",
        "[[-47910.65625, 47910.65625]]",  # SoftmaxOutput's gradient times the loss scale 2**16
    ]


def test_init_bfloat16_runs_imperative_calls_as_mxnet() -> None:
    out = _child(
        """
        import numpy as np
        import mxlite as mx
        from mxlite.contrib import amp
        amp.init("bfloat16")
        x = mx.nd.array([[1.0, 2.0, 3.0]])
        w = mx.nd.array([[0.5, 0.25, 1.00390625], [1.0, -1.0, 2.0]])
        y = mx.nd.FullyConnected(x, w, num_hidden=2, no_bias=True)
        print(y.dtype, y.asnumpy().tolist())
        s = mx.nd.sin(y)
        print(s.dtype, np.round(s.asnumpy(), 6).tolist())
        a = mx.nd.elemwise_add(y, mx.nd.ones((1, 2)))
        print(a.dtype, a.asnumpy().tolist())
        print(mx.nd.relu(y).dtype)
        """
    )
    # what MXNet 1.9.1 prints for the same script: FullyConnected runs in bfloat16, sin in
    # float32, elemwise_add in the widest of its inputs' dtypes, relu in its input's
    assert out.split("\n")[:4] == [
        "[('bfloat16', '<u2')] [[(16512,), (16544,)]]",
        "<class 'numpy.float32'> [[-0.7568020224571228, -0.9589239954948425]]",
        "<class 'numpy.float32'> [[5.0, 6.0]]",
        "[('bfloat16', '<u2')]",
    ]
