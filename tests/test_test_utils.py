"""mx.test_utils: environment(), random shapes and arrays, and the small helpers MXNet's tests
import (assert_almost_equal and the tolerances: test_test_utils_compare.py)."""

from __future__ import annotations

import gzip
import os
import struct

import numpy as np
import pytest

import mxlite as mx
import mxlite.test_utils.data as _data
from mxlite import test_utils as tu
from mxlite.base import MXNetError, ParamError, ShapeError

F32 = np.float32


def test_environment_sets_and_restores(monkeypatch):
    monkeypatch.setenv("MXLITE_TU_A", "old")
    monkeypatch.delenv("MXLITE_TU_B", raising=False)
    with tu.environment({"MXLITE_TU_A": None, "MXLITE_TU_B": "new"}):
        assert "MXLITE_TU_A" not in os.environ
        assert os.environ["MXLITE_TU_B"] == "new"
    assert os.environ["MXLITE_TU_A"] == "old"
    assert "MXLITE_TU_B" not in os.environ
    with tu.environment("MXLITE_TU_A", "two-args"):
        assert os.environ["MXLITE_TU_A"] == "two-args"
    assert os.environ["MXLITE_TU_A"] == "old"


def test_environment_restores_after_an_exception(monkeypatch):
    monkeypatch.delenv("MXLITE_TU_C", raising=False)
    with pytest.raises(KeyError):
        with tu.environment("MXLITE_TU_C", "1"):
            raise KeyError("boom")
    assert "MXLITE_TU_C" not in os.environ


def test_environment_as_decorator(monkeypatch):
    monkeypatch.setenv("MXLITE_TU_D", "outer")
    seen = []

    @tu.environment("MXLITE_TU_D", "inner")
    def body():
        seen.append(os.environ["MXLITE_TU_D"])

    @tu.with_environment({"MXLITE_TU_D": "decorated"})
    def other():
        seen.append(os.environ["MXLITE_TU_D"])

    body()
    body()
    other()
    assert seen == ["inner", "inner", "decorated"]
    assert os.environ["MXLITE_TU_D"] == "outer"


def test_environment_rejects_bad_arguments():
    with pytest.raises(ParamError, match="environment.*got 3"):
        tu.environment("A", "1", "2")
    with pytest.raises(ParamError, match="environment.*'MXLITE_TU_E'.*int"):
        tu.environment("MXLITE_TU_E", 1)


def test_set_env_var_returns_the_old_value(monkeypatch):
    monkeypatch.delenv("MXLITE_TU_F", raising=False)
    assert tu.set_env_var("MXLITE_TU_F", "1", default_val="none") == "none"
    assert tu.set_env_var("MXLITE_TU_F", "2") == "1"
    assert os.environ["MXLITE_TU_F"] == "2"


def test_rand_shapes_stay_in_range():
    for _ in range(50):
        d0, d1 = tu.rand_shape_2d(3, 4)
        assert 1 <= d0 <= 3 and 1 <= d1 <= 4
        assert all(1 <= d <= 2 for d in tu.rand_shape_3d(2, 2, 2))
        shape = tu.rand_shape_nd(4, dim=5)
        assert len(shape) == 4 and all(type(d) is int and 1 <= d <= 5 for d in shape)
        x, y = tu.rand_coord_2d(2, 5, 10, 11)
        assert 2 <= x < 5 and y == 10
    zeros = [tu.rand_shape_nd(3, dim=1, allow_zero_size=True) for _ in range(20)]
    assert any(0 in s for s in zeros)


def test_rand_ndarray_shape_dtype_and_context():
    arr = tu.rand_ndarray((2, 3))
    assert isinstance(arr, mx.nd.NDArray)
    assert arr.shape == (2, 3) and arr.dtype == np.float32 and arr.context == mx.cpu()
    assert tu.rand_ndarray((4,), dtype=np.float16).dtype == np.float16
    assert tu.rand_ndarray(5, ctx=mx.cpu(0)).shape == (5,)
    assert tu.rand_ndarray((2, 2), stype="csr").stype == "csr"
    rsp, (values, rows) = tu.rand_sparse_ndarray((4, 2), "row_sparse", density=1)
    assert rsp.stype == "row_sparse" and list(rows) == [0, 1, 2, 3] and values.shape == (4, 2)
    with pytest.raises(MXNetError, match="rand_sparse_ndarray.*storage type"):
        tu.rand_sparse_ndarray((2, 2), "bad")


def test_random_arrays():
    one = tu.random_arrays((2, 3))
    assert isinstance(one, np.ndarray) and one.shape == (2, 3) and one.dtype == np.float32
    scalar, vec = tu.random_arrays((), (4,))
    assert scalar.shape == () and vec.shape == (4,)
    (u,) = tu.random_uniform_arrays((100,), low=2.0, high=3.0, dtype=np.float64)
    assert u.dtype == np.float64 and u.min() >= 2.0 and u.max() < 3.0
    with pytest.raises(ParamError, match="random_uniform_arrays.*bogus"):
        tu.random_uniform_arrays((2,), bogus=1)
    sample = tu.random_sample(list(range(10)), 4)
    assert len(sample) == 4 and len(set(sample)) == 4
    with pytest.raises(ParamError, match="random_sample.*'k'"):
        tu.random_sample([1, 2], 3)


def test_assert_exception():
    tu.assert_exception(int, ValueError, "not a number")
    with pytest.raises(AssertionError, match="did not raise ValueError"):
        tu.assert_exception(int, ValueError, "12")
    # MXNet's version passed here, swallowing its own assert; this one reports the miss.
    with pytest.raises(AssertionError, match="did not raise AssertionError"):
        tu.assert_exception(int, AssertionError, "12")


def test_same_and_same_array():
    a = mx.nd.array([[1, 2], [3, 4]])
    assert tu.same(a, np.array([[1, 2], [3, 4]], F32))
    assert not tu.same(a, np.array([[1, 2], [3, 5]], F32))
    assert not tu.same(np.zeros(2), np.zeros(3))
    assert tu.same_array(a, a[:])
    assert tu.same_array(a, a.reshape((4,)).reshape((2, 2)))
    assert not tu.same_array(a, a.copy())
    assert tu.same(a, np.array([[1, 2], [3, 4]], F32))  # same_array left it unchanged


def test_compare_ndarray_tuple():
    tu.compare_ndarray_tuple((mx.nd.ones((2,)), (np.zeros(1), None)), (np.ones(2), (0.0, 5.0)))
    with pytest.raises(AssertionError):
        tu.compare_ndarray_tuple((mx.nd.ones((2,)),), (np.zeros(2),))


def test_retry_reruns_failed_assertions():
    calls = []

    @tu.retry(3)
    def flaky():
        calls.append(1)
        assert len(calls) == 3

    flaky()
    assert len(calls) == 3

    @tu.retry(2)
    def always_fails():
        calls.append(1)
        raise AssertionError("still wrong")

    with pytest.raises(AssertionError, match="still wrong"):
        always_fails()
    assert len(calls) == 5
    with pytest.raises(ParamError, match="retry.*'n'"):
        tu.retry(0)


def test_cudnn_decorator_runs_the_test():
    ran = []

    @tu.assert_raises_cudnn_not_satisfied(min_version="9.9.9")
    def needs_cudnn(x):
        ran.append(x)

    needs_cudnn(7)
    assert ran == [7]


def test_contexts_and_platform_queries():
    assert tu.default_context() == mx.current_context()
    try:
        tu.set_default_context(mx.cpu(1))
        assert tu.default_context() == mx.cpu(1)
        assert tu.rand_ndarray((1,)).context == mx.cpu(1)
    finally:
        tu.set_default_context(mx.cpu(0))
    with pytest.raises(MXNetError, match="set_default_context.*'ctx'"):
        tu.set_default_context("gpu")
    assert tu.list_gpus() == range(mx.context.num_gpus())
    assert tu.has_tvm_ops() is False and tu.is_op_runnable() is True
    with tu.environment("CD_JOB", "1"):
        assert tu.is_cd_run()
    with tu.environment("CD_JOB", None):
        assert not tu.is_cd_run()


def test_star_import_exports_what_mxnet_tests_use():
    namespace: dict = {}
    exec("from mxlite.test_utils import *", namespace)
    for name in (
        "np",
        "rnd",
        "npt",
        "os",
        "sys",
        "time",
        "mx",
        "assert_almost_equal",
        "rand_ndarray",
        "environment",
        "same",
        "default_context",
        "logging",
        "json",
        "struct",
        "traceback",
        "Features",
    ):
        assert name in namespace, name


def test_np_reduce_and_collapse_sum_like():
    x = np.arange(24.0).reshape(2, 3, 4)
    assert np.array_equal(tu.np_reduce(x, (0, 2), True, np.sum), x.sum(axis=(0, 2), keepdims=True))
    assert np.array_equal(tu.np_reduce(x, None, False, np.max), x.max())
    assert np.array_equal(tu.np_reduce(x, 1, False, np.sum), x.sum(axis=1))
    assert np.array_equal(tu.collapse_sum_like(x, (3, 1)), x.sum(axis=(0, 2))[:, None])
    assert tu.collapse_sum_like(np.zeros((2, 0)), (1, 0)).shape == (1, 0)
    with pytest.raises(ShapeError, match=r"collapse_sum_like.*\(2,\)"):
        tu.collapse_sum_like(x, (2,))


def test_matrix_generators():
    np.random.seed(0)
    m = tu.new_matrix_with_real_eigvals_2d(4)
    assert np.allclose(np.linalg.eigvals(m).imag, 0)
    assert tu.new_matrix_with_real_eigvals_nd((2, 3, 3)).shape == (2, 3, 3)
    q = tu.new_orthonormal_matrix_2d(3)
    assert np.allclose(q.T @ q, np.eye(3))
    s = tu.new_sym_matrix_with_real_eigvals_nd((2, 1, 3, 3))
    assert s.shape == (2, 1, 3, 3) and np.allclose(s, np.swapaxes(s, -1, -2))


def test_mean_and_var_checks():
    rng = np.random.default_rng(1)
    assert tu.mean_check(lambda n: rng.normal(0, 1, n), 0, 1, nsamples=20000)
    assert not tu.mean_check(lambda n: rng.normal(0.5, 1, n), 0, 1, nsamples=20000)
    assert tu.var_check(lambda n: rng.normal(0, 2, n), 2, nsamples=20000)
    assert not tu.var_check(lambda n: rng.normal(0, 3, n), 2, nsamples=20000)


def test_chi_square_check_tells_good_from_bad_samplers():
    ss = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(2)
    buckets, probs = tu.gen_buckets_probs_with_ppf(lambda q: ss.norm.ppf(q), 5)
    p_good, obs, expected = tu.chi_square_check(lambda n: rng.normal(size=n), buckets, probs, 20000)
    assert p_good > 1e-3 and obs.sum() == 20000 and list(expected) == [4000] * 5
    p_bad, _, _ = tu.chi_square_check(lambda n: rng.uniform(-2, 2, n), buckets, probs, 20000)
    assert p_bad < 1e-6
    p_discrete, obs, _ = tu.chi_square_check(
        lambda n: rng.integers(0, 3, n), [0, 1, 2], [1 / 3] * 3, 9000
    )
    assert p_discrete > 1e-3 and obs.sum() == 9000
    with pytest.raises(AssertionError, match="Generator test fails"):
        tu.verify_generator(lambda n: rng.uniform(-2, 2, n), buckets, probs, 20000, nrepeat=2)


def test_download_copies_once_and_fails_clearly(tmp_path, capsys):
    src = tmp_path / "src.bin"
    src.write_bytes(b"payload")
    out = tu.download(src.as_uri(), dirname=str(tmp_path / "dl"))
    assert out == str(tmp_path / "dl" / "src.bin")
    assert (tmp_path / "dl" / "src.bin").read_bytes() == b"payload"
    src.write_bytes(b"changed")
    assert tu.download(src.as_uri(), dirname=str(tmp_path / "dl")) == out  # present: kept
    assert (tmp_path / "dl" / "src.bin").read_bytes() == b"payload"
    missing = (tmp_path / "missing.bin").as_uri()
    with pytest.raises(MXNetError, match="download.*missing.bin"):
        tu.download(missing, fname=str(tmp_path / "m.bin"), retries=2)
    assert "1 attempt left" in capsys.readouterr().out
    assert not (tmp_path / "m.bin").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".download")] == []


def test_get_mnist_reads_local_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for prefix, n in (("train", 3), ("t10k", 2)):
        with gzip.open(f"{prefix}-labels-idx1-ubyte.gz", "wb") as f:
            f.write(struct.pack(">II", 2049, n) + bytes(range(n)))
        with gzip.open(f"{prefix}-images-idx3-ubyte.gz", "wb") as f:
            f.write(struct.pack(">IIII", 2051, n, 28, 28) + bytes([255]) * (n * 784))
    data = tu.get_mnist()
    assert data["train_data"].shape == (3, 1, 28, 28) and data["train_data"].dtype == np.float32
    assert data["train_data"].max() == 1.0
    assert list(data["train_label"]) == [0, 1, 2] and data["test_data"].shape == (2, 1, 28, 28)


def test_dataset_helpers_fail_clearly_without_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_data, "_fetch", _no_network)
    with pytest.raises(MXNetError, match="download.*cifar10.zip"):
        tu.get_cifar10()


def _no_network(url, fname):
    raise OSError("network is unreachable")


def test_check_symbolic_casts_int_inputs_and_accepts_asnumpy():
    import mxlite as mx
    from mxlite.test_utils import check_symbolic_backward, check_symbolic_forward

    d, lab = mx.sym.var("d"), mx.sym.var("l")
    s = d + lab
    loc = [np.ones((2,), np.float32), np.array([1, 2], np.int64)]
    check_symbolic_forward(s, loc, [np.array([2.0, 3.0])])
    check_symbolic_backward(s, loc, [np.ones(2)], [np.ones(2), np.ones(2)])
    out = check_symbolic_forward(s, [np.ones(2), np.ones(2)], [np.full(2, 2.0)], dtype="asnumpy")
    assert out[0].dtype == np.float64


def test_dummy_iter_repeats_first_batch():
    import mxlite as mx
    from mxlite.test_utils import DummyIter

    it = DummyIter(mx.io.NDArrayIter(np.arange(8.0).reshape(4, 2), batch_size=2))
    assert next(it) is next(it)
    assert it.batch_size == 2


def test_star_import_gives_what_mxnet_tests_use():
    # MXNet's tests call array(...) after `from mxnet.test_utils import *`
    ns: dict = {}
    exec("from mxlite.test_utils import *", ns)
    assert ns["array"]([1, 2]).shape == (2,)
    assert ns["Symbol"] is mx.sym.Symbol


def test_check_numeric_gradient_follows_mxnet():
    # MXNet's test_roipooling (seed 1234): with MXNet's projection (uniform in [0.1, 1.1))
    # and its order of random draws, both the 'write' and the 'add' checks pass here as there
    np.random.seed(1234)
    data, rois = mx.sym.var("data"), mx.sym.var("rois")
    test = mx.sym.ROIPooling(data=data, rois=rois, pooled_size=(4, 4), spatial_scale=1)
    x1 = np.random.rand(4, 3, 12, 8).astype("float32")
    x2 = np.array(
        [
            [0, 1.1, 1.1, 6.2, 6.2],
            [2, 6.1, 2.1, 8.2, 11.2],
            [1, 3.1, 1.1, 5.2, 10.2],
            [0, 3, 3, 3, 3],
        ],
        dtype="float32",
    )
    for req in ("write", "add"):
        tu.check_numeric_gradient(
            test, [x1, x2], grad_nodes={"data": req, "rois": "null"}, numeric_eps=1e-4,
            rtol=1e-1, atol=1e-4,
        )  # fmt: skip


def test_check_numeric_gradient_catches_a_wrong_gradient():
    from mxlite.operator import GradNeeds, simple_op

    if mx.operator.registry.find("_test_wrong_grad") is None:
        simple_op(
            "_test_wrong_grad",
            forward=lambda xp, x, env, out: x * x,
            gradient=lambda xp, g, x, env: g * x,  # should be 2 * g * x
            grad_needs=GradNeeds.INPUT,
            doc="x * x with half its gradient (tests).",
        )
    x = mx.sym.var("x")
    loc = [np.linspace(0.5, 1.5, 6).reshape(2, 3)]
    tu.check_numeric_gradient(x * x, loc)
    with pytest.raises(AssertionError, match="NUMERICAL_x"):
        tu.check_numeric_gradient(mx.sym._internal._test_wrong_grad(x), loc)
    with pytest.raises(AssertionError, match="NUMERICAL_x"):
        tu.check_numeric_gradient(
            mx.sym._internal._test_wrong_grad(x), loc, grad_nodes={"x": "add"}
        )


def test_get_mnist_iterator_reads_the_ubyte_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.makedirs("data")
    for prefix, n in (("train", 6), ("t10k", 4)):
        with open(f"data/{prefix}-labels-idx1-ubyte", "wb") as f:
            f.write(struct.pack(">II", 2049, n) + bytes(range(n)))
        with open(f"data/{prefix}-images-idx3-ubyte", "wb") as f:
            f.write(struct.pack(">IIII", 2051, n, 28, 28) + bytes([255]) * (n * 784))
    train, val = tu.get_mnist_iterator(2, (1, 28, 28))
    assert train.provide_data[0].shape == (2, 1, 28, 28)
    assert len(list(train)) == 3 and len(list(val)) == 2
    flat, _ = tu.get_mnist_iterator(2, (784,), num_parts=2, part_index=1)
    batches = list(flat)
    assert batches[0].data[0].shape == (2, 784) and len(batches) == 1  # 3 of 6 examples


def test_same_symbol_structure_compares_operators_only() -> None:
    a = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2, name="a")
    b = mx.sym.FullyConnected(mx.sym.var("y"), num_hidden=5, name="b")
    assert mx.test_utils.same_symbol_structure(a, b)
    assert not mx.test_utils.same_symbol_structure(a, mx.sym.relu(mx.sym.var("x")) + 1)


def test_check_speed_times_a_bound_symbol() -> None:
    sym = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=4, name="fc")
    assert mx.test_utils.check_speed(sym, N=2, data=(3, 5)) > 0
    loc = {"data": np.ones((3, 5)), "fc_weight": np.ones((4, 5)), "fc_bias": np.zeros(4)}
    assert mx.test_utils.check_speed(sym, location=loc, N=2, typ="forward") > 0
    with pytest.raises(ValueError, match="typ"):
        mx.test_utils.check_speed(sym, N=1, typ="backward", data=(3, 5))


def test_check_gluon_hybridize_consistency() -> None:
    def build(prefix: str):
        net = mx.gluon.nn.HybridSequential(prefix=prefix)
        with net.name_scope():
            net.add(mx.gluon.nn.Dense(3, use_bias=False, weight_initializer="ones"))
        return net

    data = [mx.nd.array(np.arange(8.0).reshape(2, 4))]
    mx.test_utils.check_gluon_hybridize_consistency(
        build, data, numpy_func=lambda x: x.sum(axis=1, keepdims=True).repeat(3, axis=1)
    )
    with pytest.raises(AssertionError):
        mx.test_utils.check_gluon_hybridize_consistency(build, data, numpy_func=lambda x: x[:, :3])


def test_check_numeric_gradient_runs_its_forwards_on_the_calling_thread(monkeypatch):
    # each finite difference reads its output at once: a worker per forward only added a
    # thread round trip (most of MXNet's test_random, 100000 forwards)
    import threading

    from mxlite import engine
    from mxlite.test_utils import check_numeric_gradient

    monkeypatch.setattr(engine.objects, "INLINE_BYTES", 16384)
    x = np.random.uniform(-1, 1, size=(3, 8, 100))  # 19 KiB of float64: above INLINE_BYTES
    assert x.nbytes > engine.objects.INLINE_BYTES
    threads = set()
    eng = engine.get()
    eng.wait_for_all()
    eng.set_profile_sink(lambda name, ctx, tid, start, end: threads.add(tid))
    try:
        check_numeric_gradient(mx.sym.tanh(mx.sym.var("x")), [x], dtype=np.float64)
    finally:
        eng.set_profile_sink(None)
    assert threads == {threading.get_ident()}
