"""Small networks through MXNet 1.9.1's executor (tests/executor/test_networks.py): an MLP,
LeNet, a ResNet with BatchNorm and residual adds, an Inception-style block with Concat, an LSTM
on the fused RNN op. Per network ``<net>-symbol.json`` as MXNet saves it, next to
tests/executor/golden/networks.npz, whose entry ``<net>`` holds ``input:<name>`` the fixed
batch, ``param:<name>`` the fixed parameters, ``aux:<name>`` the auxiliary states before
running, ``head:<i>`` the head gradients, ``out_infer:<i>`` / ``out_train:<i>`` the outputs of
``forward(is_train=False)`` and ``forward(is_train=True)``, ``grad:<name>`` the gradient of every
argument after ``backward(head)``, ``aux_after:<name>`` the auxiliary states after the training
forward; and in its metadata the argument / output / auxiliary names, the shapes MXNet infers
from the input shapes, and the "Total N MB allocated" of ``debug_str`` for training and
inference binds at the larger ``plan_shapes`` (so that the megabytes are not all zero).
"""

import os
import re

# The plain graph, as mxlite runs it: no MKLDNN operator fusion in the figures.
os.environ.setdefault("MXNET_SUBGRAPH_BACKEND", "NONE")

import mxnet as mx  # noqa: E402
import numpy as np  # noqa: E402
from core import Golden

FILE = "tests/executor/golden/networks.npz"


def mlp():
    h = mx.sym.var("data")
    for i, (n, act) in enumerate([(16, "relu"), (12, "tanh")], 1):
        h = mx.sym.FullyConnected(h, num_hidden=n, name=f"fc{i}")
        h = mx.sym.Activation(h, act_type=act, name=f"{act}{i}")
    h = mx.sym.FullyConnected(h, num_hidden=5, name="fc3")
    return mx.sym.SoftmaxOutput(h, name="softmax")


def lenet():
    h = mx.sym.var("data")
    for i, (k, n) in enumerate([(5, 4), (3, 6)], 1):
        h = mx.sym.Convolution(h, kernel=(k, k), num_filter=n, name=f"conv{i}")
        h = mx.sym.Activation(h, act_type="tanh", name=f"tanh{i}")
        h = mx.sym.Pooling(h, pool_type="max", kernel=(2, 2), stride=(2, 2), name=f"pool{i}")
    h = mx.sym.Flatten(h, name="flatten")
    h = mx.sym.FullyConnected(h, num_hidden=10, name="fc1")
    h = mx.sym.Activation(h, act_type="tanh", name="tanh3")
    h = mx.sym.FullyConnected(h, num_hidden=4, name="fc2")
    return mx.sym.SoftmaxOutput(h, name="softmax")


def _unit(x, nf, stride, project, name):
    b1 = mx.sym.BatchNorm(x, fix_gamma=False, eps=2e-5, momentum=0.9, name=name + "_bn1")
    a1 = mx.sym.Activation(b1, act_type="relu", name=name + "_relu1")
    c1 = mx.sym.Convolution(a1, num_filter=nf, kernel=(3, 3), stride=stride, pad=(1, 1),
                            no_bias=True, name=name + "_conv1")  # fmt: skip
    b2 = mx.sym.BatchNorm(c1, fix_gamma=False, eps=2e-5, momentum=0.9, name=name + "_bn2")
    a2 = mx.sym.Activation(b2, act_type="relu", name=name + "_relu2")
    c2 = mx.sym.Convolution(a2, num_filter=nf, kernel=(3, 3), pad=(1, 1), no_bias=True,
                            name=name + "_conv2")  # fmt: skip
    if project:
        x = mx.sym.Convolution(a1, num_filter=nf, kernel=(1, 1), stride=stride, no_bias=True,
                               name=name + "_sc")  # fmt: skip
    return c2 + x


def resnet():
    data = mx.sym.var("data")
    h = mx.sym.BatchNorm(data, fix_gamma=True, eps=2e-5, name="bn_data")
    h = mx.sym.Convolution(h, num_filter=4, kernel=(3, 3), pad=(1, 1), no_bias=True, name="conv0")
    h = _unit(h, 4, (1, 1), False, "stage1_unit1")
    h = _unit(h, 6, (2, 2), True, "stage2_unit1")
    h = _unit(h, 6, (1, 1), False, "stage2_unit2")
    h = mx.sym.BatchNorm(h, fix_gamma=False, eps=2e-5, name="bn1")
    h = mx.sym.Activation(h, act_type="relu", name="relu1")
    h = mx.sym.Pooling(h, global_pool=True, kernel=(2, 2), pool_type="avg", name="pool1")
    h = mx.sym.Flatten(h, name="flat")
    return mx.sym.FullyConnected(h, num_hidden=3, name="fc1")


def _conv_bn(x, nf, kernel, pad, name):
    c = mx.sym.Convolution(x, num_filter=nf, kernel=kernel, pad=pad, name=name + "_conv")
    b = mx.sym.BatchNorm(c, fix_gamma=False, name=name + "_bn")
    return mx.sym.Activation(b, act_type="relu", name=name + "_relu")


def inception():
    data = mx.sym.var("data")
    b1 = _conv_bn(data, 3, (1, 1), (0, 0), "b1")
    b2 = _conv_bn(data, 2, (1, 1), (0, 0), "b2a")
    b2 = _conv_bn(b2, 3, (3, 3), (1, 1), "b2b")
    b3 = _conv_bn(data, 2, (1, 1), (0, 0), "b3a")
    b3 = _conv_bn(b3, 2, (3, 3), (1, 1), "b3b")
    b3 = _conv_bn(b3, 2, (3, 3), (1, 1), "b3c")
    b4 = mx.sym.Pooling(data, kernel=(3, 3), stride=(1, 1), pad=(1, 1), pool_type="avg",
                        name="b4_pool")  # fmt: skip
    b4 = _conv_bn(b4, 2, (1, 1), (0, 0), "b4")
    cat = mx.sym.Concat(b1, b2, b3, b4, dim=1, name="concat")
    h = mx.sym.Pooling(cat, global_pool=True, kernel=(1, 1), pool_type="max", name="gpool")
    h = mx.sym.Flatten(h, name="flat")
    h = mx.sym.FullyConnected(h, num_hidden=4, name="fc")
    return mx.sym.Group([mx.sym.SoftmaxOutput(h, name="softmax"), cat])


def lstm():
    data = mx.sym.var("data")
    rnn = mx.sym.RNN(data, state_size=5, num_layers=2, mode="lstm", state_outputs=True, name="lstm")
    h = mx.sym.FullyConnected(rnn[0], num_hidden=8, flatten=False, name="fc1")
    h = mx.sym.Activation(h, act_type="tanh", name="tanh1")
    h = mx.sym.FullyConnected(h, num_hidden=3, flatten=False, name="fc2")
    return mx.sym.Group([h, rnn[1], rnn[2]])


# name -> (builder, input shapes, shapes for the memory-plan figures)
# fmt: off
NETWORKS = {
    "mlp": (mlp, {"data": (4, 20), "softmax_label": (4,)},
            {"data": (65536, 20), "softmax_label": (65536,)}),
    "lenet": (lenet, {"data": (2, 1, 14, 14), "softmax_label": (2,)},
              {"data": (4096, 1, 14, 14), "softmax_label": (4096,)}),
    "resnet": (resnet, {"data": (2, 3, 8, 8)}, {"data": (1024, 3, 8, 8)}),
    "inception": (inception, {"data": (2, 4, 5, 5), "softmax_label": (2,)},
                  {"data": (4096, 4, 5, 5), "softmax_label": (4096,)}),
    "lstm": (lstm, {"data": (3, 2, 4), "lstm_state": (2, 2, 5), "lstm_state_cell": (2, 2, 5)},
             {"data": (3, 32768, 4), "lstm_state": (2, 32768, 5),
              "lstm_state_cell": (2, 32768, 5)}),
}
# fmt: on


def _value(rng, name, shape):
    if name.endswith("_label"):
        return rng.integers(0, 3, size=shape).astype(np.float32)
    if name.endswith(("moving_var", "gamma")):
        return rng.uniform(0.5, 1.5, size=shape).astype(np.float32)
    scale = 0.3 if name.endswith("parameters") else 0.5
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def _snap(arr):
    # A copy taken now, through NumPy: an engine copy of an executor output was seen to pick
    # up a later forward's values in MXNet 1.9.1 (MKLDNN build).
    return mx.nd.array(arr.asnumpy())


def _planned_mb(net, shapes, grad_req):
    exe = net.simple_bind(mx.cpu(), grad_req=grad_req, **shapes)
    text = exe.debug_str()
    return int(re.search(r"Total (\d+) MB allocated", text).group(1))


def make(golden: Golden, name: str) -> None:
    build, shapes, plan_shapes = NETWORKS[name]
    net = build()
    rng = np.random.default_rng(sorted(NETWORKS).index(name))
    arg_shapes, out_shapes, aux_shapes = net.infer_shape(**shapes)
    arg_names, aux_names = net.list_arguments(), net.list_auxiliary_states()
    saved, args = {}, {}
    for n, s in zip(arg_names, arg_shapes):
        args[n] = mx.nd.array(_value(rng, n, s))
        saved[("input:" if n in shapes else "param:") + n] = _snap(args[n])
    aux = {n: mx.nd.array(_value(rng, n, s)) for n, s in zip(aux_names, aux_shapes)}
    saved.update({"aux:" + n: _snap(a) for n, a in aux.items()})
    grads = {n: mx.nd.zeros(s) for n, s in zip(arg_names, arg_shapes)}
    exe = net.bind(mx.cpu(), args=args, args_grad=grads, grad_req="write", aux_states=aux)
    for i, o in enumerate(exe.forward(is_train=False)):
        saved[f"out_infer:{i}"] = _snap(o)
    outs = exe.forward(is_train=True)
    heads = [mx.nd.array(rng.standard_normal(o.shape).astype(np.float32)) for o in outs]
    for i, o in enumerate(outs):
        saved[f"out_train:{i}"] = _snap(o)
        saved[f"head:{i}"] = heads[i]
    exe.backward(heads)
    saved.update({"grad:" + n: _snap(g) for n, g in grads.items()})
    saved.update({"aux_after:" + n: _snap(a) for n, a in exe.aux_dict.items()})
    net.save(str(golden.path.parent / f"{name}-symbol.json"))
    meta = {"input_shapes": shapes, "arguments": arg_names, "outputs": net.list_outputs(),
            "auxiliary_states": aux_names, "arg_shapes": arg_shapes, "out_shapes": out_shapes,
            "aux_shapes": aux_shapes, "plan_shapes": plan_shapes,
            "planned_mb_train": _planned_mb(net, plan_shapes, "write"),
            "planned_mb_infer": _planned_mb(net, plan_shapes, "null")}  # fmt: skip
    golden.put(name, meta, **{k: v.asnumpy() for k, v in saved.items()})


def record(golden: Golden) -> None:
    for name in NETWORKS:
        make(golden, name)
