"""Sparse arrays under autograd: gradient storage types and the rows MXNet 1.9.1 stores."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import mxlite as mx
from tests import sparse_training_cases as t
from tests.golden_file import load

STYPES = ["default", "csr", "row_sparse"]


@pytest.mark.parametrize("array_stype", STYPES)
@pytest.mark.parametrize("grad_stype", [None, *STYPES])
def test_attach_grad_stype_defaults_to_the_arrays(array_stype, grad_stype):
    x = mx.nd.zeros((2, 3), stype=array_stype)
    x.attach_grad(stype=grad_stype)
    assert x.grad.stype == (grad_stype or array_stype)
    y = x.detach()
    assert y.stype == array_stype
    assert y._ag is None


def test_detach_of_a_sparse_array_shares_its_values():
    x = mx.nd.array([[0, 1], [2, 0]]).tostype("csr")
    np.testing.assert_array_equal(x.detach().asnumpy(), x.asnumpy())


_G = load("ndarray/golden/sparse/sparse.npz")
CASES = _G.cases


def _check(grad, name):
    case = CASES[name]
    assert grad.stype == case["stype"]
    np.testing.assert_allclose(grad.asnumpy(), _G[name + "/grad"], rtol=1e-5, atol=1e-6)
    if grad.stype != "default":
        np.testing.assert_array_equal(grad.indices.asnumpy(), _G[name + "/indices"])


@pytest.mark.parametrize("name", sorted(t.DOT))
def test_dot_csr_gradient_matches_mxnet(name):
    ins = [_G[f"{name}/in{i}"] for i in range(2)]
    _check(t.recorded_dot(mx, *ins, *t.DOT[name], _G[name + "/ograd"]), name)


def test_embedding_sparse_grad_holds_only_the_rows_looked_up():
    w = mx.nd.array(_G["emb_rspgrad/in1"])
    t.recorded_embedding(mx, _G["emb_rspgrad/in0"], w, _G["emb_rspgrad/ograd"])
    _check(w.grad, "emb_rspgrad")


def test_embedding_sparse_grad_add_keeps_the_union_of_rows():
    w = mx.nd.array(_G["emb_rspgrad/in1"])
    og = mx.nd.array(_G["emb_rspgrad/ograd"])
    t.recorded_embedding(mx, _G["emb_rspgrad/in0"], w, og, grad_req="add")
    for _ in range(2):
        with mx.autograd.record():
            z = mx.nd.Embedding(mx.nd.array([[3.0]]), w, input_dim=9, output_dim=2,
                                sparse_grad=True)  # fmt: skip
        z.backward()
        idx = mx.nd.array(_G["emb_rspgrad/in0"])
        with mx.autograd.record():
            z = mx.nd.Embedding(idx, w, input_dim=9, output_dim=2, sparse_grad=True) * 2
        z.backward(og)
    assert w.grad.stype == "row_sparse"
    assert w.grad.indices.asnumpy().tolist() == [1, 3, 4, 7]
    expected = 3 * _G["emb_rspgrad/grad"]
    expected[3] = 2.0
    np.testing.assert_allclose(w.grad.asnumpy(), expected, rtol=1e-5)


def test_autograd_grad_sums_row_sparse_parts():
    x = mx.nd.array(_G["dot_rsp/in0"]).tostype("csr")
    w = mx.nd.array(_G["dot_rsp/in1"]).tostype("row_sparse")
    w.attach_grad()
    with mx.autograd.record():
        y = mx.nd.dot(x, w) + mx.nd.dot(x, w)
    (g,) = mx.autograd.grad(y, [w])
    assert g.stype == "row_sparse"
    np.testing.assert_array_equal(g.indices.asnumpy(), _G["dot_rsp/indices"])
    expected = 2 * x.asnumpy().T @ np.ones((4, 3), np.float32)
    np.testing.assert_allclose(g.asnumpy(), expected, rtol=1e-5)


def test_sparse_gradient_feeding_a_dense_consumer_is_densified():
    x = mx.nd.array(_G["dot_rsp/in0"]).tostype("csr")
    w0 = mx.nd.array(_G["dot_rsp/in1"])
    w0.attach_grad()
    with mx.autograd.record():
        w = w0 * 3
        y = mx.nd.dot(x, w)
    y.backward()
    assert w0.grad.stype == "default"
    expected = 3 * x.asnumpy().T @ np.ones((4, 3), np.float32)
    np.testing.assert_allclose(w0.grad.asnumpy(), expected, rtol=1e-5)


# ---- sparse operators are engine operations --------------------------------------------


def _pending_write(dst, value):
    """Write ``value`` into ``dst`` from an engine function that waits on an event first, so
    the write is still pending when the caller goes on."""
    from mxlite.engine import get as engine

    gate = threading.Event()

    def run(rctx):
        gate.wait(10)
        dst._data[...] = value

    engine().push_sync(run, dst.context, [], [dst._chunk.var], 0, "test_write")
    return gate


def test_sparse_operator_runs_after_a_pending_dense_write():
    a = mx.nd.zeros((3, 4))
    a.wait_to_read()
    value = np.array([[0, 1, 0, 0], [0, 0, 0, 0], [2, 0, 0, 3]], np.float32)
    gate = _pending_write(a, value)
    csr = mx.nd.sparse.cast_storage(a, "csr")  # returns at once: an engine operation
    doubled = csr * 2
    total = mx.nd.dot(csr, mx.nd.ones((4, 2)))
    gate.set()
    mx.nd.waitall()
    assert csr.stype == doubled.stype == "csr"
    np.testing.assert_array_equal(csr.asnumpy(), value)
    np.testing.assert_array_equal(doubled.indices.asnumpy(), [1, 0, 3])
    np.testing.assert_array_equal(total.asnumpy(), value @ np.ones((4, 2)))


def test_sparse_operator_failure_surfaces_at_the_wait(monkeypatch):
    from mxlite.base import MXNetError
    from mxlite.operator import registry

    x = mx.nd.array([[1.0, 0.0]]).tostype("csr")

    def broken(prop, values, out_stypes):
        raise ValueError("kernel failed")

    with monkeypatch.context() as m:
        m.setattr(registry.get("sin").sparse_form, "compute", broken)
        y = mx.nd.sin(x)
    with pytest.raises(MXNetError, match="kernel failed"):
        y.asnumpy()


# ---- sparse kernels under autograd: no dense copy of a CSR operand -----------------------


def test_recorded_dot_runs_its_sparse_kernels(monkeypatch):
    from mxlite.ndarray import sparse_dispatch

    def no_fallback(prop, *args):
        raise AssertionError(f"{prop.op_name} fell back to dense")

    monkeypatch.setattr(sparse_dispatch, "_fallback", no_fallback)
    rng = np.random.RandomState(0)
    x = (rng.uniform(size=(5, 7)) < 0.3) * rng.normal(size=(5, 7))
    csr = mx.nd.array(x).tostype("csr")
    w = mx.nd.array(rng.normal(size=(7, 2)))
    v = mx.nd.array(rng.normal(size=(5, 2)))
    w.attach_grad(stype="row_sparse")
    v.attach_grad()
    with mx.autograd.record():
        y = mx.nd.dot(csr, w)
        t = mx.nd.dot(csr, v, transpose_a=True)  # row-sparse, as MXNet
    assert t.stype == "row_sparse"
    mx.autograd.backward([y, t])
    np.testing.assert_allclose(w.grad.asnumpy(), x.T @ np.ones((5, 2)), rtol=1e-5)
    np.testing.assert_array_equal(w.grad.indices.asnumpy(), np.unique(csr.indices.asnumpy()))
    assert v.grad.stype == "default"
    np.testing.assert_allclose(v.grad.asnumpy(), x @ np.ones((7, 2)), rtol=1e-5)


def test_embedding_sparse_backward_sums_repeated_indices():
    rng = np.random.RandomState(1)
    idx = rng.randint(-2, 12, size=(6, 5)).astype(np.float32)  # out of range: clipped
    og = rng.normal(size=(6, 5, 3)).astype(np.float32)
    w = mx.nd.array(rng.normal(size=(10, 3)))
    w.attach_grad(stype="row_sparse")
    with mx.autograd.record():
        y = mx.nd.Embedding(mx.nd.array(idx), w, input_dim=10, output_dim=3, sparse_grad=True)
    y.backward(mx.nd.array(og))
    clipped = np.clip(idx.astype(np.int64), 0, 9).reshape(-1)
    expected = np.zeros((10, 3), np.float32)
    np.add.at(expected, clipped, og.reshape(-1, 3))
    np.testing.assert_allclose(w.grad.asnumpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(w.grad.indices.asnumpy(), np.unique(clipped))


def test_detach_of_a_pending_result_sees_its_values():
    x = mx.nd.array([[0, 1], [2, 0]]).tostype("csr")
    y = (x * 3).detach()
    np.testing.assert_array_equal(y.asnumpy(), [[0, 3], [6, 0]])
