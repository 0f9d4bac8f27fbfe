"""mx.np.linalg.norm against NumPy, and its gradient."""

from __future__ import annotations

import numpy as onp
import pytest

from mxlite import autograd, np

A = onp.array([[3.0, -4.0], [1.0, 2.0]], dtype=onp.float32)


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"axis": 1}, {"ord": 1, "axis": 0}, {"ord": onp.inf, "axis": 1}, {"ord": "fro"},
     {"ord": 3, "axis": 1}, {"axis": 1, "keepdims": True}],
)  # fmt: skip
def test_norm_against_numpy(kwargs: dict) -> None:
    got = np.linalg.norm(np.array(A), **kwargs)
    want = onp.linalg.norm(A, **kwargs)
    assert got.shape == want.shape
    onp.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5)


def test_norm_gradient() -> None:
    x = np.array([3.0, 4.0])
    x.attach_grad()
    with autograd.record():
        n = np.linalg.norm(x)
    n.backward()
    onp.testing.assert_allclose(x.grad.asnumpy(), [0.6, 0.8], rtol=1e-6)
