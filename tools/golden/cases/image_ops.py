"""The deterministic ``_image_*`` operators (tests/operator/test_image.py): to_tensor,
normalize, resize, crop and adjust_lighting on one uint8 HWC image, a batch of two, and float
tensors (not the flips: MXNet 1.9.1's CPU flips give wrong pixels for odd sizes such as 7 x 5;
mxlite's are checked against NumPy)."""

import numpy as np

FILE = "tests/operator/golden/image_ops.npz"
SEED = 3

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


def cases(rng: np.random.RandomState):
    ins = {"img": rng.randint(0, 256, (7, 9, 3)).astype(np.uint8),
           "batch": rng.randint(0, 256, (2, 6, 8, 3)).astype(np.uint8)}  # fmt: skip
    ins["fimg"] = ins["img"].astype(np.float32)
    ins["tensor"] = rng.uniform(0, 1, (3, 4, 5)).astype(np.float32)
    ins["tensor_batch"] = rng.uniform(0, 1, (2, 3, 4, 5)).astype(np.float32)
    for key, (op, src, kwargs) in CASES.items():
        yield key, f"image.{op}", [ins[src]], kwargs, {"grad": False}
