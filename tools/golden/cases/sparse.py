"""Sparse storage (tests/operator/test_sparse_forms.py, tests/ndarray/test_sparse.py,
tests/io/test_libsvm_iter.py, tests/executor/test_sparse.py) in tests/ndarray/golden/sparse/:

* ``op<i>``: operator case ``i`` (``op``, ``params``, input ``stypes``, the ``out_stypes``
  MXNet chose, or ``error`` where MXNet 1.9.1 refuses it): dense values ``in<j>``, ``out<j>``;
  update operators (``update``) also the gradient's rows ``gidx`` and states ``state<s>``.
* ``creation``: the parts (data, indices, indptr) MXNet makes for a few inputs.
* ``saved``: the dense values (``stypes`` in the metadata) of the arrays MXNet saved in
  ``sparse_mxnet.params``; ``sparse_mxnet.pkl`` is ``pickle.dumps`` of a CSR and a row-sparse
  array.
* ``libsvm_<config>``: the batches ``<epoch>_<b>_data|label|pad`` of LibSVMIter over
  ``sparse_libsvm_data.t`` / ``sparse_libsvm_label.t``.
* ``linear``: a linear classifier on CSR data trained with lazy SGD through the executor: the
  data ``x``, ``y``, the weight ``w0`` and after each epoch ``w<e>`` (``grad_stype``).
"""

from __future__ import annotations

import pickle
from typing import Any

import mxnet as mx
import numpy as np
import scipy.sparse as spsp
from core import nd_function

FILE = "tests/ndarray/golden/sparse/sparse.npz"
SEED = 0


def dense(shape, seed, density=0.4, kind="normal"):
    rng = np.random.RandomState(seed)
    x = rng.uniform(0.5, 1.5, size=shape) if kind == "pos" else rng.normal(size=shape)
    x = x * (rng.uniform(size=shape) < density)
    if len(shape) == 2 and shape[0] > 2:
        x[1] = 0  # an empty row
    return x.astype("float32")


def vec(shape, seed):
    return np.random.RandomState(seed).normal(size=shape).astype("float32")


A = dense((5, 4), 1)
B = dense((5, 4), 2)
P = dense((5, 4), 3, kind="pos")
W = vec((4, 3), 4)
Wt = vec((5, 3), 5)
L = vec((3, 5), 6)
ROW = vec((1, 4), 7)
COL = vec((5, 1), 8)
IDX = np.array([0, 2, 4], "float32")
TAKE_IDX = np.array([3, -1, 0, 7], "float32")

# (op, params, [(value, stype)])
CASES = [
    ("dot", {}, [(A, "csr"), (W, "default")]),
    ("dot", {"transpose_a": True}, [(A, "csr"), (Wt, "default")]),
    ("dot", {}, [(A, "csr"), (W, "row_sparse")]),
    ("dot", {"transpose_a": True}, [(A, "csr"), (Wt, "row_sparse")]),
    ("dot", {}, [(L, "default"), (A, "csr")]),
    ("dot", {"transpose_b": True}, [(vec((3, 4), 9), "default"), (A, "csr")]),
    ("dot", {"forward_stype": "default"}, [(L, "default"), (A, "csr")]),
    ("elemwise_add", {}, [(A, "row_sparse"), (B, "row_sparse")]),
    ("elemwise_add", {}, [(A, "csr"), (B, "csr")]),
    ("elemwise_add", {}, [(A, "default"), (B, "csr")]),
    ("elemwise_add", {}, [(A, "row_sparse"), (B, "default")]),
    ("elemwise_sub", {}, [(A, "row_sparse"), (B, "row_sparse")]),
    ("elemwise_sub", {}, [(A, "csr"), (B, "csr")]),
    ("elemwise_mul", {}, [(A, "row_sparse"), (B, "row_sparse")]),
    ("elemwise_mul", {}, [(A, "csr"), (B, "csr")]),
    ("elemwise_mul", {}, [(A, "csr"), (B, "default")]),
    ("elemwise_mul", {}, [(A, "default"), (B, "row_sparse")]),
    ("elemwise_div", {}, [(A, "csr"), (P, "default")]),
    ("add_n", {}, [(A, "row_sparse"), (B, "row_sparse"), (P, "row_sparse")]),
    ("add_n", {}, [(A, "default"), (B, "csr"), (P, "default")]),
    ("cast_storage", {"stype": "csr"}, [(A, "default")]),
    ("cast_storage", {"stype": "row_sparse"}, [(A, "default")]),
    ("cast_storage", {"stype": "default"}, [(A, "csr")]),
    ("cast_storage", {"stype": "default"}, [(A, "row_sparse")]),
    ("sum", {"axis": 0}, [(A, "csr")]),
    ("sum", {"axis": 1}, [(A, "csr")]),
    ("mean", {"axis": 0}, [(A, "csr")]),
    ("mean", {"axis": 1}, [(A, "csr")]),
    ("norm", {}, [(A, "csr")]),
    ("norm", {}, [(A, "row_sparse")]),
    ("sqrt", {}, [(P, "csr")]),
    ("square", {}, [(A, "row_sparse")]),
    ("sin", {}, [(A, "csr")]),
    ("relu", {}, [(A, "row_sparse")]),
    ("abs", {}, [(A, "csr")]),
    ("negative", {}, [(A, "row_sparse")]),
    ("cos", {}, [(A, "csr")]),
    ("exp", {}, [(A, "row_sparse")]),
    ("zeros_like", {}, [(A, "csr")]),
    ("zeros_like", {}, [(A, "row_sparse")]),
    ("_mul_scalar", {"scalar": 2.5}, [(A, "csr")]),
    ("_div_scalar", {"scalar": 2.0}, [(A, "row_sparse")]),
    ("_plus_scalar", {"scalar": 1.0}, [(A, "csr")]),
    ("_equal_scalar", {"scalar": 0.0}, [(A, "csr")]),
    ("_greater_scalar", {"scalar": 0.0}, [(A, "row_sparse")]),
    ("clip", {"a_min": -0.5, "a_max": 0.5}, [(A, "csr")]),
    ("clip", {"a_min": -0.5, "a_max": 0.5}, [(A, "row_sparse")]),
    ("clip", {"a_min": 0.1, "a_max": 0.5}, [(A, "csr")]),
    ("broadcast_add", {}, [(A, "csr"), (ROW, "default")]),
    ("broadcast_sub", {}, [(A, "csr"), (COL, "default")]),
    ("broadcast_mul", {}, [(A, "csr"), (ROW, "default")]),
    ("broadcast_div", {}, [(A, "csr"), (COL, "default")]),
    ("slice", {"begin": (1, 1), "end": (4, 3)}, [(A, "csr")]),
    ("slice", {"begin": (2,), "end": (5,)}, [(A, "csr")]),
    ("_sparse_retain", {}, [(A, "row_sparse"), (IDX, "default")]),
    ("take", {"mode": "clip"}, [(A, "csr"), (TAKE_IDX, "default")]),
    ("take", {"mode": "wrap"}, [(A, "csr"), (TAKE_IDX, "default")]),
    ("_square_sum", {"axis": 1, "keepdims": True}, [(A, "row_sparse")]),
    ("_square_sum", {"axis": 1}, [(A, "row_sparse")]),
    ("_square_sum", {"axis": 0}, [(A, "row_sparse")]),
    ("where", {}, [(A, "csr"), (B, "default"), (P, "default")]),
    ("_contrib_getnnz", {"axis": 0}, [(A, "csr")]),
    ("_contrib_getnnz", {}, [(A, "csr")]),
    ("transpose", {}, [(A, "csr")]),
    ("_maximum", {}, [(A, "row_sparse"), (B, "row_sparse")]),
    ("_minimum", {}, [(A, "csr"), (B, "csr")]),
    ("_hypot", {}, [(A, "row_sparse"), (B, "default")]),
    ("_scatter_plus_scalar", {"scalar": 9.0}, [(A, "row_sparse")]),
    ("_scatter_minus_scalar", {"scalar": 2.0}, [(A, "csr")]),
    ("_scatter_elemwise_div", {}, [(A, "row_sparse"), (P, "default")]),
    ("broadcast_add", {}, [(A, "csr"), (B, "row_sparse")]),
]

# (op, params, [(value, stype)]): weight, grad (row_sparse), states (dense)
UPDATES = [
    ("sgd_update", {"lr": 0.1, "wd": 0.01}, 0),
    ("sgd_update", {"lr": 0.1, "wd": 0.01, "lazy_update": False}, 0),
    ("sgd_mom_update", {"lr": 0.1, "wd": 0.01, "momentum": 0.9}, 1),
    ("adam_update", {"lr": 0.1, "wd": 0.01}, 2),
    ("ftrl_update", {"lr": 0.1, "wd": 0.01}, 2),
    ("_sparse_adagrad_update", {"lr": 0.1}, 1),
]


def nd_of(value, stype):
    arr = mx.nd.array(value)
    return arr if stype == "default" else arr.tostype(stype)


def record_ops(golden: Any) -> None:
    for i, (op, params, ins) in enumerate(CASES):
        meta = {"op": op, "params": params, "stypes": [s for _, s in ins]}
        arrays = {f"in{j}": v for j, (v, _) in enumerate(ins)}
        try:
            res = nd_function(op)(*[nd_of(v, st) for v, st in ins], **params)
            res = res if isinstance(res, list) else [res]
            arrays.update({f"out{j}": r.asnumpy() for j, r in enumerate(res)})
            meta["out_stypes"] = [r.stype for r in res]
        except mx.base.MXNetError as exc:  # MXNet refuses it (mxlite computes it densely)
            meta["error"] = str(exc).splitlines()[-1][:200]
        golden.put(f"op{i}", meta, **arrays)
    grad = dense((5, 4), 11, density=0.5)
    grad[3] = 0  # a stored row of zeros
    rows = np.array([0, 2, 3])
    for k, (op, params, nstates) in enumerate(UPDATES):
        w = mx.nd.array(vec((5, 4), 12))
        g = mx.nd.sparse.row_sparse_array((grad[rows], rows), shape=grad.shape)
        states = [mx.nd.array(np.abs(vec((5, 4), 13 + s)) * 0.1) for s in range(nstates)]
        ins = [w.asnumpy(), g.asnumpy()] + [s.asnumpy() for s in states]
        arrays = {f"in{j}": v for j, v in enumerate(ins)}
        res = nd_function(op)(w, g, *states, out=w, **params)
        arrays.update({f"state{s}": st.asnumpy() for s, st in enumerate(states)})
        stypes = ["default", "row_sparse"] + ["default"] * nstates
        meta = {"op": op, "params": params, "stypes": stypes, "out_stypes": [res.stype]}
        golden.put(f"op{len(CASES) + k}", {**meta, "update": True}, gidx=g.indices.asnumpy(),
                   out0=res.asnumpy(), **arrays)  # fmt: skip


def parts(a, tag: str) -> dict:
    names = ("data", "indices", "indptr") if a.stype == "csr" else ("data", "indices")
    return {f"{tag}_{n}": getattr(a, n).asnumpy() for n in names}


def record_creation(golden: Any) -> None:
    out = {"csr_parts": mx.nd.sparse.csr_matrix(([1, 2, 3], [0, 2, 1], [0, 2, 2, 3]), shape=(3, 4))}
    coo = mx.nd.sparse.csr_matrix(
        ([5.0, 1.0, 2.0, 7.0], ([2, 0, 0, 2], [1, 3, 0, 1])), shape=(3, 4)
    )
    out.update(parts(coo, "coo"), coo_dtype=np.array(str(coo.dtype)))
    m = spsp.csr_matrix((np.array([1, 2, 3, 4, 5, 6, 1.0]), np.array([0, 2, 2, 0, 1, 2, 1]),
                         np.array([0, 2, 3, 7])), shape=(3, 3))  # fmt: skip
    out.update(parts(mx.nd.sparse.array(m), "sp"))
    r = mx.nd.sparse.row_sparse_array(([[1, 2], [3, 4]], [1, 3]), shape=(5, 2))
    out.update(rsp_dense=r.asnumpy(), rsp_dtype=np.array(str(r.dtype)))
    out.update(parts(mx.nd.array(A).tostype("csr"), "dense_csr"))
    out.update(parts(mx.nd.array(A).tostype("row_sparse"), "dense_rsp"))
    out["csr_parts"] = out["csr_parts"].asnumpy()
    golden.put("creation", {}, **out)


def record_saved(golden: Any) -> None:
    arrays = {
        "csr": mx.nd.array(A).tostype("csr"),
        "rsp": mx.nd.array(B).tostype("row_sparse"),
        "rsp3d": mx.nd.array(dense((4, 2, 3), 21)).tostype("row_sparse"),
        "csr_empty": mx.nd.sparse.zeros("csr", (3, 5)),
        "rsp_empty": mx.nd.sparse.zeros("row_sparse", (4, 2), dtype="float64"),
        "csr_f64": mx.nd.array(P, dtype="float64").tostype("csr"),
        "dense": mx.nd.array(W),
    }
    mx.nd.save(str(golden.path.parent / "sparse_mxnet.params"), arrays)
    stypes = {k: v.stype for k, v in arrays.items()}
    golden.put("saved", {"stypes": stypes}, **{k: v.asnumpy() for k, v in arrays.items()})
    a = mx.nd.array([[0, 1.5], [2, 0]]).tostype("csr")
    b = mx.nd.array([[0, 0], [3, 4]]).tostype("row_sparse")
    (golden.path.parent / "sparse_mxnet.pkl").write_bytes(pickle.dumps({"a": a, "b": b}))


def record_libsvm(golden: Any) -> None:
    rng = np.random.RandomState(3)
    lines, llines = [], []
    for _ in range(11):
        cols = np.sort(rng.choice(6, size=rng.randint(0, 4), replace=False))
        lines.append(
            " ".join([f"{rng.randint(0, 2)}"] + [f"{c}:{rng.randint(1, 9) / 4}" for c in cols])
        )
        lcols = np.sort(rng.choice(3, size=rng.randint(0, 3), replace=False))
        llines.append(" ".join(["0"] + [f"{c}:{rng.randint(1, 9) / 8}" for c in lcols]))
    data_f = golden.path.parent / "sparse_libsvm_data.t"
    label_f = golden.path.parent / "sparse_libsvm_label.t"
    data_f.write_text("\n".join(lines) + "\n")
    label_f.write_text("\n".join(llines) + "\n")
    configs = {
        "plain": dict(data_shape=(6,), batch_size=4),
        "labels": dict(data_shape=(6,), batch_size=3, label_libsvm=str(label_f), label_shape=(3,)),
        "part0": dict(data_shape=(6,), batch_size=2, num_parts=2, part_index=0),
        "part1": dict(data_shape=(6,), batch_size=2, num_parts=2, part_index=1),
    }
    for name, cfg in configs.items():
        it, out = mx.io.LibSVMIter(data_libsvm=str(data_f), **cfg), {}
        for epoch in range(2):
            for b, batch in enumerate(it):
                out[f"{epoch}_{b}_data"] = batch.data[0].asnumpy()
                out[f"{epoch}_{b}_label"] = batch.label[0].asnumpy()
                out[f"{epoch}_{b}_pad"] = np.array(batch.pad)
            it.reset()
        golden.put(f"libsvm_{name}", {}, **out)


def record_linear(golden: Any) -> None:
    rng = np.random.RandomState(5)
    n, dim = 32, 40
    x = (rng.uniform(size=(n, dim)) < 0.08) * rng.normal(size=(n, dim))
    x[:, 30:] = 0  # features never seen: their weight rows must not move
    x = x.astype("float32")
    y = rng.randint(0, 3, size=n).astype("float32")
    w0 = rng.normal(scale=0.1, size=(dim, 3)).astype("float32")
    data = mx.sym.var("data", stype="csr")
    weight = mx.sym.var("weight", stype="row_sparse")
    out = mx.sym.SoftmaxOutput(mx.sym.dot(data, weight), mx.sym.var("softmax_label"))
    req = {"weight": "write", "data": "null", "softmax_label": "null"}
    exe = out.simple_bind(
        mx.cpu(), data=(8, dim), softmax_label=(8,), weight=(dim, 3), grad_req=req
    )
    exe.arg_dict["weight"][:] = mx.nd.array(w0).tostype("row_sparse")
    opt = mx.optimizer.SGD(learning_rate=0.5, momentum=0.9, wd=0.01, lazy_update=True,
                           rescale_grad=1 / 8)  # fmt: skip
    updater = mx.optimizer.get_updater(opt)
    res = {"x": x, "y": y, "w0": w0}
    for epoch in range(3):
        for b in range(n // 8):
            exe.arg_dict["data"][:] = mx.nd.array(x[b * 8 : (b + 1) * 8]).tostype("csr")
            exe.arg_dict["softmax_label"][:] = y[b * 8 : (b + 1) * 8]
            exe.forward(is_train=True)
            exe.backward()
            updater(0, exe.grad_dict["weight"], exe.arg_dict["weight"])
        res[f"w{epoch + 1}"] = exe.arg_dict["weight"].asnumpy()
    golden.put("linear", {"grad_stype": exe.grad_dict["weight"].stype}, **res)


def record(golden: Any) -> None:
    for part in (record_ops, record_creation, record_saved, record_libsvm, record_linear):
        part(golden)
