"""The import table, continued: shape, indexing, reduction and creation operators (see
_import.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ._importer import Importer, _importer

INT_MAX = np.iinfo(np.int64).max // 2  # ends at or past this mean "to the end"


@_importer("Flatten")
def _flatten(im: Importer) -> Any:
    axis = im.attr("axis", 1)
    if axis == 1:
        return im.sym.Flatten(im.x(0), name=im.name())
    out = im.shapes.get(im.node.output[0])
    if axis == 0:
        return im.sym.Reshape(im.x(0), shape=(1, -1), name=im.name())
    if out is None or out[1] is None:
        raise im.fail(f"Flatten(axis={axis}) needs a static size after the axis.")
    return im.sym.Reshape(im.x(0), shape=(-1, out[1]), name=im.name())


def _shape_input(im: Importer, like_op: str) -> tuple[Any, list[int]]:
    """Reshape's and Expand's input 1, the target shape: when it is the ``Shape`` of a tensor
    known here, ``like_op`` of input 0 and that tensor (and no list), else the constant."""
    src = im.shape_of.get(im.node.input[1])
    if src is not None:
        return getattr(im.sym, like_op)(im.x(0), im.get(src), name=im.name()), []
    return None, [int(d) for d in im.const(1)]


@_importer("Reshape")
def _reshape(im: Importer) -> Any:
    like, shape = _shape_input(im, "reshape_like")
    if like is not None:
        return like
    if im.attr("allowzero", 0) and 0 in shape:
        raise im.fail("allowzero=1 with a 0 in the shape has no MXNet equivalent.")
    return im.sym.Reshape(im.x(0), shape=tuple(shape), name=im.name())


@_importer("Concat")
def _concat(im: Importer) -> Any:
    xs = [im.x(i) for i in range(len(im.node.input))]
    return im.sym.Concat(*xs, dim=im.attr("axis"), num_args=len(xs), name=im.name())


@_importer("Split")
def _split(im: Importer) -> Any:
    axis = im.attr("axis", 0)
    n = len(im.node.output)
    sizes = im.const(1)
    if sizes is None:
        sizes = im.attr("split")
    if sizes is None or len(set(int(s) for s in sizes)) == 1:
        y = im.sym.SliceChannel(im.x(0), num_outputs=n, axis=axis, name=im.name())
    else:
        idx = tuple(int(v) for v in np.cumsum([0, *sizes[:-1]]))
        y = im.op("_split_v2")(im.x(0), indices=idx, axis=axis, name=im.name())
    return [y[k] for k in range(n)] if n > 1 else y


@_importer("Transpose")
def _transpose(im: Importer) -> Any:
    perm = im.attr("perm")
    return im.sym.transpose(im.x(0), axes=tuple(perm) if perm else (), name=im.name())


def _axes_input(im: Importer, i: int = 1, attr: str = "axes") -> list[int] | None:
    v = im.const(i) if len(im.node.input) > i else None
    if v is None:
        v = im.attr(attr)
    return None if v is None else [int(a) for a in np.atleast_1d(v)]


@_importer("Unsqueeze")
def _unsqueeze(im: Importer) -> Any:
    axes = _axes_input(im)
    rank = im.rank() + len(axes)
    y = im.x(0)
    for k, a in enumerate(sorted(a % rank for a in axes)):
        y = im.sym.expand_dims(
            y, axis=a, name=im.name() if k == len(axes) - 1 else im.name(f"_{k}")
        )
    return y


@_importer("Squeeze")
def _squeeze(im: Importer) -> Any:
    axes = _axes_input(im)
    return im.sym.squeeze(im.x(0), axis=None if axes is None else tuple(axes), name=im.name())


@_importer("Clip")
def _clip(im: Importer) -> Any:
    lo, hi = im.const(1), im.const(2)
    big = float(np.finfo(np.float32).max)
    return im.sym.clip(
        im.x(0),
        a_min=-big if lo is None else float(lo.reshape(-1)[0]),
        a_max=big if hi is None else float(hi.reshape(-1)[0]),
        name=im.name(),
    )


@_importer("Cast")
def _cast(im: Importer) -> Any:
    from onnx import helper

    dtype = np.dtype(helper.tensor_dtype_to_np_dtype(im.attr("to")))
    if dtype == np.bool_:  # MXNet keeps truth values as 0/1 numbers
        return im.op("_not_equal_scalar")(im.x(0), scalar=0.0, name=im.name())
    return im.sym.Cast(im.x(0), dtype=dtype.name, name=im.name())


@_importer("Gather")
def _gather(im: Importer) -> Any:
    axis = im.attr("axis", 0)
    idx = im.node.input[1]
    if idx in im.consts and im.consts[idx].ndim == 0:
        im.consts[idx] = im.consts[idx].reshape(1)
        y = im.sym.take(im.x(0), im.x(1), axis=axis, mode="wrap", name=im.name("_t"))
        return im.sym.squeeze(y, axis=axis, name=im.name())
    return im.sym.take(im.x(0), im.x(1), axis=axis, mode="wrap", name=im.name())


@_importer("GatherElements")
def _gather_elements(im: Importer) -> Any:
    axis = im.attr("axis", 0)
    y = im.sym.pick(im.x(0), im.x(1), axis=axis, keepdims=True, mode="wrap", name=im.name())
    return y


@_importer("Where")
def _where(im: Importer) -> Any:
    # ONNX broadcasts the three; MXNet's where wants them alike: broadcast each to the one
    # that has the output's shape
    out = im.shapes.get(im.node.output[0])
    shapes = [im.shape(i) for i in range(3)]
    xs = [im.x(i) for i in range(3)]
    full = next((k for k, s in enumerate(shapes) if s is not None and s == out), None)
    if full is None and any(s != shapes[0] for s in shapes):
        raise im.fail("its inputs broadcast, and none has the output's shape.")
    for k, s in enumerate(shapes):
        if full is None or s == out:
            continue
        x = xs[k]
        if s is None:
            raise im.fail(f"the shape of input {k} is unknown.")
        if len(s) < len(out):
            dims = (1,) * (len(out) - len(s)) + tuple(-1 if d is None else d for d in s)
            x = im.sym.Reshape(x, shape=dims, name=im.name(f"_r{k}"))
        xs[k] = im.sym.broadcast_like(x, xs[full], name=im.name(f"_b{k}"))
    return im.sym.where(*xs, name=im.name())


@_importer("Pad")
def _pad(im: Importer) -> Any:
    pads = [int(v) for v in im.const(1)]
    n = len(pads) // 2
    width = tuple(v for pair in zip(pads[:n], pads[n:]) for v in pair)
    value = im.const(2)
    return im.sym.Pad(
        im.x(0), mode=im.attr("mode", "constant"), pad_width=width,
        constant_value=0.0 if value is None else float(value.reshape(())), name=im.name(),
    )  # fmt: skip


_REDUCE = {
    "ReduceSum": "sum", "ReduceMean": "mean", "ReduceMax": "max", "ReduceMin": "min",
    "ReduceProd": "prod", "ReduceL2": "norm", "ReduceL1": "norm", "ReduceSumSquare": "sum",
}  # fmt: skip


@_importer(*_REDUCE)
def _reduce(im: Importer) -> Any:
    op = im.node.op_type
    axes = _axes_input(im)
    keep = bool(im.attr("keepdims", 1))
    x = im.x(0)
    if op == "ReduceSumSquare":
        x = im.sym.square(x, name=im.name("_sq"))
    if axes is None and im.attr("noop_with_empty_axes", 0):
        return im.op("_copy")(x, name=im.name())
    axis = None if axes is None else tuple(axes)
    if op in ("ReduceL2", "ReduceL1"):
        return im.sym.norm(im.x(0), ord=2 if op == "ReduceL2" else 1, axis=axis, keepdims=keep,
                           name=im.name())  # fmt: skip
    return getattr(im.sym, _REDUCE[op])(x, axis=axis, keepdims=keep, name=im.name())


@_importer("ArgMax", "ArgMin")
def _arg(im: Importer) -> Any:
    if im.attr("select_last_index", 0):
        raise im.fail("select_last_index=1 has no MXNet equivalent.")
    fn = im.sym.argmax if im.node.op_type == "ArgMax" else im.sym.argmin
    y = fn(im.x(0), axis=im.attr("axis", 0), keepdims=bool(im.attr("keepdims", 1)),
           name=im.name("_f"))  # fmt: skip
    return im.sym.Cast(y, dtype="int64", name=im.name())


@_importer("DepthToSpace", "SpaceToDepth")
def _depth_space(im: Importer) -> Any:
    if im.node.op_type == "DepthToSpace":
        if im.attr("mode", "DCR") != "DCR":
            raise im.fail("mode='CRD' has no MXNet equivalent.")
        return im.sym.depth_to_space(im.x(0), block_size=im.attr("blocksize"), name=im.name())
    return im.sym.space_to_depth(im.x(0), block_size=im.attr("blocksize"), name=im.name())


@_importer("Tile")
def _tile(im: Importer) -> Any:
    return im.sym.tile(im.x(0), reps=tuple(int(r) for r in im.const(1)), name=im.name())


@_importer("Expand")
def _expand(im: Importer) -> Any:
    like, shape = _shape_input(im, "broadcast_like")
    if like is not None:
        return like
    x, rank = im.x(0), im.rank()
    if len(shape) > rank:
        x = im.sym.Reshape(x, shape=(1,) * (len(shape) - rank) + (0,) * rank, name=im.name("_r"))
    src_shape = (1,) * (len(shape) - rank) + tuple(im.shape(0))
    target = tuple(0 if d == 1 else d for d in shape)
    target = tuple(0 if t == s else t for t, s in zip(target, src_shape))
    return im.sym.broadcast_to(x, shape=target, name=im.name())


@_importer("Slice")
def _slice(im: Importer) -> Any:
    starts = [int(v) for v in im.const(1)]
    ends = [int(v) for v in im.const(2)]
    rank = im.rank()
    axes = [int(a) % rank for a in im.const(3, np.arange(len(starts)))]
    steps = [int(v) for v in im.const(4, np.ones(len(starts), np.int64))]
    begin, end, step = [None] * rank, [None] * rank, [None] * rank
    for a, b, e, s in zip(axes, starts, ends, steps):
        begin[a] = None if (s < 0 and b >= INT_MAX) else b
        end[a] = None if abs(e) >= INT_MAX else e
        step[a] = s
    last = max(axes) + 1
    return im.sym.slice(
        im.x(0), begin=tuple(begin[:last]), end=tuple(end[:last]), step=tuple(step[:last]),
        name=im.name(),
    )  # fmt: skip


@_importer("Resize", "Upsample")
def _resize(im: Importer) -> Any:
    mode = im.attr("mode", "nearest")
    if mode == "linear" and im.node.op_type == "Resize" and im.rank() == 4:
        from ._import_contrib import resize_linear

        return resize_linear(im)
    if mode != "nearest":
        raise im.fail("only nearest and 4-D linear resizing have MXNet equivalents.")
    scales = im.const(2 if im.node.op_type == "Resize" else 1)
    if scales is None or len(scales) != 4 or scales[2] != scales[3] or scales[2] % 1:
        raise im.fail("UpSampling needs one integer scale on both spatial axes.")
    return im.sym.UpSampling(im.x(0), scale=int(scales[2]), sample_type="nearest", num_args=1,
                             name=im.name())  # fmt: skip


@_importer("MaxRoiPool")
def _roi_pool(im: Importer) -> Any:
    return im.sym.ROIPooling(
        im.x(0), im.x(1), pooled_size=tuple(im.attr("pooled_shape")),
        spatial_scale=im.attr("spatial_scale", 1.0), name=im.name(),
    )  # fmt: skip


@_importer("Shape")
def _shape(im: Importer) -> Any:
    return im.sym.shape_array(im.x(0), name=im.name())


@_importer("Size")
def _size(im: Importer) -> Any:
    return im.sym.size_array(im.x(0), name=im.name())


@_importer("ConstantOfShape")
def _constant_of_shape(im: Importer) -> Any:
    from onnx import numpy_helper

    value = 0.0
    for a in im.node.attribute:
        if a.name == "value":
            value = float(numpy_helper.to_array(a.t).reshape(-1)[0])
    src = im.shape_of.get(im.node.input[0])
    if src is not None:
        z = im.sym.zeros_like(im.get(src), name=im.name("_z"))
        return im.op("_plus_scalar")(z, scalar=value, name=im.name()) if value else z
    shape = tuple(int(d) for d in im.const(0))
    return im.sym.full(shape=shape, val=value, name=im.name())


@_importer("OneHot")
def _one_hot(im: Importer) -> Any:
    depth = int(np.asarray(im.const(1)).reshape(-1)[0])
    off, on = (float(v) for v in im.const(2))
    if im.attr("axis", -1) != -1:
        raise im.fail("only axis=-1 has an MXNet equivalent.")
    return im.sym.one_hot(im.x(0), depth=depth, on_value=on, off_value=off, name=im.name())


@_importer("TopK")
def _topk(im: Importer) -> Any:
    k = int(np.asarray(im.const(1)).reshape(-1)[0])
    y = im.sym.topk(
        im.x(0), k=k, axis=im.attr("axis", -1), ret_typ="both",
        is_ascend=not im.attr("largest", 1), name=im.name(),
    )  # fmt: skip
    return [y[0], im.sym.Cast(y[1], dtype="int64", name=im.name("_indices"))]


@_importer("CumSum")
def _cumsum(im: Importer) -> Any:
    if im.attr("exclusive", 0) or im.attr("reverse", 0):
        raise im.fail("exclusive and reverse sums have no MXNet equivalent.")
    axis = int(np.asarray(im.const(1)).reshape(-1)[0])
    return im.op("_np_cumsum")(im.x(0), axis=axis, name=im.name())


def _index_tuples_first(im: Importer, i: int) -> Any:
    # ONNX's index tuples run along the last axis of indices; MXNet's along the first
    n = im.rank(i)
    return im.sym.transpose(im.x(i), axes=(n - 1, *range(n - 1)), name=im.name(f"_idx{i}"))


@_importer("GatherND")
def _gather_nd(im: Importer) -> Any:
    if im.attr("batch_dims", 0):
        raise im.fail("batch_dims > 0 has no MXNet equivalent.")
    return im.sym.gather_nd(im.x(0), _index_tuples_first(im, 1), name=im.name())


@_importer("ScatterND")
def _scatter_nd(im: Importer) -> Any:
    data = im.const(0)
    if np.any(data) or im.attr("reduction", "none") != "none":
        raise im.fail("only scattering into zeros (MXNet's scatter_nd) is supported.")
    return im.sym.scatter_nd(im.x(2), _index_tuples_first(im, 1), shape=data.shape,
                             name=im.name())  # fmt: skip
