"""MXNet 1.9.1's DGL graph operators: ``edge_id``, ``dgl_adjacency``, ``dgl_subgraph``,
``dgl_csr_neighbor_uniform_sample``, ``dgl_csr_neighbor_non_uniform_sample`` and
``dgl_graph_compact``.

Design note
-----------
A graph is a square CSR matrix whose stored values are edge ids (int64 in DGL); a stored 0 is an
edge with id 0. Each operator is one kernel on CSR parts (``data, indices, indptr``) that
returns kernel values (storage.py): its sparse form (``_GRAPH_FORM``) runs it on the
CSR inputs MXNet requires. On dense inputs (a symbol executor, MXNet's storage fallback) the
same kernel runs on the CSR of the dense matrix, whose zeros are not edges, and the outputs are
written dense. The samplers draw one 32-bit seed from the device generator per call, as MXNet
draws one from its random resource, and sample every seed array's subgraph from it.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ...base import MXNetError, ShapeError
from ...context import Context, cpu
from ...resource import ResourceRequest, request
from ..param import Param, field
from ..registry import Operator, OperatorProperty, register, register_onnx
from ..req import assign
from ..sparse.forms import SparseForm
from ..sparse.storage import csr_from_parts, stype_of, to_dense, to_stype

__all__: list[str] = []

_ID = np.int64


def _parts(value: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(data, indices, indptr)`` of a CSR kernel value (a dense value: of its CSR)."""
    m = value if stype_of(value) == "csr" else to_stype(value, "csr")
    return np.asarray(m.data), np.asarray(m.indices, _ID), np.asarray(m.indptr, _ID)


def _csr(data: Any, indices: Any, indptr: Any, shape: tuple[int, int]) -> Any:
    return csr_from_parts(
        np.asarray(data), np.asarray(indices, _ID), np.asarray(indptr, _ID), shape
    )


def _output_names(n: int) -> list[str]:
    """MXNet's names for the outputs of an operator that does not name them."""
    return ["output"] if n == 1 else [f"output{i}" for i in range(n)]


class _GraphProp(OperatorProperty):
    """Shared plumbing: ``run(values)`` computes the kernel values of the outputs."""

    out_stypes: tuple[str, ...] = ()

    def output_stypes(self) -> list[str]:
        return list(self.out_stypes)

    def run(self, values: list[Any], rng: Any = None) -> list[Any]:
        raise NotImplementedError

    def create_operator(self, ctx: Context) -> Operator:
        return _DenseGraphOp(self)

    def _need(self, in_shape: list, ndims: list[int]) -> bool:
        self.check_num_inputs(in_shape)
        names = self.list_arguments()
        for name, s, nd in zip(names, in_shape, ndims):
            if s is not None and len(s) != nd:
                raise ShapeError(f"{self.where()}: {name} must be {nd}-D, got shape {tuple(s)}.")
        return all(s is not None for s in in_shape)


class _DenseGraphOp(Operator):
    """The kernel on dense arrays: zeros are not edges; sparse outputs are written dense."""

    def forward(self, op_ctx, in_data, req, out_data, aux):
        rng = op_ctx.requested[0].get_random() if op_ctx.requested else None
        for o, r, v in zip(out_data, req, self.prop.run(list(in_data), rng)):
            assign(o, r, to_dense(v).astype(o.dtype, copy=False))


def _form_infer(prop: _GraphProp, st: list[str]) -> list[str] | None:
    return prop.output_stypes() if st and st[0] == "csr" else None


def _form_compute(prop: _GraphProp, values: list[Any], out_st: list[str]) -> list[Any]:
    rng = None
    if prop.forward_resource([]):  # the dispatcher holds this resource for the kernel
        rng = request(cpu(), ResourceRequest.RANDOM).get_random()
    return prop.run(values, rng)


# every graph operator's sparse form: it computes on a CSR graph only
_GRAPH_FORM = SparseForm(_form_infer, _form_compute)


# ---- edge_id ------------------------------------------------------------------------------


@register("_contrib_edge_id")
class EdgeIdProp(_GraphProp):
    """``out[i] = data[u[i], v[i]]`` where that edge exists, else -1 (``data`` is CSR)."""

    sparse_form = _GRAPH_FORM

    out_stypes = ("default",)

    def list_arguments(self) -> list[str]:
        return ["data", "u", "v"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        data, u, v = in_shape
        known = u if u is not None else v
        if known is None and out_shape and out_shape[0] is not None:
            known = tuple(out_shape[0])
        in_shape = [data, known, known]
        if not self._need(in_shape, [2, 1, 1]):
            return None
        for s in (u, v):
            if s is not None and tuple(s) != tuple(known):
                raise ShapeError(f"{self.where()}: u and v must have one shape, got {s}, {known}.")
        return [tuple(data), tuple(known), tuple(known)], [tuple(known)], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = in_type[0] if in_type[0] is not None else (out_type or [None])[0]
        if t is None:
            return None
        u = in_type[1] if in_type[1] is not None else np.dtype(np.float32)
        v = in_type[2] if in_type[2] is not None else u
        return [t, u, v], [t], []

    def run(self, values: list[Any], rng: Any = None) -> list[Any]:
        graph, u, v = values
        data, indices, indptr = _parts(graph)
        rows, cols = graph.shape
        u = np.asarray(u).astype(_ID)
        v = np.asarray(v).astype(_ID)
        if u.size and (u.min() < 0 or u.max() >= rows or v.min() < 0 or v.max() >= cols):
            raise MXNetError(
                f"{self.where()}: u must be in [0, {rows}) and v in [0, {cols}), got "
                f"u in [{u.min()}, {u.max()}], v in [{v.min()}, {v.max()}]."
            )
        out = np.full(u.shape, -1, dtype=data.dtype)
        if not len(indices):
            return [out]
        # the position (+1) of each queried entry, 0 where there is none
        positions = csr_from_parts(np.arange(1, len(indices) + 1), indices, indptr, graph.shape)
        if positions.has_canonical_format:  # no duplicates: SciPy's lookup is exact
            at = np.asarray(positions[u, v]).reshape(u.shape) - 1
        else:  # the first of duplicates, as MXNet's find
            keys = np.repeat(np.arange(rows, dtype=_ID), np.diff(indptr)) * cols + indices
            order = np.argsort(keys, kind="stable")
            want = u * cols + v
            found = np.minimum(np.searchsorted(keys[order], want), len(keys) - 1)
            at = np.where(keys[order[found]] == want, order[found], -1)
        out[at >= 0] = data[at[at >= 0]]
        return [out]


# ---- dgl_adjacency --------------------------------------------------------------------


@register("_contrib_dgl_adjacency")
class DGLAdjacencyProp(_GraphProp):
    """The graph's adjacency matrix: its CSR pattern with float32 ones as values."""

    sparse_form = _GRAPH_FORM

    out_stypes = ("csr",)

    def list_arguments(self) -> list[str]:
        return ["data"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        s = in_shape[0] if in_shape[0] is not None else (out_shape or [None])[0]
        if s is None:
            return None
        return [tuple(s)], [tuple(s)], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = in_type[0]
        if t is not None and np.dtype(t) != np.int64:
            raise MXNetError(f"{self.where()}: data must be int64 (edge ids), got {np.dtype(t)}.")
        return [np.dtype(np.int64)], [np.dtype(np.float32)], []

    def run(self, values: list[Any], rng: Any = None) -> list[Any]:
        _, indices, indptr = _parts(values[0])
        ones = np.ones(len(indices), np.float32)
        return [_csr(ones, indices.copy(), indptr.copy(), values[0].shape)]


# ---- dgl_subgraph ---------------------------------------------------------------------


class DGLSubgraphParam(Param):
    num_args: int = field(low=2, doc="Number of input arguments, including all symbol inputs.")
    return_mapping: bool = field(
        doc="Return mapping of vid and eid between the subgraph and the parent graph."
    )


def _induced(data, indices, indptr, n, vids):
    """The subgraph induced by the sorted vertex ids ``vids``: (indices, indptr, old eids)."""
    if len(vids) and (vids.min() < 0 or vids.max() >= n):
        raise MXNetError(f"dgl_subgraph: vertex ids must be in [0, {n}), got {vids.tolist()}.")
    if np.any(np.diff(vids) < 0):
        raise MXNetError("dgl_subgraph: the input vertex list has to be sorted.")
    new_id = np.full(n, -1, _ID)
    new_id[vids] = np.arange(len(vids), dtype=_ID)
    starts, ends = indptr[vids], indptr[vids + 1]
    lens = ends - starts
    pos = np.repeat(starts - np.cumsum(lens) + lens, lens) + np.arange(lens.sum(), dtype=_ID)
    mapped = new_id[indices[pos]]
    keep = mapped >= 0
    row_of = np.repeat(np.arange(len(vids), dtype=_ID), lens)
    sub_indptr = np.zeros(len(vids) + 1, _ID)
    np.cumsum(np.bincount(row_of[keep], minlength=len(vids)), out=sub_indptr[1:])
    return mapped[keep], sub_indptr, data[pos[keep]]


@register("_contrib_dgl_subgraph")
class DGLSubgraphProp(_GraphProp):
    """The subgraphs induced by each vertex array; edges renumbered from 0 (and, with
    ``return_mapping``, the same subgraphs holding the parent's edge ids)."""

    sparse_form = _GRAPH_FORM

    param_class = DGLSubgraphParam
    key_var_num_args = "num_args"

    def list_arguments(self) -> list[str]:
        return ["graph"] + [f"varray{i}" for i in range(self.param.num_args - 1)]

    def list_outputs(self) -> list[str]:
        return _output_names((self.param.num_args - 1) * (2 if self.param.return_mapping else 1))

    def output_stypes(self) -> list[str]:
        return ["csr"] * self.num_outputs()

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        if not self._need(in_shape, [2] + [1] * (len(in_shape) - 1)):
            return None
        shapes = [(s[0], s[0]) for s in in_shape[1:]]
        if self.param.return_mapping:
            shapes = shapes + shapes
        return [tuple(s) for s in in_shape], shapes, []

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None:
            return None
        for name, t in zip(self.list_arguments()[1:], in_type[1:]):
            if t is not None and np.dtype(t) != np.int64:
                raise MXNetError(f"{self.where()}: {name} must be int64, got {np.dtype(t)}.")
        ins = [in_type[0]] + [np.dtype(np.int64)] * (len(in_type) - 1)
        return ins, [in_type[0]] * self.num_outputs(), []

    def run(self, values: list[Any], rng: Any = None) -> list[Any]:
        data, indices, indptr = _parts(values[0])
        n = values[0].shape[0]
        subs, maps = [], []
        for v in values[1:]:
            vids = np.asarray(v).astype(_ID).reshape(-1)
            cols, ptr, old = _induced(data, indices, indptr, n, vids)
            shape = (len(vids), len(vids))
            subs.append(_csr(np.arange(len(cols), dtype=data.dtype), cols, ptr, shape))
            maps.append(_csr(old.astype(data.dtype), cols.copy(), ptr.copy(), shape))
        return subs + (maps if self.param.return_mapping else [])


# ---- neighbour sampling -----------------------------------------------------------------


class NeighborSampleParam(Param):
    num_args: int = field(low=2, doc="Number of input NDArray.")
    num_hops: int = field(default=1, doc="Number of hops.")
    num_neighbor: int = field(default=2, doc="Number of neighbor.")
    max_num_vertices: int = field(default=100, doc="Max number of vertices.")


class _Picker:
    """Draws ``k`` distinct neighbour positions of a vertex, uniformly or in proportion to
    weights. Every vertex draws from the generator seeded afresh with the call's seed, as
    MXNet does, so in a uniform call two vertices of one degree pick the same positions (and
    the picks are kept by degree)."""

    def __init__(self, seed: int) -> None:
        self.gen = np.random.Generator(np.random.PCG64(seed))
        self.start = self.gen.bit_generator.state
        self.by_degree: dict[int, np.ndarray] = {}

    def _fresh(self) -> Any:
        self.gen.bit_generator.state = self.start
        return self.gen

    def __call__(self, n: int, k: int, weights: np.ndarray | None) -> np.ndarray:
        if weights is None:
            at = self.by_degree.get(n)
            if at is None:
                at = self.by_degree[n] = np.sort(self._fresh().choice(n, k, replace=False))
            return at
        rng = self._fresh()
        w = weights.astype(np.float64)
        pos = np.flatnonzero(w > 0)
        if len(pos) <= k:  # every weighted neighbour, the rest among the zero-weight ones
            rest = np.flatnonzero(w <= 0)
            return np.concatenate([pos, rng.choice(rest, k - len(pos), replace=False)])
        return rng.choice(n, k, replace=False, p=w / w.sum())


def _sample(graph: Any, seeds: Any, prob: Any, p: Any, seed: int, where: str) -> list[Any]:
    """One seed array's sampled subgraph: ids (+count), CSR, [probabilities,] layers."""
    data, indices, indptr = _parts(graph)
    n = graph.shape[0]
    seeds = np.asarray(seeds).astype(_ID).reshape(-1)
    maxv = p.max_num_vertices
    if len(seeds) > maxv:
        raise MXNetError(f"{where}: {len(seeds)} seeds exceed max_num_vertices={maxv}.")
    if len(seeds) and (seeds.min() < 0 or seeds.max() >= n):
        raise MXNetError(f"{where}: seed vertices must be in [0, {n}), got {seeds.tolist()}.")
    pick = _Picker(seed)
    seen: set[int] = set()
    queue: list[tuple[int, int]] = []
    for s in seeds.tolist():
        if s not in seen:
            seen.add(s)
            queue.append((s, 0))
    picked: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    i = 0
    while i < len(queue) and len(seen) < maxv:
        vid, level = queue[i]
        i += 1
        if level >= p.num_hops:
            continue
        lo, hi = int(indptr[vid]), int(indptr[vid + 1])
        cols, eids = indices[lo:hi], data[lo:hi]
        if hi - lo > p.num_neighbor:
            w = None if prob is None else prob[cols]
            at = pick(hi - lo, p.num_neighbor, w)
            cols, eids = cols[at], eids[at]
            if prob is not None:  # MXNet sorts the vertices and the edge ids each on its own
                cols, eids = np.sort(cols), np.sort(eids)
        picked[vid] = (cols, eids)
        for c in cols.tolist():
            if len(seen) >= maxv:
                break
            if c not in seen:
                seen.add(c)
                queue.append((c, level + 1))
    if any(level < p.num_hops for _, level in queue[i:]):
        warnings.warn(
            f"{where}: the sampling is truncated because it reached max_num_vertices={maxv}; "
            "use fewer seeds or a smaller neighbourhood.",
            stacklevel=2,
        )
    queue.sort()
    nv = len(queue)
    ids = np.zeros(maxv + 1, _ID)
    layers = np.zeros(maxv, _ID)
    ids[:nv] = [q[0] for q in queue]
    layers[:nv] = [q[1] for q in queue]
    ids[maxv] = nv
    empty = (indices[:0], data[:0])
    rows = [picked.get(v, empty) for v in ids[:nv].tolist()]
    indptr_out = np.zeros(maxv + 1, _ID)
    indptr_out[1 : nv + 1] = np.cumsum([len(r[0]) for r in rows])
    indptr_out[nv + 1 :] = indptr_out[nv]
    cat = np.concatenate
    sub = _csr(
        cat([r[1] for r in rows] + [data[:0]]),
        cat([r[0] for r in rows] + [indices[:0]]),
        indptr_out,
        (maxv, graph.shape[1]),
    )
    outs = [ids, sub]
    if prob is not None:
        sub_prob = np.zeros(maxv, prob.dtype)
        sub_prob[:nv] = prob[ids[:nv]]
        outs.append(sub_prob)
    return outs + [layers]


class _SampleProp(_GraphProp):
    sparse_form = _GRAPH_FORM
    param_class = NeighborSampleParam
    key_var_num_args = "num_args"
    n_lead = 1  # the arguments before the seed arrays
    parts = ("sample_id", "sub_csr", "sub_layer")

    def num_graphs(self) -> int:
        return self.param.num_args - self.n_lead

    def list_outputs(self) -> list[str]:
        return _output_names(len(self.parts) * self.num_graphs())

    def output_stypes(self) -> list[str]:
        return [
            "csr" if part == "sub_csr" else "default"
            for part in self.parts
            for _ in range(self.num_graphs())
        ]

    def forward_resource(self, in_shape: list) -> list[Any]:
        return [ResourceRequest.RANDOM]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        if not self._need(in_shape, [2] + [1] * (len(in_shape) - 1)):
            return None
        g = tuple(in_shape[0])
        if g[0] != g[1]:
            raise ShapeError(f"{self.where()}: the graph must be square, got shape {g}.")
        m = self.param.max_num_vertices
        sizes = {"sample_id": (m + 1,), "sub_csr": (m, g[1])}
        outs = [sizes.get(part, (m,)) for part in self.parts for _ in range(self.num_graphs())]
        return [tuple(s) for s in in_shape], outs, []

    def infer_type(self, in_type: list, out_type: list | None = None):
        if any(t is None for t in in_type):
            return None
        seed_t = in_type[self.n_lead]
        kinds = {"sub_csr": in_type[0], "sub_probability": in_type[1]}
        outs = [kinds.get(part, seed_t) for part in self.parts for _ in range(self.num_graphs())]
        return list(in_type), outs, []

    def run(self, values: list[Any], rng: Any = None) -> list[Any]:
        seed = int(rng.integers(0, 2**32)) if rng is not None else 0
        prob = np.asarray(values[1]) if self.n_lead == 2 else None
        if prob is not None and np.any(prob < 0):
            raise MXNetError(f"{self.where()}: probability must be non-negative.")
        per = [
            _sample(values[0], s, prob, self.param, seed, self.where())
            for s in values[self.n_lead :]
        ]
        return [g[k] for k in range(len(self.parts)) for g in per]


@register("_contrib_dgl_csr_neighbor_uniform_sample")
class CSRNeighborUniformSampleProp(_SampleProp):
    """Samples subgraphs from a CSR graph by a breadth-first walk from each seed array, taking
    at most ``num_neighbor`` uniformly chosen neighbours of a vertex, ``num_hops`` hops deep and
    ``max_num_vertices`` vertices in all. Per seed array: the sorted vertex ids (the last
    element holds their number), the sampled edges as a CSR of the parent's vertex and edge ids,
    and each vertex's hop."""

    def list_arguments(self) -> list[str]:
        return ["csr_matrix"] + [f"seed_arrays{i}" for i in range(self.num_graphs())]


@register("_contrib_dgl_csr_neighbor_non_uniform_sample")
class CSRNeighborNonUniformSampleProp(_SampleProp):
    """As ``dgl_csr_neighbor_uniform_sample``, with neighbours drawn in proportion to
    ``probability`` (one weight per vertex); the outputs add each vertex's probability."""

    n_lead = 2
    parts = ("sample_id", "sub_csr", "sub_probability", "sub_layer")

    def list_arguments(self) -> list[str]:
        args = ["csr_matrix", "probability"]
        return args + [f"seed_arrays{i}" for i in range(self.num_graphs())]


# ---- dgl_graph_compact --------------------------------------------------------------------


class SubgraphCompactParam(Param):
    num_args: int = field(low=2, doc="Number of input arguments.")
    return_mapping: bool = field(
        doc="Return mapping of vid and eid between the subgraph and the parent graph."
    )
    graph_sizes: tuple[int, ...] = field(doc="the number of vertices in each graph.")


@register("_contrib_dgl_graph_compact")
class DGLGraphCompactProp(_GraphProp):
    """Compacts sampled CSR graphs: drops the empty rows past ``graph_sizes`` and renumbers the
    columns by each vertex's position in its vertex id array; edges renumbered from 0."""

    sparse_form = _GRAPH_FORM

    param_class = SubgraphCompactParam
    key_var_num_args = "num_args"

    def num_graphs(self) -> int:
        return self.param.num_args // 2

    def list_arguments(self) -> list[str]:
        n = self.num_graphs()
        return [f"graph{i}" for i in range(n)] + [f"varray{i}" for i in range(n)]

    def list_outputs(self) -> list[str]:
        return _output_names(self.num_graphs() * (2 if self.param.return_mapping else 1))

    def output_stypes(self) -> list[str]:
        return ["csr"] * self.num_outputs()

    def _sizes(self) -> tuple[int, ...]:
        sizes = self.param.graph_sizes
        if len(sizes) < self.num_graphs():
            raise MXNetError(
                f"{self.where()}: graph_sizes needs {self.num_graphs()} sizes, got {sizes}."
            )
        return sizes

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        n = self.num_graphs()
        if not self._need(in_shape, [2] * n + [1] * n):
            return None
        sizes = self._sizes()
        for i in range(n):
            g, v = in_shape[i], in_shape[n + i]
            if min(g[0], g[1], v[0]) < sizes[i]:
                raise ShapeError(
                    f"{self.where()}: graph{i} {tuple(g)} and varray{i} {tuple(v)} must hold "
                    f"graph_sizes[{i}] = {sizes[i]} vertices."
                )
        outs = [(s, s) for s in sizes[:n]]
        return [tuple(s) for s in in_shape], outs * (2 if self.param.return_mapping else 1), []

    def infer_type(self, in_type: list, out_type: list | None = None):
        for name, t in zip(self.list_arguments(), in_type):
            if t is not None and np.dtype(t) != np.int64:
                raise MXNetError(f"{self.where()}: {name} must be int64, got {np.dtype(t)}.")
        i64 = np.dtype(np.int64)
        return [i64] * len(in_type), [i64] * self.num_outputs(), []

    def run(self, values: list[Any], rng: Any = None) -> list[Any]:
        n = self.num_graphs()
        sizes = self._sizes()
        outs, maps = [], []
        for i in range(n):
            _, indices, indptr = _parts(values[i])
            vids = np.asarray(values[n + i]).astype(_ID).reshape(-1)
            size = sizes[i]
            if len(vids) != len(indptr) or vids[-1] != size:
                raise MXNetError(
                    f"{self.where()}: varray{i} must be the sampler's vertex ids ("
                    f"{len(indptr)} elements, the last = graph_sizes[{i}] = {size}), got "
                    f"{len(vids)} elements ending with {vids[-1] if len(vids) else None}."
                )
            order = np.argsort(vids[:size], kind="stable")
            at = np.searchsorted(vids[:size], indices, sorter=order)
            at = np.minimum(at, max(size - 1, 0))
            if size == 0 or np.any(vids[order[at]] != indices):
                raise MXNetError(f"{self.where()}: graph{i} has a column not in varray{i}.")
            cols = order[at].astype(_ID)
            shape = (size, size)
            outs.append(_csr(np.arange(len(cols), dtype=_ID), cols, indptr[: size + 1], shape))
            maps.append(_csr(np.zeros(0, _ID), np.zeros(0, _ID), np.zeros(size + 1, _ID), shape))
        return outs + (maps if self.param.return_mapping else [])


for _name in (
    "_contrib_edge_id _contrib_dgl_adjacency _contrib_dgl_subgraph "
    "_contrib_dgl_csr_neighbor_uniform_sample _contrib_dgl_csr_neighbor_non_uniform_sample "
    "_contrib_dgl_graph_compact"
).split():
    register_onnx(_name, why_not="its graph is a CSR matrix; ONNX has no sparse tensors.")
