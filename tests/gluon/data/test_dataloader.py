"""gluon.data.DataLoader: batches equal MXNet 1.9.1's; workers in processes and threads."""

from __future__ import annotations

import os

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError
from mxlite.gluon.data import ArrayDataset, DataLoader, Dataset, SimpleDataset
from mxlite.gluon.data.vision import ImageFolderDataset, ImageRecordDataset
from tests.golden_file import load

from ...image._golden import image_folder
from ...io.data_cases import first20, loader_arrays

GOLDEN = os.path.join(os.path.dirname(__file__), "golden")
BATCHES = load("io/golden/data.npz").arrays("dataloader")
REC = os.path.join(os.path.dirname(__file__), "..", "..", "io", "golden", "im2rec", "plain.rec")


def _check(name, got):
    assert len(got) == int(BATCHES[f"{name}/n"])
    for i, (data, label) in enumerate(got):
        np.testing.assert_array_equal(data.asnumpy(), BATCHES[f"{name}/{i}/data"])
        np.testing.assert_array_equal(label.asnumpy(), BATCHES[f"{name}/{i}/label"])
        assert data.dtype == BATCHES[f"{name}/{i}/data"].dtype


@pytest.mark.parametrize("mode", ["keep", "discard", "rollover"])
def test_last_batch_modes_equal_mxnet(mode):
    x, y = loader_arrays()
    _check(mode, list(DataLoader(ArrayDataset(x, y), batch_size=4, last_batch=mode)))


@pytest.mark.parametrize("workers", [0, 2])
def test_image_record_dataset_batches_equal_mxnet(workers):
    pytest.importorskip("cv2")
    ds = ImageRecordDataset(REC).transform_first(first20)
    _check("record", list(DataLoader(ds, batch_size=3, num_workers=workers)))


def test_thread_pool_prefetch_and_pin_memory():
    pytest.importorskip("cv2")
    ds = ImageRecordDataset(REC).transform_first(first20)
    got = list(
        DataLoader(ds, batch_size=3, num_workers=2, thread_pool=True, prefetch=1, pin_memory=True)
    )
    _check("record", got)
    assert got[0][0].context == mx.cpu_pinned(0)


def test_image_folder_dataset_equals_mxnet(tmp_path):
    pytest.importorskip("cv2")
    folder = image_folder(str(tmp_path / "images"))
    ds = ImageFolderDataset(folder)
    want = load("io/golden/data.npz").cases["dataloader"]
    assert ds.synsets == want["synsets"]
    assert [[os.path.relpath(p, folder), lab] for p, lab in ds.items] == want["items"]
    for i in range(3):
        img, label = ds[i]
        np.testing.assert_array_equal(img.asnumpy(), BATCHES[f"folder/{i}/data"])
        assert label == int(BATCHES[f"folder/{i}/label"])


class _Squares(Dataset):
    def __len__(self):
        return 23

    def __getitem__(self, idx):
        return mx.nd.full((3,), idx * idx), idx


@pytest.mark.parametrize("thread_pool", [False, True])
def test_workers_keep_order_and_large_batches_use_shared_memory(thread_pool):
    loader = DataLoader(_Squares(), batch_size=4, num_workers=2, thread_pool=thread_pool)
    seen = []
    for data, label in loader:
        np.testing.assert_array_equal(data.asnumpy()[:, 0], label.asnumpy() ** 2)
        seen += label.asnumpy().tolist()
    assert seen == list(range(23))
    big = ArrayDataset(np.arange(200 * 1000, dtype=np.float64).reshape(200, 1000))
    total = sum(b.asnumpy().sum() for b in DataLoader(big, batch_size=64, num_workers=2))
    assert total == np.arange(200 * 1000, dtype=np.float64).sum()


def test_auto_reload_and_shuffle_with_seed():
    ds = SimpleDataset(list(range(10)))
    loader = DataLoader(ds, batch_size=3, shuffle=True, auto_reload=True)
    np.random.seed(0)
    first = np.concatenate([b.asnumpy() for b in loader])
    assert sorted(first.tolist()) == list(range(10))
    assert len(loader) == 4


def _slow(x):
    import time

    time.sleep(5)  # a stand-in for a transform that hangs
    return x


def test_timeout_raises():
    loader = DataLoader(
        SimpleDataset([1, 2]).transform(_slow),
        batch_size=1,
        num_workers=1,
        timeout=0.2,
        thread_pool=True,
    )
    with pytest.raises(MXNetError, match="timed out"):
        list(loader)


def test_bad_arguments():
    with pytest.raises(ValueError, match="batch_size"):
        DataLoader([1, 2])
    with pytest.raises(mx.base.ParamError, match="last_batch"):
        DataLoader([1, 2], batch_size=1, last_batch="wrap")
    with pytest.raises(ValueError, match="shuffle"):
        DataLoader([1, 2], batch_size=1, shuffle=True, sampler=mx.gluon.data.SequentialSampler(2))


def test_leaving_a_loop_early_frees_the_shared_blocks():
    import gc

    if not os.path.isdir("/dev/shm"):
        pytest.skip("needs POSIX shared memory under /dev/shm")
    before = set(os.listdir("/dev/shm"))
    big = ArrayDataset(np.ones((64 * 6, 1000)))
    loader = DataLoader(big, batch_size=64, num_workers=2, prefetch=4)
    batches = loader._prefetch_iter()  # what a `for` over the loader walks
    next(batches)
    jobs = list(batches._pending.values())
    assert jobs
    for job in jobs:
        job.wait(10)
    del batches, jobs
    gc.collect()
    left = {n for n in set(os.listdir("/dev/shm")) - before if n.startswith("psm_")}
    assert not left


def test_shuffle_equals_mxnet_under_the_same_numpy_seed():
    x, y = loader_arrays()
    np.random.seed(3)  # RandomSampler shuffles with numpy.random, as MXNet's
    loader = DataLoader(ArrayDataset(x, y), batch_size=4, shuffle=True)
    _check("shuffle", [batch for _ in range(2) for batch in loader])


class _Broken(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, idx):
        if idx == 2:
            raise ValueError("sample 2 is broken")
        return np.zeros(3)


@pytest.mark.parametrize("thread_pool", [False, True])
def test_a_worker_error_reaches_the_caller(thread_pool):
    loader = DataLoader(_Broken(), batch_size=2, num_workers=1, thread_pool=thread_pool)
    with pytest.raises(ValueError, match="sample 2 is broken"):
        list(loader)


def _flat(batch):
    return batch if isinstance(batch, list) else [batch]


@pytest.mark.parametrize("np_mode", [False, True])
def test_array_dataset_batches_equal_the_per_sample_path(np_mode):
    # the default batchify on an ArrayDataset of arrays takes each batch's rows at once
    from mxlite import gluon, npx
    from mxlite.gluon.data.dataloader import default_batchify_fn

    if np_mode:
        npx.set_np()
    try:
        arr = mx.np.array if np_mode else mx.nd.array
        X = arr(np.arange(40).reshape(10, 2, 2).astype("float32"))
        y = arr(np.arange(10).astype("float32"))
        for ds in (gluon.data.ArrayDataset(X, y), gluon.data.ArrayDataset(X),
                   gluon.data.ArrayDataset(X, np.arange(10)),
                   gluon.data.ArrayDataset(X, list(range(10)))):  # fmt: skip
            batches = []
            for fn in (None, lambda samples: default_batchify_fn(samples)):  # the slow path
                np.random.seed(0)
                kw = {} if fn is None else {"batchify_fn": fn}
                batches.append(list(gluon.data.DataLoader(ds, 4, shuffle=True, **kw)))
            fast, slow = batches
            assert len(fast) == len(slow) == 3
            for a, b in zip(fast, slow):
                assert type(a) is type(b)
                for p, q in zip(_flat(a), _flat(b)):
                    assert type(p) is type(q) and p.dtype == q.dtype
                    np.testing.assert_array_equal(p.asnumpy(), q.asnumpy())
    finally:
        npx.reset_np()
