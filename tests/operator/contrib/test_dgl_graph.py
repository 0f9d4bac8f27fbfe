"""The DGL graph operators: deterministic ones (and the samplers where no choice is left)
against values recorded from MXNet 1.9.1 (tools/golden/cases/dgl.py); the random samplers by
the invariants of their documented behaviour."""

import json
import warnings

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError

from ...golden_file import load

pytest.importorskip("scipy")

_GOLD = load("operator/contrib/golden/dgl.npz")
_META = [{"name": k, **m} for k, m in _GOLD.cases.items()]


def _load(key, spec):
    if spec["stype"] == "csr":
        parts = (_GOLD[f"{key}/data"], _GOLD[f"{key}/indices"], _GOLD[f"{key}/indptr"])
        return mx.nd.sparse.csr_matrix(parts, shape=tuple(spec["shape"]), dtype=spec["dtype"])
    return mx.nd.array(_GOLD[key], dtype=spec["dtype"])


def _params(meta):
    return {k: tuple(v) if isinstance(v, list) else v for k, v in meta["params"].items()}


def _valid(meta, i):
    """How many leading elements of dense output ``i`` MXNet defines (samplers leave the
    tail past the vertex count unwritten; the last sample_id element is the count)."""
    if "sample" not in meta["fn"]:
        return None
    k = len(meta["ins"]) - (2 if "non_uniform" in meta["fn"] else 1)
    return int(_GOLD[f"{meta['name']}/out{i % k}"][-1])


@pytest.mark.parametrize("meta", _META, ids=[m["name"] for m in _META])
def test_matches_mxnet(meta):
    name = meta["name"]
    ins = [_load(f"{name}/in{i}", s) for i, s in enumerate(meta["ins"])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the truncated sample warns, as MXNet logs
        outs = getattr(mx.nd.contrib, meta["fn"])(*ins, **_params(meta))
    outs = outs if isinstance(outs, list) else [outs]
    assert len(outs) == len(meta["outs"])
    for i, (o, spec) in enumerate(zip(outs, meta["outs"])):
        key = f"{name}/out{i}"
        assert o.stype == spec["stype"] and o.shape == tuple(spec["shape"])
        assert np.dtype(o.dtype).name == spec["dtype"]
        if spec["stype"] == "csr":
            for part in ("indptr", "indices", "data"):
                np.testing.assert_array_equal(getattr(o, part).asnumpy(), _GOLD[f"{key}/{part}"])
            continue
        got, want = o.asnumpy(), _GOLD[key]
        n = _valid(meta, i)
        if n is not None:
            if len(want) == meta["params"]["max_num_vertices"] + 1:
                assert got[-1] == want[-1]  # sample_id's last element: the vertex count
            got, want = got[:n], want[:n]
        np.testing.assert_allclose(got, want, rtol=1e-6)


def _complete(n=9):
    """Every vertex links to every other; the edge id of (i, j) is 10 * i + j."""
    rows, cols = np.nonzero(~np.eye(n, dtype=bool))
    indptr = np.arange(0, n * (n - 1) + 1, n - 1)
    data = (10 * rows + cols).astype(np.int64)
    return mx.nd.sparse.csr_matrix((data, cols, indptr), shape=(n, n), dtype=np.int64)


def _check_sample(g, seeds, outs, hops, k, maxv, prob=None):
    ids, sub, layer = outs[0].asnumpy(), outs[1], outs[-1].asnumpy()
    nv = int(ids[-1])
    assert ids.shape == (maxv + 1,) and sub.shape == (maxv, g.shape[1]) and layer.shape == (maxv,)
    verts = ids[:nv]
    assert np.all(np.diff(verts) > 0) and set(seeds) <= set(verts.tolist())
    assert np.all(layer[:nv] <= hops) and np.all(layer[:nv][np.isin(verts, seeds)] == 0)
    sub.check_format(full_check=True)
    indptr, cols, eids = sub.indptr.asnumpy(), sub.indices.asnumpy(), sub.data.asnumpy()
    assert np.all(indptr[nv:] == indptr[nv])
    for r, v in enumerate(verts):
        c = cols[indptr[r] : indptr[r + 1]]
        e = eids[indptr[r] : indptr[r + 1]]
        if layer[r] < hops:
            assert len(c) == min(k, g.shape[0] - 1) and len(set(c.tolist())) == len(c)
        else:
            assert len(c) == 0
        assert np.all(c != v)  # the complete graph has no self loops
        if prob is None:
            np.testing.assert_array_equal(e, 10 * v + c)  # each edge keeps its parent id
        assert set(c.tolist()) <= set(verts.tolist())
    if prob is not None:
        np.testing.assert_array_equal(outs[2].asnumpy()[:nv], prob[verts])
    return verts, cols, indptr


def test_uniform_sample_structure_and_compact():
    g = _complete()
    mx.random.seed(3)
    outs = mx.nd.contrib.dgl_csr_neighbor_uniform_sample(
        g, mx.nd.array([0, 4], dtype=np.int64), num_hops=2, num_neighbor=2, max_num_vertices=9
    )
    assert len(outs) == 3
    verts, cols, indptr = _check_sample(g, [0, 4], outs, 2, 2, 9)
    nv = len(verts)
    compact = mx.nd.contrib.dgl_graph_compact(
        outs[1], outs[0], graph_sizes=(nv,), return_mapping=False
    )
    assert compact.shape == (nv, nv) and compact.dtype == np.int64
    np.testing.assert_array_equal(verts[compact.indices.asnumpy()], cols)
    np.testing.assert_array_equal(compact.indptr.asnumpy(), indptr[: nv + 1])
    np.testing.assert_array_equal(compact.data.asnumpy(), np.arange(len(cols)))
    mx.random.seed(3)
    again = mx.nd.contrib.dgl_csr_neighbor_uniform_sample(
        g, mx.nd.array([0, 4], dtype=np.int64), num_hops=2, num_neighbor=2, max_num_vertices=9
    )
    np.testing.assert_array_equal(again[1].indices.asnumpy(), cols)  # mx.random.seed decides


def test_non_uniform_sample_follows_probability():
    g = _complete()
    prob = np.array([0, 0, 1, 0, 0, 1, 0, 0, 0], np.float32)
    seeds = mx.nd.array([0], dtype=np.int64), mx.nd.array([3, 7], dtype=np.int64)
    outs = mx.nd.contrib.dgl_csr_neighbor_non_uniform_sample(
        g, mx.nd.array(prob), *seeds, num_hops=1, num_neighbor=2, max_num_vertices=6
    )
    assert len(outs) == 8  # (ids, csr, probability, layer) for each of the two seed arrays
    first = [outs[0], outs[2], outs[4], outs[6]]
    verts, cols, _ = _check_sample(g, [0], first, 1, 2, 6, prob=prob)
    np.testing.assert_array_equal(verts, [0, 2, 5])  # only 2 and 5 have weight
    np.testing.assert_array_equal(cols, [2, 5])
    second = [outs[1], outs[3], outs[5], outs[7]]
    _check_sample(g, [3, 7], second, 1, 2, 6, prob=prob)


def test_sampler_truncation_warns():
    with pytest.warns(UserWarning, match="truncated"):
        outs = mx.nd.contrib.dgl_csr_neighbor_uniform_sample(
            _complete(), mx.nd.array([1], dtype=np.int64), num_hops=3, num_neighbor=3,
            max_num_vertices=3,
        )  # fmt: skip
    assert int(outs[0].asnumpy()[-1]) == 3


def test_dense_graph_runs_on_its_nonzeros():
    x = np.array([[1, 0, 0], [0, 2, 0], [0, 0, 3]], np.float32)
    u, v = [0, 0, 1, 1, 2, 2], [0, 1, 1, 2, 0, 2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no dense kernel in MXNet: a storage fallback
        out = mx.nd.contrib.edge_id(mx.nd.array(x), mx.nd.array(u), mx.nd.array(v))
    np.testing.assert_array_equal(out.asnumpy(), [1, -1, 2, -1, -1, 3])


def test_symbol_forms():
    g, v = mx.sym.var("g"), mx.sym.var("v")
    s = mx.sym.contrib.dgl_subgraph(g, v, return_mapping=True)
    assert s.list_arguments() == ["g", "v"] and len(s.list_outputs()) == 2
    _, out_shapes, _ = s.infer_shape(g=(10, 10), v=(4,))
    assert out_shapes == [(4, 4), (4, 4)]
    assert json.loads(s.tojson())["nodes"][-1]["attrs"]["num_args"] == "2"
    e = mx.sym.contrib.edge_id(g, mx.sym.var("u"), v)
    x = np.array([[0, 5, 0], [7, 0, 0], [0, 0, 9]], np.float32)
    ex = e.bind(mx.cpu(), {"g": mx.nd.array(x), "u": mx.nd.array([0, 1, 2]),
                           "v": mx.nd.array([1, 1, 2])})  # fmt: skip
    np.testing.assert_array_equal(ex.forward()[0].asnumpy(), [5, -1, 9])
    sample = mx.sym.contrib.dgl_csr_neighbor_uniform_sample(g, v, max_num_vertices=7, name="s")
    _, shapes, _ = sample.infer_shape(g=(10, 10), v=(3,))
    assert shapes == [(8,), (7, 10), (7,)]
    # MXNet 1.9.1 leaves these outputs unnamed
    assert sample.list_outputs() == ["s_output0", "s_output1", "s_output2"]
    single = mx.sym.contrib.dgl_subgraph(g, v, return_mapping=False, name="sub")
    assert single.list_outputs() == ["sub_output"]


def test_bad_input_is_named():
    g = _complete()
    with pytest.raises(MXNetError, match="sorted"):
        v = mx.nd.array([3, 1], dtype=np.int64)
        mx.nd.contrib.dgl_subgraph(g, v, return_mapping=False).asnumpy()
    with pytest.raises(MXNetError, match="int64"):
        mx.nd.contrib.dgl_subgraph(g, mx.nd.array([1, 3]), return_mapping=False).asnumpy()
    with pytest.raises(MXNetError, match="u must be in"):
        mx.nd.contrib.edge_id(g, mx.nd.array([9]), mx.nd.array([0])).asnumpy()
    with pytest.raises(MXNetError, match="max_num_vertices"):
        mx.nd.contrib.dgl_csr_neighbor_uniform_sample(
            g, mx.nd.array([0, 1, 2], dtype=np.int64), max_num_vertices=2
        )[0].asnumpy()
    ids = mx.nd.array([0, 1, 2], dtype=np.int64)
    with pytest.raises(MXNetError, match="not in varray0"):
        mx.nd.contrib.dgl_graph_compact(
            _complete(3)[0:2], ids, graph_sizes=(2,), return_mapping=False
        ).asnumpy()


def test_edge_id_unsorted_row_takes_the_first_entry():
    # a row with unsorted, repeated columns: MXNet's linear search finds the first
    parts = (np.array([5.0, 6.0, 7.0]), np.array([2, 0, 2]), np.array([0, 3, 3]))
    x = mx.nd.sparse.csr_matrix(parts, shape=(2, 3))
    out = mx.nd.contrib.edge_id(x, mx.nd.array([0, 0, 1, 0]), mx.nd.array([2, 0, 2, 1]))
    np.testing.assert_array_equal(out.asnumpy(), [5, 6, -1, -1])
