"""Golden file for the ``_image_*`` operators, from real MXNet 1.9.1.

Run under the reference interpreter::

    /tmp/mxref/bin/python tools/make_golden_image_ops.py

Writes ``tests/operator/golden/image_ops.npz``: one uint8 HWC image, one batch of two, and the
outputs of the deterministic operators (to_tensor, normalize, resize, crop,
adjust_lighting) on them (not the flips: MXNet 1.9.1's CPU flips give wrong pixels for odd
sizes such as 7 x 5; mxlite's are checked against NumPy), keyed by the names in ``CASES``.
"""

from __future__ import annotations

import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "operator", "golden")

# key -> (operator, input key, kwargs)
CASES = {
    "to_tensor": ("to_tensor", "img", {}),
    "to_tensor_batch": ("to_tensor", "batch", {}),
    "normalize": ("normalize", "tensor", {"mean": (0.1, 0.2, 0.3), "std": (0.5, 1.0, 2.0)}),
    "normalize_batch": ("normalize", "tensor_batch", {"mean": (0.5,), "std": (2.0,)}),
    "resize": ("resize", "img", {"size": (5, 4)}),
    "resize_keep": ("resize", "img", {"size": (6,), "keep_ratio": True, "interp": 2}),
    "resize_batch": ("resize", "batch", {"size": (3,), "interp": 0}),
    "crop": ("crop", "img", {"x": 1, "y": 2, "width": 4, "height": 3}),
    "crop_batch": ("crop", "batch", {"x": 0, "y": 1, "width": 2, "height": 5}),
    "adjust_lighting": ("adjust_lighting", "fimg", {"alpha": (0.1, -0.2, 0.3)}),
}


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.RandomState(3)
    ins = {
        "img": rng.randint(0, 256, (7, 9, 3)).astype(np.uint8),
        "batch": rng.randint(0, 256, (2, 6, 8, 3)).astype(np.uint8),
    }
    ins["fimg"] = ins["img"].astype(np.float32)
    ins["tensor"] = rng.uniform(0, 1, (3, 4, 5)).astype(np.float32)
    ins["tensor_batch"] = rng.uniform(0, 1, (2, 3, 4, 5)).astype(np.float32)
    arrays = {f"in:{k}": v for k, v in ins.items()}
    for key, (op, src, kwargs) in CASES.items():
        data = mx.nd.array(ins[src], dtype=ins[src].dtype)
        arrays[key] = getattr(mx.nd.image, op)(data, **kwargs).asnumpy()
    np.savez_compressed(os.path.join(OUT, "image_ops.npz"), **arrays)


if __name__ == "__main__":
    main()
