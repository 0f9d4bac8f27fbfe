"""Sparse arrays through the executor: storage inference at bind, sparse gradients, and a
linear classifier trained on CSR data with lazy SGD, against MXNet 1.9.1."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx
from tests import sparse_training_cases as t
from tests.golden_file import load

pytest.importorskip("scipy")
_G = load("ndarray/golden/sparse/sparse.npz")


def test_infer_storage_type():
    x = mx.sym.var("x", stype="csr")
    w = mx.sym.var("w")
    assert mx.sym.dot(x, w).infer_storage_type() == (["csr", "default"], ["default"], [])
    out = mx.sym.dot(x, w, transpose_a=True).infer_storage_type()
    assert out[1] == ["row_sparse"]
    assert mx.sym.sqrt(x).infer_storage_type()[1] == ["csr"]
    assert mx.sym.exp(x).infer_storage_type()[1] == ["default"]
    assert (mx.sym.var("a") + mx.sym.var("b")).infer_storage_type(a="row_sparse")[1] == ["default"]


def test_bind_with_sparse_arrays_gives_sparse_outputs_and_grads():
    x = mx.sym.var("x", stype="csr")
    w = mx.sym.var("w")
    y = mx.sym.dot(x, w, transpose_a=True)
    xs = mx.nd.array(np.eye(4, 5, dtype="float32")).tostype("csr")
    exe = y.simple_bind(mx.cpu(), x=(4, 5), w=(4, 3))
    assert exe.arg_dict["x"].stype == "csr" and exe.grad_dict["w"].stype == "default"
    exe.arg_dict["x"][:] = xs
    exe.arg_dict["w"][:] = 1
    out = exe.forward(is_train=True)[0]
    assert out.stype == "row_sparse"
    np.testing.assert_array_equal(out.asnumpy(), np.eye(4, 5).T @ np.ones((4, 3)))
    emb = mx.sym.Embedding(mx.sym.var("d"), mx.sym.var("ew"), input_dim=6, output_dim=2,
                           sparse_grad=True)  # fmt: skip
    exe = emb.simple_bind(mx.cpu(), d=(3,), grad_req={"d": "null", "ew": "write"})
    assert exe.grad_dict["ew"].stype == "row_sparse"
    exe.arg_dict["d"][:] = [1, 4, 1]
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((3, 2)))
    np.testing.assert_array_equal(exe.grad_dict["ew"].indices.asnumpy(), [1, 4])
    np.testing.assert_array_equal(exe.grad_dict["ew"].asnumpy()[[1, 4]], [[2, 2], [1, 1]])


def test_linear_classifier_with_lazy_sgd_matches_mxnet():
    grad_stype, g = _G.cases["linear"]["grad_stype"], _G.arrays("linear")
    run = t.linear_executor(mx, g["x"], g["y"], g["w0"])
    assert next(run).grad_dict["weight"].stype == grad_stype
    for epoch, got in enumerate(run):
        np.testing.assert_allclose(got, g[f"w{epoch + 1}"], rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(got[30:], g["w0"][30:])  # features never seen stay put


# ---- gradients with MXNet's rows (golden sparse.npz) ------------------------------------

_CASES = _G.cases


def _check(grad, name):
    assert grad.stype == _CASES[name]["stype"]
    np.testing.assert_allclose(grad.asnumpy(), _G[name + "/grad"], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(grad.indices.asnumpy(), _G[name + "/indices"])


@pytest.mark.parametrize("name", ["exe_dot_rsp", "exe_dot_dns"])
def test_simple_bind_dot_gradient_matches_mxnet(name):
    w_stype = "row_sparse" if name == "exe_dot_rsp" else "default"
    exe = t.dot_executor(mx, _G[name + "/in0"], _G[name + "/in1"], w_stype)
    _check(t.weight_step(mx, exe, _G[name + "/ograd"]), name)


@pytest.mark.parametrize("name", ["bind_dot_rsp", "bind_dot_dns"])
def test_bind_with_sparse_args_grad_keeps_mxnets_rows(name):
    w_stype = "row_sparse" if name == "bind_dot_rsp" else "default"
    grad = mx.nd.zeros((6, 3), stype="row_sparse")
    exe = t.dot_executor(mx, _G[name + "/in0"], _G[name + "/in1"], w_stype, grad)
    assert t.weight_step(mx, exe, _G[name + "/ograd"]) is grad  # zero but in one row
    _check(grad, name)


def _embedding_exe(grad_req="write"):
    return t.embedding_executor(mx, _G["exe_emb/in0"], _G["exe_emb/in1"], grad_req)


def test_embedding_gradient_holds_the_rows_looked_up():
    exe = _embedding_exe()
    _check(t.weight_step(mx, exe, _G["exe_emb/ograd"]), "exe_emb")
    exe.backward(mx.nd.zeros((2, 2, 2)))
    _check(exe.grad_dict["weight"], "exe_emb_zero")


def test_embedding_gradient_add_sums_each_backward_once():
    # MXNet 1.9.1 refuses grad_req='add' for a row-sparse gradient; mxlite adds
    exe = _embedding_exe("add")
    og = mx.nd.array(_G["exe_emb/ograd"])
    for _ in range(3):
        exe.forward(is_train=True)
        exe.backward(og)
    g = exe.grad_dict["weight"]
    assert g.stype == "row_sparse"
    np.testing.assert_array_equal(g.indices.asnumpy(), _G["exe_emb/indices"])
    np.testing.assert_allclose(g.asnumpy(), 3 * _G["exe_emb/grad"], rtol=1e-5)
    g[:] = 0  # zeroing the buffer between steps starts the sum over
    exe.backward(og)
    np.testing.assert_allclose(exe.grad_dict["weight"].asnumpy(), _G["exe_emb/grad"], rtol=1e-5)
