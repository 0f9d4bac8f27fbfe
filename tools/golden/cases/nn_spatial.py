"""GridGenerator, BilinearSampler, SpatialTransformer, Correlation, im2col and col2im
(tests/operator/test_nn_spatial.py): case ``k`` draws its inputs and then its standard normal
head gradient from a generator seeded 100 + k."""

import numpy as np

FILE = "tests/operator/golden/nn_spatial.npz"

# (name, op, input shapes, params)
# fmt: off
CASES = [
    ("gg_affine", "GridGenerator", [(2, 6)], dict(transform_type="affine", target_shape=(3, 4))),
    ("gg_warp", "GridGenerator", [(2, 2, 3, 5)], dict(transform_type="warp")),
    ("bs", "BilinearSampler", [(2, 3, 4, 5), (2, 2, 3, 6)], {}),
    ("bs64", "BilinearSampler", [(1, 2, 5, 4), (1, 2, 4, 4)], dict(cudnn_off=True)),
    ("st", "SpatialTransformer", [(2, 3, 5, 6), (2, 6)],
     dict(target_shape=(4, 3), transform_type="affine", sampler_type="bilinear")),
    ("corr", "Correlation", [(2, 3, 6, 7), (2, 3, 6, 7)], dict(kernel_size=1, max_displacement=2)),
    ("corr_k3", "Correlation", [(1, 2, 7, 8), (1, 2, 7, 8)],
     dict(kernel_size=3, max_displacement=2, stride1=2, stride2=2, pad_size=2)),
    ("corr_abs", "Correlation", [(1, 2, 5, 5), (1, 2, 5, 5)],
     dict(kernel_size=3, max_displacement=1, pad_size=1, is_multiply=False)),
    ("im2col_2d", "im2col", [(2, 3, 4, 5)], dict(kernel=(2, 3), stride=(1, 2), pad=(1, 0))),
    ("im2col_dil", "im2col", [(1, 2, 7, 6)], dict(kernel=(3, 2), dilate=(2, 1), pad=(1, 1))),
    ("col2im_2d", "col2im", [(2, 18, 10)],
     dict(output_size=(4, 5), kernel=(2, 3), stride=(1, 2), pad=(1, 0))),
]
# fmt: on
# MXNet 1.9.1's CPU im2col/col2im fail for 1-D and 3-D images (they index as if 2-D), so only
# 2-D cases are recorded; the tests check 1-D and 3-D against finite differences and a loop.
DTYPES = {"bs64": "float64", "corr_k3": "float64", "im2col_dil": "float64"}


def cases(rng: np.random.Generator):
    for k, (name, op, shapes, params) in enumerate(CASES):
        dtype = DTYPES.get(name, "float32")
        rng = np.random.default_rng(100 + k)
        ins = [rng.uniform(-1, 1, s) for s in shapes]
        if params.get("transform_type") == "affine":  # GridGenerator, SpatialTransformer
            # near-identity transforms keep most samples inside the input
            affine = np.tile([0.9, 0.1, 0.05, -0.1, 0.8, 0.0], (shapes[-1][0], 1))
            ins[-1] = affine + rng.uniform(-0.2, 0.2, shapes[-1])
        if op == "BilinearSampler":
            ins[1] = rng.uniform(-1.2, 1.2, shapes[1])
        ins = [x.astype(dtype) for x in ins]
        opts = {"head": "normal", "heads": "first", "head_rng": rng, "dtype": dtype}
        yield name, op, ins, params, opts
