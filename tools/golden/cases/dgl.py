"""MXNet 1.9.1's DGL graph operators (tests/operator/contrib/test_dgl_graph.py): every input and
output (a CSR array as its ``data``, ``indices``, ``indptr``); the samplers are recorded where
they are deterministic: every vertex has at most ``num_neighbor`` neighbours."""

import mxnet as mx
import numpy as np
from core import Golden

FILE = "tests/operator/contrib/golden/dgl.npz"
CSR_PARTS = ("data", "indices", "indptr")


def _graph(rng, n, m, density, dtype):
    """A CSR graph whose values are the edge ids 0..nnz-1 (edge 0 stored explicitly)."""
    dense = rng.random((n, m)) < density
    rows, cols = np.nonzero(dense)
    data = np.arange(len(rows)).astype(dtype)
    indptr = np.concatenate([[0], np.cumsum(dense.sum(axis=1))]).astype(np.int64)
    return ("csr", data, cols.astype(np.int64), indptr, (n, m))


def _ring(n, k):
    """Vertex i links to i+1..i+k (mod n): every vertex has exactly k neighbours."""
    cols = np.array([[(i + j) % n for j in range(1, k + 1)] for i in range(n)])
    cols = np.sort(cols, axis=1).reshape(-1)
    data = (np.arange(n * k) * 3 + 1).astype(np.int64)
    return ("csr", data, cols.astype(np.int64), np.arange(0, n * k + 1, k, dtype=np.int64), (n, n))


def _arr(values, dtype=np.int64):
    return ("dense", np.asarray(values, dtype=dtype))


def _table():
    rng = np.random.default_rng(7)
    g32 = _graph(rng, 8, 10, 0.35, np.float32)
    g64 = _graph(rng, 40, 40, 0.15, np.int64)
    ring = _ring(12, 2)
    u = rng.integers(0, 8, 12)
    v = rng.integers(0, 10, 12)
    rows, cols = np.repeat(np.arange(8), np.diff(g32[3])), g32[2]
    u[:4], v[:4] = rows[:4], cols[:4]  # some hits for sure
    vs1 = np.unique(rng.integers(0, 40, 12))
    vs2 = np.unique(rng.integers(0, 40, 7))
    uniform, weighted = "dgl_csr_neighbor_uniform_sample", "dgl_csr_neighbor_non_uniform_sample"
    # fmt: off
    return [
        ("edge_id_f32", "edge_id", [g32, _arr(u, np.float32), _arr(v, np.float32)], {}),
        ("edge_id_i64", "edge_id", [g64, _arr([0, 3, 5, 39]), _arr([0, 7, 5, 1])], {}),
        ("adjacency", "dgl_adjacency", [g64], {}),
        ("subgraph_map", "dgl_subgraph", [g64, _arr(vs1)], {"return_mapping": True}),
        ("subgraph_two", "dgl_subgraph", [g64, _arr(vs1), _arr(vs2)], {"return_mapping": False}),
        ("uniform_ring", uniform, [ring, _arr([0, 5])],
         {"num_hops": 2, "num_neighbor": 2, "max_num_vertices": 12}),
        ("uniform_cap", uniform, [ring, _arr([3]), _arr([7, 7, 1])],
         {"num_hops": 3, "num_neighbor": 3, "max_num_vertices": 5}),
        ("non_uniform_ring", weighted, [ring, _arr(np.linspace(0.1, 0.9, 12), np.float32),
         _arr([2, 9])], {"num_hops": 1, "num_neighbor": 2, "max_num_vertices": 8}),
    ]
    # fmt: on


def _to_mx(mx, x):
    if x[0] == "dense":
        return mx.nd.array(x[1], dtype=x[1].dtype)
    _, data, indices, indptr, shape = x
    return mx.nd.sparse.csr_matrix((data, indices, indptr), shape=shape, dtype=data.dtype)


def _store(gold, key, a):
    if a.stype == "csr":
        gold.update({f"{key}/{part}": getattr(a, part).asnumpy() for part in CSR_PARTS})
    else:
        gold[key] = a.asnumpy()
    return {"stype": a.stype, "shape": list(a.shape), "dtype": np.dtype(a.dtype).name}


def _record(golden, name, fn, ins, params):
    arrays, gold = [_to_mx(mx, x) for x in ins], {}
    outs = getattr(mx.nd.contrib, fn)(*arrays, **params)
    outs = outs if isinstance(outs, list) else [outs]
    ins = [_store(gold, f"in{i}", a) for i, a in enumerate(arrays)]
    outs_meta = [_store(gold, f"out{i}", o) for i, o in enumerate(outs)]
    golden.put(name, {"fn": fn, "params": params, "ins": ins, "outs": outs_meta}, **gold)
    return outs


def record(golden: Golden) -> None:
    for name, fn, ins, params in _table():
        outs = _record(golden, name, fn, ins, params)
        if name == "uniform_ring":  # (a truncated sample holds vertices compact cannot map)
            k = len(ins) - 1  # compact the sampled graphs, as DGL does
            size = [int(outs[i].asnumpy()[-1]) for i in range(k)]
            ids = [("dense", outs[i].asnumpy()) for i in range(k)]
            csrs = [("csr", *(getattr(c, p).asnumpy() for p in CSR_PARTS), c.shape)
                    for c in outs[k : 2 * k]]  # fmt: skip
            _record(golden, f"compact_{name}", "dgl_graph_compact", csrs + ids,
                    {"graph_sizes": tuple(size), "return_mapping": False})  # fmt: skip
