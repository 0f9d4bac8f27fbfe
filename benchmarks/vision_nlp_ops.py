"""Operators of detection, NLP and older CNN pipelines, float32, ``mx.nd`` imperatively,
mxlite vs MXNet 1.9.1 in one run: milliseconds (median) of ``topk`` (k=5 of (256, 1000) logits,
as a top-5 metric takes them), ``_contrib_ROIAlign`` (64 regions, 7x7, on (8, 64, 56, 56)),
``_contrib_MultiBoxDetection`` (SSD's 5776 anchors of a 38x38 map, 21 classes, batch 4),
``Embedding`` forward+backward ((64, 128) indices into a (30000, 256) weight) and ``LRN``
(nsize 5 on (8, 64, 56, 56)); each ``<name>_ms_ratio`` is mxlite's time over MXNet's. On a
shared machine run ``--rounds 5``.
Usage: python benchmarks/vision_nlp_ops.py [--rounds N] [--repeat N]."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import case_ms, import_mx, parser, run  # noqa: E402

NAMES = ("topk", "roialign", "multibox_detection", "embedding_fwdbwd", "lrn")


def measure(impl: str, repeat: int) -> dict[str, float]:
    mx = import_mx(impl)
    nd = mx.nd
    rs = np.random.RandomState(0)
    logits = nd.array(rs.normal(size=(256, 1000)).astype("float32"))
    feat = nd.array(rs.normal(size=(8, 64, 56, 56)).astype("float32"))
    corners = [rs.randint(0, 8, (64, 1)), rs.uniform(0, 20, (64, 2)), rs.uniform(25, 55, (64, 2))]
    rois = nd.array(np.concatenate(corners, axis=1).astype("float32"))
    ssd_map = nd.zeros((1, 256, 38, 38))
    anchors = nd.contrib.MultiBoxPrior(ssd_map, sizes=[0.1, 0.2], ratios=[1, 2, 0.5])
    na = anchors.shape[1]
    prob = nd.softmax(nd.array(rs.normal(size=(4, 21, na)).astype("float32")), axis=1)
    loc = nd.array((rs.normal(size=(4, na * 4)) * 0.1).astype("float32"))
    idx = nd.array(rs.randint(0, 30000, size=(64, 128)).astype("float32"))
    weight = nd.array(rs.normal(size=(30000, 256)).astype("float32"))
    weight.attach_grad()

    def embedding() -> None:
        with mx.autograd.record():
            y = nd.Embedding(idx, weight, input_dim=30000, output_dim=256)
        y.backward()

    cases = {
        "topk": lambda: nd.topk(logits, k=5),
        "roialign": lambda: nd.contrib.ROIAlign(feat, rois, pooled_size=(7, 7), spatial_scale=1),
        "multibox_detection": lambda: nd.contrib.MultiBoxDetection(prob, loc, anchors),
        "embedding_fwdbwd": embedding,
        "lrn": lambda: nd.LRN(feat, nsize=5),
    }
    return case_ms(cases, repeat, nd.waitall)


if __name__ == "__main__":
    args = parser(__doc__).parse_args()
    run("vision_nlp_ops", measure, args, [f"{n}_ms" for n in NAMES])
