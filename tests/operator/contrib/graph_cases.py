"""The control-flow graphs of tests/operator/contrib/test_golden.py, built from a ``sym``
module so that the test builds them with mxlite and tools/golden/cases/contrib.py with MXNet
1.9.1 (whose outputs, gradients and symbol JSON the test compares with), and the training step
both run on them (:func:`built`, :func:`train_step`); the AdamW and LAMB updates both run
(:func:`adamw`; :func:`lamb`, for tools/golden/cases/contrib2.py); the convolutional cells of
tests/rnn/test_conv_cells.py (:func:`conv_cell`)."""

from __future__ import annotations

from typing import Any


def adamw(mx: Any, name: str, ins: list, params: dict) -> list:
    """``mx.nd.contrib.<name>_update`` (adamw, mp_adamw, multi_adamw with two weights) on
    ``ins`` (weights, gradients, means, variances and for mp_adamw the float32 weight, in the
    call's order), in place, with the rescale_grad of the golden cases: the arrays it
    updates."""
    c = mx.nd.contrib
    if name == "adamw":
        w, g, m, v = ins
        c.adamw_update(w, g, m, v, 0.9, out=w, **params)
        return [w, m, v]
    if name == "mp_adamw":
        w, g, m, v, w32 = ins
        c.mp_adamw_update(w, g, m, v, w32, 1.0, out=w, **params)
        return [w, m, v, w32]
    ws, gs, ms, vs = ins[0:2], ins[2:4], ins[4:6], ins[6:8]
    c.multi_adamw_update(ws, gs, ms, vs, 2.0, out=ws, **params)
    return ws + ms + vs


def lamb(mx: Any, mp: bool, ins: list, params: dict) -> list:
    """``mx.nd.contrib.multi_lamb_update`` (``multi_mp_lamb_update`` where ``mp``) of two
    weights, in place: ``ins`` holds the weights, gradients, means, variances (and for ``mp``
    the float32 weights), two of each; the arrays it updates."""
    ws, gs, ms, vs, w32 = ins[0:2], ins[2:4], ins[4:6], ins[6:8], ins[8:10]
    if mp:
        mx.nd.contrib.multi_mp_lamb_update(ws, gs, ms, vs, w32, out=ws, **params)
    else:
        mx.nd.contrib.multi_lamb_update(ws, gs, ms, vs, out=ws, **params)
    return ws + ms + vs + w32


def _foreach(sym):
    x, s, w = sym.var("x"), sym.var("s"), sym.var("w")

    def body(d, st):
        o = d * st[0] + w
        return [o + 1, d * 2], [o, st[1] + 1]

    outs, states = sym.contrib.foreach(body, x, [s, sym.var("t")])
    return sym.Group(outs + states)


def _while(sym):
    i, s, w = sym.var("i"), sym.var("s"), sym.var("w")
    outs, vars_ = sym.contrib.while_loop(
        lambda i, s: i < 4,
        lambda i, s: ([s * 2 + w], [i + 1, s + sym.broadcast_mul(i, w)]),
        [i, s],
        max_iterations=6,
    )
    return sym.Group(outs + vars_)


def _cond(sym):
    a, b, c = sym.var("a"), sym.var("b"), sym.var("c")
    out = sym.contrib.cond(sym.sum(a) > 0, lambda: [a * b, b], lambda: [a + c, b * c])
    return sym.Group(out)


def _nested(sym):
    x, s = sym.var("x"), sym.var("s")

    def outer(d, st):
        inner, st2 = sym.contrib.foreach(lambda e, q: (e + q[0], [q[0] * 0.5 + e]), d, [st[0]])
        return inner, st2

    outs, states = sym.contrib.foreach(outer, x, [s])
    return sym.Group([outs] + states)


GRAPHS = [
    ("cf_foreach", _foreach, dict(x=(3, 2), s=(2,), t=(2,), w=(2,))),
    ("cf_while", _while, dict(i=(1,), s=(2,), w=(2,))),
    ("cf_cond_then", _cond, dict(a=(2, 3), b=(2, 3), c=(2, 3))),
    ("cf_nested", _nested, dict(x=(3, 4, 2), s=(2,))),
]


def built(mx: Any, build: Any) -> Any:
    """``build(mx.sym)`` with subgraph and operator names counted from the start."""
    mx.attribute.AttrScope._subgraph_names.clear()
    with mx.name.NameManager():
        return build(mx.sym)


def train_step(mx: Any, net: Any, args: dict, heads: Any) -> tuple:
    """``net`` bound to ``args`` (name -> NDArray) with gradients written, a training forward and
    a backward from ``heads(outputs)``: the outputs, the head gradients and the gradients."""
    grads = {n: mx.nd.zeros(a.shape) for n, a in args.items()}
    exe = net.bind(mx.cpu(), args, args_grad=grads)
    outs = exe.forward(is_train=True)
    hs = heads(outs)
    exe.backward(hs)
    return outs, hs, grads


def conv_cell(mx: Any, cls: str) -> tuple:
    """``mx.rnn.<cls>`` (input 1 x 2 x 5 x 4, 3 hidden, prefix ``c_``) unrolled over the inputs
    ``c_t0_data``, ``c_t1_data``, names counted from the start: the cell and its outputs
    grouped."""
    with mx.name.NameManager():
        cell = getattr(mx.rnn, cls)(input_shape=(1, 2, 5, 4), num_hidden=3, prefix="c_")
        outputs, _ = cell.unroll(2, [mx.sym.Variable(f"c_t{i}_data") for i in range(2)])
        return cell, mx.sym.Group(outputs)
