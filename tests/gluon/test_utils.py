"""gluon.utils: split_data, split_and_load, clip_global_norm, check_sha1, download."""

import hashlib

import numpy as np
import pytest

import mxlite as mx
from mxlite import gluon
from mxlite.gluon import utils


def test_split_data_and_split_and_load():
    x = mx.nd.arange(10).reshape((10, 1))
    parts = utils.split_data(x, 3, even_split=False)
    assert [p.shape[0] for p in parts] == [4, 3, 3]
    with pytest.raises(ValueError, match="evenly split"):
        utils.split_data(x, 3)
    cols = utils.split_data(mx.nd.ones((2, 6)), 2, batch_axis=1)
    assert [c.shape for c in cols] == [(2, 3), (2, 3)]
    loaded = utils.split_and_load(np.ones((4, 2)), [mx.cpu(0), mx.cpu(1)])
    assert [a.context for a in loaded] == [mx.cpu(0), mx.cpu(1)]


def test_clip_global_norm_scales_every_array():
    arrays = [mx.nd.ones((2, 2)) * 3, mx.nd.ones((4,)) * 4]
    norm = utils.clip_global_norm(arrays, 1.0)
    assert norm == pytest.approx(np.sqrt(4 * 9 + 4 * 16))
    total = sum(float((a**2).sum().asscalar()) for a in arrays)
    assert total == pytest.approx(1.0, rel=1e-4)


def test_check_sha1_and_download_offline(tmp_path, monkeypatch):
    f = tmp_path / "a.txt"
    f.write_bytes(b"mxlite")
    assert utils.check_sha1(str(f), hashlib.sha1(b"mxlite").hexdigest())
    assert not utils.check_sha1(str(f), "0" * 40)
    assert utils.download("http://example.invalid/a.txt", path=str(f)) == str(f)

    def offline(url, dst, verify_ssl):
        raise OSError("network is unreachable")

    monkeypatch.setattr(utils, "_fetch", offline)
    target = tmp_path / "b.params"
    with pytest.raises(mx.MXNetError, match=r"place the file at .*b\.params"):
        utils.download("http://example.invalid/b.params", path=str(target), retries=1)
    assert list(tmp_path.iterdir()) == [f]


def test_block_save_and_load_keep_the_traced_graphs(tmp_path):
    def make():
        net = gluon.nn.HybridSequential()
        with net.name_scope():
            net.add(gluon.nn.Dense(4), gluon.nn.Dense(2))
        return net

    net = make()
    net.initialize()
    net.hybridize()
    x = mx.nd.ones((1, 3))
    y = net(x)
    net.save(str(tmp_path / "m"))
    other = make()
    other.load(str(tmp_path / "m"))
    assert other._active and other._cached_graph
    np.testing.assert_allclose(other(x).asnumpy(), y.asnumpy(), rtol=1e-6)
