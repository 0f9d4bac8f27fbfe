"""mx.np's functions that MXNet 1.9.1 hands to official NumPy: every name exists, arrays come
back as mx.np arrays on the input's context, scalars stay scalars, autograd refuses them."""

from __future__ import annotations

import numpy as onp
import pytest

import mxlite as mx
from mxlite import autograd, np
from mxlite.numpy.fallback import FALLBACK_NAMES, LINALG_FALLBACK_NAMES


def test_every_name_exists() -> None:
    assert len(FALLBACK_NAMES) == 84
    assert [n for n in FALLBACK_NAMES if not callable(getattr(np, n, None))] == []
    assert all(n in np.__all__ for n in FALLBACK_NAMES)
    assert [n for n in LINALG_FALLBACK_NAMES if not callable(getattr(np.linalg, n, None))] == []


def test_arrays_come_back_as_mx_np_arrays() -> None:
    f = np.array([3.0, 1.0, 2.0, 0.0])
    for res in (np.argwhere(f > 1), np.nancumsum(f), np.vander(f, 2), np.partition(f, 1),
                np.unwrap(f), np.heaviside(f - 2, 0.5)):  # fmt: skip
        assert isinstance(res, np.ndarray) and res.context == f.context
    onp.testing.assert_array_equal(np.argwhere(f > 1).asnumpy(), [[0], [2]])
    q, r = np.linalg.qr(np.array([[2.0, 1.0], [1.0, 3.0]]))
    assert isinstance(q, np.ndarray) and isinstance(r, np.ndarray)
    mant, exp = np.frexp(f)
    assert exp.dtype == onp.int32 and isinstance(mant, np.ndarray)
    rows, cols = np.tril_indices_from(np.ones((3, 3)))
    assert isinstance(rows, np.ndarray) and rows.shape == (6,)


def test_scalars_stay_scalars() -> None:
    f = np.array([1.0, 2.0])
    assert np.allclose(f, f) is True
    assert isinstance(np.count_nonzero(f), (int, onp.integer))
    assert isinstance(np.linalg.matrix_rank(np.eye(2)), (int, onp.integer))
    assert np.promote_types("int32", "float32") == onp.float64
    assert np.min_scalar_type(10) == onp.uint8


def test_arguments_in_lists_and_keywords_are_converted() -> None:
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    got = np.linalg.multi_dot([a, a, a])
    onp.testing.assert_allclose(got.asnumpy(), onp.linalg.matrix_power(a.asnumpy(), 3))
    sel = np.select([a > 2], [a], default=0)
    onp.testing.assert_array_equal(sel.asnumpy(), [[0, 0], [3, 4]])
    assert np.in1d(a, np.array([2.0, 4.0])).tolist() == [False, True, False, True]
    assert np.msort(np.array([[3, 1], [1, 2]])).tolist() == [[1, 1], [3, 2]]
    assert np.alltrue(a > 0) and float(np.trapz(np.array([1.0, 1.0]))) == 1.0


def test_removed_financial_functions_raise() -> None:
    with pytest.raises(RuntimeError, match="numpy_financial"):
        np.npv(0.1, [1, 2])


def test_autograd_refuses_a_fallback() -> None:
    x = np.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record(), pytest.raises(ValueError, match="autograd"):
        np.cov(x)


def test_names_are_numpys() -> None:
    assert np.digitize.__name__ == "digitize" and "digitize" in mx.np.__all__
