"""MXNet 1.9.1's CPU subgraph backends (``Symbol.get_backend_symbol``) on a small ResNet-like
net (conv+relu, conv+BN+relu, conv+BN+sum+relu, pooling, FC+relu, FC): ``float``: the float
graph, its ``MKLDNN`` partition and outputs; ``quant``: the graph ``quantize_model_mkldnn``
quantizes (``MKLDNN_QUANTIZE`` of the float graph, quantized and calibrated with naive
calibration), the ``MKLDNN_QUANTIZE`` partition of that (the file MXNet saves), its parameters
and MXNet's outputs of the quantized model."""

from __future__ import annotations

import mxnet as mx
import numpy as np
from core import ROOT

FILE = "tests/symbol/golden/mkldnn_backend.npz"
CHECKPOINT = "tests/symbol/golden/mxnet_quantized"
SEED = 0


def net_symbol(F):  # noqa: N803 (mx or mxlite)
    x = F.sym.var("data")
    c0 = F.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=8, name="conv0")
    x = F.sym.Activation(c0, act_type="relu", name="relu0")
    y = F.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=8, no_bias=True, name="conv1")
    y = F.sym.Activation(F.sym.BatchNorm(y, fix_gamma=False, name="bn1"), act_type="relu",
                         name="relu1")  # fmt: skip
    y = F.sym.Convolution(y, kernel=(3, 3), pad=(1, 1), num_filter=8, no_bias=True, name="conv2")
    y = F.sym.BatchNorm(y, fix_gamma=False, name="bn2")
    z = F.sym.Activation(F.sym.elemwise_add(y, x, name="add0"), act_type="relu", name="relu2")
    z = F.sym.Pooling(z, kernel=(2, 2), pool_type="avg", global_pool=True, name="pool0")
    z = F.sym.Activation(F.sym.FullyConnected(z, num_hidden=6, name="fc0"), act_type="relu",
                         name="relu3")  # fmt: skip
    return F.sym.FullyConnected(z, num_hidden=3, name="fc1")


def shapes_symbol(F):  # noqa: N803
    """Graph shapes the selectors treat differently: a fused output read twice, the sum with
    the convolution on the right, activations other than relu, Dropout after a removed
    ``_copy`` (kept), FC with sigmoid, square and a clip. (A convolution whose raw output two
    nodes read is left out: MXNet 1.9.1 then fuses one reader or none, by the order of
    pointers in a hash map, and rewires the other reader to the fused output; mxlite stops the
    chain at the convolution.)"""
    x = F.sym.var("data")
    a = F.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=4, name="ca")
    b = F.sym.Activation(a, act_type="sigmoid", name="sig")  # b is read twice
    c = F.sym.Convolution(b, kernel=(1, 1), num_filter=4, name="cb")
    c = F.sym.BatchNorm(c, name="bnb")
    d = F.sym.elemwise_add(b, c, name="add_right")  # the convolution chain is the right operand
    d = F.sym.LeakyReLU(d, act_type="leaky", slope=0.1, name="leaky")
    e = F.sym.Convolution(d, kernel=(3, 3), pad=(1, 1), num_filter=4, name="cc")
    e = F.sym.clip(e, a_min=0, a_max=6, name="relu6")
    e = F.sym.Dropout(F.sym.identity(e, name="copy0"), p=0.5, name="drop")
    f = F.sym.Convolution(e, kernel=(3, 3), num_filter=4, no_bias=True, name="cd")
    f = F.sym.Activation(f, act_type="tanh", name="tanh")
    g = F.sym.FullyConnected(f, num_hidden=5, name="fa")
    g = F.sym.Activation(g, act_type="sigmoid", name="fsig")
    h = F.sym.square(F.sym.FullyConnected(g, num_hidden=5, name="fb"), name="sq")
    h = F.sym.clip(F.sym.FullyConnected(h, num_hidden=3, name="fc_clip"), a_min=0, a_max=1,
                   name="fclip")  # fmt: skip
    return h


def concat_symbol(F):  # noqa: N803
    """Inception-like branches into a concat and a pooling, then an add and a multiply of
    unfused operands: the scale alignment and the post-quantize passes of elemwise_add/mul."""
    x = F.sym.var("data")
    a = F.sym.Activation(F.sym.Convolution(x, kernel=(1, 1), num_filter=4, name="b1"),
                         act_type="relu", name="r1")  # fmt: skip
    b = F.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=4, name="b2")
    c = F.sym.Pooling(x, kernel=(3, 3), pad=(1, 1), pool_type="max", name="p3")
    cat = F.sym.concat(a, b, c, dim=1, name="cat")
    p = F.sym.Pooling(cat, kernel=(2, 2), stride=(2, 2), pool_type="max", name="pool")
    d = F.sym.Convolution(p, kernel=(1, 1), num_filter=4, name="d")
    e = F.sym.Convolution(p, kernel=(1, 1), num_filter=4, name="e")
    s = F.sym.elemwise_add(F.sym.Pooling(d, kernel=(1, 1), pool_type="max", name="pd"),
                           F.sym.Pooling(e, kernel=(1, 1), pool_type="max", name="pe"),
                           name="plus")  # fmt: skip
    m = F.sym.elemwise_mul(s, F.sym.Pooling(d, kernel=(1, 1), pool_type="avg", name="pa"),
                           name="times")  # fmt: skip
    return F.sym.FullyConnected(m, num_hidden=3, name="fc")


def _params(sym, rng, shape):
    shapes, _, aux_shapes = sym.infer_shape(data=shape)
    args = {n: (rng.randn(*s) * 0.3).astype("float32")
            for n, s in zip(sym.list_arguments(), shapes) if n != "data"}  # fmt: skip
    aux = {n: (rng.rand(*s) + (0.5 if "var" in n else 0)).astype("float32")
           for n, s in zip(sym.list_auxiliary_states(), aux_shapes)}  # fmt: skip
    return args, aux


def _quantized(golden, name, sym, args, aux, data, **kwargs) -> None:
    """``quantize_model_mkldnn`` step by step: the calibrated graph before the post-quantize
    passes (``pre``), after them (``final``), parameters and outputs."""
    from mxnet.contrib import quantization as q

    nd_args = {k: mx.nd.array(v) for k, v in args.items()}
    nd_aux = {k: mx.nd.array(v) for k, v in aux.items()}
    calib = mx.io.NDArrayIter(data=mx.nd.array(data), batch_size=len(data))
    pre = sym.get_backend_symbol("MKLDNN_QUANTIZE")
    qsym, qargs, qaux = q.quantize_model(
        pre, nd_args, nd_aux, ctx=mx.cpu(), calib_data=calib, num_calib_examples=len(data),
        quantized_dtype="auto", quantize_mode="full", logger=None, **kwargs,
    )  # fmt: skip
    final = qsym.get_backend_symbol("MKLDNN_QUANTIZE")
    qexe = final.bind(mx.cpu(), {"data": mx.nd.array(data), **qargs}, aux_states=qaux,
                      grad_req="null")  # fmt: skip
    arrays = {f"out{i}": o.asnumpy() for i, o in enumerate(qexe.forward(is_train=False))}
    arrays["data"] = data
    arrays.update({f"qarg:{k}": v.asnumpy() for k, v in qargs.items()})
    arrays.update({f"qaux:{k}": v.asnumpy() for k, v in qaux.items()})
    golden.put(name, {"pre": qsym.tojson(), "final": final.tojson()}, **arrays)


def record(golden) -> None:
    rng = np.random.RandomState(SEED)
    sym = net_symbol(mx)
    shapes, _, aux_shapes = sym.infer_shape(data=(4, 3, 8, 8))
    args = {n: (rng.randn(*s) * 0.3).astype("float32")
            for n, s in zip(sym.list_arguments(), shapes) if n != "data"}  # fmt: skip
    aux = {n: (rng.rand(*s) + (0.5 if "var" in n else 0)).astype("float32")
           for n, s in zip(sym.list_auxiliary_states(), aux_shapes)}  # fmt: skip
    data = rng.uniform(-1, 1, (4, 3, 8, 8)).astype("float32")
    nd_args = {k: mx.nd.array(v) for k, v in args.items()}
    nd_aux = {k: mx.nd.array(v) for k, v in aux.items()}
    exe = sym.bind(mx.cpu(), {"data": mx.nd.array(data), **nd_args}, aux_states=nd_aux,
                   grad_req="null")  # fmt: skip
    ref = exe.forward(is_train=False)[0].asnumpy()
    part = sym.get_backend_symbol("MKLDNN")
    arrays = {"data": data, "ref": ref}
    arrays.update({f"arg:{k}": v for k, v in args.items()})
    arrays.update({f"aux:{k}": v for k, v in aux.items()})
    golden.put("float", {"json": sym.tojson(), "partitioned": part.tojson()}, **arrays)

    from mxnet.contrib import quantization as q

    calib = mx.io.NDArrayIter(data=mx.nd.array(data), batch_size=4)
    pre = sym.get_backend_symbol("MKLDNN_QUANTIZE")
    qsym, qargs, qaux = q.quantize_model(
        pre, nd_args, nd_aux, ctx=mx.cpu(), calib_mode="naive", calib_data=calib,
        num_calib_examples=4, quantized_dtype="auto", quantize_mode="full", logger=None,
    )  # fmt: skip
    final = qsym.get_backend_symbol("MKLDNN_QUANTIZE")
    qexe = final.bind(mx.cpu(), {"data": mx.nd.array(data), **qargs}, aux_states=qaux,
                      grad_req="null")  # fmt: skip
    out = qexe.forward(is_train=False)[0].asnumpy()
    arrays = {"out": out}
    for k, v in qargs.items():
        arrays[f"qarg:{k}"] = v.asnumpy()
    for k, v in qaux.items():
        arrays[f"qaux:{k}"] = v.asnumpy()
    golden.put("quant", {"pre": qsym.tojson(), "final": final.tojson()}, **arrays)
    # the quantized model as MXNet saves it, for mxlite's load_checkpoint / SymbolBlock.imports
    mx.model.save_checkpoint(str(ROOT / CHECKPOINT), 0, final, qargs, qaux)

    # the int32 path (no calibration: requantize at run time) and channel-wise FC weights
    _quantized(golden, "quant_none", sym, args, aux, data, calib_mode="none")
    _quantized(golden, "quant_channel", sym, args, aux, data, calib_mode="naive",
               quantize_granularity="channel-wise")  # fmt: skip

    # quantize_net on the same network as a SymbolBlock (auto: uint8 after relu), one batch
    block = mx.gluon.SymbolBlock(net_symbol(mx), mx.sym.var("data"))
    for name, param in block.collect_params().items():
        param.initialize(mx.init.Constant(0))
        param.set_data(mx.nd.array(args[name] if name in args else aux[name]))
    block.hybridize()
    block(mx.nd.array(data))
    loader = mx.io.NDArrayIter(data=mx.nd.array(data), batch_size=len(data))
    qnet = q.quantize_net(block, quantized_dtype="auto", calib_mode="naive", calib_data=loader,
                          num_calib_examples=len(data), ctx=mx.cpu())  # fmt: skip
    golden.put("quantize_net", {"json": qnet._cached_graph[1].tojson()},
               out=qnet(mx.nd.array(data)).asnumpy())  # fmt: skip

    sym3 = concat_symbol(mx)
    args3, aux3 = _params(sym3, rng, (2, 3, 6, 6))
    data3 = rng.uniform(-1, 1, (2, 3, 6, 6)).astype("float32")
    _quantized(golden, "quant_concat", sym3, args3, aux3, data3, calib_mode="naive")

    sym2 = shapes_symbol(mx)
    args2, aux2 = _params(sym2, rng, (2, 3, 6, 6))
    data2 = rng.uniform(-1, 1, (2, 3, 6, 6)).astype("float32")
    exe = sym2.bind(
        mx.cpu(),
        {"data": mx.nd.array(data2), **{k: mx.nd.array(v) for k, v in args2.items()}},
        aux_states={k: mx.nd.array(v) for k, v in aux2.items()},
        grad_req="null",
    )
    arrays = {"data": data2, "ref": exe.forward(is_train=False)[0].asnumpy()}
    arrays.update({f"arg:{k}": v for k, v in args2.items()})
    arrays.update({f"aux:{k}": v for k, v in aux2.items()})
    golden.put("shapes", {"json": sym2.tojson(),
                          "partitioned": sym2.get_backend_symbol("MKLDNN").tojson(),
                          "quantize_partitioned":
                              sym2.get_backend_symbol("MKLDNN_QUANTIZE").tojson()},
               **arrays)  # fmt: skip
