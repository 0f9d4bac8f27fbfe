"""``python -m mxlite.im2rec``: make image lists (``.lst``) and RecordIO databases
(``.rec`` + ``.idx``) from a folder of images, with the arguments of MXNet's
``tools/im2rec.py`` and the same output.

List mode (``--list``) walks ``root`` (one label per sub-folder with ``--recursive``),
shuffles with Python's ``random.seed(100)`` as MXNet does unless ``--no-shuffle``, and
writes ``prefix.lst`` (or chunks and train/val/test splits). Record mode reads every
``prefix*.lst`` next to ``prefix``, re-encodes each image with OpenCV (or packs its bytes
as they are with ``--pass-through``) and writes ``.rec``/``.idx`` in list order, on
``--num-thread`` worker threads.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from . import recordio
from .opencv import require_cv2


def list_image(root: str, recursive: bool, exts: list[str]) -> Iterator[tuple]:
    """Yield ``(index, relative path, label)`` for every image under ``root``."""
    i = 0
    if recursive:
        cat: dict[str, int] = {}
        for path, dirs, files in os.walk(root, followlinks=True):
            dirs.sort()
            files.sort()
            for fname in files:
                fpath = os.path.join(path, fname)
                suffix = os.path.splitext(fname)[1].lower()
                if os.path.isfile(fpath) and suffix in exts:
                    if path not in cat:
                        cat[path] = len(cat)
                    yield (i, os.path.relpath(fpath, root), cat[path])
                    i += 1
        for k, v in sorted(cat.items(), key=lambda x: x[1]):
            print(os.path.relpath(k, root), v)
    else:
        for fname in sorted(os.listdir(root)):
            fpath = os.path.join(root, fname)
            suffix = os.path.splitext(fname)[1].lower()
            if os.path.isfile(fpath) and suffix in exts:
                yield (i, os.path.relpath(fpath, root), 0)
                i += 1


def write_list(path_out: str, image_list: list) -> None:
    """Write ``index<TAB>label(s)<TAB>path`` lines, labels as ``%f``."""
    with open(path_out, "w") as fout:
        for item in image_list:
            labels = "".join(f"{j:f}\t" for j in item[2:])
            fout.write(f"{item[0]}\t{labels}{item[1]}\n")


def make_list(args: Any) -> None:
    """Write the ``.lst`` file(s) for ``args.root``."""
    image_list = list(list_image(args.root, args.recursive, args.exts))
    if args.shuffle:
        random.seed(100)
        random.shuffle(image_list)
    n = len(image_list)
    chunk_size = (n + args.chunks - 1) // args.chunks
    for i in range(args.chunks):
        chunk = image_list[i * chunk_size : (i + 1) * chunk_size]
        str_chunk = f"_{i}" if args.chunks > 1 else ""
        sep = int(chunk_size * args.train_ratio)
        sep_test = int(chunk_size * args.test_ratio)
        if args.train_ratio == 1.0:
            write_list(args.prefix + str_chunk + ".lst", chunk)
        else:
            if args.test_ratio:
                write_list(args.prefix + str_chunk + "_test.lst", chunk[:sep_test])
            if args.train_ratio + args.test_ratio < 1.0:
                write_list(args.prefix + str_chunk + "_val.lst", chunk[sep_test + sep :])
            write_list(args.prefix + str_chunk + "_train.lst", chunk[sep_test : sep_test + sep])


def read_list(path_in: str) -> Iterator[list]:
    """Yield ``[index, path, label...]`` for each valid line of a ``.lst`` file."""
    with open(path_in) as fin:
        for line in fin:
            fields = [i.strip() for i in line.strip().split("\t")]
            if len(fields) < 3:
                print(
                    f"lst should have at least has three parts, but only has {len(fields)} "
                    f"parts for {fields}"
                )
                continue
            try:
                yield [int(fields[0]), fields[-1]] + [float(i) for i in fields[1:-1]]
            except ValueError as exc:
                print(f"Parsing lst met error for {fields}, detail: {exc}")


def image_encode(args: Any, item: list) -> bytes | None:
    """The packed record of one list item, or None (with a message) when it cannot be read."""
    cv2 = require_cv2("im2rec")
    fullpath = os.path.join(args.root, item[1])
    if len(item) > 3 and args.pack_label:
        header = recordio.IRHeader(0, item[2:], item[0], 0)
    else:
        header = recordio.IRHeader(0, item[2], item[0], 0)
    if args.pass_through:
        try:
            with open(fullpath, "rb") as fin:
                return recordio.pack(header, fin.read())
        except OSError as exc:
            print("pack_img error:", item[1], exc)
            return None
    img = cv2.imread(fullpath, args.color)
    if img is None:
        print(f"imread read blank (None) image for file: {fullpath}")
        return None
    if args.center_crop:
        if img.shape[0] > img.shape[1]:
            margin = (img.shape[0] - img.shape[1]) // 2
            img = img[margin : margin + img.shape[1], :]
        else:
            margin = (img.shape[1] - img.shape[0]) // 2
            img = img[:, margin : margin + img.shape[0]]
    if args.resize:
        if img.shape[0] > img.shape[1]:
            newsize = (args.resize, img.shape[0] * args.resize // img.shape[1])
        else:
            newsize = (img.shape[1] * args.resize // img.shape[0], args.resize)
        img = cv2.resize(img, newsize)
    try:
        return recordio.pack_img(header, img, quality=args.quality, img_fmt=args.encoding)
    except Exception as exc:  # noqa: BLE001 - one bad image must not stop the database
        print(f"pack_img error on file: {fullpath}", exc)
        return None


def _progress(done: int, total: int, start: float) -> None:
    width = 30
    filled = width * done // max(total, 1)
    rate = done / max(time.time() - start, 1e-9)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {rate:.0f} img/s")
    if done == total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def make_record(args: Any, fname: str, working_dir: str) -> None:
    """Pack the images of the list ``fname`` into ``.rec``/``.idx`` next to it."""
    items = list(read_list(fname))
    base = os.path.splitext(os.path.basename(fname))[0]
    record = recordio.MXIndexedRecordIO(
        os.path.join(working_dir, base + ".idx"), os.path.join(working_dir, base + ".rec"), "w"
    )
    start = time.time()
    window = 4 * max(1, args.num_thread)  # encodings in flight: bounds the memory they hold
    pending: deque = deque()
    written = 0

    def drain(keep: int) -> None:
        # Written in list order, so the database does not depend on the number of threads.
        nonlocal written
        while len(pending) > keep:
            item, future = pending.popleft()
            s = future.result()
            if s is not None:
                record.write_idx(item[0], s)
            written += 1
            if written % 100 == 0 or written == len(items):
                _progress(written, len(items), start)

    with ThreadPoolExecutor(max(1, args.num_thread)) as pool:
        for item in items:
            pending.append((item, pool.submit(image_encode, args, item)))
            drain(window - 1)
        drain(0)
    record.close()


def parse_args(argv: list[str] | None = None) -> Any:
    """The command line of MXNet's ``tools/im2rec.py``."""
    parser = argparse.ArgumentParser(
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        description="Create an image list or make a record database by reading from an image list",
    )
    parser.add_argument("prefix", help="prefix of input/output lst and rec files.")
    parser.add_argument("root", help="path to folder containing images.")
    cgroup = parser.add_argument_group("Options for creating image lists")
    cgroup.add_argument(
        "--list",
        action="store_true",
        help="create image list(s) by traversing root folder and output to "
        "<prefix>.lst; otherwise read <prefix>.lst and create <prefix>.rec",
    )
    cgroup.add_argument(
        "--exts",
        nargs="+",
        default=[".jpeg", ".jpg", ".png"],
        help="list of acceptable image extensions.",
    )
    cgroup.add_argument("--chunks", type=int, default=1, help="number of chunks.")
    cgroup.add_argument(
        "--train-ratio", type=float, default=1.0, help="Ratio of images to use for training."
    )
    cgroup.add_argument(
        "--test-ratio", type=float, default=0, help="Ratio of images to use for testing."
    )
    cgroup.add_argument(
        "--recursive",
        action="store_true",
        help="walk through subdirs and assign an unique label to images in each "
        "folder. Otherwise only include images in the root folder, label 0.",
    )
    cgroup.add_argument(
        "--no-shuffle",
        dest="shuffle",
        action="store_false",
        help="do not randomize the image order in <prefix>.lst",
    )
    rgroup = parser.add_argument_group("Options for creating database")
    rgroup.add_argument(
        "--pass-through",
        action="store_true",
        help="whether to skip transformation and save image as is",
    )
    rgroup.add_argument(
        "--resize",
        type=int,
        default=0,
        help="resize the shorter edge of image to the newsize, original images "
        "will be packed by default.",
    )
    rgroup.add_argument(
        "--center-crop",
        action="store_true",
        help="specify whether to crop the center image to make it rectangular.",
    )
    rgroup.add_argument(
        "--quality",
        type=int,
        default=95,
        help="JPEG quality for encoding, 1-100; or PNG compression for encoding, 1-9",
    )
    rgroup.add_argument(
        "--num-thread",
        type=int,
        default=1,
        help="number of thread to use for encoding (the order stays the list's).",
    )
    rgroup.add_argument(
        "--color",
        type=int,
        default=1,
        choices=[-1, 0, 1],
        help="color mode of the loaded image: 1 color, 0 grayscale, -1 as is.",
    )
    rgroup.add_argument(
        "--encoding",
        type=str,
        default=".jpg",
        choices=[".jpg", ".png"],
        help="specify the encoding of the images.",
    )
    rgroup.add_argument(
        "--pack-label",
        action="store_true",
        help="Whether to also pack multi dimensional label in the record file",
    )
    args = parser.parse_args(argv)
    args.prefix = os.path.abspath(args.prefix)
    args.root = os.path.abspath(args.root)
    return args


def main(argv: list[str] | None = None) -> None:
    """Run im2rec with ``argv`` (default: the command line)."""
    args = parse_args(argv)
    if args.list:
        make_list(args)
        return
    working_dir = args.prefix if os.path.isdir(args.prefix) else os.path.dirname(args.prefix)
    for fname in sorted(os.listdir(working_dir)):
        path = os.path.join(working_dir, fname)
        if os.path.isfile(path) and path.startswith(args.prefix) and path.endswith(".lst"):
            print("Creating .rec file from", path, "in", working_dir)
            make_record(args, path, working_dir)


if __name__ == "__main__":
    main()
