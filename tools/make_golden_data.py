"""Write the golden files of mxlite's data loading tests with real MXNet 1.9.1.

Run under the reference environment (MXNet 1.9.1, OpenCV 4.7)::

    /tmp/mxref/bin/python tools/make_golden_data.py [--mxnet-repo GITDIR]

It writes into ``tests/recordio/golden/``, ``tests/image/golden/``, ``tests/io/golden/`` and
``tests/gluon/data/golden/``: a handful of tiny JPEGs, RecordIO files written by MXNet (tricky
records, packed headers, im2rec output), decoded/resized pixels, and batches of MXNet's
iterators and DataLoader with deterministic settings.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

import cv2
import mxnet as mx
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REC_DIR = os.path.join(ROOT, "tests", "recordio", "golden")
IMG_DIR = os.path.join(ROOT, "tests", "image", "golden")
IO_DIR = os.path.join(ROOT, "tests", "io", "golden")
GLUON_DIR = os.path.join(ROOT, "tests", "gluon", "data", "golden")
MAGIC = struct.pack("<I", 0xCED7230A)

# The sizes (h, w) of the test images: portrait, landscape, square, odd sizes.
SIZES = [(48, 64), (64, 48), (50, 50), (37, 71), (80, 60), (60, 90), (45, 45), (70, 40)]


def tricky_records() -> list[bytes]:
    """Records that exercise the format: empty, unaligned, containing the magic number."""
    return [
        b"",
        b"a",
        b"abcd",
        b"hello world",
        MAGIC,
        MAGIC * 3,
        b"xy" + MAGIC + b"zw",  # magic at an unaligned offset: not split
        b"1234" + MAGIC + b"5678" + MAGIC,  # aligned: split into parts
        MAGIC + b"tail",
        bytes(range(256)) * 3,
    ]


def make_images(folder: str) -> list[str]:
    rng = np.random.RandomState(7)
    names = []
    for k, (h, w) in enumerate(SIZES):
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        img = np.stack(
            [
                127 + 120 * np.sin(xx / (5 + k) + k),
                127 + 120 * np.cos(yy / (7 + k)),
                (xx + yy) * 255 / (h + w),
            ],
            axis=2,
        )
        img += rng.normal(0, 8, img.shape)
        img = np.clip(img, 0, 255).astype(np.uint8)
        sub = os.path.join(folder, "cat" if k % 2 else "dog")
        os.makedirs(sub, exist_ok=True)
        name = os.path.join(sub, f"img{k}.jpg")
        cv2.imwrite(name, img, [cv2.IMWRITE_JPEG_QUALITY, 90])
        names.append(name)
    png = os.path.join(folder, "dog", "img_png.png")
    cv2.imwrite(png, np.clip(rng.normal(128, 40, (30, 20, 3)), 0, 255).astype(np.uint8))
    names.append(png)
    return names


def golden_recordio() -> None:
    os.makedirs(REC_DIR, exist_ok=True)
    rec = os.path.join(REC_DIR, "tricky.rec")
    idx = os.path.join(REC_DIR, "tricky.idx")
    w = mx.recordio.MXIndexedRecordIO(idx, rec, "w")
    for i, r in enumerate(tricky_records()):
        w.write_idx(i, r)
    w.close()
    # Packed headers: scalar labels and multi-labels, as pack() makes them.
    packed = []
    for i, label in enumerate([3.0, 0.5, [1.0, 2.0, 3.5], np.arange(5, dtype=np.float32)]):
        packed.append(mx.recordio.pack(mx.recordio.IRHeader(0, label, i * 7, 1), b"payload%d" % i))
    w = mx.recordio.MXRecordIO(os.path.join(REC_DIR, "packed.rec"), "w")
    for p in packed:
        w.write(p)
    w.close()
    with open(os.path.join(REC_DIR, "packed.json"), "w") as f:
        json.dump([p.hex() for p in packed], f)


def golden_images(folder: str, names: list[str]) -> dict:
    os.makedirs(IMG_DIR, exist_ok=True)
    out = {}
    for k, name in enumerate(names):
        rel = os.path.relpath(name, folder)
        shutil.copy(name, os.path.join(IMG_DIR, f"img{k}" + os.path.splitext(name)[1]))
        with open(name, "rb") as f:
            buf = f.read()
        img = mx.image.imdecode(buf)
        out[f"decode_{k}"] = img.asnumpy()
        out[f"decode_gray_{k}"] = mx.image.imdecode(buf, flag=0).asnumpy()
        out[f"decode_bgr_{k}"] = mx.image.imdecode(buf, to_rgb=False).asnumpy()
        for interp in (0, 1, 2, 3, 4):
            out[f"resize_{k}_{interp}"] = mx.image.imresize(img, 41, 29, interp=interp).asnumpy()
        out[f"resize_short_{k}"] = mx.image.resize_short(img, 33).asnumpy()
        out[f"center_crop_{k}"] = mx.image.center_crop(img, (24, 20))[0].asnumpy()
        out[f"fixed_crop_{k}"] = mx.image.fixed_crop(img, 3, 2, 20, 15, (30, 30)).asnumpy()
        out[f"border_{k}"] = mx.image.copyMakeBorder(img, 2, 3, 4, 1, values=[9, 8, 7]).asnumpy()
        del rel
    np.savez_compressed(os.path.join(IMG_DIR, "pixels.npz"), **out)
    return out


def run_im2rec(repo: str, folder: str) -> None:
    """MXNet's tools/im2rec.py on the test images: the .lst files and records it makes."""
    tool = os.path.join(tempfile.mkdtemp(), "im2rec.py")
    with open(tool, "wb") as f:
        f.write(
            subprocess.check_output(["git", f"--git-dir={repo}", "show", "1.9.1:tools/im2rec.py"])
        )
    work = tempfile.mkdtemp()
    cases = {
        "plain": (["--list", "--recursive"], []),
        "split": (["--list", "--recursive", "--train-ratio", "0.6", "--test-ratio", "0.2"], None),
        "chunks": (["--list", "--no-shuffle", "--chunks", "2", "--exts", ".jpg"], None),
        "resized": (["--list", "--recursive", "--no-shuffle"], ["--resize", "24", "--center-crop"]),
        "png": (["--list", "--recursive"], ["--encoding", ".png", "--quality", "3"]),
        "pass": (["--list", "--recursive"], ["--pass-through"]),
    }
    dst = os.path.join(IO_DIR, "im2rec")
    os.makedirs(dst, exist_ok=True)
    for case, (list_args, pack_args) in cases.items():
        prefix = os.path.join(work, case)
        root = folder if "--recursive" in list_args else os.path.join(folder, "dog")
        subprocess.check_call(
            [sys.executable, tool, prefix, root, *list_args], stdout=subprocess.DEVNULL
        )
        if pack_args is not None:
            subprocess.check_call(
                [sys.executable, tool, prefix, root, *pack_args], stdout=subprocess.DEVNULL
            )
    for fname in sorted(os.listdir(work)):
        shutil.copy(os.path.join(work, fname), os.path.join(dst, fname))
    # A .lst with two labels per image, packed with --pack-label.
    with open(os.path.join(work, "plain.lst")) as f:
        lines = [ln.rstrip("\n").split("\t") for ln in f]
    with open(os.path.join(work, "multi.lst"), "w") as f:
        for ln in lines:
            f.write("\t".join([ln[0], ln[1], "%f" % (float(ln[0]) / 2), ln[-1]]) + "\n")
    subprocess.check_call(
        [sys.executable, tool, os.path.join(work, "multi"), folder, "--pack-label"],
        stdout=subprocess.DEVNULL,
    )
    for ext in (".lst", ".rec", ".idx"):
        shutil.copy(os.path.join(work, "multi" + ext), os.path.join(dst, "multi" + ext))


def batches(it, limit=8) -> list:
    out = []
    for i, batch in enumerate(it):
        if i >= limit:
            break
        out.append((batch.data[0].asnumpy(), batch.label[0].asnumpy(), batch.pad))
    return out


def save_batches(path: str, runs: dict) -> None:
    arrays = {}
    for name, bs in runs.items():
        for i, (d, lab, pad) in enumerate(bs):
            arrays[f"{name}/{i}/data"] = d
            arrays[f"{name}/{i}/label"] = lab
            arrays[f"{name}/{i}/pad"] = np.array(pad)
        arrays[f"{name}/n"] = np.array(len(bs))
    np.savez_compressed(path, **arrays)


RECORD_ITER_CASES = {
    "plain": dict(data_shape=(3, 32, 32), batch_size=4, resize=36),
    "norm": dict(
        data_shape=(3, 28, 28),
        batch_size=3,
        resize=30,
        mean_r=123.0,
        mean_g=117.0,
        mean_b=104.0,
        std_r=58.0,
        std_g=57.0,
        std_b=57.5,
        scale=0.5,
    ),
    "mirror_noround": dict(data_shape=(3, 20, 24), batch_size=4, mirror=True, round_batch=False),
    "part1": dict(data_shape=(3, 32, 32), batch_size=2, resize=40, num_parts=2, part_index=1),
    "part0_idx": dict(
        data_shape=(3, 32, 32),
        batch_size=2,
        resize=40,
        num_parts=3,
        part_index=0,
        path_imgidx="IDX",
    ),
    "gray": dict(data_shape=(1, 30, 30), batch_size=4, resize=32, inter_method=3),
    "label2": dict(
        data_shape=(3, 32, 32), batch_size=4, resize=36, label_width=2, path_imglist="LST"
    ),
    "upscale": dict(data_shape=(3, 64, 64), batch_size=4, inter_method=2),
}


def golden_iters(folder: str) -> None:
    os.makedirs(IO_DIR, exist_ok=True)
    rec = os.path.join(IO_DIR, "im2rec", "plain.rec")
    idx = os.path.join(IO_DIR, "im2rec", "plain.idx")
    lst = os.path.join(IO_DIR, "im2rec", "multi.lst")
    runs = {}
    for name, kw in RECORD_ITER_CASES.items():
        kw = dict(kw)
        if kw.get("path_imgidx") == "IDX":
            kw["path_imgidx"] = idx
        if kw.get("path_imglist") == "LST":
            kw["path_imglist"] = lst
        it = mx.io.ImageRecordIter(path_imgrec=rec, preprocess_threads=2, **kw)
        first = batches(it, limit=8)
        it.reset()
        runs[name] = first + batches(it, limit=3)  # the second epoch's start, after round_batch
    for name, cls in (("uint8", mx.io.ImageRecordUInt8Iter), ("int8", mx.io.ImageRecordInt8Iter)):
        it = cls(
            path_imgrec=rec,
            data_shape=(3, 24, 24),
            batch_size=4,
            resize=28,
            mean_r=100.0,
            mean_g=110.4,
            mean_b=120.6,
        )
        runs[name] = batches(it)
    save_batches(os.path.join(IO_DIR, "image_record_iter.npz"), runs)
    with open(os.path.join(IO_DIR, "image_record_iter.json"), "w") as f:
        json.dump(RECORD_ITER_CASES, f, indent=1)

    # MNIST: tiny idx files.
    rng = np.random.RandomState(3)
    images = rng.randint(0, 256, size=(10, 28, 28)).astype(np.uint8)
    labels = rng.randint(0, 10, size=10).astype(np.uint8)
    img_path = os.path.join(IO_DIR, "mnist-images-idx3-ubyte")
    lab_path = os.path.join(IO_DIR, "mnist-labels-idx1-ubyte")
    with open(img_path, "wb") as f:
        f.write(struct.pack(">IIII", 2051, 10, 28, 28) + images.tobytes())
    with open(lab_path, "wb") as f:
        f.write(struct.pack(">II", 2049, 10) + labels.tobytes())
    runs = {}
    for name, kw in {
        "plain": dict(batch_size=3, shuffle=False),
        "flat": dict(batch_size=4, shuffle=False, flat=True),
        "part": dict(batch_size=2, shuffle=False, num_parts=3, part_index=1),
    }.items():
        runs[name] = batches(mx.io.MNISTIter(image=img_path, label=lab_path, silent=True, **kw))
    save_batches(os.path.join(IO_DIR, "mnist_iter.npz"), runs)

    # ImageIter (Python): deterministic augmentation only.
    runs = {}
    it = mx.image.ImageIter(3, (3, 24, 24), path_imgrec=rec, path_imgidx=idx, resize=30)
    runs["rec_idx"] = batches(it)
    it = mx.image.ImageIter(
        4,
        (3, 20, 20),
        path_imgrec=rec,
        num_parts=2,
        part_index=1,
        path_imgidx=idx,
        last_batch_handle="discard",
    )
    runs["part"] = batches(it)
    it = mx.image.ImageIter(
        3,
        (3, 16, 16),
        path_imglist=os.path.join(IO_DIR, "im2rec", "plain.lst"),
        path_root=folder,
        last_batch_handle="roll_over",
        mean=True,
        std=True,
    )
    runs["lst_roll"] = batches(it)
    it.reset()
    runs["lst_roll_2"] = batches(it)
    # Random augmentation: MXNet draws from Python's random and numpy.random, so the same
    # seeds give the same choices.
    random.seed(7)
    np.random.seed(7)
    it = mx.image.ImageIter(
        3,
        (3, 20, 20),
        path_imgrec=rec,
        path_imgidx=idx,
        shuffle=True,
        rand_crop=True,
        rand_mirror=True,
        resize=24,
        brightness=0.2,
        contrast=0.2,
        saturation=0.2,
        pca_noise=0.05,
        inter_method=1,
    )
    runs["random"] = batches(it)
    save_batches(os.path.join(IMG_DIR, "image_iter.npz"), runs)


DET_CASES = {
    "force": dict(data_shape=(3, 32, 32), batch_size=3),
    "fit": dict(
        data_shape=(3, 40, 40),
        batch_size=4,
        resize_mode="fit",
        mean_r=120.0,
        mean_g=110.0,
        mean_b=100.0,
        std_r=50.0,
        std_g=60.0,
        std_b=70.0,
        scale=0.5,
    ),
    "mirror_pad": dict(
        data_shape=(3, 24, 24),
        batch_size=4,
        rand_mirror_prob=1.0,
        label_pad_width=30,
        resize=30,
        inter_method=3,
    ),
    "shrink_part": dict(
        data_shape=(3, 60, 60),
        batch_size=2,
        resize_mode="shrink",
        num_parts=2,
        part_index=1,
        label_pad_value=-2.0,
    ),
}


def det_label(k: int) -> list:
    """A detection label: header [2, 5], then 1 to 3 objects (class, xmin, ymin, xmax, ymax)."""
    rng = np.random.RandomState(100 + k)
    rows = []
    for _ in range(1 + k % 3):
        x0, y0 = rng.uniform(0, 0.5, 2)
        rows += [float(rng.randint(0, 4)), x0, y0, x0 + rng.uniform(0.1, 0.5), y0 + 0.3]
    return [2.0, 5.0] + rows


def golden_det(names: list[str]) -> None:
    rec = os.path.join(IO_DIR, "det.rec")
    w = mx.recordio.MXRecordIO(rec, "w")
    for k, name in enumerate(names):
        with open(name, "rb") as f:
            w.write(mx.recordio.pack(mx.recordio.IRHeader(0, det_label(k), k, 0), f.read()))
    w.close()
    runs = {}
    for case, kw in DET_CASES.items():
        it = mx.io.ImageDetRecordIter(path_imgrec=rec, preprocess_threads=1, **kw)
        first = batches(it)
        it.reset()
        runs[case] = first + batches(it, limit=2)
    save_batches(os.path.join(IO_DIR, "image_det_record_iter.npz"), runs)
    with open(os.path.join(IO_DIR, "image_det_record_iter.json"), "w") as f:
        json.dump(DET_CASES, f, indent=1)


def golden_dataloader(folder: str) -> None:
    from mxnet.gluon.data import ArrayDataset, DataLoader
    from mxnet.gluon.data.vision import ImageFolderDataset, ImageRecordDataset

    os.makedirs(GLUON_DIR, exist_ok=True)
    x = np.arange(70, dtype=np.float32).reshape(10, 7)
    y = np.arange(10, dtype=np.int32)
    runs = {}
    for mode in ("keep", "discard", "rollover"):
        dl = DataLoader(ArrayDataset(x, y), batch_size=4, last_batch=mode)
        runs[mode] = [(d.asnumpy(), lab.asnumpy(), 0) for d, lab in dl]
    np.random.seed(3)  # RandomSampler shuffles with numpy.random
    dl = DataLoader(ArrayDataset(x, y), batch_size=4, shuffle=True)
    runs["shuffle"] = [(d.asnumpy(), lab.asnumpy(), 0) for epoch in range(2) for d, lab in dl]
    rec = os.path.join(IO_DIR, "im2rec", "plain.rec")
    ds = ImageRecordDataset(rec).transform_first(lambda im: im.astype("float32")[:20, :20])
    runs["record"] = [(d.asnumpy(), lab.asnumpy(), 0) for d, lab in DataLoader(ds, batch_size=3)]
    folder_ds = ImageFolderDataset(folder)
    with open(os.path.join(GLUON_DIR, "image_folder.json"), "w") as f:
        json.dump(
            {
                "synsets": folder_ds.synsets,
                "items": [[os.path.relpath(p, folder), lab] for p, lab in folder_ds.items],
            },
            f,
        )
    runs["folder"] = [(folder_ds[i][0].asnumpy(), np.array(folder_ds[i][1]), 0) for i in range(3)]
    save_batches(os.path.join(GLUON_DIR, "dataloader.npz"), runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mxnet-repo", default="/work/.mirror/apache+mxnet/repo")
    args = parser.parse_args()
    folder = tempfile.mkdtemp()
    names = make_images(folder)
    golden_recordio()
    golden_images(folder, names)
    # The image folder as the tests rebuild it: the golden copies under their class folders.
    run_im2rec(args.mxnet_repo, folder)
    golden_iters(folder)
    golden_det(names)
    golden_dataloader(folder)
    with open(os.path.join(IMG_DIR, "layout.json"), "w") as f:
        json.dump([os.path.relpath(n, folder) for n in names], f)
    print("versions:", mx.__version__, cv2.__version__)


if __name__ == "__main__":
    main()
