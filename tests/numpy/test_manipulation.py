"""mx.np's triangles, diagonals, differences, stacking variants and memory-overlap tests
(values against MXNet 1.9.1 are in test_golden.py)."""

from __future__ import annotations

import numpy as onp
import pytest

import mxlite as mx
from mxlite import autograd


def test_shares_memory_tells_overlapping_views_of_one_array() -> None:
    a = mx.np.arange(12.0).reshape(3, 4)
    assert mx.np.shares_memory(a[0, 1:3], a[0, 2:4])
    assert not mx.np.shares_memory(a[0, 0:2], a[0, 2:4])
    assert mx.np.may_share_memory(a, a[1])
    assert not mx.np.shares_memory(a, a.copy())


def test_bad_arguments_name_function_and_argument() -> None:
    a = mx.np.arange(4.0)
    with pytest.raises(ValueError, match="vsplit: argument .ary."):  # as MXNet
        mx.np.vsplit(a, 2)
    with pytest.raises(mx.MXNetError, match="diff: arguments 'prepend'"):
        mx.np.diff(a, prepend=0)
    with pytest.raises(mx.MXNetError, match="polyval: arguments 'p' and 'x'"):
        mx.np.polyval([1.0, 2.0], a)
    with pytest.raises(mx.MXNetError, match="axes"):
        mx.np.rot90(a.reshape(2, 2), axes=(0, 0))


def test_rot90_gradient_is_the_inverse_rotation() -> None:
    x = mx.np.arange(6.0).reshape(2, 3)
    w = onp.arange(6.0).reshape(3, 2) + 1
    x.attach_grad()
    with autograd.record():
        y = (mx.np.rot90(x) * mx.np.array(w)).sum()
    y.backward()
    onp.testing.assert_allclose(x.grad.asnumpy(), onp.rot90(w, -1))


def test_nan_to_num_leaves_integers_and_works_in_place() -> None:
    i = mx.np.array([1, 2], dtype="int32")
    assert mx.np.nan_to_num(i) is i
    f = mx.np.array([onp.nan, 1.0])
    mx.np.nan_to_num(f, copy=False, nan=7.0)
    onp.testing.assert_allclose(f.asnumpy(), [7.0, 1.0])


def test_new_functions_compose_on_symbols_too() -> None:
    x = mx.sym.var("x").as_np_ndarray()
    y = mx.sym.np.tril(x, 1)
    out = y.eval(x=mx.nd.array(onp.ones((2, 3))))[0]
    onp.testing.assert_allclose(out.asnumpy(), onp.tril(onp.ones((2, 3)), 1))


def test_bincount_sizes_its_output_from_the_values() -> None:
    x = mx.np.array([0, 1, 1, 3], dtype="int32")
    assert mx.np.bincount(x).tolist() == [1, 2, 0, 1]
    assert mx.np.bincount(x, minlength=6).shape == (6,)
    with pytest.raises(ValueError, match="minlength"):
        mx.np.bincount(x, minlength=-1)


def test_einsum_gradient_on_a_repeated_and_a_lone_letter() -> None:
    x = mx.np.arange(9.0).reshape(3, 3)
    v = mx.np.array([1.0, 2.0])
    x.attach_grad()
    v.attach_grad()
    with autograd.record():
        y = mx.np.einsum("ii", x) + mx.np.einsum("i,j->", v, v * v)
    y.backward()
    onp.testing.assert_allclose(x.grad.asnumpy(), onp.eye(3))
    # d/dv_k of sum_i v_i * sum_j v_j^2 = sum_j v_j^2 + 2 v_k sum_i v_i
    onp.testing.assert_allclose(v.grad.asnumpy(), [5.0 + 2 * 3.0, 5.0 + 4 * 3.0])


def test_percentile_rejects_out_of_range_q() -> None:
    with pytest.raises(ValueError, match="range"):
        mx.np.percentile(mx.np.arange(4.0), 120).asnumpy()


def test_stacking_and_atleast_run_their_operators_on_symbols() -> None:
    x = mx.sym.var("x").as_np_ndarray()
    y = mx.sym.var("y").as_np_ndarray()
    feed = {"x": mx.nd.array(onp.arange(3.0)), "y": mx.nd.array(onp.ones((3, 2)))}
    out = mx.sym.np.column_stack([x, y]).eval(**feed)[0]
    want = onp.column_stack([onp.arange(3.0), onp.ones((3, 2))])
    onp.testing.assert_allclose(out.asnumpy(), want)
    assert mx.np.atleast_3d(mx.np.ones(3)).shape == (1, 3, 1)
    assert [a.shape for a in mx.np.atleast_2d(mx.np.ones(()), mx.np.ones(2))] == [(1, 1), (1, 2)]
    assert mx.np.dstack([mx.np.ones((2, 3)), mx.np.ones((2, 3))]).shape == (2, 3, 2)


def test_grad_is_none_for_a_null_request() -> None:
    a = mx.np.ones(3)
    a.attach_grad("null")
    assert a.grad is None
