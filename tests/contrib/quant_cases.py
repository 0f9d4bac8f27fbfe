"""Networks, parameters, data and quantization options shared by
tests/contrib/test_quantization_golden.py and tools/golden/cases/quantization.py (which records
what MXNet 1.9.1 makes of them). Each builder takes the ``mx`` module (mxnet or mxlite).

MXNet's CPU build binds float graphs through its MKLDNN subgraph backend by default, which
renames the layer outputs calibration looks for (so only the data gets a range); the golden
script runs with ``MXNET_SUBGRAPH_BACKEND=NONE``, the graph as written, as mxlite binds it."""

from __future__ import annotations

from typing import Any

import numpy as np

SEED = 7
DATA_SHAPE = (4, 3, 8, 8)
NUM_CALIB = 8  # examples: two batches


def convnet(mx: Any) -> Any:
    """Conv+BN+ReLU+Pool, a second Conv with a residual add, Flatten, FC, SoftmaxOutput."""
    data = mx.sym.var("data")
    c = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv0")
    b = mx.sym.BatchNorm(c, fix_gamma=False, name="bn0")
    r = mx.sym.Activation(b, act_type="relu", name="relu0")
    p = mx.sym.Pooling(r, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool0")
    c1 = mx.sym.Convolution(p, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv1")
    a = mx.sym.elemwise_add(c1, p, name="add0")
    f = mx.sym.flatten(a, name="flat0")
    fc = mx.sym.FullyConnected(f, num_hidden=5, name="fc0")
    return mx.sym.SoftmaxOutput(fc, name="softmax")


def residual(mx: Any) -> Any:
    """Conv+ReLU+Pool, Conv+ReLU with a residual add, Flatten, FC."""
    data = mx.sym.var("data")
    c = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv0")
    r = mx.sym.Activation(c, act_type="relu", name="relu0")
    p = mx.sym.Pooling(r, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool0")
    c1 = mx.sym.Convolution(p, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv1")
    r1 = mx.sym.Activation(c1, act_type="relu", name="relu1")
    a = mx.sym.elemwise_add(r1, p, name="add0")
    f = mx.sym.flatten(a, name="flat0")
    fc = mx.sym.FullyConnected(f, num_hidden=5, name="fc0")
    return mx.sym.SoftmaxOutput(fc, name="softmax")


GRAPHS = {"convnet": convnet, "residual": residual}


def params(graph: str = "convnet") -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Fixed float32 (arg_params, aux_params) of ``GRAPHS[graph]``."""
    rng = np.random.RandomState(SEED)

    def f(*shape: int, scale: float = 1.0, low: float | None = None) -> np.ndarray:
        if low is not None:
            return rng.uniform(low, low + scale, shape).astype(np.float32)
        return (rng.randn(*shape) * scale).astype(np.float32)

    args = {
        "conv0_weight": f(4, 3, 3, 3, scale=0.3), "conv0_bias": f(4, scale=0.1),
        "bn0_gamma": f(4, low=0.5), "bn0_beta": f(4, scale=0.1),
        "conv1_weight": f(4, 4, 3, 3, scale=0.3), "conv1_bias": f(4, scale=0.1),
        "fc0_weight": f(5, 64, scale=0.2), "fc0_bias": f(5, scale=0.1),
    }  # fmt: skip
    aux = {"bn0_moving_mean": f(4, scale=0.2), "bn0_moving_var": f(4, low=0.5)}
    if graph == "residual":
        del args["bn0_gamma"], args["bn0_beta"]
        aux = {}
    return args, aux


def data() -> tuple[np.ndarray, np.ndarray]:
    """(calibration data, test data), float32."""
    rng = np.random.RandomState(SEED + 1)
    # non-negative, as images are: MXNet's CPU quantized convolution takes uint8 data only
    calib = rng.uniform(0, 1, (NUM_CALIB * 2, *DATA_SHAPE[1:])).astype(np.float32)
    # examples the calibration saw: a quantized output then stays within its ranges, and
    # clipping does not hide how close it is to the float one
    test = calib[: DATA_SHAPE[0]].copy()
    return calib, test


# (case, graph, quantize_model keyword arguments). MXNet's CPU (MKLDNN) kernels run few of
# these unfused graphs: its quantized convolution takes uint8 data only, and the requantized
# output of a convolution is int8; the golden file keeps the reason where MXNet refused.
CASES = [
    ("none-int8", "convnet", {"calib_mode": "none"}),
    ("naive-int8", "convnet", {"calib_mode": "naive"}),
    ("entropy-int8", "convnet", {"calib_mode": "entropy"}),
    ("naive-uint8", "convnet", {"calib_mode": "naive", "quantized_dtype": "uint8"}),
    ("entropy-auto", "convnet", {"calib_mode": "entropy", "quantized_dtype": "auto"}),
    ("naive-excluded", "convnet", {"calib_mode": "naive", "excluded_sym_names": ["conv1", "fc0"]}),
    ("naive-excluded-op", "convnet", {"calib_mode": "naive", "excluded_op_names": ["Pooling"]}),
    ("naive-full", "convnet", {"calib_mode": "naive", "quantize_mode": "full"}),
    ("naive-channel", "convnet", {"calib_mode": "naive", "quantize_granularity": "channel-wise"}),
    ("res-naive-auto", "residual", {"calib_mode": "naive", "quantized_dtype": "auto"}),
    ("res-entropy-auto", "residual", {"calib_mode": "entropy", "quantized_dtype": "auto"}),
    ("res-naive-excluded", "residual", {"calib_mode": "naive", "quantized_dtype": "auto",
                                        "excluded_sym_names": ["conv1"]}),
]  # fmt: skip


def quantize(mx: Any, graph: str, kwargs: dict) -> tuple[Any, dict, dict]:
    """``quantize_model`` of ``GRAPHS[graph]`` with ``kwargs``, calibrated on :func:`data`."""
    args, aux = params(graph)
    calib, _ = data()
    it = mx.io.NDArrayIter(calib, np.zeros(len(calib), np.float32), batch_size=DATA_SHAPE[0])
    nd_args = {k: mx.nd.array(v) for k, v in args.items()}
    nd_aux = {k: mx.nd.array(v) for k, v in aux.items()}
    return mx.contrib.quant.quantize_model(
        GRAPHS[graph](mx), nd_args, nd_aux, ctx=mx.cpu(), calib_data=it,
        num_calib_examples=NUM_CALIB, **kwargs)  # fmt: skip


def forward(mx: Any, qsym: Any, qargs: dict, qaux: dict) -> np.ndarray:
    """The quantized model's output on the test data."""
    _, test = data()
    feed = {"data": mx.nd.array(test), "softmax_label": mx.nd.zeros((DATA_SHAPE[0],))}
    ex = qsym.bind(mx.cpu(), {**feed, **qargs}, aux_states=qaux, grad_req="null")
    return ex.forward(is_train=False)[0].asnumpy()


def gluon_net(mx: Any) -> Any:
    """A small Gluon net (Conv2D+BatchNorm+ReLU, MaxPool, Conv2D, Dense) with the fixed
    parameters of :func:`gluon_params`."""
    nn = mx.gluon.nn
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, padding=1, prefix="conv0_"), nn.BatchNorm(prefix="bn0_"),
                nn.Activation("relu", prefix="relu0_"), nn.MaxPool2D(2, prefix="pool0_"),
                nn.Conv2D(4, 3, padding=1, activation="relu", prefix="conv1_"),
                nn.Dense(5, prefix="dense0_"))  # fmt: skip
    net.initialize()
    net(mx.nd.zeros(DATA_SHAPE))
    for name, value in gluon_params().items():
        net.collect_params()[name].set_data(mx.nd.array(value))
    return net


def gluon_params() -> dict[str, np.ndarray]:
    args, aux = params()
    rename = {"conv0_": "net_conv0_", "bn0_": "net_bn0_", "conv1_": "net_conv1_",
              "fc0_": "net_dense0_"}  # fmt: skip
    out = {}
    for k, v in {**args, **aux}.items():
        prefix = next(p for p in rename if k.startswith(p))
        out[rename[prefix] + k[len(prefix) :].replace("moving_", "running_")] = v
    return out


def quantize_gluon(mx: Any, calib_mode: str, quantized_dtype: str = "auto") -> np.ndarray:
    """``quantize_net`` of :func:`gluon_net` on the CPU, and the quantized net's output on the
    test data."""
    calib, test = data()
    labels = np.zeros(len(calib), np.float32)  # MXNet's wrapper takes (data, label) batches
    dataset = mx.gluon.data.ArrayDataset(calib, labels)
    loader = mx.gluon.data.DataLoader(dataset, batch_size=DATA_SHAPE[0])
    qnet = mx.contrib.quant.quantize_net(
        gluon_net(mx), quantized_dtype=quantized_dtype, ctx=mx.cpu(), calib_data=loader,
        calib_mode=calib_mode, num_calib_examples=NUM_CALIB)  # fmt: skip
    return qnet(mx.nd.array(test)).asnumpy()
