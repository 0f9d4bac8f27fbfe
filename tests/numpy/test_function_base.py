"""mx.np.meshgrid, mx.np.unique and mx.np.genfromtxt against official NumPy."""

import numpy as onp
import pytest

from mxlite import autograd, np


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
def test_meshgrid_matches_numpy(indexing, sparse):
    xs = [onp.arange(3.0), onp.arange(2.0) + 5, onp.arange(4.0) - 1]
    for n in (1, 2, 3):
        ours = np.meshgrid(*[np.array(x) for x in xs[:n]], indexing=indexing, sparse=sparse)
        theirs = onp.meshgrid(*xs[:n], indexing=indexing, sparse=sparse)
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            assert isinstance(a, np.ndarray)
            onp.testing.assert_array_equal(a.asnumpy(), b)


def test_meshgrid_records_gradients():
    x, y = np.arange(3.0), np.arange(2.0)
    x.attach_grad()
    with autograd.record():
        gx, gy = np.meshgrid(x, y)
        loss = (gx * 2).sum()
    loss.backward()
    onp.testing.assert_array_equal(x.grad.asnumpy(), [4.0, 4.0, 4.0])


def test_meshgrid_rejects_bad_arguments():
    with pytest.raises(ValueError, match="indexing"):
        np.meshgrid(np.arange(2), indexing="yx")
    with pytest.raises(TypeError, match="keyword"):
        np.meshgrid(np.arange(2), order="C")


def test_unique_matches_numpy():
    a = onp.array([3, 1, 3, 2, 1, 1], dtype="float32")
    vals, idx, inv, counts = np.unique(np.array(a), True, True, True)
    want = onp.unique(a, True, True, True)
    for got, ref in zip((vals, idx, inv, counts), want):
        onp.testing.assert_array_equal(got.asnumpy(), ref)
    assert idx.dtype == onp.int64 and counts.dtype == onp.int64
    assert isinstance(np.unique(np.array(a)), np.ndarray)
    rows = onp.array([[1, 2], [1, 2], [0, 1]], dtype="float32")
    onp.testing.assert_array_equal(np.unique(np.array(rows), axis=0).asnumpy(),
                                   onp.unique(rows, axis=0))  # fmt: skip
    with pytest.raises(TypeError, match="unique"):
        np.unique([1, 2])


def test_genfromtxt_reads_into_an_np_array(tmp_path):
    path = tmp_path / "data.tsv"
    path.write_text("1\t2.5\n3\t4\n")
    out = np.genfromtxt(str(path), dtype=onp.float32, delimiter="\t")
    assert isinstance(out, np.ndarray)
    onp.testing.assert_array_equal(out.asnumpy(), [[1, 2.5], [3, 4]])
