"""MXNet 1.9.1's CPU subgraph backends (``Symbol.get_backend_symbol``) on a small ResNet-like
net (conv+relu, conv+BN+relu, conv+BN+sum+relu, pooling, FC+relu, FC): ``float``: the float
graph, its ``MKLDNN`` partition and outputs; ``quant``: the graph ``quantize_model_mkldnn``
quantizes (``MKLDNN_QUANTIZE`` of the float graph, quantized and calibrated with naive
calibration), the ``MKLDNN_QUANTIZE`` partition of that (the file MXNet saves), its parameters
and MXNet's outputs of the quantized model."""

import mxnet as mx
from core import ROOT, Golden, infer, load_module, nd_arrays, quantize_mkldnn

FILE = "tests/symbol/golden/mkldnn_backend.npz"
CHECKPOINT = "tests/symbol/golden/mxnet_quantized"


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


def _inputs(sym, rng, shape):
    """``sym`` with parameters, auxiliary states and then data (of ``shape``) drawn from
    ``rng``: the arguments of :func:`_float` and :func:`_quantized`."""
    shapes, _, aux_shapes = sym.infer_shape(data=shape)
    args = {n: (rng.randn(*s) * 0.3).astype("float32")
            for n, s in zip(sym.list_arguments(), shapes) if n != "data"}  # fmt: skip
    aux = {n: (rng.rand(*s) + (0.5 if "var" in n else 0)).astype("float32")
           for n, s in zip(sym.list_auxiliary_states(), aux_shapes)}  # fmt: skip
    return sym, args, aux, rng.uniform(-1, 1, shape).astype("float32")


def _float(golden, name, sym, args, aux, data, partitions) -> None:
    """The float graph: its output ``ref`` on ``data`` and its JSON, with the partitions of the
    backends ``partitions`` names (metadata key -> backend)."""
    ref = infer(sym, {"data": mx.nd.array(data), **nd_arrays(args)}, nd_arrays(aux))[0]
    arrays = {"data": data, "ref": ref.asnumpy()}
    arrays.update({f"arg:{k}": v for k, v in args.items()})
    arrays.update({f"aux:{k}": v for k, v in aux.items()})
    meta = {"json": sym.tojson()}
    meta.update({key: sym.get_backend_symbol(b).tojson() for key, b in partitions.items()})
    golden.put(name, meta, **arrays)


def _quantized(golden, name, sym, args, aux, data, saved=False, **kwargs):
    """:func:`core.quantize_mkldnn` of the float graph: the calibrated graph before the
    post-quantize passes (``pre``), after them (``final``), parameters and outputs. The
    ``saved`` model (the one written as MXNet's checkpoint) keeps its first layout: output
    ``out``, no ``data``. Returns the final graph and its parameters."""
    qsym, final, qargs, qaux = quantize_mkldnn(sym, nd_arrays(args), nd_arrays(aux), data,
                                               **kwargs)  # fmt: skip
    outs = [o.asnumpy() for o in infer(final, {"data": mx.nd.array(data), **qargs}, qaux)]
    arrays = {"out": outs[0]} if saved else {**{f"out{i}": o for i, o in enumerate(outs)},
                                             "data": data}  # fmt: skip
    arrays.update({f"qarg:{k}": v.asnumpy() for k, v in qargs.items()})
    arrays.update({f"qaux:{k}": v.asnumpy() for k, v in qaux.items()})
    golden.put(name, {"pre": qsym.tojson(), "final": final.tojson()}, **arrays)
    return final, qargs, qaux


def record(golden: Golden) -> None:
    rng = golden.rng  # RandomState(0)
    sym, args, aux, data = _inputs(net_symbol(mx), rng, (4, 3, 8, 8))
    _float(golden, "float", sym, args, aux, data, {"partitioned": "MKLDNN"})
    final, qargs, qaux = _quantized(golden, "quant", sym, args, aux, data, saved=True,
                                    calib_mode="naive")  # fmt: skip
    # the quantized model as MXNet saves it, for mxlite's load_checkpoint / SymbolBlock.imports
    mx.model.save_checkpoint(str(ROOT / CHECKPOINT), 0, final, qargs, qaux)

    # the int32 path (no calibration: requantize at run time) and channel-wise FC weights
    _quantized(golden, "quant_none", sym, args, aux, data, calib_mode="none")
    _quantized(golden, "quant_channel", sym, args, aux, data, calib_mode="naive",
               quantize_granularity="channel-wise")  # fmt: skip

    # quantize_net on the same network as a SymbolBlock (auto: uint8 after relu), one batch
    qnet = load_module("tests/symbol/mkldnn_cases.py").quantized_block(
        mx, net_symbol(mx), {**args, **aux}, data
    )
    golden.put("quantize_net", {"json": qnet._cached_graph[1].tojson()},
               out=qnet(mx.nd.array(data)).asnumpy())  # fmt: skip

    concat = _inputs(concat_symbol(mx), rng, (2, 3, 6, 6))
    _quantized(golden, "quant_concat", *concat, calib_mode="naive")
    partitions = {"partitioned": "MKLDNN", "quantize_partitioned": "MKLDNN_QUANTIZE"}
    _float(golden, "shapes", *_inputs(shapes_symbol(mx), rng, (2, 3, 6, 6)), partitions)
