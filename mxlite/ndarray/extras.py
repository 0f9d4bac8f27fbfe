"""The last Python-level ``mx.nd`` functions of MXNet 1.9.1: ``histogram``, ``split_v2``,
``onehot_encode``, ``fill_element_0index`` and the legacy ``imdecode``.

Design note
-----------
These are thin wrappers, as in MXNet: each checks its arguments on the calling thread and then
calls registered operators (``_histogram``, ``_split_v2``, ``one_hot``, ``where``), so the work
is ordered by the engine like any other ``mx.nd`` call. The two legacy functions MXNet kept as
C++ "NDArray functions" (``onehot_encode`` and ``fill_element_0index``) are built from
``one_hot`` and ``where`` instead of being operators of their own.

``imdecode`` decodes with OpenCV (the optional ``mxlite[image]`` extra), as ``mx.image`` does,
on the calling thread, as MXNet decoded before returning. Its result follows MXNet's C++ code: a
``(channels, height, width)`` array in OpenCV's channel order (BGR), float32 unless ``mean``
says otherwise. (MXNet 1.9.1's own ``mx.nd.imdecode`` fails on every input, because it passes
the bytes as a C string that stops at the first NUL; mxlite makes it work as documented.)

>>> import mxlite as mx
>>> [p.shape for p in mx.nd.split_v2(mx.nd.zeros((6, 2)), (1, 4))]
[(1, 2), (3, 2), (2, 2)]
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..base import MXNetError, ParamError, ShapeError
from ..context import cpu
from . import _internal
from . import op as _op
from .creation import array
from .ndarray import NDArray

__all__ = ["histogram", "split_v2", "onehot_encode", "fill_element_0index", "imdecode"]

_INT_TYPES = (int, np.integer)


def _need_ndarray(where: str, name: str, value: Any) -> None:
    if not isinstance(value, NDArray):
        raise MXNetError(
            f"{where}: argument {name!r} must be an NDArray, got {type(value).__name__}."
        )


def histogram(a: NDArray, bins: Any = 10, range: Any = None) -> Any:
    """Compute the histogram of the input data.

    Parameters
    ----------
    a : NDArray
        Input data. The histogram is computed over the flattened array.
    bins : int or NDArray
        An int is the number of equal-width bins in ``range`` (10 by default); an NDArray
        holds the bin edges, including the rightmost one.
    range : (float, float), optional
        The lower and upper range of the bins. Without it (and with an int ``bins``) the
        result is NumPy's, computed over ``(a.min(), a.max())``, with a warning.

    Returns
    -------
    list of NDArray or tuple of NDArray
        ``[counts, edges]`` from the operator (counts int64, edges of ``a``'s dtype), or, when
        NumPy computed it, the tuple ``(counts, edges)`` as float32 arrays.

    Examples
    --------
    >>> counts, edges = mx.nd.histogram(mx.nd.array([0, 1, 1, 3]), bins=3, range=(0, 3))
    >>> counts.asnumpy().tolist()
    [1, 2, 1]
    """
    _need_ndarray("histogram", "a", a)
    if isinstance(bins, NDArray):
        return _internal._histogram(data=a, bins=bins)
    if isinstance(bins, _INT_TYPES) and not isinstance(bins, bool):
        if range is None:
            warnings.warn(
                "histogram: range is not specified, using numpy's result to ensure "
                "consistency with numpy",
                UserWarning,
                stacklevel=2,
            )
            counts, edges = np.histogram(a.asnumpy(), bins=int(bins))
            return (
                array(counts, ctx=a.context, dtype=np.float32),
                array(edges, ctx=a.context, dtype=np.float32),
            )
        return _internal._histogram(data=a, bin_cnt=int(bins), range=range)
    raise ParamError(
        f"histogram: argument 'bins' should be either an integer or an NDArray, "
        f"got {type(bins).__name__}."
    )


def split_v2(
    ary: NDArray, indices_or_sections: Any, axis: int = 0, squeeze_axis: bool = False
) -> Any:
    """Split an array into several sub-arrays along an axis.

    Parameters
    ----------
    ary : NDArray
        Array to be divided into sub-arrays.
    indices_or_sections : int or tuple of ints
        An int N divides the array into N equal parts along ``axis`` (an error if that is not
        possible). A tuple of sorted ints gives the places where the array is cut: ``(2, 3)``
        gives ``ary[:2]``, ``ary[2:3]`` and ``ary[3:]`` for ``axis=0``.
    axis : int, optional
        The axis along which to split, default is 0.
    squeeze_axis : boolean, optional
        Whether to drop the split axis from the sub-arrays (each must then have size 1 on it).
        Default is False.

    Returns
    -------
    list of NDArray or NDArray
        The sub-arrays; a single NDArray when there is only one.
    """
    _need_ndarray("split_v2", "ary", ary)
    ndim = len(ary.shape)
    if not isinstance(axis, _INT_TYPES) or not -ndim <= axis < ndim:
        raise ParamError(
            f"split_v2: argument 'axis' must be an int in [{-ndim}, {ndim}) for input shape "
            f"{ary.shape}, got {axis!r}."
        )
    size = ary.shape[axis]
    if isinstance(indices_or_sections, _INT_TYPES) and not isinstance(indices_or_sections, bool):
        n = int(indices_or_sections)
        if n < 1 or size % n:
            raise ParamError(
                f"split_v2: array split does not result in an equal division: "
                f"argument 'indices_or_sections' is {n} and axis {axis} has size {size}."
            )
        return _internal._split_v2(
            ary, indices=(), sections=n, axis=int(axis), squeeze_axis=squeeze_axis
        )
    if isinstance(indices_or_sections, tuple):
        indices = (0, *(int(i) for i in indices_or_sections))
        return _internal._split_v2(
            ary, indices=indices, sections=0, axis=int(axis), squeeze_axis=squeeze_axis
        )
    raise ParamError(
        f"split_v2: argument 'indices_or_sections' must be an int or a tuple of ints, "
        f"got {type(indices_or_sections).__name__}."
    )


def onehot_encode(indices: NDArray, out: NDArray) -> NDArray:
    """One-hot encode ``indices`` into the matrix ``out`` (deprecated; use ``one_hot``).

    Parameters
    ----------
    indices : NDArray
        1-D array of class indices, one per row of ``out``.
    out : NDArray
        2-D array ``(len(indices), depth)`` that receives the encoding.

    Returns
    -------
    NDArray
        ``out``.
    """
    _need_ndarray("onehot_encode", "indices", indices)
    _need_ndarray("onehot_encode", "out", out)
    if len(out.shape) != 2 or indices.shape != (out.shape[0],):
        raise ShapeError(
            f"onehot_encode: argument 'indices' must have shape (n,) and 'out' shape "
            f"(n, depth); got {indices.shape} and {out.shape}."
        )
    return _op.one_hot(indices, depth=out.shape[1], dtype=out.dtype, out=out)


def fill_element_0index(lhs: NDArray, mhs: NDArray, rhs: NDArray, out: Any = None) -> NDArray:
    """Fill one element of each row of ``lhs``: row ``i`` gets ``mhs[i]`` at column
    ``rhs[i]`` (0-based). Columns out of range leave the row unchanged.

    Parameters
    ----------
    lhs : NDArray
        Left operand to the function: the 2-D matrix ``(n, k)``.
    mhs : NDArray
        Middle operand to the function: the ``n`` values.
    rhs : NDArray
        Right operand to the function: the ``n`` column indices.
    out : NDArray, optional
        The output NDArray to hold the result (may be ``lhs`` itself).

    Returns
    -------
    NDArray
        The filled matrix.
    """
    for name, value in (("lhs", lhs), ("mhs", mhs), ("rhs", rhs)):
        _need_ndarray("fill_element_0index", name, value)
    if len(lhs.shape) != 2 or mhs.shape != (lhs.shape[0],) or rhs.shape != (lhs.shape[0],):
        raise ShapeError(
            f"fill_element_0index: arguments 'lhs', 'mhs', 'rhs' must have shapes (n, k), "
            f"(n,), (n,); got {lhs.shape}, {mhs.shape}, {rhs.shape}."
        )
    n, k = lhs.shape
    mask = _op.one_hot(rhs, depth=k, dtype=lhs.dtype)
    values = _op.broadcast_to(mhs.astype(lhs.dtype).reshape((n, 1)), shape=(n, k))
    return _op.where(mask, values, lhs, out=out)


def _decode(where: str, data: bytes, channels: int) -> np.ndarray:
    """Decode to an (h, w, c) uint8 array in OpenCV's channel order (BGR, BGRA or gray)."""
    from ..opencv import decode_bgr

    try:
        img = decode_bgr(where, data, 0 if channels == 1 else -1)
    except MXNetError as exc:
        raise MXNetError(f"{where}: argument 'str_img' could not be decoded: {exc}") from exc
    return img[:, :, : max(channels, 1)]


def imdecode(
    str_img: bytes,
    clip_rect: Any = (0, 0, 0, 0),
    out: NDArray | None = None,
    index: int = 0,
    channels: int = 3,
    mean: NDArray | None = None,
) -> NDArray:
    """DEPRECATED, use mx.img instead. Decode an image into a ``(c, h, w)`` array.

    Parameters
    ----------
    str_img : str
        Binary image data (bytes; a str is taken as Latin-1 bytes, as Python 2 held them).
    clip_rect : iterable of 4 int
        Clip decoded image to rectangle (x0, y0, x1, y1); ``y0 == y1`` keeps the whole image.
    out : NDArray
        Output buffer. Can be 3 dimensional (c, h, w) or 4 dimensional (n, c, h, w).
    index : int
        Output decoded image to i-th slice of 4 dimensional buffer.
    channels : int
        Number of channels to output. Decode to grey scale when channels = 1.
    mean : NDArray
        Subtract mean from decode image before outputing; shape (c, h, w).

    Returns
    -------
    NDArray
        The decoded image in BGR channel order (as OpenCV decodes), float32 unless ``mean``
        has another dtype; ``out`` when given.
    """
    where = "imdecode"
    if isinstance(str_img, str):
        str_img = str_img.encode("latin-1")
    if not isinstance(str_img, (bytes, bytearray, memoryview)):
        raise MXNetError(
            f"{where}: argument 'str_img' must be bytes, got {type(str_img).__name__}."
        )
    if not isinstance(channels, _INT_TYPES) or channels < 1:
        raise ParamError(f"{where}: argument 'channels' must be an int >= 1, got {channels!r}.")
    rect = tuple(clip_rect)
    if len(rect) != 4 or not all(isinstance(v, _INT_TYPES) and v >= 0 for v in rect):
        raise ParamError(
            f"{where}: argument 'clip_rect' must be 4 non-negative ints (x0, y0, x1, y1), "
            f"got {clip_rect!r}."
        )
    if mean is not None:
        _need_ndarray(where, "mean", mean)
    img = _decode(where, bytes(str_img), int(channels))
    rows, cols, have = img.shape
    if channels > have:
        raise MXNetError(
            f"{where}: argument 'channels' is {channels}, but the image has only {have}."
        )
    x0, y0, x1, y1 = rect
    if y1 == y0:
        x0, y0, x1, y1 = 0, 0, cols, rows
    if not (x0 <= x1 <= cols and y0 <= y1 <= rows):
        raise ParamError(
            f"{where}: argument 'clip_rect' {rect} must lie inside the image "
            f"(width {cols}, height {rows}) with x0 <= x1 and y0 <= y1."
        )
    chw = np.ascontiguousarray(img[y0:y1, x0:x1, :channels].transpose(2, 0, 1))
    if mean is not None:
        dtype = mean.dtype
    else:
        dtype = np.float32 if out is None else out.dtype
    ctx = cpu() if out is None else out.context
    result = array(chw, ctx=ctx, dtype=dtype)
    if mean is not None:
        if mean.shape != chw.shape:
            raise ShapeError(
                f"{where}: argument 'mean' has shape {mean.shape}; the decoded image has "
                f"shape {chw.shape}."
            )
        result = result - mean.as_in_context(ctx)
    if out is None:
        return result
    _need_ndarray(where, "out", out)
    if len(out.shape) == 4 and isinstance(index, _INT_TYPES) and 0 <= index < out.shape[0]:
        target = out[int(index)]
    elif len(out.shape) == 3:
        target = out
    else:
        raise ParamError(
            f"{where}: argument 'out' must be (c, h, w) or (n, c, h, w) with 0 <= index < n; "
            f"got shape {out.shape} and index {index!r}."
        )
    if target.shape != chw.shape or out.dtype != dtype:
        raise ShapeError(
            f"{where}: argument 'out' slice has shape {target.shape} and dtype "
            f"{np.dtype(out.dtype).name}; the decoded image has shape {chw.shape} and dtype "
            f"{np.dtype(dtype).name}."
        )
    target[:] = result
    return out
