"""Ordering and related operators: ``sort``, ``argsort``, ``topk``, ``cumsum``
(``_np_cumsum``), ``_histogram`` and ``khatri_rao``.

Design note
-----------
``sort``, ``argsort`` and ``topk`` share one kernel (:func:`_order`): move the axis last (or
flatten for ``axis=None``), sort the indices stably, take the first ``k``. As in MXNet,
``sort`` and ``topk(ret_typ='value')`` have a second, hidden output holding the int32 indices,
which their backward reads to scatter the head gradient back (MXNet's ``_backward_topk``);
``argsort`` and ``topk`` indices/mask have a zero gradient.

Ties: MXNet sorts with ``std::sort`` / ``std::partial_sort``, whose order among equal values
is unspecified. Here equal values keep their original order (descending sorts too), which is
what MXNet 1.9.1 gives for full sorts of up to 16 elements and for ``k=1``; longer rows with
ties may list equal values' indices in another order than MXNet (the values agree).

``_histogram`` is what ``mx.nd.histogram`` calls: with ``bin_cnt`` and ``range`` it counts
into equal bins using MXNet's bin arithmetic, otherwise into the edges given as input
``bins``. ``khatri_rao`` is the column-wise Kronecker product of its (variadic) inputs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import DTypeError, ParamError, Shape, ShapeError
from ...context import Context
from ...util import is_np_shape
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, register, shape_is_known
from ..req import OpReq, assign

__all__ = [
    "TopKParam",
    "SortParam",
    "ArgSortParam",
    "CumsumParam",
    "HistogramParam",
    "KhatriRaoParam",
]

_INDEX_DTYPES = ("uint8", "int32", "int64", "float16", "float32", "float64")
_HIDDEN_INDEX = np.dtype(np.int32)  # MXNet 1.9.1 wheels: index_t is int32 (no INT64_TENSOR_SIZE)


def _known(shape: Shape | None) -> bool:
    """Whether ``shape`` is known; under NumPy shape semantics a 0 dim is an empty axis, not an
    unknown one (``np.sort`` of a zero-size array)."""
    return shape_is_known(shape) or (shape is not None and is_np_shape())


class TopKParam(Param):
    axis: int | None = field(
        default=-1,
        doc="Axis along which to choose the top k indices. If not given, the flattened array "
        "is used. Default is -1.",
    )
    k: int = field(
        default=1,
        doc="Number of top elements to select, should be always smaller than or equal to the "
        "element number in the given axis. A global sort is performed if set k < 1.",
    )
    ret_typ: str = field(
        default="indices",
        choices=("value", "indices", "mask", "both"),
        doc='The return type. "value": the top k values, "indices": their indices, "mask": '
        '1 at the top k positions and 0 elsewhere, "both": values and indices.',
    )
    is_ascend: bool = field(
        default=False,
        doc="Whether to choose k largest or k smallest elements. Top K largest elements will "
        "be chosen if set to false.",
    )
    dtype: str = field(
        default="float32",
        choices=_INDEX_DTYPES,
        doc='DType of the output indices when ret_typ is "indices" or "both".',
    )


class SortParam(Param):
    axis: int | None = field(
        default=-1,
        doc="Axis along which to choose sort the input tensor. If not given, the flattened "
        "array is used. Default is -1.",
    )
    is_ascend: bool = field(default=True, doc="Whether to sort in ascending or descending order.")


class ArgSortParam(Param):
    axis: int | None = field(
        default=-1,
        doc="Axis along which to sort the input tensor. If not given, the flattened array is "
        "used. Default is -1.",
    )
    is_ascend: bool = field(default=True, doc="Whether to sort in ascending or descending order.")
    dtype: str = field(default="float32", choices=_INDEX_DTYPES, doc="DType of the output indices.")


# ---- sort, argsort, topk --------------------------------------------------------------------


def _topk_layout(
    op: str, shape: Shape, axis: int | None, k: int, mask: bool
) -> tuple[int | None, int, Shape]:
    """(normalised axis or None, k, output shape) as MXNet's ParseTopKParam computes them."""
    if axis is None:
        n = int(np.prod(shape, dtype=np.int64))
        a = None
    else:
        ndim = len(shape)
        if not -ndim <= axis < ndim:
            raise ShapeError(
                f"{op}: argument 'axis' {axis} is out of range for an input of "
                f"shape {tuple(shape)}."
            )
        a = axis % ndim
        n = shape[a]
    kk = n if k <= 0 else k
    if kk > n:
        raise ShapeError(
            f"{op}: argument 'k' ({k}) must not exceed the {n} elements along the "
            f"axis of an input of shape {tuple(shape)}."
        )
    if mask:
        return a, kk, tuple(shape)
    if a is None:
        return a, kk, (kk,)
    return a, kk, tuple(shape[:a]) + (kk,) + tuple(shape[a + 1 :])


def _order(xp: Any, x: Any, axis: int | None, k: int, ascend: bool) -> Any:
    """Indices (int64) of the first ``k`` elements along the last axis of the moved view;
    returns (moved data, indices) with the sorted axis last."""
    v = x.reshape(-1) if axis is None else xp.moveaxis(x, axis, -1)
    n = v.shape[-1]
    if (
        xp is np
        and 0 < k * 8 <= n
        and v.dtype.kind in "fiu"
        and not (v.dtype.kind == "f" and np.isnan(v).any())
    ):
        idx = _first_few(v, k, ascend) if k <= _FEW else None
        return v, _first_k(v, k, ascend) if idx is None else idx
    if ascend:
        idx = xp.argsort(v, axis=-1, kind="stable")
    else:
        # stable descending: sort the reversed row ascending, then read it backwards
        n = v.shape[-1]
        idx = (n - 1) - xp.argsort(v[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    return v, idx[..., :k]


_FEW = 8  # from this k on, _first_k's partition; below, _first_few's k arg-extrema


def _first_few(v: Any, k: int, ascend: bool) -> Any:
    """What the stable sort gives for the first ``k`` of each last-axis row of ``v`` (no NaN):
    ``k`` passes of argmax (argmin), whose first extremum among equals is the stable order's,
    each taking its pick out of a copy with the dtype's far end; None where a row reaches
    that end (its ties with the taken ones would be ambiguous). (256, 1000) float32, k=5: the
    full sort 12.9 ms, this 0.4."""
    rows = v.reshape(-1, v.shape[-1]).copy()
    if rows.dtype.kind == "f":
        end = np.inf if ascend else -np.inf
    else:
        end = np.iinfo(rows.dtype).max if ascend else np.iinfo(rows.dtype).min
    at = np.arange(len(rows))
    out = np.empty((len(rows), k), np.int64)
    for j in range(k):
        i = rows.argmin(axis=1) if ascend else rows.argmax(axis=1)
        if (rows[at, i] == end).any():
            return None
        out[:, j] = i
        rows[at, i] = end
    return out.reshape(v.shape[:-1] + (k,))


def _first_k(v: Any, k: int, ascend: bool) -> Any:
    """What the stable sort gives for the first ``k`` of each last-axis row of ``v`` (no NaN),
    through a partition: the values strictly before the k-th, then the earliest of those
    equal to it, in index order, then a stable sort of those ``k`` alone ((256, 1000)
    float32, k=50: the full sort 12.9 ms, this ~2)."""
    n = v.shape[-1]
    rows = v.reshape(-1, n)
    kth = k - 1 if ascend else n - k
    bound = np.partition(rows, kth, axis=-1)[:, kth : kth + 1]
    keep = rows < bound if ascend else rows > bound
    tie = rows == bound
    need = k - np.count_nonzero(keep, axis=1).reshape(-1, 1)
    if (np.count_nonzero(tie, axis=1).reshape(-1, 1) == need).all():
        keep |= tie  # (the usual case: every value equal to the k-th is taken)
    else:
        keep |= tie & (np.cumsum(tie, axis=1) <= need)
    cand = np.nonzero(keep)[1].reshape(-1, k)  # each row keeps exactly k, in index order
    vals = np.take_along_axis(rows, cand, axis=1)
    if ascend:
        order = np.argsort(vals, axis=1, kind="stable")
    else:  # stable descending, as _order's: the reversed row ascending, read backwards
        order = (k - 1) - np.argsort(vals[:, ::-1], axis=1, kind="stable")[:, ::-1]
    return np.take_along_axis(cand, order, axis=1).reshape(v.shape[:-1] + (k,))


def _restore(xp: Any, a: Any, axis: int | None) -> Any:
    return a if axis is None else xp.moveaxis(a, -1, axis)


class _OrderOperator(Operator):
    """Runs sort, argsort and topk: ``prop.mode()`` says which outputs to write."""

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        xp, prop, x = self.xp, self.prop, in_data[0]
        axis, k, _ = prop.layout(x.shape)
        ret, ascend = prop.mode()
        v, idx = _order(xp, x, axis, k, ascend)
        if ret == "mask":
            m = xp.zeros(v.shape, dtype=x.dtype)
            xp.put_along_axis(m, idx, 1, axis=-1)
            assign(out_data[0], req[0], _restore(xp, m, axis).reshape(out_data[0].shape))
            return
        if ret == "indices":
            assign(out_data[0], req[0], _restore(xp, idx, axis).astype(out_data[0].dtype))
            return
        vals = xp.take_along_axis(v, idx, axis=-1)
        assign(out_data[0], req[0], _restore(xp, vals, axis))
        assign(out_data[1], req[1], _restore(xp, idx, axis).astype(out_data[1].dtype))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        xp, prop, dx = self.xp, self.prop, in_grad[0]
        if req[0] == OpReq.NULL:
            return
        ret, _ = prop.mode()
        if ret in ("indices", "mask"):
            assign(dx, req[0], 0)
            return
        axis, _, _ = prop.layout(dx.shape)
        idx = out_data[1].astype(np.int64)
        og = out_grad[0]
        if axis is None:
            g = xp.zeros(dx.size, dtype=dx.dtype)
            g[idx] = og
        else:
            g = xp.zeros(xp.moveaxis(dx, axis, -1).shape, dtype=dx.dtype)
            xp.put_along_axis(g, xp.moveaxis(idx, axis, -1), xp.moveaxis(og, axis, -1), axis=-1)
            g = xp.moveaxis(g, -1, axis)
        assign(dx, req[0], g.reshape(dx.shape))


class _OrderProp(OperatorProperty):
    no_float16 = True

    def mode(self) -> tuple[str, bool]:
        raise NotImplementedError

    def k(self) -> int:
        return 0

    def layout(self, shape: Shape) -> tuple[int | None, int, Shape]:
        return _topk_layout(
            self.op_name, shape, self.param.axis, self.k(), self.mode()[0] == "mask"
        )

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        ishape = in_shape[0]
        if not _known(ishape):
            return None
        out = self.layout(ishape)[2]
        return [ishape], [out] * self.num_outputs(), []

    def index_dtype(self) -> np.dtype:
        return np.dtype(self.param.dtype) if hasattr(self.param, "dtype") else _HIDDEN_INDEX

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = in_type[0]
        if t is None:
            return None
        if self.no_float16 and t == np.float16:
            raise DTypeError(
                f"{self.op_name}: argument 'data' has dtype float16, which this "
                f"operator does not support; use float32 or float64."
            )
        ret = self.mode()[0]
        if ret == "indices":
            return [t], [self.index_dtype()], []
        if ret == "mask":
            return [t], [t], []
        return [t], [t, self.index_dtype()], []

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list:
        if self.mode()[0] in ("indices", "mask"):
            return []
        return [out_grad[0], out_data[1]]

    def create_operator(self, ctx: Context) -> Operator:
        return _OrderOperator(self, ctx.xp)


@register("sort", aliases=("_npi_sort",))
class SortProp(_OrderProp):
    """Returns a sorted copy of an input array along the given axis (flattened for None)."""

    fluent = ("sort",)

    param_class = SortParam
    test = OpTest(shapes={"data": (3, 5)})

    def mode(self) -> tuple[str, bool]:
        return "value", self.param.is_ascend

    def index_dtype(self) -> np.dtype:
        return _HIDDEN_INDEX

    def list_outputs(self) -> list[str]:
        return ["output0", "output1"]

    def num_visible_outputs(self) -> int:
        return 1


@register("argsort", aliases=("_npi_argsort",))
class ArgSortProp(_OrderProp):
    """Returns the indices that would sort an input array along the given axis."""

    fluent = ("argsort",)

    param_class = ArgSortParam
    test = OpTest(shapes={"data": (3, 5)}, grad=False)

    def mode(self) -> tuple[str, bool]:
        return "indices", self.param.is_ascend


@register("topk", aliases=("_npx_topk",))
class TopKProp(_OrderProp):
    """Returns the top *k* elements (indices, values, a mask, or both) along an axis."""

    fluent = ("topk",)

    param_class = TopKParam
    no_float16 = False
    test = OpTest(shapes={"data": (3, 5)}, params={"k": 2, "ret_typ": "value"})

    def mode(self) -> tuple[str, bool]:
        return self.param.ret_typ, self.param.is_ascend

    def k(self) -> int:
        return self.param.k

    def index_dtype(self) -> np.dtype:
        return _HIDDEN_INDEX if self.param.ret_typ == "value" else np.dtype(self.param.dtype)

    def list_outputs(self) -> list[str]:
        return ["output0", "output1"] if self.param.ret_typ in ("value", "both") else ["output"]

    def num_visible_outputs(self) -> int:
        return 2 if self.param.ret_typ == "both" else 1


# ---- cumsum ---------------------------------------------------------------------------------


class CumsumParam(Param):
    axis: int | None = field(
        default=None,
        doc="Axis along which the cumulative sum is computed. The default (None) is to compute "
        "the cumsum over the flattened array.",
    )
    dtype: str | None = field(
        default=None,
        choices=("float16", "float32", "float64", "int8", "int32", "int64"),
        doc="Type of the returned array and of the accumulator in which the elements are "
        "summed. If dtype is not specified, it defaults to the dtype of a (int64 for bool).",
    )


class _CumsumOperator(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        if req[0] == OpReq.NULL:
            return
        xp, x, out = self.xp, in_data[0], out_data[0]
        axis = self.prop.param.axis
        y = xp.cumsum(x.reshape(-1) if axis is None else x, axis=axis or 0, dtype=out.dtype)
        assign(out, req[0], y)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        if req[0] == OpReq.NULL:
            return
        xp, dx = self.xp, in_grad[0]
        axis = self.prop.param.axis
        g = out_grad[0]
        a = 0 if axis is None else axis
        rev = xp.flip(xp.cumsum(xp.flip(g, axis=a), axis=a), axis=a)
        assign(dx, req[0], rev.reshape(dx.shape).astype(dx.dtype, copy=False))


@register("_np_cumsum", aliases=("cumsum",))
class CumsumProp(OperatorProperty):
    """Return the cumulative sum of the elements along a given axis."""

    lists_input_names = True
    np_signature = "(a, axis=None, dtype=None, out=None)"

    param_class = CumsumParam
    test = OpTest(shapes={"a": (3, 4)}, params={"axis": 1})

    def list_arguments(self) -> list[str]:
        return ["a"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        ishape = in_shape[0]
        if not _known(ishape):
            return None
        axis = self.param.axis
        if axis is None:
            return [ishape], [(int(np.prod(ishape, dtype=np.int64)),)], []
        if not -len(ishape) <= axis < len(ishape):
            raise ShapeError(
                f"cumsum: argument 'axis' {axis} is out of range for an input of "
                f"shape {tuple(ishape)}."
            )
        return [ishape], [ishape], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = in_type[0]
        if t is None:
            return None
        if self.param.dtype is not None:
            return [t], [np.dtype(self.param.dtype)], []
        return [t], [np.dtype(np.int64) if t == np.bool_ else t], []

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list:
        return [out_grad[0]]

    def forward_inplace_option(self, in_data, out_data) -> list:
        same = self.param.axis is not None and self.param.dtype is None
        return [(in_data[0], out_data[0])] if same else []

    def create_operator(self, ctx: Context) -> Operator:
        return _CumsumOperator(self, ctx.xp)


# ---- _histogram -----------------------------------------------------------------------------


class HistogramParam(Param):
    bin_cnt: int | None = field(default=None, doc="Number of bins for uniform case")
    range: tuple[float, ...] | None = field(
        default=None,
        doc="The lower and upper range of the bins; values outside the range are ignored. "
        "The first element of the range must be less than or equal to the second.",
    )


class _HistogramOperator(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        xp, p = self.xp, self.prop.param
        x = in_data[0].reshape(-1)
        counts, edges = out_data
        if p.bin_cnt is not None:
            n = p.bin_cnt
            lo, hi = float(p.range[0]), float(p.range[1])
            if lo == hi:
                lo, hi = lo - 0.5, hi + 0.5
            i = xp.arange(n + 1, dtype=np.float64)
            bounds = ((hi * i + (n - i) * lo) / n).astype(x.dtype)
            xd = x.astype(np.float64)
            inside = (xd >= lo) & (xd <= hi)
            # MXNet's bin arithmetic: a first guess from the width, then a correction by one
            # against the stored (rounded) edges.
            with np.errstate(invalid="ignore"):
                t = xp.where(inside, (xd - lo) * n / (hi - lo), 0)
            t = xp.minimum(t.astype(np.int64), n - 1)
            t = t - (x < bounds[t])
            tc = xp.clip(t, 0, n - 1)
            t = t + ((x >= bounds[tc + 1]) & (t != n - 1))
        else:
            bounds = in_data[1]
            n = bounds.shape[0] - 1
            inside = (x >= bounds[0]) & (x <= bounds[n])
            t = xp.minimum(xp.searchsorted(bounds, x, side="right") - 1, n - 1)
        t = t[inside & (t >= 0)]
        assign(counts, OpReq.WRITE, xp.bincount(t, minlength=n)[:n].astype(counts.dtype))
        assign(edges, OpReq.WRITE, bounds)


@register("_histogram", aliases=("_npi_histogram",))
class HistogramProp(OperatorProperty):
    """Histogram of the flattened data: counts (int64) and bin edges.

    ``mx.nd.histogram(a, bins=10, range=None)`` calls ``_histogram(data=a, bins=bins)`` when
    ``bins`` is an NDArray of edges and ``_histogram(data=a, bin_cnt=bins, range=range)`` when
    it is an int with a range.
    """

    lists_input_names = True

    param_class = HistogramParam
    test = OpTest(
        shapes={"data": (4, 5)},
        params={"bin_cnt": 4, "range": (-1.0, 1.0)},
        grad=False,
        accumulates=False,
    )

    def _uniform(self) -> bool:
        p = self.param
        if (p.bin_cnt is None) != (p.range is None):
            raise ParamError(
                "_histogram: arguments 'bin_cnt' and 'range' must both be given "
                "or both be left out."
            )
        if p.range is not None:
            if len(p.range) != 2:
                raise ParamError(f"_histogram: argument 'range' expects 2 numbers, got {p.range}.")
            if p.range[0] > p.range[1]:
                raise ParamError(
                    f"_histogram: argument 'range' must be (low, high) with low "
                    f"<= high, got {p.range}."
                )
            if p.bin_cnt < 1:
                raise ParamError(
                    f"_histogram: argument 'bin_cnt' expects an int >= 1, got {p.bin_cnt}."
                )
        return p.bin_cnt is not None

    def list_arguments(self) -> list[str]:
        return ["data"] if self._uniform() else ["data", "bins"]

    def list_outputs(self) -> list[str]:
        return ["output0", "output1"]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        if self._uniform():
            n = self.param.bin_cnt
            return list(in_shape), [(n,), (n + 1,)], []
        bins = in_shape[1]
        if bins is None:
            return None
        if len(bins) != 1 or (bins[0] and bins[0] < 2):
            raise ShapeError(
                f"_histogram: argument 'bins' must be a 1-D array of at least 2 "
                f"edges, got shape {bins}."
            )
        if not bins[0]:
            return None
        return list(in_shape), [(bins[0] - 1,), bins], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        t = in_type[0]
        if t is None:
            return None
        if len(in_type) > 1 and in_type[1] is not None and in_type[1] != t:
            raise DTypeError(
                f"_histogram: argument 'bins' has dtype {np.dtype(in_type[1]).name}"
                f"; expected {np.dtype(t).name} like 'data'."
            )
        return [t] * len(in_type), [np.dtype(np.int64), t], []

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list:
        return []

    def create_operator(self, ctx: Context) -> Operator:
        return _HistogramOperator(self, ctx.xp)


# ---- khatri_rao -----------------------------------------------------------------------------


class KhatriRaoParam(Param):
    num_args: int = field(doc="Number of input matrices.", low=1)


class _KhatriRaoOperator(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        out = in_data[0]
        cols = out.shape[1]
        for m in in_data[1:]:
            out = (out[:, None, :] * m[None, :, :]).reshape(-1, cols)
        assign(out_data[0], req[0], out)


@register("khatri_rao")
class KhatriRaoProp(OperatorProperty):
    """Computes the (column-wise) Khatri-Rao product of the input matrices.

    Row ``i1 * M2 * ... + i2 * ... + in`` of column ``k`` is ``A1[i1, k] * ... * An[in, k]``.
    """

    param_class = KhatriRaoParam
    key_var_num_args = "num_args"
    test = OpTest(shapes={"arg0": (2, 3), "arg1": (4, 3)}, params={"num_args": 2}, grad=False)

    def list_arguments(self) -> list[str]:
        return [f"arg{i}" for i in range(self.param.num_args)]

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        if any(s is None for s in in_shape):
            return None
        rows = 1
        cols = in_shape[0][1] if len(in_shape[0]) == 2 else None
        for i, s in enumerate(in_shape):
            if len(s) != 2 or s[1] != cols:
                raise ShapeError(
                    f"khatri_rao: argument 'arg{i}' has shape {s}; every input "
                    f"must be a matrix with {cols} columns like 'arg0'."
                )
            rows *= s[0]
        return list(in_shape), [(rows, cols)], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        res = super().infer_type(in_type, out_type)
        if res is not None and res[1][0].kind != "f":
            raise DTypeError(
                f"khatri_rao: the inputs have dtype {res[1][0].name}; khatri_rao "
                f"accepts float16, float32, float64."
            )
        return res

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list:
        return []

    def create_operator(self, ctx: Context) -> Operator:
        return _KhatriRaoOperator(xp=ctx.xp)
