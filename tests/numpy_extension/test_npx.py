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


def test_special_functions_nonzero_and_constraint_check() -> None:
    x = np.array([0.5, 1.5])
    for name, want in (
        ("erf", [0.5204999, 0.9661051]),
        ("erfinv", [0.4769363, onp.nan]),
        ("gamma", [1.7724539, 0.8862269]),
        ("gammaln", [0.5723649, -0.1207822]),
    ):
        got = getattr(npx, name)(x)
        assert type(got) is np.ndarray
        onp.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5)
    assert mx.nd.npx.erf is npx.erf and mx.sym.npx.erf is not None
    assert npx.nonzero(np.array([[0, 3], [4, 0]])).tolist() == [[0, 1], [1, 0]]
    ok = npx.constraint_check(np.ones((2, 2), dtype=bool), "never raised")
    assert ok.shape == () and ok.dtype == onp.bool_ and bool(ok)
    with pytest.raises(ValueError, match="values must be positive"):
        npx.constraint_check(
            np.array([True, False], dtype=bool), "values must be positive"
        ).asnumpy()
    with pytest.raises(mx.base.DTypeError, match="_npx_constraint_check.*bool"):
        npx.constraint_check(np.ones(2), "m")


def test_npx_image_has_mx_image_and_the_image_operators() -> None:
    assert npx.image.imresize is mx.image.imresize and npx.image.ImageIter is mx.image.ImageIter
    img = np.array(onp.arange(48, dtype=onp.uint8).reshape(4, 4, 3))
    t = npx.image.to_tensor(img)
    assert type(t) is np.ndarray and t.shape == (3, 4, 4) and t.dtype == onp.float32
    want = mx.nd.image.crop(img.as_nd_ndarray(), 1, 0, 2, 3).asnumpy()
    onp.testing.assert_array_equal(npx.image.crop(img, 1, 0, 2, 3).asnumpy(), want)
    assert mx.nd.npx.image.resize is npx.image.resize
    sym = mx.sym.npx.image.flip_left_right(mx.sym.var("x"))
    assert [n["op"] for n in __import__("json").loads(sym.tojson())["nodes"]][-1] == (
        "_image_flip_left_right"
    )


def test_module_level_names_as_mxnet_binds_them() -> None:
    import ctypes
    import warnings

    assert npx.ctypes is ctypes and npx.warnings is warnings and npx.threading is threading
    assert npx.cpu_pinned(1) == mx.Context("cpu_pinned", 1)
    assert npx.gpu_memory_info is mx.context.gpu_memory_info
    assert npx.classproperty is mx.base.classproperty
    assert npx.with_metaclass is mx.base.with_metaclass
    assert npx.get_cuda_compute_capability is mx.context.get_cuda_compute_capability
    assert npx.utils.save is npx.save and npx.utils.load is npx.load
    assert npx.check_call is mx.base.check_call and npx.check_call(0) is None
    with pytest.raises(mx.base.MXNetError, match="returned -1"):
        npx.check_call(-1)
