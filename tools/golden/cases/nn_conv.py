"""FullyConnected, Convolution and Deconvolution (tests/operator/test_nn_conv.py): standard
normal inputs (named in each case, in argument order) and head gradient, every input's
gradient."""

import numpy as np

FILE = "tests/operator/golden/nn_conv.npz"
SEED = 20240514
GENERATOR = "default_rng"

# (case, op, dtype, data shape, params); the weight (and bias) shapes follow from the params
CV, DC, FC, F32, F64 = "Convolution", "Deconvolution", "FullyConnected", "float32", "float64"
# fmt: off
CASES = [
    ("conv2d", CV, F32, (2, 3, 7, 7), {"kernel": (3, 3), "num_filter": 4, "pad": (1, 1)}),
    ("conv2d_odd", CV, F64, (2, 4, 9, 8), {"kernel": (3, 2), "stride": (2, 1), "dilate": (2, 1),
      "pad": (1, 2), "num_filter": 6, "no_bias": True}),
    ("conv2d_group", CV, F32, (2, 4, 6, 6),
     {"kernel": (3, 3), "stride": (2, 2), "num_filter": 6, "num_group": 2}),
    ("conv2d_depthwise", CV, F32, (2, 4, 6, 5),
     {"kernel": (3, 3), "pad": (1, 1), "num_filter": 4, "num_group": 4}),
    ("conv2d_depthwise_x2", CV, F64, (1, 3, 5, 5), {"kernel": (2, 2), "num_filter": 6,
      "num_group": 3, "workspace": 64, "cudnn_tune": "off", "cudnn_off": True}),
    ("conv1d", CV, F32, (2, 3, 10), {"kernel": (3,), "stride": (2,), "dilate": (2,), "pad": (1,),
      "num_filter": 5, "layout": "NCW"}),
    ("conv3d", CV, F64, (1, 2, 5, 5, 4),
     {"kernel": (2, 3, 2), "stride": (1, 2, 1), "pad": (1, 0, 1), "num_filter": 3}),
    ("conv2d_1x1", CV, F32, (2, 5, 6, 6), {"kernel": (1, 1), "stride": (2, 2), "num_filter": 3}),
    ("deconv2d", DC, F32, (2, 3, 4, 4), {"kernel": (3, 3), "stride": (2, 2), "num_filter": 4}),
    ("deconv2d_adj", DC, F64, (2, 3, 4, 5), {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1),
      "adj": (1, 0), "num_filter": 2, "no_bias": False}),
    # float64: MXNet's MKLDNN float32 path fails on target_shape (it ignores the adj it implies)
    ("deconv2d_target", DC, F64, (2, 3, 4, 5), {"kernel": (3, 3), "stride": (2, 2),
      "target_shape": (9, 10), "num_filter": 2, "pad": (4, 4)}),
    ("deconv2d_group", DC, F32, (2, 4, 3, 3), {"kernel": (2, 2), "stride": (2, 2), "dilate": (2, 1),
      "num_filter": 6, "num_group": 2, "no_bias": False}),
    ("deconv1d", DC, F64, (2, 3, 5), {"kernel": (4,), "stride": (3,), "pad": (1,), "adj": (2,),
      "num_filter": 2, "no_bias": False}),
    ("deconv3d", DC, F32, (1, 2, 3, 3, 2),
     {"kernel": (2, 2, 2), "stride": (2, 1, 2), "pad": (1, 0, 0), "num_filter": 3}),
    ("fc", FC, F32, (3, 2, 4), {"num_hidden": 5}),
    ("fc_noflat", FC, F64, (2, 3, 4), {"num_hidden": 5, "flatten": False}),
    ("fc_nobias", FC, F32, (4, 6), {"num_hidden": 3, "no_bias": True}),
    ("fc_1d", FC, F32, (7,), {"num_hidden": 3}),
    # the layer kinds of ResNet and MobileNet, at small sizes: 7x7 stride-2 stem, strided 3x3
    # on odd sizes, 1x1 with groups, depthwise with stride, dilation and padding
    ("conv2d_stem", CV, F32, (2, 3, 15, 15),
     {"kernel": (7, 7), "stride": (2, 2), "pad": (3, 3), "num_filter": 4}),
    ("conv2d_s2_odd", CV, F32, (2, 5, 9, 8),
     {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1), "num_filter": 6}),
    ("conv2d_pointwise_group", CV, F64, (2, 6, 5, 5),
     {"kernel": (1, 1), "num_filter": 4, "num_group": 2}),
    ("conv2d_depthwise_s2_dilate", CV, F64, (2, 4, 9, 9), {"kernel": (3, 3), "stride": (2, 2),
      "dilate": (2, 2), "pad": (2, 2), "num_filter": 4, "num_group": 4}),
    ("conv2d_depthwise_odd", CV, F32, (3, 8, 12, 11),
     {"kernel": (3, 3), "pad": (1, 1), "num_filter": 8, "num_group": 8, "no_bias": True}),
    ("conv1d_depthwise", CV, F64, (2, 3, 11),
     {"kernel": (5,), "pad": (2,), "stride": (2,), "num_filter": 3, "num_group": 3}),
    ("conv3d_depthwise", CV, F32, (1, 2, 4, 5, 5),
     {"kernel": (2, 3, 3), "pad": (0, 1, 1), "num_filter": 2, "num_group": 2}),
]
# fmt: on


def arg_shapes(op: str, data: tuple, p: dict) -> dict:
    """The shapes of the arguments: a bias unless ``no_bias`` (Deconvolution's default)."""
    g, k = p.get("num_group", 1), p.get("kernel", ())
    n = p.get("num_filter", p.get("num_hidden"))
    if op == FC:
        weight = (n, data[-1] if p.get("flatten") is False else int(np.prod(data[1:])))
    else:
        weight = (n, data[1] // g, *k) if op == CV else (data[1], n // g, *k)
    no_bias = p.get("no_bias", op == DC)
    return {"data": data, "weight": weight, **({} if no_bias else {"bias": (n,)})}


def cases(rng: np.random.Generator):
    for case, op, dtype, data, params in CASES:
        shapes = arg_shapes(op, data, params)
        ins = [rng.standard_normal(s).astype(dtype) for s in shapes.values()]
        yield case, op, ins, params, {"head": "normal", "dtype": dtype, "args": list(shapes)}
