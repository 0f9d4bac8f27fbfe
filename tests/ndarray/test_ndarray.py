"""NDArray: creation, arithmetic rules, views, indexing, asynchrony and errors."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import DTypeError, MXNetError, ShapeError
from mxlite.operator import GradNeeds, simple_op


def _failing(xp, x, env, out):
    raise FloatingPointError("kernel exploded")


simple_op(
    "_test_failing_op",
    forward=_failing,
    gradient=lambda xp, g, env: g,
    grad_needs=GradNeeds.OUT_GRAD,
    doc="An operator whose kernel always fails (tests).",
)


def test_array_dtype_defaults_as_mxnet():
    assert mx.nd.array([1, 2, 3]).dtype == np.float32
    assert mx.nd.array(np.arange(3)).dtype == np.float32  # MXNet ignores the source dtype
    assert mx.nd.array([1, 2], dtype="int32").dtype == np.int32
    x = mx.nd.array([1, 2], dtype=np.float64)
    assert mx.nd.array(x).dtype == np.float64  # an NDArray source keeps its dtype


def test_creation_functions():
    assert mx.nd.zeros((2, 3)).asnumpy().tolist() == [[0, 0, 0], [0, 0, 0]]
    assert mx.nd.ones(4, dtype="int64").asnumpy().dtype == np.int64
    assert mx.nd.full((2,), 7.5).asnumpy().tolist() == [7.5, 7.5]
    np.testing.assert_array_equal(mx.nd.arange(0, 6, 2, repeat=2).asnumpy(), [0, 0, 2, 2, 4, 4])
    np.testing.assert_array_equal(mx.nd.eye(3, k=1).asnumpy(), np.eye(3, k=1))
    assert mx.nd.empty((0, 3)).shape == (0, 3)
    with pytest.raises(MXNetError, match="zeros.*shape"):
        mx.nd.zeros((2, -1))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_arithmetic_matches_numpy(dtype):
    rng = np.random.default_rng(0)
    a = (rng.random((3, 4)) * 10 + 1).astype(dtype)
    b = (rng.random((3, 4)) * 10 + 1).astype(dtype)
    x, y = mx.nd.array(a, dtype=dtype), mx.nd.array(b, dtype=dtype)
    for got, want in [
        (x + y, a + b),
        (x - y, a - b),
        (x * y, a * b),
        (x + 2, a + 2),
        (3 - x, 3 - a),
        (x * 2, a * 2),
        (-x, -a),
        (x % y, np.mod(a, b)),
        (mx.nd.maximum(x, y), np.maximum(a, b)),
    ]:
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)


def test_integer_scalar_is_cast_first_and_division_truncates():
    x = mx.nd.array([1, 2, 3], dtype="int32")
    assert (x * 2.5).asnumpy().tolist() == [2, 4, 6]  # 2.5 becomes 2, as in MXNet
    assert (x + 2.7).asnumpy().tolist() == [3, 4, 5]
    assert (x / 2).asnumpy().tolist() == [0, 1, 1]


def test_comparisons_return_input_dtype():
    x = mx.nd.array([1, 2, 3])
    eq = x == 2
    assert eq.dtype == np.float32 and eq.asnumpy().tolist() == [0, 1, 0]
    assert (x > mx.nd.array([0, 2, 4])).asnumpy().tolist() == [1, 0, 0]
    assert (2 < x).asnumpy().tolist() == [0, 0, 1]


def test_broadcasting_and_its_error():
    out = mx.nd.ones((2, 3)) + mx.nd.array([1, 2, 3])
    np.testing.assert_array_equal(out.asnumpy(), [[2, 3, 4], [2, 3, 4]])
    with pytest.raises(ShapeError, match="broadcast_add.*(2, 3).*(2,)"):
        mx.nd.ones((2, 3)) + mx.nd.ones((2,))
    with pytest.raises(ShapeError, match="elemwise_add.*same shape"):
        mx.nd.elemwise_add(mx.nd.ones((2, 3)), mx.nd.ones((3,)))


def test_mixed_dtypes_rejected_at_the_call():
    with pytest.raises(DTypeError, match="broadcast_add.*rhs.*int32"):
        mx.nd.ones((2,)) + mx.nd.ones((2,), dtype="int32")


def test_unsupported_operand_type():
    with pytest.raises(TypeError, match="str"):
        mx.nd.ones((2,)) + "a"


def test_inplace_operators_write_the_same_array():
    x = mx.nd.array([1, 2, 3])
    view = x[1:]
    x += 1
    x *= mx.nd.array([2, 2, 2])
    assert x.asnumpy().tolist() == [4, 6, 8]
    assert view.asnumpy().tolist() == [6, 8]


def test_out_argument_checked_at_the_call():
    x, y = mx.nd.ones((2,)), mx.nd.ones((2,))
    out = mx.nd.zeros((2,))
    assert mx.nd.elemwise_add(x, y, out=out) is out
    assert out.asnumpy().tolist() == [2, 2]
    with pytest.raises(MXNetError, match="elemwise_add.*out.*shape"):
        mx.nd.elemwise_add(x, y, out=mx.nd.zeros((3,)))


def test_views_share_memory_copies_do_not():
    x = mx.nd.array(np.arange(12).reshape(3, 4))
    row = x[1]
    row[:] = 0
    assert x.asnumpy()[1].tolist() == [0, 0, 0, 0]
    stepped = x[::2]  # a copy, as in MXNet
    stepped[:] = -1
    assert (x.asnumpy() >= 0).all()
    assert x[1, 2].shape == (1,) and mx.nd.array([1, 2, 3])[1].shape == (1,)


def test_setitem_forms():
    x = mx.nd.zeros((2, 3))
    x[0] = 1
    x[1, 1:] = mx.nd.array([5, 6])
    x[:, 0] = np.array([7, 8])
    np.testing.assert_array_equal(x.asnumpy(), [[7, 1, 1], [8, 5, 6]])
    with pytest.raises(MXNetError, match="setitem.*shape"):
        x[0] = mx.nd.ones((4,))


def test_advanced_indexing_gathers():
    x = mx.nd.array(np.arange(12).reshape(3, 4))
    np.testing.assert_array_equal(
        x[mx.nd.array([2, 0])].asnumpy(), np.arange(12).reshape(3, 4)[[2, 0]]
    )
    np.testing.assert_array_equal(x[[0, 2], [1, 3]].asnumpy(), [1, 11])
    with pytest.raises(IndexError):
        x[5]


def test_kernel_error_surfaces_at_next_wait_and_process_goes_on():
    x = mx.nd.ones((3,))
    bad = mx.nd._internal._test_failing_op(x)  # returns at once
    later = bad + 1  # skipped by the engine: it reads a failed array
    with pytest.raises(MXNetError, match="_test_failing_op.*kernel exploded") as info:
        later.asnumpy()
    assert isinstance(info.value.__cause__, FloatingPointError)
    assert (x + 1).asnumpy().tolist() == [2, 2, 2]
    mx.nd.waitall()  # the failure was reported once; nothing is left to raise


def test_waitall_raises_unreported_failures_once():
    mx.nd._internal._test_failing_op(mx.nd.ones((2,)))
    with pytest.raises(MXNetError, match="kernel exploded"):
        mx.nd.waitall()
    mx.nd.waitall()


def test_python_protocol():
    x = mx.nd.array([[1, 2], [3, 4]])
    assert len(x) == 2 and [r.shape for r in x] == [(2,), (2,)]
    assert bool(mx.nd.array([1])) and not bool(mx.nd.array([0]))
    with pytest.raises(ValueError, match="ambiguous"):
        bool(x)
    assert repr(x).endswith("<NDArray 2x2 @cpu(0)>")
    assert float(mx.nd.array([2.5])) == 2.5
    with pytest.raises(MXNetError, match="asscalar"):
        x.asscalar()


def test_copy_astype_context():
    x = mx.nd.array([1.5, 2.5])
    y = x.copy()
    y[:] = 0
    assert x.asnumpy().tolist() == [1.5, 2.5]
    z = x.astype("int32")
    assert z.dtype == np.int32 and z.asnumpy().tolist() == [1, 2]
    assert x.astype("float32", copy=False) is x
    assert x.as_in_context(mx.cpu()) is x
    dst = mx.nd.zeros((2,))
    x.copyto(dst)
    assert dst.asnumpy().tolist() == [1.5, 2.5]
    with pytest.raises(MXNetError, match="copyto.*shape"):
        x.copyto(mx.nd.zeros((3,)))


def test_pickle_round_trip():
    x = mx.nd.array(np.arange(6).reshape(2, 3), dtype="float64")
    y = pickle.loads(pickle.dumps(x))
    assert y.dtype == np.float64
    np.testing.assert_array_equal(y.asnumpy(), x.asnumpy())


def test_save_load_round_trip(tmp_path):
    data = {"w": mx.nd.array([[1, 2], [3, 4]]), "b": mx.nd.array([5], dtype="int64")}
    path = tmp_path / "p.params"
    mx.nd.save(str(path), data)
    back = mx.nd.load(str(path))
    assert sorted(back) == ["b", "w"] and back["b"].dtype == np.int64
    np.testing.assert_array_equal(back["w"].asnumpy(), [[1, 2], [3, 4]])
    listed = mx.nd.load_frombuffer(path.read_bytes())
    assert isinstance(listed, dict)
    mx.nd.save(str(path), [mx.nd.ones((2,))])
    assert isinstance(mx.nd.load(str(path)), list)
    with pytest.raises(MXNetError, match="save.*data"):
        mx.nd.save(str(path), [np.ones(2)])


def test_large_arrays_come_from_the_pool_and_are_reused():
    from mxlite import storage

    nbytes = 4 << 20
    x = mx.nd.ones((nbytes // 4,))
    x.wait_to_read()
    before = storage.stats(mx.cpu())
    del x
    mx.nd.waitall()
    y = mx.nd.zeros((nbytes // 4,))
    y.wait_to_read()
    after = storage.stats(mx.cpu())
    assert after.in_use == before.in_use  # the freed block came back for y


def test_int_index_of_1d_array_waits_for_pending_writes():
    import threading

    from mxlite.engine import get

    gate = threading.Event()
    x = mx.nd.zeros((3,))
    data = x._data

    def slow_write(rctx):
        gate.wait(30)
        data[:] = 7

    get().push_sync(slow_write, mx.cpu(), [], [x._chunk.var])
    first = x[0]  # a view: reading it waits for the write
    gate.set()
    assert first.asscalar() == 7 and first.shape == (1,)
    first[:] = 5
    assert x.asnumpy().tolist() == [5, 7, 7]
