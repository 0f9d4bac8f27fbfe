"""CSRNDArray and RowSparseNDArray: creation, conversions, indexing, formats, files."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from mxlite.ndarray.sparse import CSRNDArray, RowSparseNDArray
from tests.golden_file import TESTS, load
from tests.sparse_training_cases import creation

sp = pytest.importorskip("scipy.sparse")
GOLDEN = TESTS / "ndarray" / "golden" / "sparse"
_G = load("ndarray/golden/sparse/sparse.npz")


def _golden(name: str) -> str:
    return str(GOLDEN / name)


DENSE = np.array([[0, 1.5, 0, 0], [0, 0, 0, 0], [2, 0, 0, -1]], np.float32)


def test_csr_from_parts_and_attributes():
    a = mx.nd.sparse.csr_matrix(([1.5, 2, -1], [1, 0, 3], [0, 1, 1, 3]), shape=(3, 4))
    assert isinstance(a, CSRNDArray) and a.stype == "csr" and a.shape == (3, 4)
    assert a.dtype == np.float32 and a.indices.dtype == np.int64 and a.indptr.dtype == np.int64
    np.testing.assert_array_equal(a.asnumpy(), DENSE)
    assert a._num_aux == 2
    m = a.asscipy()
    assert isinstance(m, sp.csr_matrix)
    np.testing.assert_array_equal(m.toarray(), DENSE)


def test_row_sparse_from_parts_infers_shape():
    r = mx.nd.sparse.row_sparse_array(([[1, 2], [3, 4]], [1, 3]))
    assert isinstance(r, RowSparseNDArray) and r.shape == (4, 2) and r._num_aux == 1
    np.testing.assert_array_equal(r.indices.asnumpy(), [1, 3])
    np.testing.assert_array_equal(r.asnumpy(), [[0, 0], [1, 2], [0, 0], [3, 4]])


def test_creation_matches_mxnet():
    got = creation(mx, sp, _G["op0/in0"])
    for key, want in _G.arrays("creation").items():  # the dtypes too, as str() gives them
        np.testing.assert_array_equal(got[key], want, err_msg=key)


@pytest.mark.parametrize("stype", ["csr", "row_sparse"])
def test_zeros_empty_and_dtype_ctx(stype: str):
    z = mx.nd.zeros((3, 4), stype=stype, dtype="int32", ctx=mx.cpu(1))
    assert z.stype == stype and z.dtype == np.int32 and z.context == mx.cpu(1)
    assert not z.asnumpy().any()
    assert mx.nd.empty((2, 2), stype=stype).stype == stype
    assert mx.nd.sparse.zeros(stype, (2, 5)).data.shape[0] == 0
    with pytest.raises(ValueError):
        mx.nd.sparse.zeros("bad", (2, 2))


@pytest.mark.parametrize("stype", ["csr", "row_sparse"])
def test_tostype_copyto_astype_roundtrip(stype: str):
    x = mx.nd.array(DENSE).tostype(stype)
    np.testing.assert_array_equal(x.tostype("default").asnumpy(), DENSE)
    dst = mx.nd.zeros((3, 4), stype=stype)
    x.copyto(dst)
    np.testing.assert_array_equal(dst.asnumpy(), DENSE)
    dense_dst = mx.nd.zeros((3, 4))
    x.copyto(dense_dst)
    np.testing.assert_array_equal(dense_dst.asnumpy(), DENSE)
    mx.nd.array(DENSE * 2).copyto(dst)  # dense into sparse
    np.testing.assert_array_equal(dst.asnumpy(), DENSE * 2)
    assert x.astype("float32", copy=False) is x
    y = x.astype("float64")
    assert y.dtype == np.float64 and y.stype == stype and y is not x
    dst[:] = np.ones((3, 4))
    np.testing.assert_array_equal(dst.asnumpy(), np.ones((3, 4)))


def test_csr_row_slicing():
    x = mx.nd.array(DENSE).tostype("csr")
    np.testing.assert_array_equal(x[1:3].asnumpy(), DENSE[1:3])
    np.testing.assert_array_equal(x[-1].asnumpy(), DENSE[-1:])
    assert x[0:2].stype == "csr"
    got = mx.nd.slice(x, begin=(0, 1), end=(3, 4))
    assert got.stype == "csr"
    np.testing.assert_array_equal(got.asnumpy(), DENSE[:, 1:])


def test_retain_keeps_given_rows():
    r = mx.nd.array(DENSE).tostype("row_sparse")
    kept = r.retain(mx.nd.array([2], dtype="int64"))
    assert kept.stype == "row_sparse"
    np.testing.assert_array_equal(kept.indices.asnumpy(), [2])
    np.testing.assert_array_equal(kept.asnumpy()[0], 0)


def test_check_format_finds_bad_indices():
    mx.nd.array(DENSE).tostype("csr").check_format()
    bad = mx.nd.sparse.csr_matrix(([7, 8, 9], [2, 1, 1], [0, 2, 2, 3]), shape=(3, 4))
    with pytest.raises(MXNetError, match="ascending"):
        bad.check_format()
    bad_rsp = mx.nd.sparse.row_sparse_array(([[1, 2], [3, 4]], [1, 4]), shape=(3, 2))
    with pytest.raises(MXNetError, match="row indices"):
        bad_rsp.check_format()
    with pytest.raises(ValueError):
        mx.nd.array([1, 2, 3]).tostype("csr")


def test_unsupported_dense_only_methods_raise():
    r = mx.nd.zeros((2, 2), stype="row_sparse")
    for fn in (lambda: r.reshape((4,)), lambda: r._slice(0, 1), lambda: r._at(0)):
        with pytest.raises(MXNetError):
            fn()


def test_fallback_warns_once_and_computes_densely():
    x = mx.nd.array(DENSE).tostype("csr")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = mx.nd.transpose(x)
        mx.nd.transpose(x)
    msgs = [str(w.message) for w in caught if "fallback" in str(w.message)]
    assert len(msgs) <= 1 and y.stype == "default"
    np.testing.assert_array_equal(y.asnumpy(), DENSE.T)
    out = mx.nd.zeros((3, 4), stype="csr")  # a sparse out= of a dense-only operator
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mx.nd.broadcast_add(mx.nd.ones((3, 4)), mx.nd.ones((3, 4)), out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.full((3, 4), 2))


@pytest.mark.parametrize("stype", ["csr", "row_sparse"])
def test_pickle_roundtrip(stype: str):
    x = mx.nd.array(DENSE).tostype(stype)
    y = pickle.loads(pickle.dumps(x))
    assert type(y) is type(x)
    np.testing.assert_array_equal(y.asnumpy(), DENSE)


def test_load_file_saved_by_mxnet():
    g, stypes = _G.arrays("saved"), _G.cases["saved"]["stypes"]
    loaded = mx.nd.load(_golden("sparse_mxnet.params"))
    assert set(loaded) == set(stypes)
    for k, v in loaded.items():
        assert v.stype == stypes[k]
        assert v.dtype == g[k].dtype
        np.testing.assert_array_equal(v.asnumpy(), g[k])


def test_save_writes_mxnets_bytes(tmp_path):
    """Saving what MXNet saved gives the same bytes, so MXNet reads our files."""
    path = _golden("sparse_mxnet.params")
    loaded = mx.nd.load(path)
    out = tmp_path / "again.params"
    mx.nd.save(str(out), loaded)
    assert out.read_bytes() == open(path, "rb").read()


def test_truncated_sparse_file_is_refused():
    raw = open(_golden("sparse_mxnet.params"), "rb").read()
    with pytest.raises(MXNetError, match="truncated|needs"):
        mx.nd.load_frombuffer(raw[:200])


def test_missing_scipy_names_the_extra(monkeypatch):
    import builtins

    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name.startswith("scipy"):
            raise ImportError("no scipy")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(MXNetError, match=r"mxlite\[sparse\]"):
        mx.nd.array(DENSE).tostype("csr")


def test_autograd_through_a_sparse_input():
    x = mx.nd.array(np.eye(3, 4, dtype="float32")).tostype("csr")
    x.attach_grad()
    w = mx.nd.ones((4, 2))
    w.attach_grad()
    with mx.autograd.record():
        y = mx.nd.dot(x, w)
        z = (y * y).sum()
    z.backward()
    xd = np.eye(3, 4, dtype="float32")
    dy = 2 * (xd @ np.ones((4, 2)))
    np.testing.assert_allclose(w.grad.asnumpy(), xd.T @ dy)
    np.testing.assert_allclose(x.grad.asnumpy(), dy @ np.ones((4, 2)).T)


def test_mxnet_pickle_loads_through_the_restricted_unpickler():
    """Bytes of pickle.dumps({'a': csr, 'b': row_sparse}) made by MXNet 1.9.1 (its row_sparse
    pickles carry a stale storage shape; the values are sized from the indices, as MXNet does)."""
    from mxlite.fileio import restricted_loads

    raw = open(_golden("sparse_mxnet.pkl"), "rb").read()
    d = restricted_loads(raw, "test")
    assert isinstance(d["a"], CSRNDArray) and isinstance(d["b"], RowSparseNDArray)
    np.testing.assert_array_equal(d["a"].asnumpy(), [[0, 1.5], [2, 0]])
    np.testing.assert_array_equal(d["b"].asnumpy(), [[0, 0], [3, 4]])


def test_attach_grad_with_row_sparse_buffer():
    w = mx.nd.ones((6, 2))
    w.attach_grad(stype="row_sparse")
    with mx.autograd.record():
        y = mx.nd.Embedding(mx.nd.array([1, 4, 1]), w, input_dim=6, output_dim=2, sparse_grad=True)
        z = y.sum()
    z.backward()
    assert w.grad.stype == "row_sparse"
    np.testing.assert_array_equal(w.grad.indices.asnumpy(), [1, 4])
    np.testing.assert_array_equal(w.grad.asnumpy()[[1, 4]], [[2, 2], [1, 1]])
    opt = mx.optimizer.SGD(learning_rate=1.0, wd=0.5)  # lazy: rows 0, 2, 3, 5 keep their 1s
    opt.update(0, w, w.grad, None)
    np.testing.assert_allclose(w.asnumpy()[[0, 2, 3, 5]], 1.0)
    np.testing.assert_allclose(w.asnumpy()[1], 1 - (2 + 0.5))


@pytest.mark.parametrize("stype", ["row_sparse", "csr"])
def test_inplace_arithmetic_broadcasts_and_keeps_storage_type(stype):
    # MXNet's clip_global_norm scales sparse gradients by a shape-(1,) array in place
    x = mx.nd.array([[1.0, 2.0], [0.0, 0.0], [3.0, 4.0]]).tostype(stype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the storage-fallback notice
        x *= mx.nd.array([0.5])
        x /= mx.nd.array([0.25])
    assert x.stype == stype
    np.testing.assert_allclose(x.asnumpy(), [[2.0, 4.0], [0.0, 0.0], [6.0, 8.0]])
