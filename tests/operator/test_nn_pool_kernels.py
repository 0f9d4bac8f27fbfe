"""Pooling kernels' shortcuts (mxlite/operator/nn/_pool_util.py): the average's scalar
divisor where every window counts alike, against the divisor on the grid's cells, and max
pooling's floor taken only where a block needs it, against a plain window-by-window max.
Both must give the same bits as the general path, float16 to float64, edges included."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mxlite.operator.nn import _pool_util as pk
from mxlite.operator.nn._phase_grid import PhaseGrid

from . import opcheck

# (input spatial shape, kernel, stride, pad): odd sizes, stride past the kernel, 1-D and 3-D
GEOMETRIES = [
    ((28, 28), (3, 3), (1, 1), (1, 1)),
    ((9, 7), (3, 2), (2, 3), (1, 0)),
    ((11,), (4,), (3,), (2,)),
    ((5, 6, 5), (2, 3, 2), (2, 1, 2), (1, 1, 0)),
    ((13, 13), (2, 2), (3, 3), (0, 0)),
]


def _grid(spatial: tuple, k: tuple, s: tuple, p: tuple) -> PhaseGrid:
    out = tuple(1 + (n + 2 * pp - kk) // ss for n, kk, ss, pp in zip(spatial, k, s, p))
    return PhaseGrid(spatial, k, s, p, out)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("spatial,k,s,p", GEOMETRIES)
def test_scalar_divisor_gives_the_bits_of_the_grid_divisor(spatial, k, s, p, dtype) -> None:
    rng = np.random.default_rng(1)
    g = _grid(spatial, k, s, p)
    acc = np.float32 if dtype == np.float16 else dtype
    x = rng.normal(size=(7, *spatial)).astype(dtype)
    x.reshape(-1)[3] = -0.0
    count = acc(math.prod(k))
    cells = np.ones(g.rows, acc)
    cells[g.out_cells] = count
    cells = cells.reshape(-1)
    want = np.empty((7, *g.out), dtype)
    pk.sum_forward(np, g, x, 1, acc, want, lambda t: np.divide(t, cells, out=t))
    got = np.empty_like(want)
    pk.sum_forward(np, g, x, 1, acc, got, None, count)
    np.testing.assert_array_equal(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))
    d = rng.normal(size=want.shape).astype(dtype)
    for add in (False, True):
        base = rng.normal(size=x.shape).astype(dtype)
        want_dx, got_dx = base.copy(), base.copy()
        pk.sum_backward(np, g, d, want_dx, add, acc, cells)
        pk.sum_backward(np, g, d, got_dx, add, acc, count)
        np.testing.assert_array_equal(got_dx, want_dx)


@pytest.mark.parametrize("convention", ["valid", "full"])
@pytest.mark.parametrize("include_pad", [True, False])
def test_average_matches_a_window_mean_with_either_divisor(convention, include_pad) -> None:
    """Through the operator: 'valid' with the pad counted takes the scalar, the others the
    grid's divisors; both equal a mean window by window."""
    rng = np.random.default_rng(2)
    x = rng.normal(size=(2, 3, 8, 9))
    k, s, pad = (3, 3), (2, 2), (1, 1)
    y = opcheck.forward(
        "Pooling",
        [x],
        kernel=k,
        stride=s,
        pad=pad,
        pool_type="avg",
        pooling_convention=convention,
        count_include_pad=include_pad,
    )[0]
    want = np.empty(y.shape)
    for i in range(y.shape[2]):
        for j in range(y.shape[3]):
            r0, c0 = i * 2 - 1, j * 2 - 1
            r1, c1 = min(r0 + 3, 8 + 1), min(c0 + 3, 9 + 1)  # clipped to the padded input
            win = x[:, :, max(r0, 0) : min(r1, 8), max(c0, 0) : min(c1, 9)]
            count = (r1 - r0) * (c1 - c0) if include_pad else win.shape[2] * win.shape[3]
            want[:, :, i, j] = win.sum(axis=(2, 3)) / count
    np.testing.assert_allclose(y, want, rtol=1e-12)


def _window_max(x: np.ndarray, k: int, s: int, p: int) -> np.ndarray:
    """Max over each window of the last two axes, padding -inf, floored at the lowest finite
    value (a window of padding or of -inf gives it; NaN stays NaN)."""
    pad = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=-np.inf)
    n = (x.shape[2] + 2 * p - k) // s + 1
    m = (x.shape[3] + 2 * p - k) // s + 1
    out = np.full((*x.shape[:2], n, m), -np.inf, x.dtype)
    for i in range(k):
        for j in range(k):
            win = pad[:, :, i : i + s * (n - 1) + 1 : s, j : j + s * (m - 1) + 1 : s]
            out = np.where(np.isnan(out) | np.isnan(win), np.nan, np.maximum(out, win))
    return np.maximum(out, np.finfo(x.dtype).min)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("special", ["finite", "-inf", "nan"])
@pytest.mark.parametrize("k,s,p", [(2, 2, 1), (3, 2, 1), (2, 3, 0), (3, 1, 2), (2, 1, 2)])
def test_max_floors_only_what_needs_it(k, s, p, special, dtype) -> None:
    """Pad 2 of kernel 2 gives windows wholly in padding; they and -inf windows floor to the
    lowest finite value; NaN windows stay NaN; finite blocks are copied as they are."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 3, 7, 6)).astype(dtype)
    if special == "-inf":
        x[1, 2, :4, :4] = -np.inf
    elif special == "nan":
        x[0, 1, 3, 2] = np.nan
    for train in (True, False):
        y = opcheck.forward(
            "Pooling", [x], is_train=train, kernel=(k, k), stride=(s, s), pad=(p, p)
        )[0]
        np.testing.assert_array_equal(y, _window_max(x, k, s, p))


def _offset_walk(g: PhaseGrid, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Max pooling by walking the window offset by offset in row-major order (the kernel's
    former form): the maxima (floored at the lowest finite value) and the argmax, the first
    offset that strictly raised the maximum, 255 where the maximum is NaN or -inf."""
    rows = x.shape[0]
    ph = g.phase_buffer(np, rows, -np.inf, x.dtype)
    g.split(x, ph)
    n = g.length(rows)
    i0, s0 = g.offsets[0]
    head = ph[i0, s0 : s0 + n].copy()
    idx = np.zeros(rows * g.cell, np.uint8)
    for t, (i, sh) in enumerate(g.offsets[1:], 1):
        src = ph[i, sh : sh + n]
        idx[:n][src > head] = t
        head = np.maximum(head, src)
    idx[:n][~(head > -np.inf)] = pk.NO_ROUTE
    acc = np.zeros(rows * g.cell, x.dtype)
    acc[:n] = head
    y = np.maximum(g.real(acc, rows), np.finfo(x.dtype).min)
    return y, g.real(idx, rows)


def _values(kind: str, shape: tuple, rng: np.random.Generator) -> np.ndarray:
    if kind == "normal":
        return rng.normal(size=shape)
    # a ReLU's zeros and repeated levels: ties within windows and across their overlaps
    x = np.maximum(rng.integers(-3, 4, size=shape), 0).astype(np.float64)
    flat = x.reshape(-1)
    if kind == "signed-zeros":
        x = np.where(rng.random(shape) < 0.5, -0.0, 0.0)
    elif kind == "nan":
        flat[rng.integers(flat.size, size=5)] = np.nan
    elif kind == "-inf":
        flat[rng.integers(flat.size, size=9)] = -np.inf
        x[0] = -np.inf  # windows of -inf only
    return x


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("kind", ["normal", "ties", "signed-zeros", "nan", "-inf"])
@pytest.mark.parametrize(
    "spatial,k,s,p,convention",
    [
        ((12, 12), (3, 3), (2, 2), (1, 1), "valid"),  # ResNet's stem pool
        ((11, 11), (3, 3), (2, 2), (0, 0), "full"),
        ((9, 10), (3, 3), (2, 2), (1, 1), "full"),
        ((8, 8), (2, 2), (2, 2), (0, 0), "valid"),
        ((7, 9), (3, 3), (1, 1), (1, 1), "valid"),
        ((7, 6), (5, 5), (1, 1), (2, 2), "valid"),
        ((9, 7), (3, 2), (2, 3), (1, 0), "valid"),
        ((13, 13), (2, 2), (3, 3), (0, 0), "valid"),
        ((6, 5), (1, 1), (1, 1), (0, 0), "valid"),
        ((6, 7), (1, 3), (1, 2), (0, 1), "valid"),  # a kernel of 1 along the first axis
        ((11,), (4,), (3,), (2,), "valid"),
        ((5, 6, 5), (2, 3, 2), (2, 1, 2), (1, 1, 0), "valid"),
    ],
)
def test_max_by_axes_gives_the_bits_of_the_offset_walk(
    spatial, k, s, p, convention, kind, dtype, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The maxima (signs of zero included) and the first-maximum argmax, reduced one axis at
    a time, equal the offset-by-offset walk's: ties, NaN, -inf and windows of padding, in
    blocks of one row and of several (a short last one)."""
    rng = np.random.default_rng(4)
    size = (
        (lambda n, kk, ss, pp: 1 + math.ceil((n + 2 * pp - kk) / ss))
        if convention == "full"
        else (lambda n, kk, ss, pp: 1 + (n + 2 * pp - kk) // ss)
    )
    out = tuple(size(n, kk, ss, pp) for n, kk, ss, pp in zip(spatial, k, s, p))
    for rows, cells in ((1, 1 << 19), (11, 3 * math.prod(spatial) * 2 ** len(k))):
        monkeypatch.setattr(pk, "_MAX_CELLS", cells)
        x = _values(kind, (rows, *spatial), rng).astype(dtype)
        g = PhaseGrid(spatial, k, s, p, out)
        want_y, want_where = _offset_walk(g, x)
        y = np.empty((rows, *out), dtype)
        where = np.empty((rows, g.cell), np.uint8)  # on the grid
        pk.max_forward(np, g, x, y, where)
        assert y.tobytes() == want_y.tobytes()
        np.testing.assert_array_equal(g.real(where.reshape(-1), rows), want_where)
        y_inference = np.empty_like(y)
        pk.max_forward(np, g, x, y_inference)
        assert y_inference.tobytes() == want_y.tobytes()
