"""Record sparse storage from real MXNet 1.9.1 into tests/ndarray/golden/sparse/.

Run under the reference interpreter (never imported by mxlite)::

    /tmp/mxref/bin/python tools/make_golden_sparse.py

Writes:

* ``sparse_ops.npz``: for case ``i`` the inputs ``i_in{j}`` (dense values), the outputs
  ``i_out{j}`` (dense values) and, for update operators, the states after the update
  ``i_state{j}``; ``__cases__`` is a JSON list of ``{"op", "params", "stypes", "out_stypes"}``
  (input storage types and the output storage types MXNet chose), or with ``"error"`` where
  MXNet 1.9.1 refuses the call.
* ``sparse_creation.npz``: the parts (data, indices, indptr) MXNet makes for a few inputs.
* ``sparse_mxnet.params``: a list of sparse and dense arrays saved by MXNet, with their dense
  values in ``sparse_saved.npz``.
* ``sparse_mxnet.pkl``: ``pickle.dumps`` of a dict of a CSR and a row-sparse array.
* ``sparse_libsvm_*.t`` and ``sparse_libsvm.npz``: LibSVM files and the batches MXNet reads.
* ``sparse_linear.npz``: a linear classifier on CSR data trained with SGD (momentum,
  weight decay, lazy_update) through the executor: the data, the initial weight, and the
  weight after each epoch.
"""

from __future__ import annotations

import json
import os
import warnings

import mxnet as mx
import numpy as np

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "tests", "ndarray", "golden", "sparse")


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


def op_fn(name):
    for mod, prefix in (
        (mx.nd, ""),
        (mx.nd._internal, ""),
        (mx.nd.contrib, "_contrib_"),
        (mx.nd.sparse, "_sparse_"),
    ):
        short = name[len(prefix) :] if name.startswith(prefix) else None
        if short and hasattr(mod, short):
            return getattr(mod, short)
    raise KeyError(name)


def record_ops():
    out, meta = {}, []
    for i, (op, params, ins) in enumerate(CASES):
        arrays = [nd_of(v, st) for v, st in ins]
        for j, (v, _) in enumerate(ins):
            out[f"{i}_in{j}"] = v
        try:
            res = op_fn(op)(*arrays, **params)
            res = res if isinstance(res, list) else [res]
            for r in res:
                r.wait_to_read()
        except mx.base.MXNetError as exc:  # MXNet refuses it (mxlite computes it densely)
            meta.append(
                {
                    "op": op,
                    "params": params,
                    "stypes": [s for _, s in ins],
                    "error": str(exc).splitlines()[-1][:200],
                }
            )
            continue
        for j, r in enumerate(res):
            out[f"{i}_out{j}"] = r.asnumpy()
        meta.append(
            {
                "op": op,
                "params": params,
                "stypes": [s for _, s in ins],
                "out_stypes": [r.stype for r in res],
            }
        )
    base = len(CASES)
    grad = dense((5, 4), 11, density=0.5)
    grad[3] = 0  # a stored row of zeros
    for k, (op, params, nstates) in enumerate(UPDATES):
        i = base + k
        w = mx.nd.array(vec((5, 4), 12))
        rows = np.array([0, 2, 3])
        g = mx.nd.sparse.row_sparse_array((grad[rows], rows), shape=grad.shape)
        states = [mx.nd.array(np.abs(vec((5, 4), 13 + s)) * 0.1) for s in range(nstates)]
        out[f"{i}_in0"] = w.asnumpy()
        out[f"{i}_in1"] = g.asnumpy()
        out[f"{i}_gidx"] = g.indices.asnumpy()
        for s, st in enumerate(states):
            out[f"{i}_in{2 + s}"] = st.asnumpy()
        res = op_fn(op)(w, g, *states, out=w, **params)
        out[f"{i}_out0"] = res.asnumpy()
        for s, st in enumerate(states):
            out[f"{i}_state{s}"] = st.asnumpy()
        meta.append(
            {
                "op": op,
                "params": params,
                "stypes": ["default", "row_sparse"] + ["default"] * nstates,
                "out_stypes": [res.stype],
                "update": True,
            }
        )
    out["__cases__"] = np.array(json.dumps(meta))
    np.savez_compressed(os.path.join(GOLDEN, "sparse_ops.npz"), **out)


def record_creation():
    import scipy.sparse as spsp

    out = {}
    a = mx.nd.sparse.csr_matrix(([1, 2, 3], [0, 2, 1], [0, 2, 2, 3]), shape=(3, 4))
    out["csr_parts"] = a.asnumpy()
    coo = mx.nd.sparse.csr_matrix(
        ([5.0, 1.0, 2.0, 7.0], ([2, 0, 0, 2], [1, 3, 0, 1])), shape=(3, 4)
    )
    out["coo_data"], out["coo_indices"] = coo.data.asnumpy(), coo.indices.asnumpy()
    out["coo_indptr"], out["coo_dtype"] = coo.indptr.asnumpy(), np.array(str(coo.dtype))
    m = spsp.csr_matrix(
        (
            np.array([1, 2, 3, 4, 5, 6, 1.0]),
            np.array([0, 2, 2, 0, 1, 2, 1]),
            np.array([0, 2, 3, 7]),
        ),
        shape=(3, 3),
    )
    s = mx.nd.sparse.array(m)
    out["sp_data"], out["sp_indices"], out["sp_indptr"] = (
        s.data.asnumpy(),
        s.indices.asnumpy(),
        s.indptr.asnumpy(),
    )
    r = mx.nd.sparse.row_sparse_array(([[1, 2], [3, 4]], [1, 3]), shape=(5, 2))
    out["rsp_dense"], out["rsp_dtype"] = r.asnumpy(), np.array(str(r.dtype))
    d = mx.nd.array(A).tostype("csr")
    out["dense_csr_data"], out["dense_csr_indices"], out["dense_csr_indptr"] = (
        d.data.asnumpy(),
        d.indices.asnumpy(),
        d.indptr.asnumpy(),
    )
    rd = mx.nd.array(A).tostype("row_sparse")
    out["dense_rsp_data"], out["dense_rsp_indices"] = rd.data.asnumpy(), rd.indices.asnumpy()
    np.savez_compressed(os.path.join(GOLDEN, "sparse_creation.npz"), **out)


def record_saved():
    arrays = {
        "csr": mx.nd.array(A).tostype("csr"),
        "rsp": mx.nd.array(B).tostype("row_sparse"),
        "rsp3d": mx.nd.array(dense((4, 2, 3), 21)).tostype("row_sparse"),
        "csr_empty": mx.nd.sparse.zeros("csr", (3, 5)),
        "rsp_empty": mx.nd.sparse.zeros("row_sparse", (4, 2), dtype="float64"),
        "csr_f64": mx.nd.array(P, dtype="float64").tostype("csr"),
        "dense": mx.nd.array(W),
    }
    mx.nd.save(os.path.join(GOLDEN, "sparse_mxnet.params"), arrays)
    np.savez_compressed(
        os.path.join(GOLDEN, "sparse_saved.npz"),
        **{k: v.asnumpy() for k, v in arrays.items()},
        __stypes__=np.array(json.dumps({k: v.stype for k, v in arrays.items()})),
    )


def record_pickle():
    import pickle

    a = mx.nd.array([[0, 1.5], [2, 0]]).tostype("csr")
    b = mx.nd.array([[0, 0], [3, 4]]).tostype("row_sparse")
    with open(os.path.join(GOLDEN, "sparse_mxnet.pkl"), "wb") as f:
        f.write(pickle.dumps({"a": a, "b": b}))


def record_libsvm():
    rng = np.random.RandomState(3)
    lines, llines = [], []
    for _ in range(11):
        cols = np.sort(rng.choice(6, size=rng.randint(0, 4), replace=False))
        lines.append(
            " ".join([f"{rng.randint(0, 2)}"] + [f"{c}:{rng.randint(1, 9) / 4}" for c in cols])
        )
        lcols = np.sort(rng.choice(3, size=rng.randint(0, 3), replace=False))
        llines.append(" ".join(["0"] + [f"{c}:{rng.randint(1, 9) / 8}" for c in lcols]))
    data_f = os.path.join(GOLDEN, "sparse_libsvm_data.t")
    label_f = os.path.join(GOLDEN, "sparse_libsvm_label.t")
    with open(data_f, "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(label_f, "w") as f:
        f.write("\n".join(llines) + "\n")
    out = {}
    configs = {
        "plain": dict(data_shape=(6,), batch_size=4),
        "labels": dict(data_shape=(6,), batch_size=3, label_libsvm=label_f, label_shape=(3,)),
        "part0": dict(data_shape=(6,), batch_size=2, num_parts=2, part_index=0),
        "part1": dict(data_shape=(6,), batch_size=2, num_parts=2, part_index=1),
    }
    for name, cfg in configs.items():
        it = mx.io.LibSVMIter(data_libsvm=data_f, **cfg)
        for epoch in range(2):
            for b, batch in enumerate(it):
                key = f"{name}_{epoch}_{b}"
                out[key + "_data"] = batch.data[0].asnumpy()
                out[key + "_label"] = batch.label[0].asnumpy()
                out[key + "_pad"] = np.array(batch.pad)
            it.reset()
    np.savez_compressed(os.path.join(GOLDEN, "sparse_libsvm.npz"), **out)


def record_linear():
    rng = np.random.RandomState(5)
    n, dim, classes = 32, 40, 3
    x = (rng.uniform(size=(n, dim)) < 0.08) * rng.normal(size=(n, dim))
    x[:, 30:] = 0  # features never seen: their weight rows must not move
    x = x.astype("float32")
    y = rng.randint(0, classes, size=n).astype("float32")
    w0 = rng.normal(scale=0.1, size=(dim, classes)).astype("float32")
    data = mx.sym.var("data", stype="csr")
    weight = mx.sym.var("weight", stype="row_sparse")
    out = mx.sym.SoftmaxOutput(mx.sym.dot(data, weight), mx.sym.var("softmax_label"))
    exe = out.simple_bind(
        mx.cpu(),
        data=(8, dim),
        softmax_label=(8,),
        weight=(dim, classes),
        grad_req={"weight": "write", "data": "null", "softmax_label": "null"},
    )
    exe.arg_dict["weight"][:] = mx.nd.array(w0).tostype("row_sparse")
    opt = mx.optimizer.SGD(
        learning_rate=0.5, momentum=0.9, wd=0.01, lazy_update=True, rescale_grad=1 / 8
    )
    updater = mx.optimizer.get_updater(opt)
    res = {"x": x, "y": y, "w0": w0, "grad_stype": np.array(exe.grad_dict["weight"].stype)}
    for epoch in range(3):
        for b in range(n // 8):
            exe.arg_dict["data"][:] = mx.nd.array(x[b * 8 : (b + 1) * 8]).tostype("csr")
            exe.arg_dict["softmax_label"][:] = y[b * 8 : (b + 1) * 8]
            exe.forward(is_train=True)
            exe.backward()
            updater(0, exe.grad_dict["weight"], exe.arg_dict["weight"])
        res[f"w{epoch + 1}"] = exe.arg_dict["weight"].asnumpy()
    np.savez_compressed(os.path.join(GOLDEN, "sparse_linear.npz"), **res)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    os.makedirs(GOLDEN, exist_ok=True)
    record_ops()
    record_creation()
    record_saved()
    record_pickle()
    record_libsvm()
    record_linear()
    print("wrote", sorted(f for f in os.listdir(GOLDEN) if f.startswith("sparse")))
