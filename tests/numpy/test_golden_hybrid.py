"""mx.np through HybridBlocks against real MXNet 1.9.1 (tools/golden/cases/numpy_hybrid.py,
cases in tests/numpy/hybrid_cases.py): before and after hybridize(), the outputs, their dtypes
and the input gradients at zero-size and zero-dim shapes, None arguments, symbol operands and
rank-dependent split axes; and the signatures mx._numpy_op_doc documents."""

from __future__ import annotations

import inspect

import numpy as onp
import pytest

import mxlite as mx
from tests.golden_file import load
from tests.numpy import hybrid_cases as hc

GOLDEN = load("numpy/golden/numpy_hybrid.npz")
RUNS = [(name, mode) for name, _, _, modes in hc.CASES for mode in modes]
EXPRS = {name: (expr, inputs) for name, expr, inputs, _ in hc.CASES}


@pytest.fixture(autouse=True)
def _np_mode():
    with mx.np_shape(True), mx.util.np_array(True):
        yield


@pytest.mark.parametrize(("name", "mode"), RUNS)
def test_hybrid_block_gives_what_mxnet_gives(name: str, mode: str) -> None:
    expr, inputs = EXPRS[name]
    values = hc.case_inputs(inputs)
    for i, v in enumerate(values.values()):  # the same inputs MXNet ran on
        onp.testing.assert_array_equal(v, GOLDEN[f"{name}/in{i}"])
    want = GOLDEN.cases[name]["modes"][mode]
    got = hc.run_case(mx, expr, values, mode)
    assert got["dtypes"] == want["dtypes"], expr
    for j, out in enumerate(got["outs"]):
        ref = GOLDEN[f"{name}/{mode}/out{j}"]
        assert out.shape == ref.shape, (expr, j)
        onp.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6, err_msg=expr)
    for i, grad in enumerate(got["grads"]):
        key = f"{name}/{mode}/grad{i}"
        assert (grad is None) == (key not in GOLDEN), (expr, i)
        if grad is not None:
            onp.testing.assert_allclose(grad, GOLDEN[key], rtol=1e-5, atol=1e-6, err_msg=expr)


def test_the_documented_signatures_are_mxnets() -> None:
    want = GOLDEN.cases["signatures"]["signatures"]
    got = {n: str(inspect.signature(getattr(mx._numpy_op_doc, n))) for n in vars(mx._numpy_op_doc)}
    # every operator mxlite registers under a name MXNet documents carries MXNet's signature
    registered = {n for n in want if mx.operator.registry.find(n) is not None}
    assert set(got) == registered
    assert got == {n: want[n] for n in registered}
    for name, sig in got.items():
        fn = mx.numpy_op_signature._get_builtin_op(name)
        assert str(fn.__signature__) == sig, name


def test_the_internal_namespaces_name_npi_operators_without_the_prefix() -> None:
    for space in (mx.nd.np._internal, mx.sym.np._internal):
        assert callable(space.boolean_mask_assign_scalar)
        assert callable(space._npi_boolean_mask_assign_scalar)


def test_a_recorded_overwrite_through_a_new_axis_reaches_the_value() -> None:
    # x[:, None] = y under record(): y has the region's shape (3, 1, 4), as in MXNet
    for shape in ((3, 4), (3, 0)):
        x = mx.np.zeros(shape)
        y = mx.np.array(onp.ones((shape[0], 1, shape[1]), "float32"))
        y.attach_grad()
        with mx.autograd.record():
            x[:, None] = y
            x.backward()
        assert y.grad.shape == y.shape
        onp.testing.assert_array_equal(y.grad.asnumpy(), onp.ones(y.shape))
        onp.testing.assert_array_equal(x.asnumpy(), onp.ones(shape))


def test_take_mode_raise_refuses_an_index_out_of_range_as_mxnet() -> None:
    x = mx.np.arange(6).reshape(2, 3)
    with pytest.raises(mx.MXNetError, match="take.*indices"):
        mx.np.take(x, mx.np.array([7], dtype="int64"), mode="raise").asnumpy()
    with pytest.raises(mx.MXNetError, match="take.*indices"):
        x.take(mx.np.array([-9], dtype="int64"), mode="raise").asnumpy()
