"""FullyConnected, Convolution and Deconvolution (tests/operator/test_nn_conv.py): standard
normal inputs (named in each case, in argument order) and head gradient, every input's
gradient."""

import numpy as np

FILE = "tests/operator/golden/nn_conv.npz"
SEED = 20240514
GENERATOR = "default_rng"

# (case, op, dtype, input shapes by argument name, params)
# fmt: off
CASES = [
    ("conv2d", "Convolution", "float32",
     {"data": (2, 3, 7, 7), "weight": (4, 3, 3, 3), "bias": (4,)},
     {"kernel": (3, 3), "num_filter": 4, "pad": (1, 1)}),
    ("conv2d_odd", "Convolution", "float64", {"data": (2, 4, 9, 8), "weight": (6, 4, 3, 2)},
     {"kernel": (3, 2), "stride": (2, 1), "dilate": (2, 1), "pad": (1, 2), "num_filter": 6,
      "no_bias": True}),
    ("conv2d_group", "Convolution", "float32",
     {"data": (2, 4, 6, 6), "weight": (6, 2, 3, 3), "bias": (6,)},
     {"kernel": (3, 3), "stride": (2, 2), "num_filter": 6, "num_group": 2}),
    ("conv2d_depthwise", "Convolution", "float32",
     {"data": (2, 4, 6, 5), "weight": (4, 1, 3, 3), "bias": (4,)},
     {"kernel": (3, 3), "pad": (1, 1), "num_filter": 4, "num_group": 4}),
    ("conv2d_depthwise_x2", "Convolution", "float64", {"data": (1, 3, 5, 5), "weight": (6, 1, 2, 2),
      "bias": (6,)}, {"kernel": (2, 2), "num_filter": 6, "num_group": 3, "workspace": 64,
      "cudnn_tune": "off", "cudnn_off": True}),
    ("conv1d", "Convolution", "float32", {"data": (2, 3, 10), "weight": (5, 3, 3), "bias": (5,)},
     {"kernel": (3,), "stride": (2,), "dilate": (2,), "pad": (1,), "num_filter": 5,
      "layout": "NCW"}),
    ("conv3d", "Convolution", "float64",
     {"data": (1, 2, 5, 5, 4), "weight": (3, 2, 2, 3, 2), "bias": (3,)},
     {"kernel": (2, 3, 2), "stride": (1, 2, 1), "pad": (1, 0, 1), "num_filter": 3}),
    ("conv2d_1x1", "Convolution", "float32",
     {"data": (2, 5, 6, 6), "weight": (3, 5, 1, 1), "bias": (3,)},
     {"kernel": (1, 1), "stride": (2, 2), "num_filter": 3}),
    ("deconv2d", "Deconvolution", "float32", {"data": (2, 3, 4, 4), "weight": (3, 4, 3, 3)},
     {"kernel": (3, 3), "stride": (2, 2), "num_filter": 4}),
    ("deconv2d_adj", "Deconvolution", "float64", {"data": (2, 3, 4, 5), "weight": (3, 2, 3, 3),
      "bias": (2,)}, {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1), "adj": (1, 0),
      "num_filter": 2, "no_bias": False}),
    # float64: MXNet's MKLDNN float32 path fails on target_shape (it ignores the adj it implies)
    ("deconv2d_target", "Deconvolution", "float64", {"data": (2, 3, 4, 5), "weight": (3, 2, 3, 3)},
     {"kernel": (3, 3), "stride": (2, 2), "target_shape": (9, 10), "num_filter": 2, "pad": (4, 4)}),
    ("deconv2d_group", "Deconvolution", "float32", {"data": (2, 4, 3, 3), "weight": (4, 3, 2, 2),
      "bias": (6,)}, {"kernel": (2, 2), "stride": (2, 2), "dilate": (2, 1), "num_filter": 6,
      "num_group": 2, "no_bias": False}),
    ("deconv1d", "Deconvolution", "float64", {"data": (2, 3, 5), "weight": (3, 2, 4), "bias": (2,)},
     {"kernel": (4,), "stride": (3,), "pad": (1,), "adj": (2,), "num_filter": 2, "no_bias": False}),
    ("deconv3d", "Deconvolution", "float32", {"data": (1, 2, 3, 3, 2), "weight": (2, 3, 2, 2, 2)},
     {"kernel": (2, 2, 2), "stride": (2, 1, 2), "pad": (1, 0, 0), "num_filter": 3}),
    ("fc", "FullyConnected", "float32", {"data": (3, 2, 4), "weight": (5, 8), "bias": (5,)},
     {"num_hidden": 5}),
    ("fc_noflat", "FullyConnected", "float64", {"data": (2, 3, 4), "weight": (5, 4), "bias": (5,)},
     {"num_hidden": 5, "flatten": False}),
    ("fc_nobias", "FullyConnected", "float32", {"data": (4, 6), "weight": (3, 6)},
     {"num_hidden": 3, "no_bias": True}),
    ("fc_1d", "FullyConnected", "float32", {"data": (7,), "weight": (3, 1), "bias": (3,)},
     {"num_hidden": 3}),
    # the layer kinds of ResNet and MobileNet, at small sizes: 7x7 stride-2 stem, strided 3x3
    # on odd sizes, 1x1 with groups, depthwise with stride, dilation and padding
    ("conv2d_stem", "Convolution", "float32",
     {"data": (2, 3, 15, 15), "weight": (4, 3, 7, 7), "bias": (4,)},
     {"kernel": (7, 7), "stride": (2, 2), "pad": (3, 3), "num_filter": 4}),
    ("conv2d_s2_odd", "Convolution", "float32",
     {"data": (2, 5, 9, 8), "weight": (6, 5, 3, 3), "bias": (6,)},
     {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1), "num_filter": 6}),
    ("conv2d_pointwise_group", "Convolution", "float64",
     {"data": (2, 6, 5, 5), "weight": (4, 3, 1, 1), "bias": (4,)},
     {"kernel": (1, 1), "num_filter": 4, "num_group": 2}),
    ("conv2d_depthwise_s2_dilate", "Convolution", "float64", {"data": (2, 4, 9, 9),
      "weight": (4, 1, 3, 3), "bias": (4,)}, {"kernel": (3, 3), "stride": (2, 2), "dilate": (2, 2),
      "pad": (2, 2), "num_filter": 4, "num_group": 4}),
    ("conv2d_depthwise_odd", "Convolution", "float32",
     {"data": (3, 8, 12, 11), "weight": (8, 1, 3, 3)},
     {"kernel": (3, 3), "pad": (1, 1), "num_filter": 8, "num_group": 8, "no_bias": True}),
    ("conv1d_depthwise", "Convolution", "float64",
     {"data": (2, 3, 11), "weight": (3, 1, 5), "bias": (3,)},
     {"kernel": (5,), "pad": (2,), "stride": (2,), "num_filter": 3, "num_group": 3}),
    ("conv3d_depthwise", "Convolution", "float32",
     {"data": (1, 2, 4, 5, 5), "weight": (2, 1, 2, 3, 3), "bias": (2,)},
     {"kernel": (2, 3, 3), "pad": (0, 1, 1), "num_filter": 2, "num_group": 2}),
]
# fmt: on


def cases(rng: np.random.Generator):
    for case, op, dtype, shapes, params in CASES:
        ins = [rng.standard_normal(s).astype(dtype) for s in shapes.values()]
        yield case, op, ins, params, {"head": "normal", "dtype": dtype, "args": list(shapes)}
