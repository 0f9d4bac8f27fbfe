"""operator.parallel: row-split kernels and split products equal the whole computation."""

from __future__ import annotations

import numpy as np
import pytest

from mxlite.operator import parallel


@pytest.fixture
def split_everything(monkeypatch):
    monkeypatch.setattr(parallel, "_MIN_FLOPS", 1)
    monkeypatch.setattr(parallel, "_MIN_ELEMENTS", 1)
    monkeypatch.setattr(parallel, "num_threads", lambda: 3)
    monkeypatch.setattr(parallel, "blas_is_single", lambda: True)


@pytest.mark.parametrize("shape", [((7, 5), (5, 3)), ((3, 5), (5, 8)), ((1, 4), (4, 1))])
def test_matmul_split_equals_numpy(split_everything, shape):
    rng = np.random.RandomState(0)
    a, b = rng.rand(*shape[0]), rng.rand(*shape[1])
    np.testing.assert_allclose(parallel.matmul(np, a, b), a @ b, rtol=1e-12)
    out = np.full((shape[0][0], shape[1][1]), np.nan)
    assert parallel.matmul(np, a, b.T.copy().T, out=out) is out
    np.testing.assert_allclose(out, a @ b, rtol=1e-12)


def test_matmul_batched_is_one_call(split_everything):
    a, b = np.ones((2, 3, 4)), np.ones((2, 4, 5))
    np.testing.assert_array_equal(parallel.matmul(np, a, b), np.matmul(a, b))


def test_over_rows_covers_every_row(split_everything):
    x = np.arange(10.0)
    y = np.zeros(10)
    blocks = []

    def double(a, b):
        blocks.append(len(a))
        b[...] = 2 * a

    parallel.over_rows(double, 10, 10, x, y)
    np.testing.assert_array_equal(y, 2 * x)
    assert sorted(blocks) == [3, 3, 4]  # split over the three threads


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32])
@pytest.mark.parametrize(
    "layout", ["contiguous", "in_place", "strided_long_rows", "strided_short_rows"]
)
def test_relu_into_equals_maximum_bit_for_bit(monkeypatch, dtype, layout) -> None:
    monkeypatch.setattr(parallel, "_ZERO_ROW", 300)  # several pieces per row
    rng = np.random.RandomState(1)
    base = rng.uniform(-2, 2, (3, 5, 1000)).astype(dtype)
    if base.dtype.kind == "f":
        base.reshape(-1)[:6] = [np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf]
    x = {"strided_long_rows": base[:, ::2], "strided_short_rows": base[..., ::7]}.get(layout, base)
    want = np.maximum(x, x.dtype.type(0))
    out = x if layout == "in_place" else np.full(x.shape, 7, dtype)
    assert parallel.relu_into(np, x, out) is out
    np.testing.assert_array_equal(out.view(f"i{out.itemsize}"), want.view(f"i{want.itemsize}"))
    np.testing.assert_array_equal(parallel.relu_into(np, x), want)


@pytest.mark.parametrize(
    "length, inside", [(3136, 3136), (20000, 8192), (1000, 992), (196, None), (8, None)]
)
def test_row_buffer_holds_one_row_and_restores(length, inside):
    before = np.getbufsize()
    x = np.arange(12.0 * length, dtype=np.float32).reshape(12, length)
    col = np.arange(12.0, dtype=np.float32).reshape(12, 1)
    with parallel.row_buffer(length):
        assert np.getbufsize() == (before if inside is None else inside)
        got = x * col  # values do not depend on the buffer
    assert np.getbufsize() == before
    np.testing.assert_array_equal(got, np.asarray(x, np.float64) * np.asarray(col, np.float64))


def test_row_buffer_restores_after_an_error():
    before = np.getbufsize()
    with pytest.raises(ValueError), parallel.row_buffer(4096):
        raise ValueError
    assert np.getbufsize() == before


def test_cast_buffer_is_small_inside_and_restored():
    before = np.getbufsize()
    g = np.arange(5000, dtype=np.float32) - 2500
    with parallel.cast_buffer():
        assert np.getbufsize() == parallel._CAST_BUFFER < before
        got = g * (g > 0)
    assert np.getbufsize() == before
    np.testing.assert_array_equal(got, np.maximum(g, 0))
