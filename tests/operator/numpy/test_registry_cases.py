"""Every operator of mxlite/operator/numpy/, from its own ``test=`` declaration: forward runs
with the inferred shape and dtype, and backward matches central differences in float64."""

from __future__ import annotations

import numpy as np
import pytest

from mxlite.operator import registry
from mxlite.operator.req import OpReq

from ..opcheck import backward, forward, numeric_grad, prop_of

NP_OPS = sorted(
    {
        cls.op_name: cls
        for cls in registry.all_ops().values()
        if cls.op_name.startswith(("_np_", "_npi_", "_npx_"))
    }.items()
)


def _inputs(cls: type, dtype: str) -> tuple[list[np.ndarray], dict]:
    t = cls.test
    prop = prop_of(cls.op_name, **t.params)
    rng = np.random.default_rng(0)
    names = prop.list_arguments()
    inputs = []
    for n in names:
        shape = t.shapes.get(n, (2, 3))
        inputs.append(rng.uniform(t.low, t.high, size=shape).astype(t.dtypes[0] if dtype is None
                                                                     else dtype))  # fmt: skip
    return inputs, t.params


def _skip_dynamic(cls: type) -> None:
    if cls.dynamic_shape:  # its output shape needs the values: tests/numpy runs it through mx.np
        pytest.skip("output shape known only when it runs")


def test_every_operator_declares_a_test() -> None:
    assert NP_OPS
    assert [name for name, cls in NP_OPS if cls.test is None] == []


@pytest.mark.parametrize(("name", "cls"), NP_OPS, ids=[n for n, _ in NP_OPS])
def test_forward_shape_and_dtype(name: str, cls: type) -> None:
    _skip_dynamic(cls)
    inputs, params = _inputs(cls, None)
    prop = prop_of(name, **params)
    shapes, dtypes, _, _ = prop.infer_imperative(
        tuple(a.shape for a in inputs), tuple(a.dtype for a in inputs)
    )
    outs = forward(name, inputs, **params)
    assert [o.shape for o in outs] == [tuple(s) for s in shapes]
    assert [o.dtype for o in outs] == list(dtypes)


@pytest.mark.parametrize(("name", "cls"), NP_OPS, ids=[n for n, _ in NP_OPS])
def test_backward_matches_finite_differences(name: str, cls: type) -> None:
    if not cls.test.grad or not prop_of(name, **cls.test.params).list_arguments():
        pytest.skip("no gradient declared")
    inputs, params = _inputs(cls, "float64")
    got = backward(name, inputs, **params)
    want = numeric_grad(name, inputs, **params)
    for g, w in zip(got, want):
        if w is not None:
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize(("name", "cls"), NP_OPS, ids=[n for n, _ in NP_OPS])
def test_add_request_accumulates(name: str, cls: type) -> None:
    _skip_dynamic(cls)
    inputs, params = _inputs(cls, None)
    outs = forward(name, inputs, **params)
    init = [np.ones_like(o) for o in outs]
    added = forward(name, inputs, req=OpReq.ADD, out_init=init, **params)
    for a, o in zip(added, outs):
        if o.dtype.kind in "fiu":
            np.testing.assert_allclose(a, o + 1, rtol=1e-6)


def test_legacy_aliases_share_the_entry() -> None:
    for alias, legacy in [("_npi_maximum", "broadcast_maximum"), ("_npi_clip", "clip"),
                          ("_np_repeat", "repeat"), ("_npi_take", "take"),
                          ("_npx_softmax", "softmax"), ("_npi_cast", "Cast"),
                          ("_npi_split", "_split_v2"), ("_npx_one_hot", "one_hot")]:  # fmt: skip
        assert registry.get(alias) is registry.get(legacy)
