"""Record sparse gradients from real MXNet 1.9.1 into tests/ndarray/golden/sparse/.

Run under the reference interpreter (never imported by mxlite)::

    /tmp/mxref/bin/python tools/make_golden_sparse_grad.py

Writes ``sparse_grad.npz``. ``__cases__`` is a JSON list of
``{"name", "kind", "stype"}``; for case ``name`` the arrays ``name_in{j}`` are the inputs
(dense values), ``name_ograd`` the head gradient where one is given, and ``name_grad`` /
``name_indices`` the gradient's dense value and the rows (or CSR column indices) MXNet stores.
Kinds: ``autograd_dot`` (``dot(csr, w)`` recorded, gradient of ``w``), ``autograd_embedding``
(``Embedding(sparse_grad=True)``), ``exe_dot`` / ``exe_embedding`` (the same through
``simple_bind`` with ``stype_dict``) and ``iter_csr`` (NDArrayIter over a CSR array with
``shuffle``: ``name_batch{k}`` are the batches after ``np.random.seed(3)``) and ``module``
(``module_x``/``module_y`` as a LibSVM file, ``module_w0`` the initial row-sparse weight, and
``module_<optimizer>_weight``/``_bias`` after two epochs of example/sparse/linear_classification's
loop: Module, local kvstore, ``prepare`` with ``sparse_row_id_fn``) and ``gluon``
(``gluon.nn.Embedding(sparse_grad=True)`` with a Trainer on ``gluon_idx{k}``: the first
gradient's rows ``gluon_<optimizer>_rows`` and the weight after three steps).
"""

from __future__ import annotations

import json
import os
import warnings

import mxnet as mx
import numpy as np

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "tests", "ndarray", "golden", "sparse")


def csr_value(shape, seed, density=0.3):
    rng = np.random.RandomState(seed)
    x = rng.normal(size=shape) * (rng.uniform(size=shape) < density)
    x[:, 1] = 0  # a column no row uses: its gradient row is not stored
    return x.astype("float32")


def _grad_parts(g):
    if g.stype == "row_sparse":
        return g.asnumpy(), g.indices.asnumpy()
    if g.stype == "csr":
        return g.asnumpy(), g.indices.asnumpy()
    return g.asnumpy(), np.zeros(0, "int64")


def record(out, cases, name, kind, inputs, grad, ograd=None):
    for j, x in enumerate(inputs):
        out[f"{name}_in{j}"] = np.asarray(x)
    if ograd is not None:
        out[f"{name}_ograd"] = ograd
    out[f"{name}_grad"], out[f"{name}_indices"] = _grad_parts(grad)
    cases.append({"name": name, "kind": kind, "stype": grad.stype})


def autograd_cases(out, cases):
    x = csr_value((4, 6), 1)
    w = np.random.RandomState(2).normal(size=(6, 3)).astype("float32")
    og = np.random.RandomState(3).normal(size=(4, 3)).astype("float32")
    zero_og = np.zeros((4, 3), "float32")  # rows stay stored with zero values
    for tag, w_stype, g_stype, head in (
        ("dot_dns_rspgrad", "default", "row_sparse", og),
        ("dot_rsp", "row_sparse", None, og),
        ("dot_dns_dnsgrad", "default", None, og),
        ("dot_zero_ograd", "default", "row_sparse", zero_og),
        ("dot_csrgrad", "default", "csr", og),
    ):
        lhs = mx.nd.array(x).tostype("csr")
        wt = mx.nd.array(w).tostype(w_stype)
        wt.attach_grad(stype=g_stype)
        with mx.autograd.record():
            y = mx.nd.dot(lhs, wt)
        y.backward(mx.nd.array(head))
        record(out, cases, tag, "autograd_dot", [x, w], wt.grad, head)
    idx = np.array([[4, 1], [1, 7]], "float32")
    emb = np.random.RandomState(4).normal(size=(9, 2)).astype("float32")
    og = np.random.RandomState(5).normal(size=(2, 2, 2)).astype("float32")
    for tag, g_stype in (("emb_rspgrad", "row_sparse"), ("emb_dnsgrad", None)):
        wt = mx.nd.array(emb)
        wt.attach_grad(stype=g_stype)
        with mx.autograd.record():
            y = mx.nd.Embedding(mx.nd.array(idx), wt, input_dim=9, output_dim=2, sparse_grad=True)
            z = y * 2
        try:
            z.backward(mx.nd.array(og))
        except mx.MXNetError as exc:  # MXNet refuses a dense buffer for a sparse gradient
            cases.append({"name": tag, "kind": "autograd_embedding", "error": str(exc)[:200]})
            continue
        record(out, cases, tag, "autograd_embedding", [idx, emb], wt.grad, og)


def executor_cases(out, cases):
    x = csr_value((4, 6), 6)
    w = np.random.RandomState(7).normal(size=(6, 3)).astype("float32")
    og = np.random.RandomState(8).normal(size=(4, 3)).astype("float32")
    for tag, w_stype in (("exe_dot_rsp", "row_sparse"), ("exe_dot_dns", "default")):
        data = mx.sym.var("data", stype="csr")
        weight = mx.sym.var("weight", stype=w_stype)
        sym = mx.sym.dot(data, weight)
        exe = sym.simple_bind(
            mx.cpu(),
            data=(4, 6),
            weight=(6, 3),
            stype_dict={"data": "csr", "weight": w_stype},
            grad_req={"data": "null", "weight": "write"},
        )
        exe.arg_dict["data"][:] = mx.nd.array(x).tostype("csr")
        exe.arg_dict["weight"][:] = mx.nd.array(w).tostype(w_stype)
        exe.forward(is_train=True)
        exe.backward(mx.nd.array(og))
        record(out, cases, tag, "exe_dot", [x, w], exe.grad_dict["weight"], og)
    idx = np.array([[0, 5], [5, 2]], "float32")
    emb = np.random.RandomState(9).normal(size=(7, 2)).astype("float32")
    og = np.random.RandomState(10).normal(size=(2, 2, 2)).astype("float32")
    sym = mx.sym.Embedding(
        mx.sym.var("data"), mx.sym.var("weight"), input_dim=7, output_dim=2, sparse_grad=True
    )
    exe = sym.simple_bind(mx.cpu(), data=(2, 2), grad_req={"data": "null", "weight": "write"})
    exe.arg_dict["data"][:] = idx
    exe.arg_dict["weight"][:] = emb
    exe.forward(is_train=True)
    exe.backward(mx.nd.array(og))
    record(out, cases, "exe_emb", "exe_embedding", [idx, emb], exe.grad_dict["weight"], og)
    exe.backward(mx.nd.zeros((2, 2, 2)))  # the rows looked up stay stored, with zeros
    record(out, cases, "exe_emb_zero", "exe_embedding", [idx, emb], exe.grad_dict["weight"],
           np.zeros((2, 2, 2), "float32"))  # fmt: skip
    # bind with a row-sparse args_grad; a head gradient that is zero but in one row
    og = np.zeros((4, 3), "float32")
    og[0] = 1
    for tag, w_stype in (("bind_dot_rsp", "row_sparse"), ("bind_dot_dns", "default")):
        sym = mx.sym.dot(mx.sym.var("data", stype="csr"), mx.sym.var("weight", stype=w_stype))
        grad = mx.nd.zeros((6, 3), stype="row_sparse")
        exe = sym.bind(
            mx.cpu(),
            {"data": mx.nd.array(x).tostype("csr"), "weight": mx.nd.array(w).tostype(w_stype)},
            args_grad={"weight": grad},
            grad_req={"data": "null", "weight": "write"},
        )
        exe.forward(is_train=True)
        exe.backward(mx.nd.array(og))
        assert exe.grad_dict["weight"] is grad
        record(out, cases, tag, "exe_dot", [x, w], grad, og)


def iter_case(out, cases):
    x = csr_value((7, 5), 11, density=0.5)
    lab = np.arange(7, dtype="float32")
    np.random.seed(3)
    it = mx.io.NDArrayIter(
        mx.nd.array(x).tostype("csr"), lab, 3, shuffle=True, last_batch_handle="discard"
    )
    out["iter_in0"] = x
    n = 0
    for k, batch in enumerate(it):
        out[f"iter_batch{k}"] = batch.data[0].asnumpy()
        out[f"iter_label{k}"] = batch.label[0].asnumpy()
        n += 1
    cases.append({"name": "iter", "kind": "iter_csr", "stype": "csr", "batches": n})


def libsvm_text(x, y):
    lines = []
    for row, label in zip(x, y):
        cols = np.flatnonzero(row)
        lines.append(" ".join([f"{label:g}"] + [f"{c}:{row[c]:g}" for c in cols]))
    return "\n".join(lines) + "\n"


def module_cases(out, cases, tmp="sparse_module_tmp.t"):
    """example/sparse/linear_classification's loop: a CSR LibSVMIter, a row_sparse weight,
    Module with a local kvstore, prepare(sparse_row_id_fn), update."""
    rng = np.random.RandomState(12)
    nf, n = 30, 48
    x = np.zeros((n, nf), "float32")
    for i in range(n):
        cols = rng.choice(20, size=rng.randint(1, 5), replace=False)  # 20..29 never used
        x[i, cols] = np.round(rng.uniform(0.5, 1.5, size=len(cols)), 3)
    y = rng.randint(0, 2, size=n).astype("float32")
    w0 = rng.normal(scale=0.1, size=(nf, 2)).astype("float32")
    out["module_x"], out["module_y"], out["module_w0"] = x, y, w0
    with open(tmp, "w") as f:
        f.write(libsvm_text(x, y))
    for opt in ("sgd", "adam", "adagrad"):
        data = mx.sym.var("data", stype="csr")
        weight = mx.sym.var("weight", shape=(nf, 2), stype="row_sparse")
        bias = mx.sym.var("bias", shape=(2,))
        pred = mx.sym.broadcast_add(mx.sym.sparse.dot(data, weight), bias)
        sym = mx.sym.SoftmaxOutput(pred, mx.sym.var("softmax_label"))
        it = mx.io.LibSVMIter(data_libsvm=tmp, data_shape=(nf,), batch_size=8)
        mod = mx.mod.Module(sym, data_names=["data"], label_names=["softmax_label"])
        mod.bind(data_shapes=it.provide_data, label_shapes=it.provide_label)
        mod.init_params(
            arg_params={"weight": mx.nd.array(w0).tostype("row_sparse"), "bias": mx.nd.zeros(2)}
        )
        kw = {"momentum": 0.9} if opt == "sgd" else {}
        optim = mx.optimizer.create(opt, learning_rate=0.1, rescale_grad=1 / 8, **kw)
        mod.init_optimizer(optimizer=optim, kvstore=mx.kvstore.create("local"))
        for _ in range(2):
            it.reset()
            for batch in it:
                mod.prepare(batch, sparse_row_id_fn=lambda b: {"weight": b.data[0].indices})
                mod.forward_backward(batch)
                mod.update()
        args, _ = mod.get_params()
        out[f"module_{opt}_weight"] = args["weight"].asnumpy()
        out[f"module_{opt}_bias"] = args["bias"].asnumpy()
        cases.append({"name": f"module_{opt}", "kind": "module", "stype": args["weight"].stype})
    os.remove(tmp)


def gluon_cases(out, cases):
    """gluon.nn.Embedding(sparse_grad=True) trained by a Trainer: the first step's gradient
    rows and the weight after three steps, per optimizer."""
    rng = np.random.RandomState(13)
    batches = [rng.randint(0, 10, size=(4, 2)).astype("float32") for _ in range(3)]
    for k, b in enumerate(batches):
        out[f"gluon_idx{k}"] = b
    for opt in ("sgd", "adam", "adagrad", "ftrl"):
        net = mx.gluon.nn.Embedding(20, 3, sparse_grad=True)
        net.initialize(mx.init.Constant(0.5))
        trainer = mx.gluon.Trainer(net.collect_params(), opt, {"learning_rate": 0.1})
        for k, b in enumerate(batches):
            with mx.autograd.record():
                loss = (net(mx.nd.array(b)) ** 2).sum()
            loss.backward()
            if k == 0:
                out[f"gluon_{opt}_rows"] = net.weight.grad().indices.asnumpy()
            trainer.step(4)
        out[f"gluon_{opt}_weight"] = net.weight.data().asnumpy()
        cases.append({"name": f"gluon_{opt}", "kind": "gluon", "stype": "row_sparse"})


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    os.makedirs(GOLDEN, exist_ok=True)
    out: dict = {}
    cases: list = []
    autograd_cases(out, cases)
    executor_cases(out, cases)
    iter_case(out, cases)
    module_cases(out, cases)
    gluon_cases(out, cases)
    out["__cases__"] = np.array(json.dumps(cases))
    np.savez_compressed(os.path.join(GOLDEN, "sparse_grad.npz"), **out)
    for c in cases:
        print(c, out.get(f"{c['name']}_indices"))
