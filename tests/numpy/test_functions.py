"""mx.np reductions, shape functions and products against NumPy."""

from __future__ import annotations

import numpy as onp
import pytest

import mxlite as mx
from mxlite import np

A = onp.arange(24, dtype=onp.float32).reshape(2, 3, 4)


@pytest.mark.parametrize(
    "name, args, kwargs",
    [
        ("sum", (), {"axis": (0, 2)}),
        ("sum", (), {"axis": 1, "keepdims": True}),
        ("mean", (), {"axis": -1}),
        ("max", (), {"axis": 0}),
        ("min", (), {}),
        ("prod", (), {"axis": 2}),
        ("std", (), {"axis": 1, "ddof": 1}),
        ("var", (), {}),
        ("argmax", (), {"axis": 1}),
        ("argmin", (), {}),
        ("cumsum", (), {"axis": 1}),
        ("transpose", ((2, 0, 1),), {}),
        ("swapaxes", (0, 2), {}),
        ("moveaxis", (0, -1), {}),
        ("expand_dims", (1,), {}),
        ("reshape", ((4, -1),), {}),
        ("ravel", (), {}),
        ("tile", ((2, 1, 1),), {}),
        ("repeat", (2,), {"axis": 1}),
        ("flip", (), {"axis": (0, 2)}),
        ("broadcast_to", ((3, 2, 3, 4),), {}),
        ("take", ([2, 0],), {"axis": 2}),
        ("around", (), {}),
    ],
)
def test_against_numpy(name: str, args: tuple, kwargs: dict) -> None:
    with mx.np_shape(True):
        got = getattr(np, name)(np.array(A), *args, **kwargs)
    want = getattr(onp, name)(A, *args, **kwargs)
    assert got.shape == want.shape
    onp.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5)


def test_join_and_split() -> None:
    a, b = np.ones((2, 3)), np.zeros((1, 3))
    assert np.concatenate([a, b]).shape == (3, 3)
    assert np.concatenate([a, b], axis=None).shape == (9,)
    assert np.stack([a, a], axis=-1).shape == (2, 3, 2)
    assert np.vstack([np.ones(3), np.ones(3)]).shape == (2, 3)
    assert np.hstack([np.ones(3), np.ones(2)]).shape == (5,)
    parts = np.split(np.arange(6), [2, 3])
    assert [p.tolist() for p in parts] == [[0.0, 1.0], [2.0], [3.0, 4.0, 5.0]]
    assert [p.shape for p in np.array_split(np.arange(5), 2)] == [(3,), (2,)]
    with pytest.raises(ValueError, match="equal division"):  # as MXNet's np.split
        np.split(np.arange(5), 2)


def test_products() -> None:
    a, b = onp.arange(6.0).reshape(2, 3), onp.arange(12.0).reshape(3, 4)
    assert np.dot(np.array(a), np.array(b)).tolist() == (a @ b).tolist()
    v = np.array([1.0, 2.0])
    assert np.dot(v, v).shape == () and np.inner(v, v).item() == 5.0
    assert np.outer(v, v).tolist() == [[1.0, 2.0], [2.0, 4.0]]
    got = np.matmul(np.ones((5, 2, 3)), np.ones((3, 4)))
    assert got.shape == (5, 2, 4)
    t = np.tensordot(np.array(a), np.array(b), axes=([1], [0]))
    assert t.tolist() == onp.tensordot(a, b, axes=([1], [0])).tolist()


def test_where_clip_maximum() -> None:
    x = np.array([1.0, -2.0, 3.0])
    assert np.where(x > 0, x, 0).tolist() == [1.0, 0.0, 3.0]
    assert np.where(x > 0, 1.0, -1.0).tolist() == [1.0, -1.0, 1.0]
    assert np.clip(x, None, 2).tolist() == [1.0, -2.0, 2.0]
    assert np.maximum(x, 0).tolist() == [1.0, 0.0, 3.0]
    assert np.minimum(1, x).tolist() == [1.0, -2.0, 1.0]
    assert [i.tolist() for i in np.nonzero(x > 0)] == [[0, 2]]


def test_reductions_on_empty_and_zero_dim() -> None:
    with mx.np_shape(True):
        assert np.zeros((0, 2)).sum(axis=0).tolist() == [0.0, 0.0]
        assert np.ones(()).sum().shape == ()
        with pytest.raises(mx.MXNetError, match="zero-size"):
            np.zeros((0,)).max()


def test_sort_and_argsort() -> None:
    ref = onp.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], dtype=onp.float32)
    x = np.array(ref)
    assert np.sort(x).tolist() == onp.sort(ref).tolist()
    assert np.sort(x, axis=None).tolist() == onp.sort(ref, axis=None).tolist()
    got = np.argsort(x, axis=0)
    assert got.dtype == onp.int64 and got.tolist() == onp.argsort(ref, axis=0).tolist()
