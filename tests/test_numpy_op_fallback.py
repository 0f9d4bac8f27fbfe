"""mxlite.numpy_op_fallback: the Custom operators MXNet 1.9.1 registers for a few np functions."""

from __future__ import annotations

import pytest

import mxlite as mx


@pytest.mark.parametrize(
    ("op_type", "name", "params"),
    [
        ("resize_fallback", "resize", {"new_shape": (3, 3)}),
        ("empty_like_fallback", "empty_like", {}),
    ],
)
def test_backward_names_the_op_without_gradient(op_type: str, name: str, params: dict) -> None:
    a = mx.nd.array([[1.0, 2.0], [3.0, 0.0]])
    a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(a, op_type=op_type, **params)
    with pytest.raises(mx.MXNetError, match=f"{name}: the operator has no gradient"):
        y.backward()
        mx.nd.waitall()
