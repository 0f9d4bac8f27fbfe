"""Gluon in NumPy-array mode (``npx.set_np()``), against MXNet 1.9.1: d2l-style programs with
MXNet's numbers (``tools/golden/cases/gluon_np.py``), np-mode exports both ways, and the
np-mode paths of parameters, data loading and utilities."""

import json
import os
import subprocess

import numpy as onp
import pytest

import mxlite as mx
from mxlite import autograd, gluon, np, npx
from tests.gluon import np_mode_cases as cases
from tests.golden_file import load

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")
MXREF = "/tmp/mxref/bin/python"


@pytest.fixture
def np_mode():
    npx.set_np()
    yield
    npx.reset_np()


@pytest.fixture(scope="module")
def golden():
    """The inputs and initial parameters, and MXNet's results as ``mx_<key>``."""
    g = load("gluon/golden/np_mode.npz")
    return {**g.arrays("data"), **{f"mx_{k}": v for k, v in g.arrays("mxnet").items()}}


def test_d2l_programs_give_mxnets_numbers(golden, tmp_path):
    out = cases.run_program(mx, golden, str(tmp_path / "lenet"))
    assert list(out["lin_types"]) == ["numpy", "numpy"]  # losses and gradients are mx.np
    for key, value in out.items():
        ref = golden.get(f"mx_{key}")
        if ref is not None and value.dtype.kind == "f":
            onp.testing.assert_allclose(value, ref, rtol=1e-4, atol=1e-3, err_msg=key)
    assert not mx.util.is_np_array()


def test_imports_mxnets_np_export(golden, np_mode):
    prefix = os.path.join(GOLDEN, "lenet_np")
    net = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
    out = net(np.array(golden["sm_X"]))
    assert isinstance(out, np.ndarray)
    onp.testing.assert_allclose(out.asnumpy(), golden["mx_lenet_out"], rtol=1e-4, atol=1e-4)


def _export_here(golden, prefix):
    """The golden LeNet exported here, in NumPy mode, with its initial parameters; returns
    its output on the golden input."""
    npx.set_np()
    try:
        net = cases.lenet(gluon)
        net.initialize()
        net(np.array(golden["sm_X"][:2]))
        n = len(list(net.collect_params().values()))
        cases.set_params(net, np, [golden[f"init_lenet_{i}"] for i in range(n)])
        net.hybridize()
        out = net(np.array(golden["sm_X"])).asnumpy()
        net.export(prefix)
        return out
    finally:
        npx.reset_np()


def test_export_writes_mxnets_json_and_params(golden, tmp_path):
    prefix = str(tmp_path / "lenet")
    _export_here(golden, prefix)
    ours = json.load(open(prefix + "-symbol.json"))
    theirs = json.load(open(os.path.join(GOLDEN, "lenet_np-symbol.json")))
    assert ours["attrs"] == theirs["attrs"]  # is_np_shape: 1
    assert ours["arg_nodes"] == theirs["arg_nodes"] and ours["heads"] == theirs["heads"]
    # entries without NNVM's variable versions: MXNet counts every trace that composed the
    # auxiliary states (2 here: the deferred-shape trace and the hybridized one), mxlite the
    # updates within the one graph written (1)
    assert [(n["op"], n.get("attrs"), [e[:2] for e in n["inputs"]]) for n in ours["nodes"]] == [
        (n["op"], n.get("attrs"), [e[:2] for e in n["inputs"]]) for n in theirs["nodes"]
    ]
    with (
        open(prefix + "-0000.params", "rb") as f,
        open(os.path.join(GOLDEN, "lenet_np-0000.params"), "rb") as g,
    ):
        assert f.read(16) == g.read(16)  # the same (numpy-shape) list header
    npx.set_np()
    try:
        loaded = npx.load(prefix + "-0000.params")
    finally:
        npx.reset_np()
    assert sorted(k.split(":")[0] for k in loaded) == ["arg"] * 12 + ["aux"] * 2


@pytest.mark.skipif(not os.path.exists(MXREF), reason="real MXNet is absent")
def test_mxnet_imports_our_np_export(golden, tmp_path):
    prefix = str(tmp_path / "lenet")
    ours = _export_here(golden, prefix)
    onp.save(str(tmp_path / "ours.npy"), ours)
    code = (
        "import mxnet as mx, numpy as onp\n"
        "mx.npx.set_np()\n"
        f"d = onp.load({os.path.join(GOLDEN, 'np_mode.npz')!r})\n"
        f"net = mx.gluon.SymbolBlock.imports({prefix + '-symbol.json'!r}, ['data'], "
        f"{prefix + '-0000.params'!r})\n"
        "out = net(mx.np.array(d['data/sm_X']))\n"
        "assert isinstance(out, mx.np.ndarray)\n"
        f"print(float(abs(out.asnumpy() - onp.load({str(tmp_path / 'ours.npy')!r})).max()))\n"
    )
    res = subprocess.run([MXREF, "-c", code], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert float(res.stdout.strip().splitlines()[-1]) < 1e-3


def test_parameters_are_np_arrays_in_np_mode(np_mode):
    p = gluon.Parameter("w", shape=(2, 3))
    p.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    for arr in p.list_data() + p.list_grad():
        assert isinstance(arr, np.ndarray)
    p.set_data(np.ones((2, 3)))
    assert (p.data(mx.cpu(1)).asnumpy() == 1).all()
    with autograd.record():
        y = (p.data(mx.cpu(0)) * 3).sum()
    y.backward()
    assert isinstance(p.grad(mx.cpu(0)), np.ndarray)
    assert (p.grad(mx.cpu(0)).asnumpy() == 3).all()
    p.zero_grad()
    assert (p.grad(mx.cpu(0)).asnumpy() == 0).all()
    c = gluon.Constant("c", [[1, 2], [3, 4]])
    assert isinstance(c.value, np.ndarray) and c.value.dtype == onp.float32


def test_parameters_stay_classic_outside_np_mode():
    p = gluon.Parameter("w", shape=(2,))
    p.initialize()
    assert type(p.data()) is mx.nd.NDArray and type(p.grad()) is mx.nd.NDArray


def test_cast_keeps_gradients_flowing_in_np_mode(np_mode):
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize()
    net.cast("float64")
    x = np.ones((1, 3), dtype="float64")
    with autograd.record():
        y = net(x).sum()
    y.backward()
    assert isinstance(net.weight.grad(), np.ndarray)
    assert (net.weight.grad().asnumpy() == 1).all()


WORKERS = [{}, {"num_workers": 2, "thread_pool": True}, {"num_workers": 1}]


@pytest.mark.parametrize("kwargs", WORKERS)
def test_dataloader_batches_are_np_arrays(np_mode, kwargs):
    ds = gluon.data.ArrayDataset(onp.arange(10).reshape(5, 2).astype("float32"), onp.arange(5))
    batches = list(gluon.data.DataLoader(ds, 2, **kwargs))
    assert len(batches) == 3
    for data, label in batches:
        assert isinstance(data, np.ndarray) and isinstance(label, np.ndarray)
    onp.testing.assert_array_equal(batches[1][0].asnumpy(), [[4, 5], [6, 7]])
    assert batches[0][1].dtype == onp.int64


def test_dataloader_stays_classic_outside_np_mode():
    ds = gluon.data.ArrayDataset(onp.arange(4).reshape(2, 2), onp.arange(2))
    data, label = next(iter(gluon.data.DataLoader(ds, 2)))
    assert type(data) is mx.nd.NDArray


def test_split_and_load_gives_np_arrays(np_mode):
    ctxs = [mx.cpu(0), mx.cpu(1)]
    for data, axis in [(np.arange(12).reshape(6, 2), 0), (np.arange(12).reshape(2, 6), 1)]:
        parts = gluon.utils.split_and_load(data, ctxs, batch_axis=axis)
        assert all(isinstance(p, np.ndarray) for p in parts)
        assert [p.context for p in parts] == ctxs
    parts = gluon.utils.split_and_load(onp.ones((4, 2)), ctxs)
    assert all(isinstance(p, np.ndarray) for p in parts)


def test_clip_global_norm_on_np_arrays(np_mode):
    arrays = [np.ones((2, 2)) * 3, np.ones((3,)) * 4]
    norm = gluon.utils.clip_global_norm(arrays, 1.0)
    assert abs(float(norm) - onp.sqrt(36 + 48)) < 1e-4
    assert isinstance(arrays[0], np.ndarray)
    total = sum(float((a * a).sum()) for a in arrays)
    assert abs(total - 1.0) < 1e-4


def test_dropout_follows_train_and_predict_mode(np_mode):
    net = gluon.nn.Dropout(0.5)
    x = np.ones((200,))
    with autograd.record():
        assert float((net(x) == 0).sum()) > 20
        with autograd.predict_mode():
            assert float((net(x) == 0).sum()) == 0
    with autograd.train_mode():
        assert float((net(x) == 0).sum()) > 20
    assert float((net(x) == 0).sum()) == 0


def test_metrics_take_np_arrays(np_mode):
    acc = mx.metric.Accuracy()
    acc.update([np.array([0, 1, 1])], [np.array([[0.9, 0.1], [0.2, 0.8], [0.7, 0.3]])])
    assert acc.get()[1] == pytest.approx(2 / 3)
    mse = mx.metric.MSE()
    mse.update([np.array([1.0, 2.0])], [np.array([1.0, 3.0])])
    assert mse.get()[1] == pytest.approx(0.5)


def test_hybridized_trace_is_np_symbols(np_mode):
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(3, activation="relu"), gluon.nn.Dense(2))
    net.initialize()
    net.hybridize()
    out = net(np.ones((4, 5)))
    assert isinstance(out, np.ndarray)
    sym = net(mx.sym.var("data").as_np_ndarray())
    assert isinstance(sym, mx.sym.np._Symbol)


LAYERS = [
    ("nn.Dense(4, activation='relu')", (2, 3)),
    ("nn.Dense(4, flatten=False, use_bias=False)", (2, 3, 5)),
    ("nn.Conv2D(3, 3, padding=1, activation='sigmoid')", (2, 2, 5, 5)),
    ("nn.Conv1D(2, 3, strides=2)", (2, 2, 9)),
    ("nn.Conv2DTranspose(2, 3, strides=2)", (1, 3, 4, 4)),
    ("nn.MaxPool2D(2)", (2, 3, 6, 6)),
    ("nn.AvgPool1D(2)", (2, 3, 8)),
    ("nn.GlobalAvgPool2D()", (2, 3, 4, 5)),
    ("nn.BatchNorm()", (4, 3, 2, 2)),
    ("nn.LayerNorm()", (2, 5)),
    ("nn.Embedding(10, 4)", "indices"),
    ("nn.Flatten()", (2, 3, 4)),
    ("nn.Dropout(0.5)", (3, 4)),
    ("nn.Activation('tanh')", (3, 4)),
    ("nn.LeakyReLU(0.1)", (3, 4)),
    ("nn.PReLU()", (3, 4)),
    ("nn.ELU()", (3, 4)),
    ("nn.SELU()", (3, 4)),
    ("nn.GELU()", (3, 4)),
    ("nn.Swish()", (3, 4)),
]


def _layer_run(ctor, shape, np_on, hybridize, values=None):
    from mxlite.gluon import nn  # noqa: F401  (the constructors name it)

    if np_on:
        npx.set_np()
    try:
        layer = eval(ctor)  # noqa: S307  (constructors from the table above)
        layer.initialize()
        rng = onp.random.RandomState(0)
        if shape == "indices":
            x_np = rng.randint(0, 10, (2, 3)).astype("float32")
        else:
            x_np = rng.normal(size=shape).astype("float32")
        x = np.array(x_np) if np_on else mx.nd.array(x_np)
        layer(x)
        if values is not None:
            for p, v in zip(layer.collect_params().values(), values):
                p.set_data(np.array(v) if np_on else mx.nd.array(v))
        if hybridize:
            layer.hybridize()
        x.attach_grad()
        with autograd.record():
            y = layer(x)
        y.backward()
        if np_on:
            assert isinstance(y, np.ndarray) and isinstance(x.grad, np.ndarray)
        params = [p.data().asnumpy() for p in layer.collect_params().values()]
        return y.asnumpy(), x.grad.asnumpy(), params
    finally:
        npx.reset_np()


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("ctor,shape", LAYERS)
def test_layers_in_np_mode_compute_as_classic(ctor, shape, hybridize):
    mx.random.seed(1)
    ref_y, ref_g, values = _layer_run(ctor, shape, False, False)
    mx.random.seed(1)
    y, g, _ = _layer_run(ctor, shape, True, hybridize, values)
    if "Dropout" in ctor:  # the masks differ; both keep about half and scale by 2
        assert set(onp.unique(y)) <= set(onp.unique(onp.concatenate([ref_y.ravel(), [0]])))
        return
    onp.testing.assert_allclose(y, ref_y, rtol=1e-5, atol=1e-6)
    onp.testing.assert_allclose(g, ref_g, rtol=1e-5, atol=1e-6)


LOSSES = [
    ("gluon.loss.L2Loss()", "dense"),
    ("gluon.loss.L1Loss()", "dense"),
    ("gluon.loss.SigmoidBCELoss()", "binary"),
    ("gluon.loss.SigmoidBCELoss(from_sigmoid=True)", "binary"),
    ("gluon.loss.SoftmaxCrossEntropyLoss()", "sparse"),
    ("gluon.loss.SoftmaxCrossEntropyLoss(sparse_label=False)", "dense"),
]


def _loss_run(ctor, kind, np_on, hybridize):
    if np_on:
        npx.set_np()
    try:
        loss = eval(ctor)  # noqa: S307  (constructors from the table above)
        if hybridize:
            loss.hybridize()
        rng = onp.random.RandomState(3)
        pred = rng.uniform(0.1, 0.9, (4, 5)).astype("float32")
        label = {
            "dense": rng.uniform(0, 1, (4, 5)),
            "binary": rng.randint(0, 2, (4, 5)),
            "sparse": rng.randint(0, 5, (4,)),
        }[kind].astype("float32")
        weight = rng.uniform(0, 1, (4, 1)).astype("float32")
        arr = np.array if np_on else mx.nd.array
        p = arr(pred)
        p.attach_grad()
        with autograd.record():
            out = loss(p, arr(label), arr(weight))
        out.backward()
        if np_on:
            assert isinstance(out, np.ndarray) and out.shape == (4,)
        return out.asnumpy(), p.grad.asnumpy()
    finally:
        npx.reset_np()


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("ctor,kind", LOSSES)
def test_losses_in_np_mode_compute_as_classic(ctor, kind, hybridize):
    ref, ref_g = _loss_run(ctor, kind, False, False)
    out, g = _loss_run(ctor, kind, True, hybridize)
    onp.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
    onp.testing.assert_allclose(g, ref_g, rtol=1e-5, atol=1e-6)


INDICES = [(slice(None), -1, slice(None)), (1,), (None, 1, slice(3, 0, -1), None),
           (-1, slice(0, 4, 2), 2), (slice(1, 3),), (), (slice(None, None, -1),), 0]  # fmt: skip


@pytest.mark.parametrize("index", INDICES)
def test_hybridized_basic_indexing_is_numpys(np_mode, index):
    class Index(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x[index] * 2

    x_np = onp.arange(60.0, dtype="float32").reshape(3, 4, 5)
    block = Index()
    block.hybridize()
    x = np.array(x_np)
    x.attach_grad()
    with autograd.record():
        y = block(x)
    y.backward()
    onp.testing.assert_array_equal(y.asnumpy(), x_np[index] * 2)
    expected = onp.zeros_like(x_np)
    expected[index] = 2
    onp.testing.assert_array_equal(x.grad.asnumpy(), expected)


def test_symbol_indexing_rejects_advanced_keys(np_mode):
    with pytest.raises(IndexError, match="only integers, slices and None"):
        mx.sym.var("x").as_np_ndarray()[[0, 1]]


def test_deferred_parameter_shape_through_np_dot(np_mode):
    class Linear(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.w = self.params.get("w", shape=(0, 7), allow_deferred_init=True)

        def hybrid_forward(self, F, x, w):
            return F.np.dot(x, w)

    for hybridize in (False, True):
        net = Linear()
        net.initialize()
        if hybridize:
            net.hybridize()
        assert net(np.ones((2, 5))).shape == (2, 7)
        assert net.w.shape == (5, 7)


def test_backward_takes_an_np_head_gradient(np_mode):
    x = np.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = x * x
    y.backward(np.array([1.0, 3.0]))
    onp.testing.assert_allclose(x.grad.asnumpy(), [2.0, 12.0])


def test_trainer_updates_np_parameters(np_mode):
    net = gluon.nn.Dense(1, in_units=2, use_bias=False)
    net.initialize(mx.init.One())
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.5, "momentum": 0.9})
    for _ in range(2):
        with autograd.record():
            loss = net(np.array([[1.0, 2.0]])).sum()
        loss.backward()
        trainer.step(1)
    w = net.weight.data()
    assert isinstance(w, np.ndarray)
    # sgd with momentum: v1 = -0.5 g, v2 = 0.9 v1 - 0.5 g, g = (1, 2)
    onp.testing.assert_allclose(w.asnumpy(), [[1 - 0.5 - 0.95, 1 - 1.0 - 1.9]], rtol=1e-6)


def test_rnn_layers_give_mxnets_numbers(golden):
    out = cases.run_rnn(mx)
    assert not mx.util.is_np_array()
    for key, value in out.items():
        onp.testing.assert_allclose(value, golden[f"mx_{key}"], rtol=1e-5, atol=1e-5, err_msg=key)


def test_optimizer_records_np_mode():
    assert mx.optimizer.SGD().allow_np_array is False
    npx.set_np()
    try:
        assert mx.optimizer.SGD().allow_np_array is True
    finally:
        npx.reset_np()


@pytest.mark.parametrize("cls", [gluon.rnn.RNN, gluon.rnn.GRU, gluon.rnn.LSTM])
def test_rnn_layers_defer_their_input_size_in_np_mode(np_mode, cls):
    # the i2h weight's input size comes back through _np_reshape from npx.rnn's parameter size
    layer = cls(8, num_layers=2)
    layer.initialize()
    out = layer(np.ones((6, 2, 5)))
    assert isinstance(out, np.ndarray) and out.shape == (6, 2, 8)
    assert layer.l0_i2h_weight.shape[1] == 5 and layer.l1_i2h_weight.shape[1] == 8


def test_np_reshape_fills_an_unknown_input_dim_from_its_output(np_mode):
    w = mx.sym.var("w", shape=(8, 0)).as_np_ndarray()
    u = mx.sym.var("u", shape=(8, 8)).as_np_ndarray()
    x, h = mx.sym.var("x").as_np_ndarray(), mx.sym.var("h").as_np_ndarray()
    params = mx.sym.np._internal.rnn_param_concat(w.reshape(-1), u.reshape(-1), dim=0)
    assert params.infer_shape_partial()[0][0] == (8, -1)  # nothing known yet
    out = mx.sym.npx.rnn(x, params, h, state_size=8, num_layers=1, mode="rnn_tanh")
    out = out[0] if isinstance(out, list) else out
    args, _, _ = out.infer_shape_partial(x=(6, 2, 5), h=(1, 2, 8))
    # npx.rnn wants 8 * 5 + 8 * 8 + 2 * 8 = 120 parameters; u takes 64, so w is 8 x 7
    assert dict(zip(out.list_arguments(), args))["w"] == (8, 7)


@pytest.mark.skipif(not hasattr(mx.npx, "image"), reason="mx.npx.image is missing")
def test_vision_transforms_and_image_give_np_arrays(np_mode):
    transforms = gluon.data.vision.transforms
    img = np.array(onp.random.RandomState(0).randint(0, 256, (8, 10, 3)), dtype="uint8")
    for t in (transforms.ToTensor(), transforms.Resize((6, 4)), transforms.CenterCrop(4),
              transforms.Compose([transforms.Resize(5), transforms.ToTensor(),
                                  transforms.Normalize(0.5, 0.2)]),
              transforms.Cast("float32"), transforms.RandomFlipLeftRight()):  # fmt: skip
        out = t(img)
        assert isinstance(out, np.ndarray), type(t).__name__
    onp.testing.assert_allclose(transforms.ToTensor()(img).asnumpy(),
                                img.asnumpy().transpose(2, 0, 1) / 255.0, rtol=1e-6)  # fmt: skip
    assert isinstance(mx.image.imresize(img, 4, 3), np.ndarray)
    assert isinstance(mx.image.center_crop(img, (4, 4))[0], np.ndarray)


def test_np_internal_names_npi_operators_without_the_prefix():
    # MXNet's gluon.rnn calls F.np._internal.rnn_param_concat in NumPy mode
    assert mx.sym.np._internal._npi_rnn_param_concat is not None  # the full name stays
    a, b = (mx.sym.var(n).as_np_ndarray() for n in "ab")
    node = mx.sym.np._internal.rnn_param_concat(a, b, dim=0)
    assert '"op": "_rnn_param_concat"' in node.tojson()
    assert node.name.startswith("rnn_param_concat")  # named as MXNet names it
