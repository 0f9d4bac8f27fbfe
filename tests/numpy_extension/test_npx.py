"""mx.npx: the mode switches, save/load and the operators generated from ``_npx_*``."""

from __future__ import annotations

import threading

import numpy as onp
import pytest

import mxlite as mx
from mxlite import np, npx


def test_set_np_is_per_thread() -> None:
    seen = []
    npx.set_np()
    try:
        t = threading.Thread(target=lambda: seen.append((npx.is_np_array(), npx.is_np_shape())))
        t.start()
        t.join()
        assert npx.is_np_array() and npx.is_np_shape()
    finally:
        npx.reset_np()
    assert seen == [(False, False)]
    assert not npx.is_np_array()
    with pytest.raises(mx.base.ParamError, match="shape"):
        npx.set_np(shape=False, array=True)


def test_save_load_round_trip(tmp_path) -> None:
    path = str(tmp_path / "arrays.npx")
    data = {"a": np.array([1.0, 2.0]), "s": np.array(3, dtype="int32"), "z": np.zeros((0, 2))}
    npx.save(path, data)
    got = npx.load(path)
    assert set(got) == {"a", "s", "z"}
    assert all(type(v) is np.ndarray for v in got.values())
    assert got["s"].shape == () and got["s"].dtype == onp.int32
    assert got["z"].shape == (0, 2)
    npx.save(path, [np.ones(2)])
    assert [v.tolist() for v in npx.load(path)] == [[1.0, 1.0]]


def test_generated_operators_return_np_arrays() -> None:
    x = np.array([[-1.0, 2.0, 0.5]])
    assert npx.relu(x).tolist() == [[0.0, 2.0, 0.5]]
    assert type(npx.softmax(x)) is np.ndarray
    onp.testing.assert_allclose(npx.softmax(x).asnumpy().sum(), 1.0, rtol=1e-6)
    assert npx.one_hot(np.array([0, 2]), 3).tolist() == [[1, 0, 0], [0, 0, 1]]
    assert npx.pick(x, np.array([1])).tolist() == [2.0]
    assert npx.reshape(np.ones((2, 3, 4)), (-2, -1)).shape == (2, 12)
    assert npx.reshape(np.ones((2, 3, 4)), (-5, -2)).shape == (6, 4)
    assert npx.reshape(np.ones((6, 4)), (-6, 2, -1, -2)).shape == (2, 3, 4)
    out = npx.fully_connected(x, np.ones((4, 3)), np.zeros(4), num_hidden=4)
    assert out.shape == (1, 4) and type(out) is np.ndarray
    assert npx.sigmoid(np.zeros(2)).tolist() == [0.5, 0.5]


def test_devices_and_nd_npx() -> None:
    assert npx.cpu() == mx.cpu() and npx.current_context() == mx.current_context()
    assert npx.num_gpus() >= 0
    npx.waitall()
    assert mx.nd.npx.relu is npx.relu and mx.nd.np.add is np.add


MXNET_PYTHON = "/tmp/mxref/bin/python"


@pytest.mark.skipif(not __import__("os").path.exists(MXNET_PYTHON), reason="no real MXNet here")
def test_mxnet_reads_what_npx_save_wrote(tmp_path) -> None:
    import subprocess

    path = str(tmp_path / "for_mxnet.npx")
    npx.save(path, {"s": np.array(2.5), "z": np.zeros((0, 3)), "i": np.arange(3, dtype="int64")})
    code = (
        f"from mxnet import npx; npx.set_np(); d = npx.load({path!r}); "
        "print(d['s'].shape, float(d['s']), d['z'].shape, d['i'].dtype, d['i'].tolist())"
    )
    out = subprocess.run([MXNET_PYTHON, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.stdout.strip().splitlines()[-1] == "() 2.5 (0, 3) int64 [0, 1, 2]", out.stderr
