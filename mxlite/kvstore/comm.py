"""Sums on one machine (MXNet's ``Comm``): the values a key gets from several devices, summed
in one engine function that reads their vars and writes the destination's.

With every array on the CPU the sum is NumPy's ``add`` into the destination, on an engine
worker; arrays on a GPU go through NDArray operations instead. ``compress_sum`` first passes
each value through 2-bit compression with its own residual, as MXNet's ``device`` store does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..engine import get as _engine
from ..ndarray import NDArray
from .compression import TwoBitCompression

__all__ = ["sum_into", "compress_sum"]


def _var(a: NDArray) -> Any:
    return a._chunk.var


def _host(a: NDArray) -> np.ndarray | None:
    """The NumPy array under ``a``, or None when it lives on a GPU."""
    data = a._data
    return data if isinstance(data, np.ndarray) else None


def sum_into(srcs: list[NDArray], dst: NDArray, priority: int = 0) -> None:
    """Push ``dst = sum(srcs)`` (a copy for one source) as one engine function."""
    datas = [_host(s) for s in srcs]
    d = _host(dst)
    if d is None or any(x is None for x in datas):
        srcs[0].copyto(dst)
        for s in srcs[1:]:
            dst += s.as_in_context(dst.context)
        return

    def run(rctx: Any) -> None:
        if len(datas) == 1:
            np.copyto(d, datas[0], casting="unsafe")
            return
        np.add(datas[0], datas[1], out=d, casting="unsafe")
        for x in datas[2:]:
            np.add(d, x, out=d, casting="unsafe")

    reads = list({id(v): v for v in map(_var, srcs) if v is not _var(dst)}.values())
    _engine().push_sync(run, dst.context, reads, [_var(dst)], priority, "KVStoreReduce")


def compress_sum(
    comp: TwoBitCompression, srcs: list[NDArray], residuals: list[np.ndarray], dst: NDArray
) -> None:
    """Push ``dst = sum(dequantize(quantize(src + residual)))`` over the sources."""
    datas = [s._data for s in srcs]
    d = dst._data

    def run(rctx: Any) -> None:
        total = np.zeros(d.shape, np.float32)
        for x, res in zip(datas, residuals):
            host = x if isinstance(x, np.ndarray) else x.get()
            total += comp.apply(host, res)
        if isinstance(d, np.ndarray):
            np.copyto(d, total, casting="unsafe")
        else:
            d[...] = dst.context.xp.asarray(total)

    reads = list({id(v): v for v in map(_var, srcs)}.values())
    _engine().push_sync(run, dst.context, reads, [_var(dst)], 0, "KVStoreCompressedReduce")
