"""Data loading (tests/recordio, tests/image, tests/io, tests/gluon/data), with OpenCV 4.7 in
the reference environment. Files MXNet reads or writes stay files: tiny JPEGs (and a PNG) in
tests/image/golden/ (``img<k>``), RecordIO files (tricky records, packed headers) in
tests/recordio/golden/, MXNet's tools/im2rec.py output in tests/io/golden/im2rec/, a detection
record file and MNIST idx files in tests/io/golden/. The values go to tests/io/golden/data.npz:

- ``packed`` (metadata only): the ``hex`` bytes of the packed headers;
- ``pixels``: decoded, resized and cropped pixels per image (``layout``: each image's path
  under the image folder, ``cat/`` or ``dog/``);
- ``record_iter``, ``image_iter``, ``mnist_iter``, ``det_iter``, ``dataloader``: runs of
  MXNet's iterators and DataLoader, ``<run>/<i>/data|label|pad`` and ``<run>/n`` (the
  iterators' keyword arguments in the metadata; the DataLoader's ``image_folder`` ones: the
  synsets and items of ImageFolderDataset).
"""

import os
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2
import mxnet as mx
import numpy as np
from core import ROOT, Golden, load_module, mxnet_file
from mxnet.gluon.data import ArrayDataset, DataLoader
from mxnet.gluon.data.vision import ImageFolderDataset, ImageRecordDataset

FILE = "tests/io/golden/data.npz"
SEED = 7
IO_DIR = ROOT / "tests" / "io" / "golden"
records = load_module("tests/recordio/recordio_cases.py")
d = load_module("tests/io/data_cases.py")  # the runs, made again by the tests
# (h, w) of the test images: portrait, landscape, square, odd sizes
SIZES = [(48, 64), (64, 48), (50, 50), (37, 71), (80, 60), (60, 90), (45, 45), (70, 40)]
MEAN = dict(mean_r=123.0, mean_g=117.0, mean_b=104.0, std_r=58.0, std_g=57.0, std_b=57.5)
# fmt: off
RECORD_ITER = {
    "plain": dict(data_shape=(3, 32, 32), batch_size=4, resize=36),
    "norm": dict(data_shape=(3, 28, 28), batch_size=3, resize=30, **MEAN, scale=0.5),
    "mirror_noround": dict(data_shape=(3, 20, 24), batch_size=4, mirror=True, round_batch=False),
    "part1": dict(data_shape=(3, 32, 32), batch_size=2, resize=40, num_parts=2, part_index=1),
    "part0_idx": dict(data_shape=(3, 32, 32), batch_size=2, resize=40, num_parts=3, part_index=0,
                      path_imgidx="IDX"),
    "gray": dict(data_shape=(1, 30, 30), batch_size=4, resize=32, inter_method=3),
    "label2": dict(data_shape=(3, 32, 32), batch_size=4, resize=36, label_width=2,
                   path_imglist="LST"),
    "upscale": dict(data_shape=(3, 64, 64), batch_size=4, inter_method=2),
}
DET_ITER = {
    "force": dict(data_shape=(3, 32, 32), batch_size=3),
    "fit": dict(data_shape=(3, 40, 40), batch_size=4, resize_mode="fit", mean_r=120.0,
                mean_g=110.0, mean_b=100.0, std_r=50.0, std_g=60.0, std_b=70.0, scale=0.5),
    "mirror_pad": dict(data_shape=(3, 24, 24), batch_size=4, rand_mirror_prob=1.0,
                       label_pad_width=30, resize=30, inter_method=3),
    "shrink_part": dict(data_shape=(3, 60, 60), batch_size=2, resize_mode="shrink", num_parts=2,
                        part_index=1, label_pad_value=-2.0),
}
# fmt: on


def make_images(rng: np.random.RandomState, folder: str) -> list[str]:
    names = []
    for k, (h, w) in enumerate(SIZES):
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        img = np.stack([127 + 120 * np.sin(xx / (5 + k) + k), 127 + 120 * np.cos(yy / (7 + k)),
                        (xx + yy) * 255 / (h + w)], axis=2)  # fmt: skip
        img = np.clip(img + rng.normal(0, 8, img.shape), 0, 255).astype(np.uint8)
        names.append(os.path.join(folder, "cat" if k % 2 else "dog", f"img{k}.jpg"))
        os.makedirs(os.path.dirname(names[-1]), exist_ok=True)
        cv2.imwrite(names[-1], img, [cv2.IMWRITE_JPEG_QUALITY, 90])
    names.append(os.path.join(folder, "dog", "img_png.png"))
    cv2.imwrite(names[-1], np.clip(rng.normal(128, 40, (30, 20, 3)), 0, 255).astype(np.uint8))
    return names


def record_recordio(golden: Golden) -> None:
    rec_dir = ROOT / "tests" / "recordio" / "golden"
    records.write_records(
        mx.recordio, rec_dir / "tricky.rec", records.TRICKY, rec_dir / "tricky.idx"
    )
    packed = records.packed(mx.recordio)
    records.write_records(mx.recordio, rec_dir / "packed.rec", packed)
    golden.put("packed", {"hex": [p.hex() for p in packed]})


def record_pixels(golden: Golden, folder: str, names: list[str]) -> None:
    out = {}
    for k, name in enumerate(names):
        shutil.copy(name, ROOT / "tests" / "image" / "golden" / f"img{k}{Path(name).suffix}")
        buf = open(name, "rb").read()
        out.update({key: v.asnumpy() for key, v in d.pixels(mx, buf, k).items()})
    golden.put("pixels", {"layout": [os.path.relpath(n, folder) for n in names]}, **out)


def run_im2rec(folder: str) -> None:
    """MXNet's tools/im2rec.py on the test images: the .lst files and records it makes."""
    tool = os.path.join(tempfile.mkdtemp(), "im2rec.py")
    Path(tool).write_bytes(mxnet_file("tools/im2rec.py"))
    work, dst = tempfile.mkdtemp(), IO_DIR / "im2rec"

    def im2rec(prefix: str, root: str, args: list[str]) -> None:
        cmd = [sys.executable, tool, os.path.join(work, prefix), root, *args]
        subprocess.check_call(cmd, stdout=subprocess.DEVNULL)

    for case, (list_args, pack_args) in d.IM2REC.items():
        root = folder if "--recursive" in list_args else os.path.join(folder, "dog")
        for args in (list_args, pack_args) if pack_args is not None else (list_args,):
            im2rec(case, root, args)
    with open(os.path.join(work, "plain.lst")) as f:  # two labels per image, --pack-label
        lines = [ln.rstrip("\n").split("\t") for ln in f]
    with open(os.path.join(work, "multi.lst"), "w") as f:
        f.writelines("\t".join([ln[0], ln[1], "%f" % (float(ln[0]) / 2), ln[-1]]) + "\n"
                     for ln in lines)  # fmt: skip
    im2rec("multi", folder, ["--pack-label"])
    for fname in sorted(os.listdir(work)):
        shutil.copy(os.path.join(work, fname), dst / fname)


def put_runs(golden: Golden, case: str, runs: dict, meta: dict) -> None:
    arrays = {}
    for name, bs in runs.items():
        for i, (d, lab, pad) in enumerate(bs):
            arrays.update({f"{name}/{i}/data": d, f"{name}/{i}/label": lab})
            arrays[f"{name}/{i}/pad"] = np.array(pad)
        arrays[f"{name}/n"] = np.array(len(bs))
    golden.put(case, meta, **arrays)


def record_iters(golden: Golden, folder: str) -> None:
    rec, idx = str(IO_DIR / "im2rec" / "plain.rec"), str(IO_DIR / "im2rec" / "plain.idx")
    paths = {"IDX": idx, "LST": str(IO_DIR / "im2rec" / "multi.lst")}
    runs = {}
    for name, kw in RECORD_ITER.items():
        kw = {k: paths.get(v, v) if isinstance(v, str) else v for k, v in kw.items()}
        it = mx.io.ImageRecordIter(path_imgrec=rec, preprocess_threads=2, **kw)
        runs[name] = d.two_epochs(it, 3)  # the second epoch's start, after round_batch
    for name, cls in (("uint8", mx.io.ImageRecordUInt8Iter), ("int8", mx.io.ImageRecordInt8Iter)):
        runs[name] = d.batches(cls(path_imgrec=rec, **d.INT_ITER))
    put_runs(golden, "record_iter", runs, RECORD_ITER)

    rng = np.random.RandomState(3)  # MNIST: tiny idx files
    images = rng.randint(0, 256, size=(10, 28, 28)).astype(np.uint8)
    labels = rng.randint(0, 10, size=10).astype(np.uint8)
    img_path, lab_path = IO_DIR / "mnist-images-idx3-ubyte", IO_DIR / "mnist-labels-idx1-ubyte"
    img_path.write_bytes(struct.pack(">IIII", 2051, 10, 28, 28) + images.tobytes())
    lab_path.write_bytes(struct.pack(">II", 2049, 10) + labels.tobytes())
    files = dict(image=str(img_path), label=str(lab_path), silent=True)
    runs = {name: d.batches(mx.io.MNISTIter(**files, **kw)) for name, kw in d.MNIST_ITER.items()}
    put_runs(golden, "mnist_iter", runs, d.MNIST_ITER)

    # ImageIter (Python): deterministic augmentation, then random augmentation from the same
    # seeds (MXNet draws from Python's random and numpy.random)
    runs = d.image_iter_runs(mx, rec, idx, str(IO_DIR / "im2rec" / "plain.lst"), folder)
    runs["random"] = d.random_image_iter(mx, rec, idx)
    put_runs(golden, "image_iter", runs, {})


def det_label(k: int) -> list:
    """A detection label: header [2, 5], then 1 to 3 objects (class, xmin, ymin, xmax, ymax)."""
    rng, rows = np.random.RandomState(100 + k), []
    for _ in range(1 + k % 3):
        x0, y0 = rng.uniform(0, 0.5, 2)
        rows += [float(rng.randint(0, 4)), x0, y0, x0 + rng.uniform(0.1, 0.5), y0 + 0.3]
    return [2.0, 5.0] + rows


def record_det(golden: Golden, names: list[str]) -> None:
    w = mx.recordio.MXRecordIO(str(IO_DIR / "det.rec"), "w")
    for k, name in enumerate(names):
        w.write(mx.recordio.pack(mx.recordio.IRHeader(0, det_label(k), k, 0),
                                 open(name, "rb").read()))  # fmt: skip
    w.close()
    runs = {}
    for case, kw in DET_ITER.items():
        it = mx.io.ImageDetRecordIter(path_imgrec=str(IO_DIR / "det.rec"), preprocess_threads=1,
                                      **kw)  # fmt: skip
        runs[case] = d.two_epochs(it, 2)
    put_runs(golden, "det_iter", runs, DET_ITER)


def record_dataloader(golden: Golden, folder: str) -> None:
    x, y = d.loader_arrays()
    runs = {}
    for mode in ("keep", "discard", "rollover"):
        dl = DataLoader(ArrayDataset(x, y), batch_size=4, last_batch=mode)
        runs[mode] = [(d.asnumpy(), lab.asnumpy(), 0) for d, lab in dl]
    np.random.seed(3)  # RandomSampler shuffles with numpy.random
    dl = DataLoader(ArrayDataset(x, y), batch_size=4, shuffle=True)
    runs["shuffle"] = [(d.asnumpy(), lab.asnumpy(), 0) for epoch in range(2) for d, lab in dl]
    ds = ImageRecordDataset(str(IO_DIR / "im2rec" / "plain.rec"))
    ds = ds.transform_first(d.first20)
    runs["record"] = [(d.asnumpy(), lab.asnumpy(), 0) for d, lab in DataLoader(ds, batch_size=3)]
    fds = ImageFolderDataset(folder)
    items = [[os.path.relpath(p, folder), lab] for p, lab in fds.items]
    runs["folder"] = [(fds[i][0].asnumpy(), np.array(fds[i][1]), 0) for i in range(3)]
    put_runs(golden, "dataloader", runs, {"synsets": fds.synsets, "items": items})


def record(golden: Golden) -> None:
    folder = tempfile.mkdtemp()
    names = make_images(golden.rng, folder)
    record_recordio(golden)
    record_pixels(golden, folder, names)
    run_im2rec(folder)
    record_iters(golden, folder)
    record_det(golden, names)
    record_dataloader(golden, folder)
