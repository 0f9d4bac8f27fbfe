"""Shared machinery of Convolution and Deconvolution: parameter checks, layouts, and the three
N-D convolution kernels (forward, data gradient, weight gradient) built on im2col.

Design note
-----------
Every kernel works in the channels-first layout ``(N, C, *S)``; channels-last layouts are
transposed at the operator's boundary. A convolution with ``G`` groups is lowered to one batched
BLAS product over a strided *window view* of the zero-padded input: ``as_strided`` gives an
``(N, C, *K, *O)`` view whose element ``[n, c, k, o]`` is ``x_pad[n, c, o*stride + k*dilate]``;
one contiguous copy of it is the im2col matrix ``cols`` of shape ``(N, G, Cg*prod(K), prod(O))``,
whose contraction axis ``(Cg, *K)`` has the order of MXNet's weight ``(F, Cg, *K)``, so the
weight needs no reordering::

    y[n, g]      = W[g] @ cols[n, g]                 (Fg x CgK) @ (CgK x O)
    dW[g]        = sum_n dy[n, g] @ cols[n, g].T
    dcols[n, g]  = W[g].T @ dy[n, g]                 then col2im: one strided add per kernel
                                                    position (prod(K) of them), never per pixel

``xp.matmul`` runs the ``(n, g)`` stack as BLAS calls inside NumPy (CuPy on GPU). Deconvolution
is the transpose: its forward is the data gradient of a convolution whose input is the
deconvolution's output, and its backward is a convolution (data) and a weight gradient with the
roles of input and output swapped.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from math import prod
from typing import Any

import numpy as np

from ...base import DTypeError, ParamError, Shape

__all__ = [
    "Geometry",
    "check_geometry",
    "to_channels_first",
    "to_channels_last",
    "layout_perm",
    "conv_forward",
    "conv_data_grad",
    "conv_weight_grad",
    "check_dtype",
    "FLOATS",
]

FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))
_F32, _F64 = FLOATS[1], FLOATS[2]
_CHANNELS_FIRST = {1: "NCW", 2: "NCHW", 3: "NCDHW"}
_CHANNELS_LAST = {2: "NHWC", 3: "NDHWC"}


@dataclass(frozen=True)
class Geometry:
    """The spatial geometry of one (de)convolution, with MXNet's defaults filled in."""

    kernel: Shape
    stride: Shape
    dilate: Shape
    pad: Shape
    groups: int
    channels_last: bool

    @property
    def nd(self) -> int:
        return len(self.kernel)

    def dilated(self) -> Shape:
        return tuple((k - 1) * d + 1 for k, d in zip(self.kernel, self.dilate))


def _where(op: str, name: str | None) -> str:
    return f"{op}(name={name!r})" if name else op


def check_geometry(op: str, name: str | None, param: Any, extra: tuple[str, ...] = ()) -> Geometry:
    """Validate kernel/stride/dilate/pad (and ``extra`` tuple fields such as ``adj``) the way
    MXNet's parser does, fill the defaults, and return the geometry; raise ParamError naming
    the operator and the argument."""
    where = _where(op, name)
    kernel = param.kernel
    nd = len(kernel)
    if nd not in (1, 2, 3):
        raise ParamError(
            f"{where}: argument 'kernel' expects 1, 2 or 3 dimensions ((w,), (h, w) or "
            f"(d, h, w)), got {kernel}."
        )
    if min(kernel) < 1:
        raise ParamError(f"{where}: argument 'kernel' expects sizes >= 1, got {kernel}.")
    fields = {"stride": 1, "dilate": 1, "pad": 0, **{e: 0 for e in extra}}
    values: dict[str, Shape] = {}
    for key, default in fields.items():
        value = getattr(param, key)
        if len(value) == 0:
            value = (default,) * nd
        if len(value) != nd:
            raise ParamError(
                f"{where}: argument {key!r} must have as many dimensions as kernel {kernel}, "
                f"got {value}."
            )
        if min(value) < (1 if default == 1 else 0):
            low = ">= 1" if default == 1 else ">= 0"
            raise ParamError(f"{where}: argument {key!r} expects values {low}, got {value}.")
        values[key] = value
    groups = param.num_group
    if param.num_filter % groups:
        raise ParamError(
            f"{where}: argument 'num_filter' ({param.num_filter}) must be a multiple of "
            f"num_group ({groups})."
        )
    layout = param.layout
    channels_last = False
    if layout is not None:
        if layout == _CHANNELS_LAST.get(nd):
            channels_last = True
        elif layout != _CHANNELS_FIRST[nd]:
            allowed = [_CHANNELS_FIRST[nd], *([_CHANNELS_LAST[nd]] if nd in _CHANNELS_LAST else [])]
            raise ParamError(
                f"{where}: argument 'layout' {layout!r} does not fit a {nd}-D kernel; "
                f"expected one of {allowed}."
            )
    return Geometry(
        kernel, values["stride"], values["dilate"], values["pad"], groups, channels_last
    )


def layout_perm(nd: int) -> tuple[int, ...]:
    """Axes that take a channels-last array ``(N, *S, C)`` to channels-first ``(N, C, *S)``."""
    return (0, nd + 1, *range(1, nd + 1))


def to_channels_first(shape_or_array: Any, geom: Geometry) -> Any:
    """A shape tuple or array in the operator's layout, in channels-first order."""
    if not geom.channels_last:
        return shape_or_array
    perm = layout_perm(geom.nd)
    if isinstance(shape_or_array, tuple):
        return tuple(shape_or_array[i] for i in perm)
    return shape_or_array.transpose(perm)


def to_channels_last(shape_or_array: Any, geom: Geometry) -> Any:
    """The inverse of :func:`to_channels_first`."""
    if not geom.channels_last:
        return shape_or_array
    inv = tuple(int(i) for i in np.argsort(layout_perm(geom.nd)))
    if isinstance(shape_or_array, tuple):
        return tuple(shape_or_array[i] for i in inv)
    return shape_or_array.transpose(inv)


def check_dtype(op: str, xp: Any, dtype: Any) -> None:
    """MXNet computes these on CPU in float32 and float64 only (float16 on GPU)."""
    if dtype is _F32 or dtype is _F64:  # the common case, without converting anything
        return
    if np.dtype(dtype) not in FLOATS:
        raise DTypeError(
            f"{op}: argument 'data' has dtype {np.dtype(dtype).name}; {op} accepts float32 "
            "and float64 (and float16 on GPU)."
        )
    if xp is np and np.dtype(dtype) == np.float16:
        raise DTypeError(
            f"{op}: float16 inputs need a GPU context; on CPU {op} supports float32 and "
            "float64, as in MXNet."
        )


# ---- im2col / col2im ------------------------------------------------------------------------


def _padded(xp: Any, x: Any, pad: Shape) -> Any:
    if not any(pad):
        return x
    out = xp.zeros(x.shape[:2] + tuple(s + 2 * p for s, p in zip(x.shape[2:], pad)), x.dtype)
    out[(slice(None), slice(None), *(slice(p, p + s) for s, p in zip(x.shape[2:], pad)))] = x
    return out


def _window_view(xp: Any, x_pad: Any, geom: Geometry, out_spatial: Shape) -> Any:
    """The ``(N, C, *K, *O)`` view of the padded input (see the module note)."""
    st = x_pad.strides
    sp = st[2:]
    shape = x_pad.shape[:2] + geom.kernel + out_spatial
    strides = st[:2] + tuple(s * d for s, d in zip(sp, geom.dilate))
    strides += tuple(s * t for s, t in zip(sp, geom.stride))
    return xp.lib.stride_tricks.as_strided(x_pad, shape=shape, strides=strides, writeable=False)


def im2col(xp: Any, x: Any, geom: Geometry, out_spatial: Shape) -> Any:
    """``cols`` of shape ``(N, G, Cg*prod(K), prod(O))`` for the channels-first input ``x``."""
    n, c = x.shape[:2]
    view = _window_view(xp, _padded(xp, x, geom.pad), geom, out_spatial)
    cols = xp.ascontiguousarray(view)
    return cols.reshape(n, geom.groups, c // geom.groups * prod(geom.kernel), prod(out_spatial))


def col2im(xp: Any, dcols: Any, geom: Geometry, in_spatial: Shape, out_spatial: Shape) -> Any:
    """Sum ``dcols`` ``(N, G, Cg*prod(K), prod(O))`` back onto an ``(N, C, *S)`` array."""
    n = dcols.shape[0]
    c = dcols.shape[1] * dcols.shape[2] // prod(geom.kernel)
    cols = dcols.reshape((n, c) + geom.kernel + out_spatial)
    padded = tuple(s + 2 * p for s, p in zip(in_spatial, geom.pad))
    acc = xp.zeros((n, c) + padded, dcols.dtype)
    for k in itertools.product(*(range(k) for k in geom.kernel)):
        target = tuple(
            slice(ki * d, ki * d + s * (o - 1) + 1, s)
            for ki, d, s, o in zip(k, geom.dilate, geom.stride, out_spatial)
        )
        acc[(slice(None), slice(None), *target)] += cols[(slice(None), slice(None), *k)]
    if not any(geom.pad):
        return acc
    return acc[(slice(None), slice(None), *(slice(p, p + s) for s, p in zip(in_spatial, geom.pad)))]


# ---- the three kernels ----------------------------------------------------------------------


def _grouped_weight(w: Any, groups: int) -> Any:
    """``(F, Cg, *K)`` as ``(G, Fg, Cg*prod(K))`` (a view)."""
    return w.reshape(groups, w.shape[0] // groups, -1)


def conv_forward(
    xp: Any, x: Any, w: Any, geom: Geometry, out_spatial: Shape, out: Any = None
) -> Any:
    """``y (N, F, *O)`` of a convolution of ``x (N, C, *S)`` with ``w (F, Cg, *K)``; computed
    straight into ``out`` (a C-contiguous array of that shape) when one is given."""
    cols = im2col(xp, x, geom, out_spatial)
    wg = _grouped_weight(w, geom.groups)
    shape = (x.shape[0], w.shape[0]) + tuple(out_spatial)
    if out is not None:
        xp.matmul(wg, cols, out=out.reshape(cols.shape[:2] + (wg.shape[1], cols.shape[3])))
        return out
    return xp.matmul(wg, cols).reshape(shape)  # (N, G, Fg, O) is (N, F, *O)


def conv_data_grad(xp: Any, dy: Any, w: Any, geom: Geometry, in_spatial: Shape) -> Any:
    """``dx (N, C, *S)`` from ``dy (N, F, *O)`` and ``w (F, Cg, *K)``."""
    n, f = dy.shape[:2]
    out_spatial = dy.shape[2:]
    dyg = dy.reshape(n, geom.groups, f // geom.groups, -1)
    dcols = xp.matmul(_grouped_weight(w, geom.groups).swapaxes(-1, -2), dyg)
    return col2im(xp, dcols, geom, in_spatial, out_spatial)


def conv_weight_grad(xp: Any, x: Any, dy: Any, geom: Geometry, w_shape: Shape) -> Any:
    """``dw (F, Cg, *K)`` from ``x (N, C, *S)`` and ``dy (N, F, *O)``."""
    n, f = dy.shape[:2]
    cols = im2col(xp, x, geom, dy.shape[2:])
    dyg = dy.reshape(n, geom.groups, f // geom.groups, -1)
    if n == 1:
        dw = xp.matmul(dyg[0], cols[0].swapaxes(-1, -2))
    else:
        dw = xp.matmul(dyg, cols.swapaxes(-1, -2)).sum(axis=0)
    return dw.reshape(w_shape)
