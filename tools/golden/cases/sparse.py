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

Sparse gradients (tests/test_autograd_sparse.py, tests/executor/test_sparse.py,
tests/io/test_ndarray_iter.py, tests/module/test_module_sparse.py,
tests/gluon/nn/test_embedding_sparse.py): cases of ``kind`` ``autograd_dot`` (``dot(csr, w)``
recorded, gradient of ``w``), ``autograd_embedding`` (``Embedding(sparse_grad=True)``),
``exe_dot`` / ``exe_embedding`` (the same through ``simple_bind`` or ``bind``) hold the inputs
``in<j>``, the head gradient ``ograd``, and the gradient's dense value ``grad`` and stored rows
(or CSR column indices) ``indices``, with its ``stype`` (or ``error`` where MXNet refuses it);
``iter``: NDArrayIter over a CSR array ``in0`` shuffled after ``np.random.seed(3)``: its
``batch<k>``, ``label<k>``; ``module``: data ``x``, ``y`` (as a LibSVM file) and the initial
row-sparse weight ``w0``, and ``module_<optimizer>``: ``weight``, ``bias`` after two epochs of
example/sparse/linear_classification's loop (Module, local kvstore, ``prepare`` with
``sparse_row_id_fn``); ``gluon``: index batches ``idx<k>``, and ``gluon_<optimizer>``: the rows
of the first gradient of ``gluon.nn.Embedding(sparse_grad=True)`` under a Trainer (``rows``)
and the ``weight`` after three steps.
"""

import pickle
import tempfile

import mxnet as mx
import numpy as np
import scipy.sparse as spsp
from core import Golden, load_module, nd_function, seeded

FILE = "tests/ndarray/golden/sparse/sparse.npz"
t = load_module("tests/sparse_training_cases.py")


def dense(shape, seed, density=0.4, kind="normal", empty="row"):
    """Values of ``kind`` ("normal", or "pos": uniform in [0.5, 1.5)), each kept with
    probability ``density``; row 1 (of a matrix of three rows or more) or column 1 (``empty``)
    all zeros: a row not stored, or a column no row uses (its gradient row not stored)."""
    rng = np.random.RandomState(seed)
    x = rng.uniform(0.5, 1.5, size=shape) if kind == "pos" else rng.normal(size=shape)
    x = x * (rng.uniform(size=shape) < density)
    if empty == "col":
        x[:, 1] = 0
    elif len(shape) == 2 and shape[0] > 2:
        x[1] = 0
    return x.astype("float32")


A = dense((5, 4), 1)
B = dense((5, 4), 2)
P = dense((5, 4), 3, kind="pos")
W = seeded((4, 3), seed=4)
Wt = seeded((5, 3), seed=5)
L = seeded((3, 5), seed=6)
ROW = seeded((1, 4), seed=7)
COL = seeded((5, 1), seed=8)
IDX = np.array([0, 2, 4], "float32")
TAKE_IDX = np.array([3, -1, 0, 7], "float32")

R, C, D = "row_sparse", "csr", "default"
UNARY = [("square", R), ("sin", C), ("relu", R), ("abs", C), ("negative", R), ("cos", C),
         ("exp", R)]  # fmt: skip
SCALAR = [("_mul_scalar", 2.5, C), ("_div_scalar", 2.0, R), ("_plus_scalar", 1.0, C),
          ("_equal_scalar", 0.0, C), ("_greater_scalar", 0.0, R)]  # fmt: skip
BROADCAST = [("broadcast_add", ROW), ("broadcast_sub", COL), ("broadcast_mul", ROW),
             ("broadcast_div", COL)]  # fmt: skip
# (op, params, [(value, stype)]), in the order of the case numbers
# fmt: off
CASES = [
    ("dot", {}, [(A, C), (W, D)]),
    ("dot", {"transpose_a": True}, [(A, C), (Wt, D)]),
    ("dot", {}, [(A, C), (W, R)]),
    ("dot", {"transpose_a": True}, [(A, C), (Wt, R)]),
    ("dot", {}, [(L, D), (A, C)]),
    ("dot", {"transpose_b": True}, [(seeded((3, 4), seed=9), D), (A, C)]),
    ("dot", {"forward_stype": "default"}, [(L, D), (A, C)]),
    *[("elemwise_add", {}, [(A, s), (B, t)]) for s, t in [(R, R), (C, C), (D, C), (R, D)]],
    *[("elemwise_sub", {}, [(A, s), (B, s)]) for s in (R, C)],
    *[("elemwise_mul", {}, [(A, s), (B, t)]) for s, t in [(R, R), (C, C), (C, D), (D, R)]],
    ("elemwise_div", {}, [(A, C), (P, D)]),
    ("add_n", {}, [(A, R), (B, R), (P, R)]),
    ("add_n", {}, [(A, D), (B, C), (P, D)]),
    *[("cast_storage", {"stype": t}, [(A, s)]) for s, t in [(D, C), (D, R), (C, D), (R, D)]],
    *[(op, {"axis": axis}, [(A, C)]) for op in ("sum", "mean") for axis in (0, 1)],
    *[("norm", {}, [(A, s)]) for s in (C, R)],
    ("sqrt", {}, [(P, C)]),
    *[(op, {}, [(A, s)]) for op, s in UNARY],
    *[("zeros_like", {}, [(A, s)]) for s in (C, R)],
    *[(op, {"scalar": value}, [(A, s)]) for op, value, s in SCALAR],
    *[("clip", {"a_min": lo, "a_max": 0.5}, [(A, s)])
      for lo, s in [(-0.5, C), (-0.5, R), (0.1, C)]],
    *[(op, {}, [(A, C), (v, D)]) for op, v in BROADCAST],
    ("slice", {"begin": (1, 1), "end": (4, 3)}, [(A, C)]),
    ("slice", {"begin": (2,), "end": (5,)}, [(A, C)]),
    ("_sparse_retain", {}, [(A, R), (IDX, D)]),
    *[("take", {"mode": mode}, [(A, C), (TAKE_IDX, D)]) for mode in ("clip", "wrap")],
    ("_square_sum", {"axis": 1, "keepdims": True}, [(A, R)]),
    ("_square_sum", {"axis": 1}, [(A, R)]),
    ("_square_sum", {"axis": 0}, [(A, R)]),
    ("where", {}, [(A, C), (B, D), (P, D)]),
    ("_contrib_getnnz", {"axis": 0}, [(A, C)]),
    ("_contrib_getnnz", {}, [(A, C)]),
    ("transpose", {}, [(A, C)]),
    ("_maximum", {}, [(A, R), (B, R)]),
    ("_minimum", {}, [(A, C), (B, C)]),
    ("_hypot", {}, [(A, R), (B, D)]),
    ("_scatter_plus_scalar", {"scalar": 9.0}, [(A, R)]),
    ("_scatter_minus_scalar", {"scalar": 2.0}, [(A, C)]),
    ("_scatter_elemwise_div", {}, [(A, R), (P, D)]),
    ("broadcast_add", {}, [(A, C), (B, R)]),
]
# fmt: on

# (op, params, number of states): the inputs are weight, grad (row_sparse), states (dense)
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


def record_ops(golden: Golden) -> None:
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
        w = mx.nd.array(seeded((5, 4), seed=12))
        g = mx.nd.sparse.row_sparse_array((grad[rows], rows), shape=grad.shape)
        states = [mx.nd.array(np.abs(seeded((5, 4), seed=13 + s)) * 0.1) for s in range(nstates)]
        ins = [w.asnumpy(), g.asnumpy()] + [s.asnumpy() for s in states]
        arrays = {f"in{j}": v for j, v in enumerate(ins)}
        res = nd_function(op)(w, g, *states, out=w, **params)
        arrays.update({f"state{s}": st.asnumpy() for s, st in enumerate(states)})
        stypes = ["default", "row_sparse"] + ["default"] * nstates
        meta = {"op": op, "params": params, "stypes": stypes, "out_stypes": [res.stype]}
        golden.put(f"op{len(CASES) + k}", {**meta, "update": True}, gidx=g.indices.asnumpy(),
                   out0=res.asnumpy(), **arrays)  # fmt: skip


def record_creation(golden: Golden) -> None:
    golden.put("creation", {}, **t.creation(mx, spsp, A))


def record_saved(golden: Golden) -> None:
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


def record_libsvm(golden: Golden) -> None:
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
    for name, cfg in t.libsvm_configs(str(label_f)).items():
        it = mx.io.LibSVMIter(data_libsvm=str(data_f), **cfg)
        golden.put(f"libsvm_{name}", {}, **t.libsvm_batches(it))


def record_linear(golden: Golden) -> None:
    rng = np.random.RandomState(5)
    n, dim = 32, 40
    x = (rng.uniform(size=(n, dim)) < 0.08) * rng.normal(size=(n, dim))
    x[:, 30:] = 0  # features never seen: their weight rows must not move
    x = x.astype("float32")
    y = rng.randint(0, 3, size=n).astype("float32")
    w0 = rng.normal(scale=0.1, size=(dim, 3)).astype("float32")
    run = t.linear_executor(mx, x, y, w0)
    exe = next(run)
    res = {"x": x, "y": y, "w0": w0, **{f"w{e + 1}": w for e, w in enumerate(run)}}
    golden.put("linear", {"grad_stype": exe.grad_dict["weight"].stype}, **res)


def grad_case(golden: Golden, name: str, kind: str, inputs: list, grad, ograd) -> None:
    rows = grad.indices.asnumpy() if grad.stype != "default" else np.zeros(0, "int64")
    arrays = {f"in{j}": np.asarray(x) for j, x in enumerate(inputs)}
    golden.put(name, {"kind": kind, "stype": grad.stype}, **arrays, ograd=ograd,
               grad=grad.asnumpy(), indices=rows)  # fmt: skip


def autograd_cases(golden: Golden) -> None:
    x = dense((4, 6), 1, density=0.3, empty="col")
    w = seeded((6, 3), seed=2)
    og = seeded((4, 3), seed=3)
    for tag, stypes in t.DOT.items():  # a zero head gradient: rows stay stored with zeros
        head = np.zeros((4, 3), "float32") if tag == "dot_zero_ograd" else og
        grad = t.recorded_dot(mx, x, w, *stypes, head)
        grad_case(golden, tag, "autograd_dot", [x, w], grad, head)
    idx = np.array([[4, 1], [1, 7]], "float32")
    emb = seeded((9, 2), seed=4)
    og = seeded((2, 2, 2), seed=5)
    for tag, g_stype in (("emb_rspgrad", "row_sparse"), ("emb_dnsgrad", None)):
        wt = mx.nd.array(emb)
        try:
            t.recorded_embedding(mx, idx, wt, og, g_stype)
        except mx.MXNetError as exc:  # MXNet refuses a dense buffer for a sparse gradient
            golden.put(tag, {"kind": "autograd_embedding", "error": str(exc)[:200]})
            continue
        grad_case(golden, tag, "autograd_embedding", [idx, emb], wt.grad, og)


def executor_cases(golden: Golden) -> None:
    x = dense((4, 6), 6, density=0.3, empty="col")
    w = seeded((6, 3), seed=7)
    og = seeded((4, 3), seed=8)
    for tag, w_stype in (("exe_dot_rsp", "row_sparse"), ("exe_dot_dns", "default")):
        exe = t.dot_executor(mx, x, w, w_stype)
        grad_case(golden, tag, "exe_dot", [x, w], t.weight_step(mx, exe, og), og)
    idx = np.array([[0, 5], [5, 2]], "float32")
    emb = seeded((7, 2), seed=9)
    og = seeded((2, 2, 2), seed=10)
    exe = t.embedding_executor(mx, idx, emb)
    grad_case(golden, "exe_emb", "exe_embedding", [idx, emb], t.weight_step(mx, exe, og), og)
    exe.backward(mx.nd.zeros((2, 2, 2)))  # the rows looked up stay stored, with zeros
    grad_case(golden, "exe_emb_zero", "exe_embedding", [idx, emb], exe.grad_dict["weight"],
              np.zeros((2, 2, 2), "float32"))  # fmt: skip
    # bind with a row-sparse args_grad; a head gradient that is zero but in one row
    og = np.zeros((4, 3), "float32")
    og[0] = 1
    for tag, w_stype in (("bind_dot_rsp", "row_sparse"), ("bind_dot_dns", "default")):
        grad = mx.nd.zeros((6, 3), stype="row_sparse")
        assert t.weight_step(mx, t.dot_executor(mx, x, w, w_stype, grad), og) is grad
        grad_case(golden, tag, "exe_dot", [x, w], grad, og)


def iter_case(golden: Golden) -> None:
    x = dense((7, 5), 11, density=0.5, empty="col")
    out = {"in0": x}
    for k, batch in enumerate(t.shuffled_csr_iter(mx, x)):
        out[f"batch{k}"] = batch.data[0].asnumpy()
        out[f"label{k}"] = batch.label[0].asnumpy()
    golden.put("iter", {"kind": "iter_csr", "stype": "csr", "batches": len(out) // 2}, **out)


def module_cases(golden: Golden) -> None:
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
    golden.put("module", {"kind": "module"}, x=x, y=y, w0=w0)
    tmp = tempfile.mkstemp(suffix=".t")[1]
    with open(tmp, "w") as f:
        f.write(t.libsvm_text(x, y))
    for opt in ("sgd", "adam", "adagrad"):
        mod, it = t.sparse_module(mx, tmp, w0, opt)
        t.train_module(mod, it)
        args, _ = mod.get_params()
        meta = {"kind": "module", "stype": args["weight"].stype}
        golden.put(f"module_{opt}", meta, weight=args["weight"].asnumpy(),
                   bias=args["bias"].asnumpy())  # fmt: skip


def gluon_cases(golden: Golden) -> None:
    """gluon.nn.Embedding(sparse_grad=True) trained by a Trainer: the first step's gradient
    rows and the weight after three steps, per optimizer."""
    rng = np.random.RandomState(13)
    batches = [rng.randint(0, 10, size=(4, 2)).astype("float32") for _ in range(3)]
    golden.put("gluon", {"kind": "gluon"}, **{f"idx{k}": b for k, b in enumerate(batches)})
    for opt in ("sgd", "adam", "adagrad", "ftrl"):
        _, rows, weight = t.embedding_training(mx, batches, opt)
        meta = {"kind": "gluon", "stype": "row_sparse"}
        golden.put(f"gluon_{opt}", meta, rows=rows, weight=weight.asnumpy())


def record(golden: Golden) -> None:
    for part in (record_ops, record_creation, record_saved, record_libsvm, record_linear,
                 autograd_cases, executor_cases, iter_case, module_cases, gluon_cases):  # fmt: skip
        part(golden)
