"""Sparse arrays made, trained and differentiated the same way on MXNet 1.9.1 and on mxlite
(``mx`` is either): ``tools/golden/cases/sparse.py`` records what MXNet computes,
tests/ndarray/test_sparse.py, tests/executor/test_sparse.py, tests/test_autograd_sparse.py,
tests/io/test_ndarray_iter.py and tests/module/test_module_sparse.py compare."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np


def linear_executor(mx: Any, x: np.ndarray, y: np.ndarray, w0: np.ndarray) -> Iterator:
    """A linear classifier on CSR data through ``simple_bind``, trained with lazy SGD in
    batches of 8: yields the executor, then after each of three epochs the weight."""
    data = mx.sym.var("data", stype="csr")
    weight = mx.sym.var("weight", stype="row_sparse")
    out = mx.sym.SoftmaxOutput(mx.sym.dot(data, weight), mx.sym.var("softmax_label"))
    req = {"weight": "write", "data": "null", "softmax_label": "null"}
    exe = out.simple_bind(mx.cpu(), data=(8, x.shape[1]), softmax_label=(8,),
                          weight=(x.shape[1], 3), grad_req=req)  # fmt: skip
    yield exe
    exe.arg_dict["weight"][:] = mx.nd.array(w0).tostype("row_sparse")
    opt = mx.optimizer.SGD(learning_rate=0.5, momentum=0.9, wd=0.01, lazy_update=True,
                           rescale_grad=1 / 8)  # fmt: skip
    updater = mx.optimizer.get_updater(opt)
    for _ in range(3):
        for b in range(len(x) // 8):
            exe.arg_dict["data"][:] = mx.nd.array(x[b * 8 : (b + 1) * 8]).tostype("csr")
            exe.arg_dict["softmax_label"][:] = y[b * 8 : (b + 1) * 8]
            exe.forward(is_train=True)
            exe.backward()
            updater(0, exe.grad_dict["weight"], exe.arg_dict["weight"])
        yield exe.arg_dict["weight"].asnumpy()


def libsvm_text(x: np.ndarray, y: np.ndarray) -> str:
    """``x`` and ``y`` as a LibSVM file."""
    lines = []
    for row, label in zip(x, y):
        cols = np.flatnonzero(row)
        lines.append(" ".join([f"{label:g}"] + [f"{c}:{row[c]:g}" for c in cols]))
    return "\n".join(lines) + "\n"


def sparse_module(mx: Any, path: str, w0: np.ndarray, opt: str, kvstore: Any = "local") -> tuple:
    """example/sparse/linear_classification's Module: a CSR LibSVMIter over ``path`` and a
    row_sparse weight starting at ``w0``; returns the module and the iterator."""
    nf = w0.shape[0]
    data = mx.sym.var("data", stype="csr")
    weight = mx.sym.var("weight", shape=(nf, 2), stype="row_sparse")
    bias = mx.sym.var("bias", shape=(2,))
    pred = mx.sym.broadcast_add(mx.sym.sparse.dot(data, weight), bias)
    sym = mx.sym.SoftmaxOutput(pred, mx.sym.var("softmax_label"))
    it = mx.io.LibSVMIter(data_libsvm=path, data_shape=(nf,), batch_size=8)
    mod = mx.mod.Module(sym, data_names=["data"], label_names=["softmax_label"])
    mod.bind(data_shapes=it.provide_data, label_shapes=it.provide_label)
    w = mx.nd.array(w0).tostype("row_sparse")
    mod.init_params(arg_params={"weight": w, "bias": mx.nd.zeros(2)})
    kw = {"momentum": 0.9} if opt == "sgd" else {}
    optim = mx.optimizer.create(opt, learning_rate=0.1, rescale_grad=1 / 8, **kw)
    mod.init_optimizer(optimizer=optim, kvstore=mx.kvstore.create(kvstore) if kvstore else None)
    return mod, it


def train_module(mod: Any, it: Any, epochs: int = 2) -> None:
    """The example's loop: prepare (pulling the rows each batch uses), forward-backward,
    update."""
    for _ in range(epochs):
        it.reset()
        for batch in it:
            mod.prepare(batch, sparse_row_id_fn=lambda b: {"weight": b.data[0].indices})
            mod.forward_backward(batch)
            mod.update()


def libsvm_configs(label: str) -> dict:
    """The LibSVMIter arguments of each run over the LibSVM file (``label``: the label file's
    path), besides ``data_libsvm``."""
    return {
        "plain": dict(data_shape=(6,), batch_size=4),
        "labels": dict(data_shape=(6,), batch_size=3, label_libsvm=label, label_shape=(3,)),
        "part0": dict(data_shape=(6,), batch_size=2, num_parts=2, part_index=0),
        "part1": dict(data_shape=(6,), batch_size=2, num_parts=2, part_index=1),
    }


def libsvm_batches(it: Any) -> dict:
    """Two epochs of a LibSVMIter, reset after each: ``<epoch>_<b>_data``, ``_label`` (dense
    values) and ``_pad``."""
    out = {}
    for epoch in range(2):
        for b, batch in enumerate(it):
            out[f"{epoch}_{b}_data"] = batch.data[0].asnumpy()
            out[f"{epoch}_{b}_label"] = batch.label[0].asnumpy()
            out[f"{epoch}_{b}_pad"] = np.array(batch.pad)
        it.reset()
    return out


def embedding_training(mx: Any, batches: list, opt: str) -> tuple:
    """``gluon.nn.Embedding(20, 3, sparse_grad=True)`` (all 0.5) trained by a Trainer (``opt``,
    learning rate 0.1) one step per batch of indices, on the sum of squares of its output: the
    first step's gradient's storage type and stored rows, and the final weight."""
    net = mx.gluon.nn.Embedding(20, 3, sparse_grad=True)
    net.initialize(mx.init.Constant(0.5))
    trainer = mx.gluon.Trainer(net.collect_params(), opt, {"learning_rate": 0.1})
    for k, b in enumerate(batches):
        with mx.autograd.record():
            loss = (net(mx.nd.array(b)) ** 2).sum()
        loss.backward()
        if k == 0:
            grad = net.weight.grad()
            stype, rows = grad.stype, grad.indices.asnumpy()
        trainer.step(4)
    return stype, rows, net.weight.data()


# the array's and the gradient buffer's storage types of each recorded dot(csr, w) case
DOT = {
    "dot_dns_rspgrad": ("default", "row_sparse"),
    "dot_rsp": ("row_sparse", None),
    "dot_dns_dnsgrad": ("default", None),
    "dot_zero_ograd": ("default", "row_sparse"),
    "dot_csrgrad": ("default", "csr"),
}


def recorded_dot(mx: Any, x: np.ndarray, w: np.ndarray, stype: str, grad_stype: Any,
                 ograd: np.ndarray) -> Any:  # fmt: skip
    """``dot(csr(x), w)`` recorded (``w`` stored as ``stype``, its gradient buffer as
    ``grad_stype``) and run backward from ``ograd``: the gradient of ``w``."""
    lhs = mx.nd.array(x).tostype("csr")
    wt = mx.nd.array(w).tostype(stype)
    wt.attach_grad(stype=grad_stype)
    with mx.autograd.record():
        y = mx.nd.dot(lhs, wt)
    y.backward(mx.nd.array(ograd))
    return wt.grad


def recorded_embedding(mx: Any, idx: np.ndarray, w: Any, ograd: Any, grad_stype: Any = "row_sparse",
                       grad_req: str = "write") -> None:  # fmt: skip
    """``2 * Embedding(idx, w, input_dim=9, output_dim=2, sparse_grad=True)`` recorded and run
    backward from ``ograd`` into the gradient buffer of the NDArray ``w`` (``grad_stype``,
    ``grad_req``)."""
    w.attach_grad(grad_req, stype=grad_stype)
    with mx.autograd.record():
        z = mx.nd.Embedding(mx.nd.array(idx), w, input_dim=9, output_dim=2, sparse_grad=True) * 2
    z.backward(mx.nd.array(ograd))


def dot_executor(mx: Any, x: np.ndarray, w: np.ndarray, w_stype: str, grad: Any = None) -> Any:
    """``dot(data, weight)`` (data CSR, weight ``w_stype``) bound to ``x`` and ``w``, the
    weight's gradient written: through ``simple_bind``, or through ``bind`` with the gradient
    buffer ``grad`` where given."""
    sym = mx.sym.dot(mx.sym.var("data", stype="csr"), mx.sym.var("weight", stype=w_stype))
    req = {"data": "null", "weight": "write"}
    args = {"data": mx.nd.array(x).tostype("csr"), "weight": mx.nd.array(w).tostype(w_stype)}
    if grad is not None:
        return sym.bind(mx.cpu(), args, args_grad={"weight": grad}, grad_req=req)
    exe = sym.simple_bind(mx.cpu(), data=x.shape, weight=w.shape, grad_req=req,
                          stype_dict={"data": "csr", "weight": w_stype})  # fmt: skip
    exe.arg_dict["data"][:] = args["data"]
    exe.arg_dict["weight"][:] = args["weight"]
    return exe


def embedding_executor(mx: Any, idx: np.ndarray, w: np.ndarray, grad_req: str = "write") -> Any:
    """``Embedding(data, weight, input_dim=7, output_dim=2, sparse_grad=True)`` through
    ``simple_bind``, bound to ``idx`` and ``w``, the weight's gradient ``grad_req``."""
    sym = mx.sym.Embedding(mx.sym.var("data"), mx.sym.var("weight"), input_dim=7, output_dim=2,
                           sparse_grad=True)  # fmt: skip
    exe = sym.simple_bind(mx.cpu(), data=idx.shape, grad_req={"data": "null", "weight": grad_req})
    exe.arg_dict["data"][:] = idx
    exe.arg_dict["weight"][:] = w
    return exe


def weight_step(mx: Any, exe: Any, ograd: np.ndarray) -> Any:
    """A training forward and a backward from ``ograd`` of ``exe``: the weight's gradient."""
    exe.forward(is_train=True)
    exe.backward(mx.nd.array(ograd))
    return exe.grad_dict["weight"]


def shuffled_csr_iter(mx: Any, x: np.ndarray) -> Any:
    """NDArrayIter over ``x`` as CSR, labels 0, 1, ..., in batches of 3 shuffled after
    ``np.random.seed(3)``, the last partial batch discarded."""
    np.random.seed(3)
    return mx.io.NDArrayIter(mx.nd.array(x).tostype("csr"), np.arange(len(x), dtype="float32"), 3,
                             shuffle=True, last_batch_handle="discard")  # fmt: skip


def _parts(a: Any, tag: str) -> dict:
    names = ("data", "indices", "indptr") if a.stype == "csr" else ("data", "indices")
    return {f"{tag}_{n}": getattr(a, n).asnumpy() for n in names}


def creation(mx: Any, spsp: Any, dense: np.ndarray) -> dict:
    """What the sparse constructors make: a CSR from its parts (``csr_parts``, dense), from
    COO triples (``coo_*`` parts and dtype), from a SciPy matrix with a duplicate entry
    (``sp_*``), a row-sparse array (``rsp_dense``, ``rsp_dtype``), and ``dense`` made CSR and
    row-sparse (``dense_csr_*``, ``dense_rsp_*``); ``spsp`` is ``scipy.sparse``."""
    csr = mx.nd.sparse.csr_matrix(([1, 2, 3], [0, 2, 1], [0, 2, 2, 3]), shape=(3, 4))
    coo = mx.nd.sparse.csr_matrix(([5.0, 1.0, 2.0, 7.0], ([2, 0, 0, 2], [1, 3, 0, 1])),
                                  shape=(3, 4))  # fmt: skip
    out = {"csr_parts": csr.asnumpy(), **_parts(coo, "coo"), "coo_dtype": np.array(str(coo.dtype))}
    m = spsp.csr_matrix((np.array([1, 2, 3, 4, 5, 6, 1.0]), np.array([0, 2, 2, 0, 1, 2, 1]),
                         np.array([0, 2, 3, 7])), shape=(3, 3))  # fmt: skip
    out.update(_parts(mx.nd.sparse.array(m), "sp"))  # duplicates summed, indices sorted
    r = mx.nd.sparse.row_sparse_array(([[1, 2], [3, 4]], [1, 3]), shape=(5, 2))
    out.update(rsp_dense=r.asnumpy(), rsp_dtype=np.array(str(r.dtype)))
    out.update(_parts(mx.nd.array(dense).tostype("csr"), "dense_csr"))
    out.update(_parts(mx.nd.array(dense).tostype("row_sparse"), "dense_rsp"))
    return out
