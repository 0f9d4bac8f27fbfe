"""mx.np's insert, delete, unique, pad, ediff1d, histogram, resize, unravel_index,
diag_indices_from, the creation functions (indices, logspace, windows), broadcast_arrays and
meshgrid, and MXNet's mx.np submodules: NumPy's results where MXNet 1.9.1 gives them, the
errors at the call, hybridized blocks, and the graphs they write."""

from __future__ import annotations

import json

import numpy as onp
import pytest

import mxlite as mx
from mxlite import autograd, gluon, np, npx
from mxlite.base import DTypeError, MXNetError, ShapeError

A = onp.arange(6, dtype=onp.float32).reshape(2, 3)


def _check(got: np.ndarray, want: onp.ndarray) -> None:
    assert isinstance(got, np.ndarray)
    assert got.shape == want.shape
    onp.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)


@pytest.mark.parametrize(
    ("obj", "values", "axis"),
    [(1, 7.5, 1), (-1, 7.5, 0), (0, onp.array([9.0, 8.0, 7.0]), 0), (slice(0, 3, 2), 4.0, 1),
     (slice(None, None, -1), onp.array([[1.0], [2.0]]), 1), (2, 1.0, None)],
)  # fmt: skip
def test_insert_as_numpy(obj, values, axis) -> None:
    # MXNet 1.9.1 fails on a scalar value with an axis of a 2-D array; NumPy's answer here
    vals = np.array(values) if isinstance(values, onp.ndarray) else values
    _check(np.insert(np.array(A), obj, vals, axis=axis), onp.insert(A, obj, values, axis=axis))


def test_insert_with_an_index_array_and_its_errors() -> None:
    got = np.insert(np.array(A), np.array([0, 2], dtype="int64"), 5.0, axis=1)
    _check(got, onp.insert(A, [0, 2], 5.0, axis=1))
    with pytest.raises(ShapeError, match="_npi_insert_scalar.*out of bounds"):
        np.insert(np.array(A), 10, 1.0, axis=1)
    with pytest.raises(DTypeError, match="_npi_insert_tensor.*'obj'.*float32"):
        np.insert(np.array(A), np.array([1.0]), 1.0, axis=1)
    with pytest.raises(TypeError, match="insert.*'obj'"):
        np.insert(np.array(A), [1], 1.0)


def test_delete_ignores_indices_outside_the_axis_as_mxnet() -> None:
    got = np.delete(np.array(A), np.array([-1, 1, 9]), axis=1)  # float32 indices, as MXNet takes
    _check(got, onp.delete(A, [1], axis=1))
    _check(np.delete(np.array(A), slice(None, None, 2)), onp.delete(A, slice(None, None, 2)))
    _check(np.delete(np.array(A), onp.int64(-1), axis=0), A[:1])
    with pytest.raises(ShapeError, match="_npi_delete.*index 5.*size 3"):
        np.delete(np.array(A), 5, axis=1)
    with pytest.raises(ShapeError, match="_npi_delete.*'axis' 2"):
        np.delete(np.array(A), 0, axis=2)


def test_insert_and_delete_have_no_gradient_as_in_mxnet() -> None:
    x = np.array(A)
    x.attach_grad()
    with autograd.record():
        y = np.delete(x, 0, axis=0)  # recording is fine
    with pytest.raises(MXNetError, match="_npi_delete.*no gradient"):
        y.backward()
        x.grad.asnumpy()  # an imperative backward fails where its result is read


def test_unique_outputs_and_dtypes() -> None:
    a = onp.array([[3, 1, 1], [2, 3, 0]], dtype=onp.int8)
    got = np.unique(np.array(a), True, True, True)
    want = onp.unique(a, True, True, True)
    assert [g.dtype for g in got] == [onp.int8, onp.int64, onp.int64, onp.int64]
    for g, w in zip(got, want):  # the inverse indices have the shape the installed NumPy gives
        assert g.shape == w.shape
        onp.testing.assert_array_equal(g.asnumpy(), w)
    assert isinstance(np.unique(np.array(a)), np.ndarray)


def test_nonzero_and_diag_indices_from() -> None:
    x = onp.array([[0.0, 1.5, 0.0], [2.0, 0.0, 3.0]])
    got = npx.nonzero(np.array(x))
    assert got.dtype == onp.int64
    onp.testing.assert_array_equal(got.asnumpy(), onp.transpose(onp.nonzero(x)))
    assert npx.nonzero(np.zeros((1, 0))).shape == (0, 2)
    rows = np.diag_indices_from(np.ones((3, 3, 3)))
    assert len(rows) == 3 and all(r.tolist() == [0, 1, 2] for r in rows)
    with pytest.raises(ShapeError, match="_npi_diag_indices_from.*equal length"):
        np.diag_indices_from(np.ones((2, 3)))


def test_nonzero_in_a_hybridized_block() -> None:
    class Net(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.npx.nonzero(x)

    x = onp.array([[0.0, 1.0], [1.0, 1.0]], dtype=onp.float32)
    net = Net()
    net.hybridize()
    with mx.util.np_array(True), mx.util.np_shape(True):
        got = net(np.array(x))
    onp.testing.assert_array_equal(got.asnumpy(), onp.argwhere(x))


def test_pad_honours_constant_values_and_checks_its_arguments() -> None:
    # MXNet 1.9.1 drops constant_values (its _op.py discards that result); mxlite pads with it
    _check(np.pad(np.array(A), ((1, 0), (0, 2)), constant_values=5),
           onp.pad(A, ((1, 0), (0, 2)), constant_values=5))  # fmt: skip
    for mode in ("edge", "reflect", "symmetric", "maximum", "minimum"):
        _check(np.pad(np.array(A), ((1, 1), (2, 1)), mode=mode),
               onp.pad(A, ((1, 1), (2, 1)), mode=mode))  # fmt: skip
    with pytest.raises(TypeError, match="pad_width"):
        np.pad(np.array(A), [[1, 1], [1, 1]])
    with pytest.raises(ValueError, match="mode 'wrap'"):
        np.pad(np.array(A), ((1, 1), (1, 1)), mode="wrap")
    with pytest.raises(ValueError, match="stat_length"):
        np.pad(np.array(A), ((1, 1), (1, 1)), mode="maximum", stat_length=2)
    with pytest.raises(ValueError, match="unsupported keyword.*end_values"):
        np.pad(np.array(A), ((1, 1), (1, 1)), mode="edge", end_values=1)


def test_pad_gradient_is_the_interior_of_the_head_gradient() -> None:
    x = np.array(A)
    x.attach_grad()
    head = onp.arange(20, dtype=onp.float32).reshape(4, 5)
    with autograd.record():
        y = np.pad(x, ((1, 1), (0, 2)), mode="edge")
    y.backward(np.array(head))
    onp.testing.assert_array_equal(x.grad.asnumpy(), head[1:3, 0:3])  # as MXNet's backward


def test_pad_width_writes_and_reads_mxnet_attribute_text() -> None:
    sym = mx.sym.np.pad(mx.sym.var("x").as_np_ndarray(), ((1, 2), (3, 4)), mode="edge")
    node = [n for n in json.loads(sym.tojson())["nodes"] if n["op"] == "_npi_pad"][0]
    assert node["attrs"]["pad_width"] == "((1, 2), (3, 4))"
    back = mx.sym.load_json(sym.tojson())
    ex = back.bind(mx.cpu(), {"x": mx.nd.array(A)})
    _check(np.array(ex.forward()[0].asnumpy()), onp.pad(A, ((1, 2), (3, 4)), mode="edge"))
    with pytest.raises(MXNetError, match="_npi_pad.*pad_width"):
        mx.nd.np._internal._npi_pad(np.array(A), pad_width="((1, 2), oops)")


def test_ediff1d_and_its_gradient() -> None:
    _check(np.ediff1d(np.array(A), to_begin=-1, to_end=np.array([7.0, 8.0])),
           onp.ediff1d(A, to_begin=-1, to_end=[7.0, 8.0]))  # fmt: skip
    with pytest.raises(DTypeError, match="_npi_ediff1d.*one dtype"):
        np.ediff1d(np.array(A), to_end=np.array([1], dtype="int32"))
    x, end = np.array([1.0, 4.0, 2.0]), np.array([[5.0, 6.0]])
    x.attach_grad()
    end.attach_grad()
    with autograd.record():
        y = np.ediff1d(x, to_end=end)
    y.backward(np.array([1.0, 10.0, 100.0, 1000.0]))
    assert x.grad.tolist() == [-1.0, -9.0, 10.0] and end.grad.tolist() == [[100.0, 1000.0]]


def test_histogram_resize_unravel_index() -> None:
    cnt, edges = np.histogram(np.array(A), bins=3, range=(0, 6))
    assert cnt.dtype == onp.int64 and cnt.tolist() == [2, 2, 2] and edges.shape == (4,)
    with pytest.raises(NotImplementedError, match="range"):
        np.histogram(np.array(A), bins=3)
    with pytest.raises(NotImplementedError, match="weights"):
        np.histogram(np.array(A), bins=3, range=(0, 1), weights=np.array(A))
    _check(np.resize(np.array(A), (4, 4)), onp.resize(A, (4, 4)))
    assert np.resize(np.zeros((2, 0)), 3).tolist() == [0.0, 0.0, 0.0]
    rows = np.unravel_index(np.array([1, 5], dtype="int32"), (2, 3))
    assert [r.tolist() for r in rows] == [[0, 1], [1, 2]] and rows[0].dtype == onp.int32
    assert np.unravel_index(5, (2, 3)) == (1, 2)
    with pytest.raises(NotImplementedError, match="order"):
        np.unravel_index(np.array([1], dtype="int32"), (2, 3), order="F")


def test_creation_functions_compose_in_a_hybridized_block() -> None:
    class Net(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return (x + F.np.logspace(0, 1, 4, base=2.0) + F.np.hanning(4) + F.np.hamming(4)
                    + F.np.blackman(4) + F.np.indices((4,), dtype="float32")[0])  # fmt: skip

    want = (onp.logspace(0, 1, 4, base=2.0) + onp.hanning(4) + onp.hamming(4) + onp.blackman(4)
            + onp.arange(4))  # fmt: skip
    net = Net()
    with mx.util.np_array(True), mx.util.np_shape(True):
        plain = net(np.zeros(()))
        net.hybridize()
        hybrid = net(np.zeros(()))
    onp.testing.assert_allclose(plain.asnumpy(), want, rtol=1e-5)
    onp.testing.assert_allclose(hybrid.asnumpy(), want, rtol=1e-5)
    with pytest.raises(ValueError, match="indices.*dimensions"):
        np.indices(3)
    with pytest.raises(NotImplementedError, match="axis"):
        np.logspace(0, 1, axis=1)


def test_broadcast_arrays_meshgrid_sometrue() -> None:
    x, y = np.array([1.0, 2.0, 3.0]), np.array([[1.0], [2.0]])
    got = np.broadcast_arrays(x, y)
    assert [g.shape for g in got] == [(2, 3), (2, 3)]
    same = np.broadcast_arrays(x, x)
    assert same[0] is x
    with pytest.raises(ValueError, match="broadcast_arrays.*shape mismatch"):
        np.broadcast_arrays(x, np.ones(2))
    for indexing in ("xy", "ij"):
        for g, w in zip(np.meshgrid(x, y.reshape(-1), indexing=indexing),
                        onp.meshgrid(x.asnumpy(), [1.0, 2.0], indexing=indexing)):  # fmt: skip
            _check(g, w)
    with pytest.raises(NotImplementedError, match="sparse"):
        np.meshgrid(x, sparse=True)
    assert bool(np.sometrue(np.array([0.0, 1.0]))) is True


def test_mxnet_numpy_submodules() -> None:
    assert np.utils._STR_2_DTYPE_["int"] is onp.int64 and np.finfo is onp.finfo
    assert np.function_base.meshgrid is np.meshgrid
    assert np.stride_tricks.broadcast_arrays is np.broadcast_arrays
    assert np.fallback_linalg.qr is np.linalg.qr
    assert np.linalg.fallback_linalg is np.fallback_linalg  # MXNet binds it in both
    assert np.arrayprint.set_printoptions is np.set_printoptions
    with pytest.raises(NotImplementedError, match="precision and threshold"):
        np.set_printoptions(linewidth=10)


def test_genfromtxt_returns_an_np_array(tmp_path) -> None:
    path = tmp_path / "a.csv"
    path.write_text("1,2\n3,4\n")
    got = np.io.genfromtxt(str(path), delimiter=",")
    assert isinstance(got, np.ndarray) and got.dtype == onp.float64
    assert got.tolist() == [[1.0, 2.0], [3.0, 4.0]]
