"""Images per second of ``mx.io.ImageRecordIter`` over a .rec of 64x64 JPEGs (quality 95):
data_shape=(3, 56, 56), rand_crop, rand_mirror, batch 64, preprocess_threads=2, one epoch per
repetition (reset included); mxlite vs MXNet 1.9.1 in one run, on the same file. Issue 14 asks
for >= 0.8x MXNet (goal 1.2x).
Usage: python benchmarks/image_record_iter.py [--impl both] [--repeat N] [--images N]."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import import_mx, median_time, parser, run  # noqa: E402

BATCH = 64


def make_rec(path: str, n: int) -> None:
    import cv2
    import numpy as np

    import mxlite as mx

    rng = np.random.RandomState(0)
    yy, xx = np.mgrid[0:64, 0:64].astype(np.float32)
    writer = mx.recordio.MXIndexedRecordIO(os.path.splitext(path)[0] + ".idx", path, "w")
    for i in range(n):
        base = np.stack([np.sin(xx / (3 + i % 7)), np.cos(yy / (4 + i % 5)), (xx + yy) / 128], 2)
        img = np.clip(127 + 100 * base + rng.normal(0, 10, base.shape), 0, 255).astype(np.uint8)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 95])
        record = mx.recordio.pack(mx.recordio.IRHeader(0, float(i % 10), i, 0), buf.tobytes())
        writer.write_idx(i, record)
    writer.close()


def measure(impl: str, repeat: int) -> dict[str, float]:
    mx = import_mx(impl)
    path = os.environ["MXLITE_BENCH_REC"]
    n = int(os.environ["MXLITE_BENCH_N"])
    it = mx.io.ImageRecordIter(
        path_imgrec=path,
        data_shape=(3, 56, 56),
        batch_size=BATCH,
        rand_crop=True,
        rand_mirror=True,
        preprocess_threads=2,
        verbose=False,
    )

    def epoch() -> None:
        it.reset()
        for batch in it:
            batch.data[0].wait_to_read()

    seconds = median_time(epoch, repeat)
    return {"images_per_s": round(n / seconds, 1)}


if __name__ == "__main__":
    p = parser(__doc__)
    p.add_argument("--images", type=int, default=4096)
    args = p.parse_args()
    if not args.child:
        folder = tempfile.mkdtemp()
        os.environ["MXLITE_BENCH_REC"] = os.path.join(folder, "bench.rec")
        os.environ["MXLITE_BENCH_N"] = str(args.images)
        make_rec(os.environ["MXLITE_BENCH_REC"], args.images)
    run("image_record_iter", measure, args, ["images_per_s"])
