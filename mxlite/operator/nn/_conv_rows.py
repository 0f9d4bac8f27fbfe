"""The data gradient of a stride-1 convolution by col2im with the last kernel axis folded into
the product: ``_conv_util``'s col2im adds one row block per kernel offset back onto the
gradient phases; here the offsets along the last axis are summed by the product itself.

Design note
-----------
On the phase grid of a stride-1 convolution (one phase, the padded input; see ``_conv_util``)
kernel offset ``(l, j)`` (``l`` the offsets of the leading axes, ``j`` the last one) reads the
input at a flat shift ``s_l + j*d`` (``d`` the last axis's dilation) from the output cell. So the
input gradient is ``dx[p] = sum_l Z_l[p - s_l]`` with ``Z_l[q] = sum_{f,j} W[f, c, l, j] *
dy[f, q - j*d]``: one product ``Z (L*C, cells) = W' (L*C, F*J) @ Y (F*J, cells)``, where ``Y``
holds ``J`` copies of the output gradient on the grid, each shifted by ``j*d`` (one strided
copy), then one add per leading offset ``l`` instead of one per kernel offset. LeNet's 5x5
(6 channels, 16 filters, 14x14): 5 adds of 6 rows instead of 25, ``Y`` 80 rows against
col2im's 150-row product; its data gradient took 0.6x the time. Used where ``Y`` is no larger
than col2im's product (``F*J <= C*K``) and the kernel's last axis is more than one offset; on
NumPy (CuPy keeps col2im: the shifted copies are views with a negative stride).

Each image takes ``span + (J-1)*d`` grid cells (``span`` those of the products, see
``_conv_util``): the cells past the output hold zeros, so a shift by ``j*d`` reads zeros before
an image's first output cell (the previous image's tail, or a zero margin before the first);
every nonzero term lands inside its own image's grid, as the forward's reads do.
"""

from __future__ import annotations

from math import prod
from typing import Any

__all__ = ["applies", "data_grad"]


def applies(geom: Any, f: int, c: int) -> bool:
    """Whether :func:`data_grad` computes this data gradient on the phase grid: stride 1, no
    groups, a last kernel axis of more than one offset and ``Y`` no larger than col2im's
    product."""
    j = geom.kernel[-1]
    return max(geom.stride) == 1 and geom.groups == 1 and 1 < j and f * j <= c * prod(geom.kernel)


def data_grad(
    xp: Any, dy: Any, w: Any, grid: Any, out: Any, add: bool, blocks: list[tuple[int, int]]
) -> None:
    """Write (``add``: add) ``dx (b, C, *S)`` into ``out`` from ``dy (b, F, *O)`` and ``w (F,
    C, *K)`` on ``grid`` (a ``_conv_util`` phase grid of stride 1), block after block."""
    f, c = w.shape[:2]
    j, d = grid.kernel[-1], grid.dilate[-1]
    lead = len(grid.offsets) // j
    # W' rows (l, c), columns (f, j)
    wr = w.reshape(f, c, lead, j).transpose(2, 1, 0, 3).reshape(lead * c, f * j)
    span, cell, margin = grid.span, grid.cell, (j - 1) * d
    size = span + margin  # grid cells per image in Y and Z
    item = dy.itemsize
    strided = xp.lib.stride_tricks.as_strided
    cells = (slice(None), slice(None), *grid.out_cells[1:])
    b_now = None
    for lo, hi in blocks:
        b = hi - lo
        if b != b_now:
            b_now = b
            # dy on the grid: zeros stay in every cell past the output (a margin first)
            dgrid = xp.zeros((f, margin + b * size), dy.dtype)
            on_grid = dgrid[:, margin:].reshape(f, b, size)[:, :, :span]
            on_grid = on_grid.reshape(f, b, *grid.span_rows)[cells]
            ys = strided(
                dgrid[:, margin:],
                shape=(f, j, b * size),
                strides=(dgrid.strides[0], -d * item, item),
            )
            y = xp.empty((f, j, b * size), dy.dtype)
            z = xp.empty((lead, c, b, size), dy.dtype)
            phases = xp.zeros((len(grid.phases), b * c * cell + grid.max_shift), dy.dtype)
            views = [
                strided(
                    phases[0][grid.offsets[i * j][1] :],
                    shape=(c, b, size),
                    strides=(cell * item, c * cell * item, item),
                )
                for i in range(lead)
            ]
        on_grid[...] = dy[lo:hi].swapaxes(0, 1)
        y[...] = ys
        xp.matmul(wr, y.reshape(f * j, -1), out=z.reshape(lead * c, -1))
        phases.fill(0)
        for i, view in enumerate(views):
            view += z[i]
        grid.merge(phases, out[lo:hi].reshape(b * c, *grid.spatial), add)
