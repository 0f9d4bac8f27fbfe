"""The data-loading runs of tools/golden/cases/data.py, made the same way on MXNet 1.9.1 and on
mxlite (``mx`` is either): the tool records MXNet's, tests/image/test_image.py,
tests/io/test_image_record_iter.py, test_image_det_record_iter.py, test_mnist_iter.py,
tests/gluon/data/test_dataloader.py and tests/tools/test_im2rec.py compare mxlite's."""

from __future__ import annotations

import random
from typing import Any

import numpy as np

# MXNet's tools/im2rec.py runs: (list arguments, pack arguments or None)
IM2REC = {
    "plain": (["--list", "--recursive"], []),
    "split": (["--list", "--recursive", "--train-ratio", "0.6", "--test-ratio", "0.2"], None),
    "chunks": (["--list", "--no-shuffle", "--chunks", "2", "--exts", ".jpg"], None),
    "resized": (["--list", "--recursive", "--no-shuffle"], ["--resize", "24", "--center-crop"]),
    "png": (["--list", "--recursive"], ["--encoding", ".png", "--quality", "3"]),
    "pass": (["--list", "--recursive"], ["--pass-through"]),
}
# MNISTIter's arguments, besides the files, per run
MNIST_ITER = {
    "plain": dict(batch_size=3, shuffle=False),
    "flat": dict(batch_size=4, shuffle=False, flat=True),
    "part": dict(batch_size=2, shuffle=False, num_parts=3, part_index=1),
}
# ImageRecordUInt8Iter's and ImageRecordInt8Iter's arguments, besides path_imgrec
INT_ITER = dict(data_shape=(3, 24, 24), batch_size=4, resize=28, mean_r=100.0, mean_g=110.4,
                mean_b=120.6)  # fmt: skip


def batches(it: Any, limit: int = 8) -> list:
    """Up to ``limit`` batches of ``it`` as ``(data, label, pad)`` (NumPy arrays and an int);
    it takes one batch past the limit, as the golden files were first made."""
    out = []
    for b in it:
        if len(out) >= limit:
            break
        out.append((b.data[0].asnumpy(), b.label[0].asnumpy(), b.pad))
    return out


def two_epochs(it: Any, second: int) -> list:
    """:func:`batches` of ``it``, then, after a reset, up to ``second`` more (the start of the
    second epoch)."""
    first = batches(it)
    it.reset()
    return first + batches(it, limit=second)


def pixels(mx: Any, buf: bytes, k: int) -> dict:
    """The encoded image ``buf`` (the ``k``-th) decoded (RGB, gray, BGR), resized with each
    interpolation, resized by its short side, cropped and bordered: name -> NDArray."""
    img = mx.image.imdecode(buf)
    out = {f"decode_{k}": img, f"decode_gray_{k}": mx.image.imdecode(buf, flag=0),
           f"decode_bgr_{k}": mx.image.imdecode(buf, to_rgb=False)}  # fmt: skip
    for interp in range(5):
        out[f"resize_{k}_{interp}"] = mx.image.imresize(img, 41, 29, interp=interp)
    out[f"resize_short_{k}"] = mx.image.resize_short(img, 33)
    out[f"center_crop_{k}"] = mx.image.center_crop(img, (24, 20))[0]
    out[f"fixed_crop_{k}"] = mx.image.fixed_crop(img, 3, 2, 20, 15, (30, 30))
    out[f"border_{k}"] = mx.image.copyMakeBorder(img, 2, 3, 4, 1, values=[9, 8, 7])
    return out


def image_iter_runs(mx: Any, rec: str, idx: str, lst: str, root: str) -> dict:
    """ImageIter with deterministic augmentation over the record file ``rec`` (index ``idx``)
    and over the list ``lst`` of images under ``root`` (two epochs): name -> batches."""
    it = mx.image.ImageIter(3, (3, 24, 24), path_imgrec=rec, path_imgidx=idx, resize=30)
    runs = {"rec_idx": batches(it)}
    it = mx.image.ImageIter(4, (3, 20, 20), path_imgrec=rec, num_parts=2, part_index=1,
                            path_imgidx=idx, last_batch_handle="discard")  # fmt: skip
    runs["part"] = batches(it)
    it = mx.image.ImageIter(3, (3, 16, 16), path_imglist=lst, path_root=root,
                            last_batch_handle="roll_over", mean=True, std=True)  # fmt: skip
    runs["lst_roll"] = batches(it)
    it.reset()
    runs["lst_roll_2"] = batches(it)
    return runs


def random_image_iter(mx: Any, rec: str, idx: str) -> list:
    """The batches of ImageIter with random augmentation over ``rec`` (index ``idx``), shuffled,
    after seeding Python's random and numpy.random with 7 (MXNet's augmenters draw from both)."""
    random.seed(7)
    np.random.seed(7)
    aug = dict(rand_crop=True, rand_mirror=True, resize=24, brightness=0.2, contrast=0.2,
               saturation=0.2, pca_noise=0.05, inter_method=1)  # fmt: skip
    return batches(mx.image.ImageIter(3, (3, 20, 20), path_imgrec=rec, path_imgidx=idx,
                                      shuffle=True, **aug))  # fmt: skip


def loader_arrays() -> tuple:
    """The samples of the DataLoader runs: 10 rows of 7 (float32) and their labels (int32)."""
    return np.arange(70, dtype=np.float32).reshape(10, 7), np.arange(10, dtype=np.int32)


def first20(im: Any) -> Any:
    """The transform of the ImageRecordDataset run: the top-left 20 x 20 pixels, float32."""
    return im.astype("float32")[:20, :20]
