"""1x1 convolutions (stride 1, no padding): the forward, data and weight gradients as products
of the weight with each image's ``(C, H*W)`` matrix, no im2col. Each function returns the kernel
that ``_conv_util`` runs over blocks of images (``_batch_parallel``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..parallel import relu_into

__all__ = ["applies", "forward_kernel", "data_grad_kernel", "weight_grad_kernel"]

# positions per image below which the weight gradient is one product over all the images:
# (1024, 1024) filters at 7x7, batch 8, one thread: 16.3 -> 9.1 ms CPU; at 14x14 even, at 28x28
# the copies cost more (9.6 -> 13.5 ms)
ONE_PRODUCT = 128


def applies(geom: Any) -> bool:
    """A 1x1 convolution without stride or padding (a ``_conv_util.Geometry``)."""
    return max(geom.kernel) == 1 and max(geom.stride) == 1 and max(geom.pad) == 0


def forward_kernel(xp: Any, wg: Any, b: Any, relu: bool) -> Callable[..., None]:
    """``run(x, out[, residual])``: ``out = wg @ x`` per image and group (``wg (G, F/G, C/G)``),
    plus the bias ``b`` (broadcastable to ``out``, or None) and the residual, then ReLU."""
    groups, fg, cg = wg.shape

    def run(x: Any, out: Any, *res: Any) -> None:
        xg = x.reshape(x.shape[0], groups, cg, -1)
        if res and xp.may_share_memory(out, res[0]):  # the product would overwrite it
            y = xp.matmul(wg, xg).reshape(out.shape)
            if b is not None:
                y += b
            xp.add(y, res[0], out=out)
        else:
            xp.matmul(wg, xg, out=out.reshape(x.shape[0], groups, fg, -1))
            if b is not None:
                out += b
            if res:
                out += res[0]
        if relu:
            relu_into(xp, out, out)

    return run


def data_grad_kernel(xp: Any, wt: Any, add: bool) -> Callable[..., None]:
    """``run(dy, out)``: ``out = wt @ dy`` per image and group (``wt (G, C/G, F/G)``, the
    transposed weight), added when ``add``."""
    groups, cg, fg = wt.shape

    def run(dy: Any, out: Any) -> None:
        m = dy.shape[0]
        dyg = dy.reshape(m, groups, fg, -1)
        if add or not out.flags.c_contiguous:
            dx = xp.matmul(wt, dyg).reshape(out.shape)
            if add:
                out += dx
            else:
                out[...] = dx
        else:
            xp.matmul(wt, dyg, out=out.reshape(m, groups, cg, -1))

    return run


def weight_grad_kernel(xp: Any, groups: int, bias_grad: bool) -> Callable[..., tuple[Any, Any]]:
    """``run(x, dy) -> (dw, db)``: the block's ``(G, F/G, C/G)`` weight gradient (its first
    product is its running sum: no zeroed array) and, with ``bias_grad``, ``dy`` summed over
    images and positions (else None)."""

    def run(x: Any, dy: Any) -> tuple[Any, Any]:
        m, c, f = x.shape[0], x.shape[1], dy.shape[1]
        xg = x.reshape(m, groups, c // groups, -1)
        dyg = dy.reshape(m, groups, f // groups, -1)
        db = dy.sum(axis=(0, *range(2, dy.ndim))) if bias_grad else None
        if xg.shape[-1] < ONE_PRODUCT and m > 1:
            # small maps (7x7): one product over every image's positions (K = m * HW) after
            # two transposed copies beats m products and m sums of (F, C)
            xs = xp.ascontiguousarray(xg.transpose(1, 2, 0, 3)).reshape(groups, c // groups, -1)
            dys = xp.ascontiguousarray(dyg.transpose(1, 2, 0, 3)).reshape(groups, f // groups, -1)
            return xp.matmul(dys, xs.swapaxes(-1, -2)), db
        part = xp.matmul(dyg[0], xg[0].swapaxes(-1, -2))
        for i in range(1, m):  # one product per image: no (N, ...) temporary
            part += xp.matmul(dyg[i], xg[i].swapaxes(-1, -2))
        return part, db

    return run
