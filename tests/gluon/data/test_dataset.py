"""gluon.data datasets and samplers."""

from __future__ import annotations

import os
import pickle
import struct

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from mxlite.gluon import data as gdata


def test_lazy_views():
    ds = gdata.SimpleDataset(list(range(10)))
    assert list(ds.filter(lambda x: x % 3 == 0)) == [0, 3, 6, 9]
    assert [len(ds.shard(4, i)) for i in range(4)] == [3, 3, 2, 2]
    assert list(ds.shard(4, 1)) == [3, 4, 5]
    assert list(ds.take(3)) == [0, 1, 2] and len(ds.take(None)) == 10
    assert list(ds.transform(lambda x: x * 2).take(2)) == [0, 2]
    pairs = gdata.ArrayDataset(np.arange(4), np.arange(4) * 10)
    assert pairs.transform_first(lambda x: -x)[2] == (-2, 20)
    assert list(ds.sample(gdata.SequentialSampler(2, 5))) == [5, 6]
    with pytest.raises(TypeError, match="Sampler"):
        ds.sample([1, 2])
    with pytest.raises(mx.base.ParamError, match="same length"):
        gdata.ArrayDataset(np.arange(3), np.arange(4))
    nontransformed = ds.transform(lambda x: x + 1, lazy=False)
    assert isinstance(nontransformed, gdata.SimpleDataset) and nontransformed[0] == 1


def test_samplers():
    assert list(gdata.BatchSampler(gdata.SequentialSampler(7), 3, "keep")) == [
        [0, 1, 2],
        [3, 4, 5],
        [6],
    ]
    assert len(gdata.BatchSampler(gdata.SequentialSampler(7), 3, "discard")) == 2
    roll = gdata.BatchSampler(gdata.SequentialSampler(7), 3, "rollover")
    assert list(roll) == [[0, 1, 2], [3, 4, 5]]
    assert list(roll)[0] == [6, 0, 1]
    np.random.seed(1)
    assert sorted(gdata.RandomSampler(5)) == [0, 1, 2, 3, 4]


def test_record_file_dataset_pickles_for_workers(tmp_path):
    rec, idx = str(tmp_path / "r.rec"), str(tmp_path / "r.idx")
    writer = mx.recordio.MXIndexedRecordIO(idx, rec, "w")
    for i in range(3):
        writer.write_idx(i, b"r%d" % i)
    writer.close()
    ds = gdata.RecordFileDataset(rec)
    clone = pickle.loads(pickle.dumps(ds))
    assert [clone[i] for i in range(3)] == [b"r0", b"r1", b"r2"] and len(ds) == 3


def _write_mnist(root: str, prefix: str, n: int) -> np.ndarray:
    import gzip

    images = np.random.RandomState(0).randint(0, 256, (n, 28, 28)).astype(np.uint8)
    with gzip.open(os.path.join(root, f"{prefix}-images-idx3-ubyte.gz"), "wb") as f:
        f.write(struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
    with gzip.open(os.path.join(root, f"{prefix}-labels-idx1-ubyte.gz"), "wb") as f:
        f.write(struct.pack(">II", 2049, n) + (np.arange(n) % 10).astype(np.uint8).tobytes())
    return images


def test_mnist_reads_mxnets_layout_and_names_missing_files(tmp_path, monkeypatch):
    images = _write_mnist(str(tmp_path), "t10k", 6)
    ds = gdata.vision.MNIST(root=str(tmp_path), train=False)
    assert len(ds) == 6
    img, label = ds[4]
    assert img.shape == (28, 28, 1) and label == 4
    np.testing.assert_array_equal(img.asnumpy()[:, :, 0], images[4])
    monkeypatch.setenv("MXNET_GLUON_REPO", "http://127.0.0.1:9/")
    with pytest.raises(MXNetError, match="train-images-idx3-ubyte.gz"):
        gdata.vision.FashionMNIST(root=str(tmp_path / "empty"))
    assert os.listdir(tmp_path / "empty") == []  # no half-downloaded file left behind


def test_cifar_reads_binary_batches(tmp_path):
    rng = np.random.RandomState(0)
    raw = rng.randint(0, 256, (4, 3074)).astype(np.uint8)
    (tmp_path / "cifar-100-binary").mkdir()
    for name in ("train.bin", "test.bin"):
        (tmp_path / "cifar-100-binary" / name).write_bytes(raw.tobytes())
    coarse = gdata.vision.CIFAR100(root=str(tmp_path))
    fine = gdata.vision.CIFAR100(root=str(tmp_path), fine_label=True, train=False)
    assert len(coarse) == 4 and coarse[1][1] == raw[1, 0] and fine[1][1] == raw[1, 1]
    np.testing.assert_array_equal(
        coarse[2][0].asnumpy(), raw[2, 2:].reshape(3, 32, 32).transpose(1, 2, 0)
    )
    (tmp_path / "c10").mkdir()
    for name in [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]:
        (tmp_path / "c10" / name).write_bytes(raw[:, 1:].tobytes())
    assert len(gdata.vision.CIFAR10(root=str(tmp_path / "c10"))) == 20


def test_image_list_dataset(tmp_path):
    pytest.importorskip("cv2")
    from ...image._golden import image_folder

    folder = image_folder(str(tmp_path / "images"))
    ds = gdata.vision.ImageListDataset(folder, [[1.0, "dog/img0.jpg"], [2.0, 3.0, "cat/img1.jpg"]])
    img, label = ds[0]
    assert img.shape == (48, 64, 3) and label == 1.0
    assert ds[1][1].tolist() == [2.0, 3.0]
    lst = os.path.join(os.path.dirname(__file__), "..", "..", "io", "golden", "im2rec", "plain.lst")
    assert len(gdata.vision.ImageListDataset(folder, lst)) == 9


def test_gluon_data_is_reachable_as_an_attribute():
    import subprocess
    import sys

    code = "import mxlite as mx; print(mx.gluon.data.ArrayDataset.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ArrayDataset"


def test_cifar10_extracts_mxnets_archive(tmp_path):
    import tarfile

    raw = np.random.RandomState(1).randint(0, 256, (3, 3073)).astype(np.uint8)
    folder = tmp_path / "src" / "cifar-10-batches-bin"
    folder.mkdir(parents=True)
    for name in [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]:
        (folder / name).write_bytes(raw.tobytes())
    root = tmp_path / "root"
    root.mkdir()
    with tarfile.open(root / "cifar-10-binary.tar.gz", "w:gz") as tar:
        tar.add(folder, arcname="cifar-10-batches-bin")
    test = gdata.vision.CIFAR10(root=str(root), train=False)
    assert len(test) == 3 and test[2][1] == raw[2, 0]
    np.testing.assert_array_equal(
        test[0][0].asnumpy(), raw[0, 1:].reshape(3, 32, 32).transpose(1, 2, 0)
    )
