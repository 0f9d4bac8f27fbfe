"""Parameter, Constant and ParameterDict (mxlite/gluon/parameter.py)."""

import numpy as np
import pytest

import mxlite as mx
from mxlite import autograd, gluon
from mxlite.gluon.parameter import DeferredInitializationError


def test_parameter_initialize_data_grad_and_contexts():
    p = gluon.Parameter("weight", shape=(10, 10))
    p.initialize(init="xavier", ctx=[mx.cpu(0), mx.cpu(1)])
    assert len(p.list_data()) == 2 and len(p.list_grad()) == 2
    assert p.data(mx.cpu(1)).context == mx.cpu(1)
    assert p.data(mx.cpu(0)).shape == (10, 10)
    assert p.var().name == "weight"
    assert p.grad(mx.cpu(0)).stype == "default"
    p.reset_ctx(ctx=[mx.cpu(1), mx.cpu(2)])
    assert p.list_ctx() == [mx.cpu(1), mx.cpu(2)]
    with pytest.raises(RuntimeError, match="weight.*not initialized on context"):
        p.data(mx.cpu(0))


def test_deferred_initialization_error_names_the_parameter():
    p = gluon.Parameter("w", shape=(0, 3), allow_deferred_init=True)
    p.initialize()
    with pytest.raises(DeferredInitializationError, match="'w'"):
        p.data()
    with pytest.raises(mx.MXNetError, match="invalid shape"):
        gluon.Parameter("v", shape=(0, 3)).initialize()


def test_grad_req_null_detaches_and_cast_keeps_marking():
    p = gluon.Parameter("w", shape=(2, 2))
    p.initialize()
    p.grad_req = "null"
    with pytest.raises(RuntimeError, match="grad_req='null'"):
        p.grad()
    p.grad_req = "write"
    p.cast("float64")
    with autograd.record():
        y = (p.data() * 2).sum()
    y.backward()
    assert p.grad().dtype == np.float64
    np.testing.assert_allclose(p.grad().asnumpy(), 2.0)
    with pytest.raises(AssertionError, match="grad_req"):
        p.grad_req = "bogus"


def test_constant_is_not_trained():
    c = gluon.Constant("c", [[1.0, 2.0]])
    c.initialize()
    assert c.grad_req == "null"
    np.testing.assert_array_equal(c.data().asnumpy(), [[1.0, 2.0]])


def test_parameter_dict_get_share_and_save_load(tmp_path):
    pd = gluon.ParameterDict("net_")
    w = pd.get("weight", shape=(3, 0))
    assert w.name == "net_weight"
    assert pd.get("weight", shape=(0, 4)) is w and w.shape == (3, 4)
    shared = gluon.ParameterDict("net_", shared=pd)
    assert shared.get("weight") is w
    pd.initialize(ctx=mx.cpu())
    pd.setattr("lr_mult", 0.5)
    assert w.lr_mult == 0.5
    f = str(tmp_path / "p.params")
    pd.save(f, strip_prefix="net_")
    assert list(mx.nd.load(f)) == ["weight"]
    other = gluon.ParameterDict("net_")
    other.get("weight", shape=(3, 4))
    other.load(f, ctx=mx.cpu(), restore_prefix="net_")
    np.testing.assert_array_equal(other["net_weight"].data().asnumpy(), w.data().asnumpy())
    with pytest.raises(AssertionError, match="net_weight|weight"):
        gluon.ParameterDict("x_").load(f, restore_prefix="x_")


def test_asking_for_the_other_storage_type_names_the_method_and_the_way_out():
    dense = gluon.Parameter("d", shape=(2, 2))
    dense.initialize()
    rows = mx.nd.array([0])
    with pytest.raises(
        RuntimeError,
        match=r"^Cannot return a copy of Parameter d via row_sparse_data\(\) because its "
        r"storage type is default\. Please use data\(\) instead\.$",
    ):
        dense.row_sparse_data(rows)
    with pytest.raises(
        RuntimeError,
        match=r"^Cannot return copies of Parameter 'd' on all contexts via "
        r"list_row_sparse_data\(\) because its storage type is default\. Please use data\(\)",
    ):
        dense.list_row_sparse_data(rows)
    sparse = gluon.Parameter("s", shape=(2, 2), stype="row_sparse")
    sparse.initialize()
    with pytest.raises(
        RuntimeError,
        match=r"^Cannot return a copy of Parameter 's' on ctx cpu\(0\) via data\(\) because its "
        r"storage type is row_sparse\. Please use row_sparse_data\(\) instead\.$",
    ):
        sparse.data(mx.cpu(0))
    with pytest.raises(
        RuntimeError,
        match=r"^Cannot return copies of Parameter 's' on all contexts via list_data\(\) because "
        r"its storage type is row_sparse\. Please use row_sparse_data\(\) instead\.$",
    ):
        sparse.list_data()
