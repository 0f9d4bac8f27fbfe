"""export_model's arguments and errors, get_operator_support, the old contrib paths and the
command line."""

from __future__ import annotations

import os

import numpy as np
import pytest

import mxlite as mx

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")


def small_net():
    x = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    return mx.sym.SoftmaxOutput(x, name="softmax"), {
        "fc_weight": mx.nd.ones((3, 4)), "fc_bias": mx.nd.zeros((3,))
    }  # fmt: skip


def test_params_as_dict_list_or_file(tmp_path) -> None:
    sym, params = small_net()
    out = str(tmp_path / "a.onnx")
    assert mx.onnx.export_model(sym, params, [(2, 4)], onnx_file_path=out) == out
    mx.onnx.export_model(sym, [params, {}], input_shape=[(2, 4)], onnx_file_path=out)
    sym.save(str(tmp_path / "n-symbol.json"))
    mx.nd.save(str(tmp_path / "n-0000.params"), {f"arg:{k}": v for k, v in params.items()})
    mx.onnx.export_model(str(tmp_path / "n-symbol.json"), str(tmp_path / "n-0000.params"),
                         [(2, 4)], [np.float32], out)  # fmt: skip
    model = onnx.load(out)
    assert [i.name for i in model.graph.input] == ["data"]  # the label is gone
    assert sorted(t.name for t in model.graph.initializer) == ["fc_bias", "fc_weight"]
    assert [n.op_type for n in model.graph.node] == ["Gemm", "Softmax"]
    assert model.graph.output[0].name == "softmax"
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


def test_bad_arguments_are_named(tmp_path) -> None:
    sym, params = small_net()
    out = str(tmp_path / "a.onnx")
    with pytest.raises(mx.MXNetError, match="in_shapes.*1 data input"):
        mx.onnx.export_model(sym, params, [(2, 4), (2, 4)], onnx_file_path=out)
    with pytest.raises(mx.MXNetError, match="params"):
        mx.onnx.export_model(sym, 3, [(2, 4)], onnx_file_path=out)
    with pytest.raises(mx.MXNetError, match="opset_version.*13"):
        mx.onnx.export_model(sym, params, [(2, 4)], onnx_file_path=out, opset_version=12)
    with pytest.raises(mx.MXNetError, match="dynamic=True"):
        mx.onnx.export_model(sym, params, [(2, 4)], onnx_file_path=out,
                             dynamic_input_shapes=[(None, 4)])  # fmt: skip
    assert not os.path.exists(out)


def test_unexpressible_operator_names_node_operator_attribute(tmp_path) -> None:
    out = str(tmp_path / "a.onnx")
    x = mx.sym.var("x")
    bad = mx.sym.Convolution(x, kernel=(3, 3), num_filter=2, layout="NHWC", name="conv_nhwc")
    w = {"conv_nhwc_weight": np.zeros((2, 3, 3, 3), np.float32),
         "conv_nhwc_bias": np.zeros(2, np.float32)}  # fmt: skip
    with pytest.raises(mx.MXNetError, match="conv_nhwc.*Convolution.*layout='NHWC'"):
        mx.onnx.export_model(bad, w, [(1, 5, 5, 3)], onnx_file_path=out)
    rnd = mx.sym.random.poisson(shape=(2,), name="noise") + x
    with pytest.raises(mx.MXNetError, match="noise.*_random_poisson.*ONNX samples only"):
        mx.onnx.export_model(rnd, {}, [(2,)], onnx_file_path=out)
    full = mx.sym.Pooling(x, kernel=(2, 2), stride=(2, 2), pad=(1, 1), pooling_convention="full",
                          name="p_full")  # fmt: skip
    with pytest.raises(mx.MXNetError, match="p_full.*pooling_convention='full'.*padding"):
        mx.onnx.export_model(full, {}, [(1, 1, 7, 7)], onnx_file_path=out)
    pool = mx.sym.Pooling(x, kernel=(2, 2), pooling_convention="same", name="p_same")
    with pytest.raises(mx.MXNetError, match="p_same.*Pooling.*pooling_convention='same'"):
        mx.onnx.export_model(pool, {}, [(1, 1, 4, 4)], onnx_file_path=out)


def test_operator_support() -> None:
    ops = mx.onnx.get_operator_support()
    for name in ("Convolution", "BatchNorm", "SoftmaxOutput", "RNN", "Reshape", "take",
                 "broadcast_add", "_plus_scalar", "softmax", "LRN", "Embedding"):  # fmt: skip
        assert name in ops
    assert "_random_poisson" not in ops and ops == sorted(ops)
    assert mx.onnx.get_operator_support(11) == []
    from mxlite.operator import registry

    assert "ONNX samples only" in registry.get("_random_poisson").onnx_translation()


def test_contrib_paths_warn(tmp_path) -> None:
    sym, params = small_net()
    out = str(tmp_path / "a.onnx")
    with pytest.warns(DeprecationWarning, match="mxnet.onnx.export_model"):
        mx.contrib.onnx.export_model(sym, params, [(2, 4)], np.float32, out)
    with pytest.warns(DeprecationWarning):
        sym2, arg, aux = mx.contrib.onnx.import_model(out)
    assert set(arg) == {"fc_weight", "fc_bias"} and aux == {}
    try:
        has_block = mx.gluon.SymbolBlock is not None
    except mx.MXNetError:
        has_block = False
    if not has_block:
        with pytest.warns(DeprecationWarning), pytest.raises(mx.MXNetError, match="SymbolBlock"):
            mx.contrib.onnx.import_to_gluon(out, mx.cpu())
        return
    with pytest.warns(DeprecationWarning):
        net = mx.contrib.onnx.import_to_gluon(out, mx.cpu())
    y = net(mx.nd.ones((2, 4))).asnumpy()
    np.testing.assert_allclose(y, np.full((2, 3), 1 / 3), rtol=1e-6)


def test_run_shape_inference_and_dynamic_dims(tmp_path) -> None:
    sym, params = small_net()
    out = str(tmp_path / "a.onnx")
    mx.onnx.export_model(sym, params, [(2, 4)], onnx_file_path=out, dynamic=True,
                         run_shape_inference=True)  # fmt: skip
    model = onnx.load(out)
    dims = model.graph.input[0].type.tensor_type.shape.dim
    assert [d.dim_param for d in dims] == ["data_dim0", "data_dim1"]
    assert len(model.graph.value_info) >= 1
    out_dims = model.graph.output[0].type.tensor_type.shape.dim
    assert out_dims[0].dim_param == "data_dim0" and out_dims[1].dim_value == 3


def test_command_line_check(tmp_path, capsys) -> None:
    from mxlite.onnx.__main__ import main

    prefix = os.path.join(GOLDEN, "lenet")
    out = str(tmp_path / "lenet.onnx")
    rc = main([prefix + "-symbol.json", prefix + "-0000.params", "--shape", "2,1,16,16",
               "-o", out, "--dynamic-batch", "--check", "--opset", "17"])  # fmt: skip
    text = capsys.readouterr().out
    assert rc == 0, text
    assert "batch 2: largest difference" in text and "batch 3" in text
    assert onnx.load(out).opset_import[0].version == 17


def test_every_operator_has_a_translation_or_a_reason() -> None:
    # a new operator comes with its ONNX translation or says why ONNX cannot express it
    mx.onnx.get_operator_support()
    from mxlite.operator import registry

    missing = sorted(
        {
            c.op_name
            for c in registry.all_ops().values()
            # operators that tests register for themselves are named _test_*
            if not c.op_name.startswith("_test") and c.onnx_translation() is None
        }
    )
    assert missing == [], f"register_onnx a translation or why_not for {missing}"


def test_without_onnx_the_error_names_the_extra(monkeypatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(mx.MXNetError, match=r"mxlite\[onnx\]"):
        mx.onnx.export_model(mx.sym.var("x"), {}, [(1,)])
    with pytest.raises(mx.MXNetError, match=r"mxlite\[onnx\]"):
        mx.onnx.import_model("m.onnx")


def test_samplers_draw_from_their_distributions(tmp_path) -> None:
    import onnxruntime as ort

    x = mx.sym.var("x")
    sym = mx.sym.Group([
        mx.sym.random.uniform(low=2, high=3, shape=(200, 50)),
        mx.sym.random.normal(loc=1, scale=0.5, shape=(200, 50)),
        mx.sym.random.uniform_like(x, low=-1, high=0),
        mx.sym.sample_multinomial(x, shape=3),
    ])  # fmt: skip
    out = str(tmp_path / "r.onnx")
    mx.onnx.export_model(sym, {}, [(4, 3)], np.float32, out)
    model = onnx.load(out)
    onnx.checker.check_model(model, full_check=True)
    assert model.opset_import[0].version == 21  # the newest ONNX Runtime runs these at
    probs = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0], [0.5, 0.5, 0]], np.float32)
    u, n, ul, m = ort.InferenceSession(out).run(None, {"x": probs})
    assert u.shape == (200, 50) and 2 <= u.min() and u.max() <= 3
    assert abs(n.mean() - 1) < 0.05 and abs(n.std() - 0.5) < 0.05
    assert ul.shape == (4, 3) and -1 <= ul.min() and ul.max() <= 0
    assert m.shape == (4, 3) and m.dtype == np.int32
    assert (m[:3] == np.array([[1], [2], [0]])).all() and set(m[3]) <= {0, 1}


def test_a_label_read_elsewhere_stays_an_input(tmp_path) -> None:
    x, label = mx.sym.var("data"), mx.sym.var("softmax_label")
    sym = mx.sym.Group([mx.sym.SoftmaxOutput(x, label, name="softmax"),
                        mx.sym.relu(label, name="lr")])  # fmt: skip
    out = mx.onnx.export_model(sym, {}, [(2, 3), (2,)], np.float32, str(tmp_path / "l.onnx"))
    model = onnx.load(out)
    assert [i.name for i in model.graph.input] == ["data", "softmax_label"]
    assert [o.name for o in model.graph.output] == ["softmax", "lr"]
