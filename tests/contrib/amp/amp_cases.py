"""Graphs and conversions for AMP, shared by tests/contrib/amp/test_golden_amp.py and
tools/golden/cases/amp.py (which records what MXNet 1.9.1 makes of them): each function takes
the ``mx`` module (mxnet or mxlite) and builds the same symbol under either."""

from __future__ import annotations

from typing import Any

import numpy as np


def mlp(mx: Any) -> Any:
    data = mx.sym.var("data")
    h = mx.sym.FullyConnected(data, num_hidden=16, name="fc1")
    h = mx.sym.Activation(h, act_type="relu", name="relu1")
    h = mx.sym.FullyConnected(h, num_hidden=8, name="fc2")
    h = mx.sym.Activation(h, act_type="softrelu", name="soft2")  # conditional float32
    h = mx.sym.FullyConnected(h, num_hidden=4, name="fc3")
    return mx.sym.softmax(h, name="out")


def convnet(mx: Any) -> Any:
    data = mx.sym.var("data")
    c1 = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv1")
    b1 = mx.sym.BatchNorm(c1, fix_gamma=False, name="bn1")
    a1 = mx.sym.Activation(b1, act_type="relu", name="relu1")
    c2 = mx.sym.Convolution(a1, kernel=(1, 1), num_filter=4, name="conv2")
    s = mx.sym.elemwise_add(c2, a1, name="res")  # widest type: float16 and float32 meet
    p = mx.sym.Pooling(s, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool")
    cat = mx.sym.Concat(p, mx.sym.Activation(p, act_type="tanh", name="t"), dim=1, name="cat")
    f = mx.sym.Flatten(cat, name="flat")
    fc = mx.sym.FullyConnected(f, num_hidden=5, name="fc")
    return mx.sym.SoftmaxOutput(fc, name="softmax")


def small(mx: Any) -> Any:
    """MXNet's own test graph: a FullyConnected and a sin of its weight, added."""
    x, y = mx.sym.var("x"), mx.sym.var("y")
    z = mx.sym.FullyConnected(x, y, num_hidden=10, no_bias=True, name="fc")
    return mx.sym.elemwise_add(z, mx.sym.sin(y, name="sin"), name="plus")


GRAPHS = {"mlp": mlp, "convnet": convnet, "small": small}

# (case, graph, convert_model keyword arguments)
CASES = [
    ("mlp", "mlp", {}),
    ("mlp_optional", "mlp", {"cast_optional_params": True}),
    ("mlp_excluded", "mlp", {"excluded_sym_names": ["fc2"]}),
    ("convnet", "convnet", {}),
    ("convnet_optional", "convnet", {"cast_optional_params": True}),
    ("convnet_conv_only", "convnet", {"target_dtype_ops": ["Convolution"]}),
    ("convnet_conditional", "convnet", {"conditional_fp32_ops": [("Activation", "act_type",
                                                                  ["relu"])]}),
    ("small", "small", {"target_dtype_ops": ["FullyConnected"], "fp32_ops": ["sin"]}),
]  # fmt: skip

TARGETS = ("float16", "bfloat16")

SHAPES = {"mlp": {"data": (3, 10)}, "convnet": {"data": (2, 3, 6, 6), "softmax_label": (2,)},
          "small": {"x": (10, 10)}}  # fmt: skip


def params(mx: Any, graph: str) -> tuple[dict, dict, dict]:
    """Inputs, arg_params and aux_params (NumPy) for ``graph``, the same under both."""
    rng = np.random.RandomState(3)
    sym = GRAPHS[graph](mx)
    shapes = SHAPES[graph]
    arg_shapes, _, aux_shapes = sym.infer_shape(**shapes)
    args = {}
    for name, shape in zip(sym.list_arguments(), arg_shapes):
        if name == "softmax_label":
            args[name] = rng.randint(0, 5, shape).astype(np.float32)
        else:
            args[name] = rng.uniform(-1, 1, shape).astype(np.float32)
    aux = {}
    for name, shape in zip(sym.list_auxiliary_states(), aux_shapes):
        value = rng.uniform(0.5, 1.5, shape) if name.endswith("var") else rng.uniform(-1, 1, shape)
        aux[name] = value.astype(np.float32)
    data = {k: args.pop(k) for k in shapes}
    return data, args, aux


# ---- MXNet's test_bf16_casting / test_fp16_casting graphs: how cast_optional_params decides
# the dtypes of inputs that feed casts (MXNet's AMPInferUnknown) -------------------------------


def casting_graphs(mx: Any, low: Any) -> list[tuple[str, Any, dict]]:
    """(name, symbol, convert_symbol keyword arguments); ``low`` is the target's dtype object
    (``np.float16`` or MXNet's ``amp.bfloat16``)."""
    f32 = "float32"
    data = mx.sym.var("data")
    out1 = mx.sym.amp_cast(data, dtype=low, name="c1")
    out2 = mx.sym.amp_cast(data, dtype=f32, name="c2")
    out3 = mx.sym.amp_cast(data, dtype=low, name="c3")
    base = {"data_names": [], "cast_optional_params": True}
    free = {"target_dtype_ops": [], "fp32_ops": [], "cast_optional_params": True}
    d32, d16 = mx.sym.var("data", dtype=f32), mx.sym.var("data2", dtype=low)
    d16b = mx.sym.var("data3", dtype=low)
    e16, e32, e = mx.sym.var("data", dtype=low), mx.sym.var("data2", dtype=f32), mx.sym.var("data3")
    return [
        ("two_casts_differ", mx.sym.Group([out1, out2]), base),
        ("two_casts_low", mx.sym.Group([out1, out3]), base),
        ("multicast_vars", mx.sym.amp_multicast(d32, d16, num_outputs=2, name="m4"),
         {"cast_optional_params": True}),
        ("multicast_op", mx.sym.amp_multicast(d32, mx.sym.elemwise_add(d16, d16b, name="add5"),
                                              num_outputs=2, name="m5"), free),
        ("multicast_three", mx.sym.amp_multicast(e16, e32, e, num_outputs=3, name="m6"), free),
        ("conflict_low", mx.sym.Group([mx.sym.amp_multicast(e16, e32, num_outputs=2, name="m7"),
                                       mx.sym.amp_cast(e16, dtype=low, name="c7")]), free),
        ("conflict_f32", mx.sym.Group([mx.sym.amp_multicast(d32, d16, num_outputs=2, name="m8"),
                                       mx.sym.amp_cast(d32, dtype=low, name="c8")]), free),
    ]  # fmt: skip


def converted_casting_graphs(mx: Any, amp: Any, target: str) -> dict[str, str]:
    """name -> the JSON (casts kept) ``amp.convert_symbol`` makes of each casting graph for
    ``target`` ("float16" or "bfloat16"); ``amp`` is ``mx``'s ``contrib.amp``."""
    low = amp.amp.bfloat16 if target == "bfloat16" else np.float16
    return {name: amp.convert_symbol(sym, target_dtype=target, **kw).tojson(remove_amp_cast=False)
            for name, sym, kw in casting_graphs(mx, low)}  # fmt: skip


def dtype_names(amp: Any, arrays: dict) -> dict[str, str]:
    """name -> the dtype's name of each NDArray or Parameter of ``arrays`` ("bfloat16" for
    AMP's bfloat16); ``amp`` is ``mx``'s ``contrib.amp``."""
    return {k: "bfloat16" if v.dtype == amp.amp.bfloat16 else np.dtype(v.dtype).name
            for k, v in arrays.items()}  # fmt: skip


# ---- a Gluon network for convert_hybrid_block ----------------------------------------------------

BLOCK_CASES = [
    ("block", {}),
    ("block_optional", {"cast_optional_params": True}),
    ("block_excluded", {"excluded_sym_names": ["net_conv0_fwd"]}),
]


def block(mx: Any) -> Any:
    """A small conv net, hybridized and run once on ``block_input()``, its parameters drawn
    from a fixed generator in name order."""
    nn = mx.gluon.nn
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                nn.MaxPool2D(2), nn.Flatten(), nn.Dense(3))  # fmt: skip
    net.initialize()
    net(mx.nd.array(block_input()))  # shapes known
    rng = np.random.RandomState(5)
    for name in sorted(net.collect_params()):
        p = net.collect_params()[name]
        p.set_data(mx.nd.array(rng.uniform(0.5, 1.5, p.shape).astype(np.float32)))
    net.hybridize()
    net(mx.nd.array(block_input()))
    return net


def block_input() -> np.ndarray:
    return np.random.RandomState(6).uniform(-1, 1, (2, 3, 6, 6)).astype(np.float32)


def block_output(mx: Any, net: Any) -> np.ndarray:
    """The output of ``net`` on :func:`block_input`, cast to float32."""
    return mx.nd.amp_cast(net(mx.nd.array(block_input())), dtype="float32").asnumpy()
