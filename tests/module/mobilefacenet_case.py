"""A small MobileFaceNet (insightface's ``y1`` layout) trained with Module for a few SGD steps,
run unchanged on MXNet 1.9.1 and on mxlite (issue 32, item 2).

The network keeps what the suspects of that issue are made of: Convolution -> BatchNorm ->
PReLU blocks (``LeakyReLU(act_type='prelu')``, one slope per channel, 4-D input), depthwise
separable blocks with residual sums, and the GDC head: a depthwise 7x7 convolution with
``num_group`` = channels and no padding, BatchNorm, FullyConnected on the flattened 4-D result,
then BatchNorm with ``fix_gamma``; a softmax head with its bias variable carrying ``lr_mult`` and
``wd_mult``; outputs grouped with ``BlockGrad`` as insightface's train.py groups them; an
``SGD`` optimizer object (momentum, weight decay, ``rescale_grad``) handed to Module. Inputs
are 56 px (MobileFaceNet's 112 px, one stride-2 stage fewer) so that a step takes a second.

``run(mx, steps)`` returns the arrays compared: the loss of each step, every gradient of the
first step, and every parameter after the first and the last step (arrays of more than 1024
values as every 13th value, to keep the golden file small). Every value comes from
``numpy.random.RandomState``, never from ``mx.random``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

CLASSES, BATCH, SIZE, EMB = 20, 20, 56, 64
SGD = {"learning_rate": 0.1, "momentum": 0.9, "wd": 5e-4, "rescale_grad": 1.0}


def _conv_bn(mx: Any, x: Any, name: str, ch: int, kernel: int, stride: int, group: int = 1):
    pad = (kernel // 2, kernel // 2) if kernel == 3 else (0, 0)
    y = mx.sym.Convolution(x, num_filter=ch, kernel=(kernel, kernel), stride=(stride, stride),
                           pad=pad, num_group=group, no_bias=True, name=f"{name}_conv")  # fmt: skip
    return mx.sym.BatchNorm(y, fix_gamma=False, momentum=0.9, name=f"{name}_bn")


def _block(mx: Any, x: Any, name: str, ch: int, kernel: int = 1, stride: int = 1, group: int = 1):
    """Convolution, BatchNorm, PReLU (a slope per channel)."""
    y = _conv_bn(mx, x, name, ch, kernel, stride, group)
    return mx.sym.LeakyReLU(y, act_type="prelu", name=f"{name}_prelu")


def _separable(mx: Any, x: Any, name: str, out: int, mid: int, stride: int) -> Any:
    """1x1 expand, 3x3 depthwise, 1x1 linear projection."""
    y = _block(mx, x, f"{name}_expand", mid)
    y = _block(mx, y, f"{name}_dw", mid, 3, stride, group=mid)
    return _conv_bn(mx, y, f"{name}_project", out, 1, 1)


def network(mx: Any) -> Any:
    data = (mx.sym.var("data") - 127.5) * 0.0078125
    y = _block(mx, data, "stem", 16, 3, 2)  # 28 x 28
    y = _block(mx, y, "stem_dw", 16, 3, 1, group=16)
    y = _separable(mx, y, "down1", 16, 32, 2)  # 14 x 14
    for i in range(2):
        y = y + _separable(mx, y, f"res1_{i}", 16, 32, 1)
    y = _separable(mx, y, "down2", 32, 64, 2)  # 7 x 7
    for i in range(2):
        y = y + _separable(mx, y, f"res2_{i}", 32, 64, 1)
    y = _block(mx, y, "last", 128)
    y = _conv_bn(mx, y, "gdc", 128, 7, 1, group=128)  # GDC: depthwise 7x7, no padding
    y = mx.sym.FullyConnected(y, num_hidden=EMB, name="pre_fc1")
    emb = mx.sym.BatchNorm(y, fix_gamma=True, eps=2e-5, momentum=0.9, name="fc1")
    weight = mx.sym.var("fc7_weight", shape=(CLASSES, EMB), lr_mult=1.0, wd_mult=1.0)
    bias = mx.sym.var("fc7_bias", lr_mult=2.0, wd_mult=0.0)
    fc7 = mx.sym.FullyConnected(emb, weight=weight, bias=bias, num_hidden=CLASSES, name="fc7")
    label = mx.sym.var("softmax_label")
    softmax = mx.sym.SoftmaxOutput(fc7, label, normalization="valid", name="softmax")
    log_p = mx.sym.log(mx.sym.SoftmaxActivation(fc7))
    ce = mx.sym.sum(log_p * mx.sym.one_hot(label, depth=CLASSES, on_value=-1.0)) / BATCH
    return mx.sym.Group([mx.sym.BlockGrad(emb), softmax, mx.sym.BlockGrad(ce)])


def _initial(name: str, shape: tuple, k: int) -> np.ndarray:
    rs = np.random.RandomState(k)
    if name.endswith("prelu_gamma"):
        return np.full(shape, 0.25)
    if name.endswith("gamma"):
        return np.ones(shape)
    if name.endswith(("beta", "bias")):
        return np.zeros(shape)
    if name == "fc7_weight":
        return rs.normal(0, 0.01, shape)
    fan_out = shape[0] * int(np.prod(shape[2:]))  # Xavier, gaussian, factor 'out', magnitude 2
    return rs.normal(0, np.sqrt(2.0 / fan_out), shape)


def batches(steps: int):
    """Twenty blocky 'faces' (8x8 patterns scaled up), each sample one of them plus noise."""
    faces = np.random.RandomState(0).uniform(0, 255, (CLASSES, 3, 8, 8))
    faces = faces.repeat(SIZE // 8, axis=2).repeat(SIZE // 8, axis=3)
    for k in range(steps):
        rs = np.random.RandomState(1000 + k)
        label = rs.randint(0, CLASSES, BATCH)
        x = np.clip(faces[label] + rs.normal(0, 40, (BATCH, 3, SIZE, SIZE)), 0, 255)
        yield x.astype("float32"), label.astype("float32")


def _sample(a: np.ndarray) -> np.ndarray:
    return a if a.size <= 1024 else a.ravel()[::13]


def run(mx: Any, steps: int = 3) -> dict:
    sym = network(mx)
    shape = (BATCH, 3, SIZE, SIZE)
    mod = mx.mod.Module(sym, context=mx.cpu())
    mod.bind([("data", shape)], [("softmax_label", (BATCH,))])
    arg_shapes, _, aux_shapes = sym.infer_shape(data=shape, softmax_label=(BATCH,))
    args = {
        n: mx.nd.array(_initial(n, s, k).astype("float32"))
        for k, (n, s) in enumerate(zip(sym.list_arguments(), arg_shapes))
        if n not in ("data", "softmax_label")
    }
    aux = {
        n: mx.nd.array(np.zeros(s) if n.endswith("mean") else np.ones(s))
        for n, s in zip(sym.list_auxiliary_states(), aux_shapes)
    }
    mod.init_params(arg_params=args, aux_params=aux)
    mod.init_optimizer(optimizer=mx.optimizer.SGD(**SGD), kvstore="device")
    out: dict = {}
    losses = []
    for step, (x, y) in enumerate(batches(steps)):
        mod.forward_backward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)]))
        losses.append(mod.get_outputs()[2].asscalar())
        if step == 0:
            for name, grad in mod._exec_group.execs[0].grad_dict.items():
                if grad is not None and name not in ("data", "softmax_label"):
                    out[f"grad/{name}"] = _sample(grad.asnumpy())
        mod.update()
        if step in (0, steps - 1):
            params, _ = mod.get_params()
            for name, value in params.items():
                out[f"after{step + 1}/{name}"] = _sample(value.asnumpy())
    out["losses"] = np.array(losses)
    return out
