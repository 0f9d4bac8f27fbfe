"""Images per second of ``gluon.data.DataLoader`` over ``vision.ImageRecordDataset`` (a .rec of
64x64 JPEGs, quality 95, with its .idx), batch 64, num_workers=2 (worker processes), default
batchify (stacked uint8 NDArrays); one epoch per repetition after a warm-up epoch; mxlite vs
MXNet 1.9.1 in one run, on the same file. Issue 14 asks for this figure.
Usage: python benchmarks/dataloader_record.py [--impl both] [--repeat N] [--images N]."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import import_mx, median_time, parser, run  # noqa: E402
from image_record_iter import make_rec  # noqa: E402

BATCH = 64


def measure(impl: str, repeat: int) -> dict[str, float]:
    mx = import_mx(impl)
    path = os.environ["MXLITE_BENCH_REC"]
    n = int(os.environ["MXLITE_BENCH_N"])
    dataset = mx.gluon.data.vision.ImageRecordDataset(path)
    loader = mx.gluon.data.DataLoader(dataset, batch_size=BATCH, num_workers=2)

    def epoch() -> None:
        for data, _ in loader:
            data.wait_to_read()

    seconds = median_time(epoch, repeat)
    return {"images_per_s": round(n / seconds, 1)}


if __name__ == "__main__":
    p = parser(__doc__)
    p.add_argument("--images", type=int, default=2048)
    args = p.parse_args()
    if not args.child:
        folder = tempfile.mkdtemp()
        os.environ["MXLITE_BENCH_REC"] = os.path.join(folder, "bench.rec")
        os.environ["MXLITE_BENCH_N"] = str(args.images)
        make_rec(os.environ["MXLITE_BENCH_REC"], args.images)
    run("dataloader_record", measure, args, ["images_per_s"])
