"""The quantized-operator cases of tests/operator/contrib/test_quantized_ops.py and its graph,
shared with tools/golden/cases/quant.py, which records what MXNet 1.9.1's CPU (MKLDNN) build
computes from them."""

import numpy as np


def cases():
    """(case, op name, inputs {name: array}, params) shared with the test."""
    rng = np.random.RandomState(7)
    i8 = rng.randint(-127, 128, (2, 3, 5, 5)).astype(np.int8)
    u8 = rng.randint(0, 256, (2, 3, 5, 5)).astype(np.uint8)
    i8b = rng.randint(-127, 128, (2, 3, 5, 5)).astype(np.int8)
    u8b = rng.randint(0, 256, (2, 3, 5, 5)).astype(np.uint8)
    lo, hi = np.array([-2.5], np.float32), np.array([1.5], np.float32)
    lo2, hi2 = np.array([-0.5], np.float32), np.array([3.0], np.float32)
    z, p = np.array([0.0], np.float32), np.array([4.0], np.float32)
    xf = rng.randn(2, 3, 5, 5).astype(np.float32)
    g, b = rng.rand(3).astype(np.float32) + 0.5, rng.randn(3).astype(np.float32)
    mm, mv = rng.randn(3).astype(np.float32), rng.rand(3).astype(np.float32) + 0.5
    bn = {"data": xf, "gamma": g, "beta": b, "moving_mean": mm, "moving_var": mv}
    w = rng.randint(-127, 128, (4, 75)).astype(np.int8)
    bias = rng.randint(-127, 128, (4,)).astype(np.int8)
    wlo, whi = np.array([-0.3], np.float32), np.array([0.2], np.float32)
    cw = rng.randint(-127, 128, (4, 3, 3, 3)).astype(np.int8)
    samples = np.concatenate([rng.randn(3000), 3 * rng.standard_t(3, 400)])
    hist, edges = np.histogram(samples, bins=101, range=(-8, 8))
    hist, edges = hist.astype(np.float32), edges.astype(np.float32)
    sparse_hist = hist * (rng.rand(101) > 0.4)
    blo, bhi = np.array([-0.1], np.float32), np.array([0.4], np.float32)
    return [
        ("bnrelu", "BatchNormWithReLU", bn, {"fix_gamma": False}),
        ("bnrelu_global", "BatchNormWithReLU", bn, {"fix_gamma": False, "use_global_stats": True}),
        # MXNet's MKLDNN build runs quantize_asym on 3-D data only (others crash it)
        ("asym", "quantize_asym", {"data": xf[0]}, {}),
        (
            "asym_calib",
            "quantize_asym",
            {"data": xf[1]},
            {"min_calib_range": -1.0, "max_calib_range": 2.0},
        ),
        ("flatten", "quantized_flatten", {"data": i8, "min_data": lo, "max_data": hi}, {}),
        (
            "act",
            "quantized_act",
            {"data": i8, "min_data": lo, "max_data": hi},
            {"act_type": "relu"},
        ),
        (
            "act_u8",
            "quantized_act",
            {"data": u8, "min_data": z, "max_data": p},
            {"act_type": "relu"},
        ),
        (
            "pool_max",
            "quantized_pooling",
            {"data": i8, "min_data": lo, "max_data": hi},
            {"kernel": (2, 2), "pool_type": "max"},
        ),
        (
            "pool_avg",
            "quantized_pooling",
            {"data": i8, "min_data": lo, "max_data": hi},
            {"kernel": (3, 3), "stride": (2, 2), "pad": (1, 1), "pool_type": "avg"},
        ),
        (
            "pool_avg_u8",
            "quantized_pooling",
            {"data": u8, "min_data": z, "max_data": p},
            {"kernel": (2, 2), "stride": (2, 2), "pool_type": "avg"},
        ),
        (
            "add",
            "quantized_elemwise_add",
            {"lhs": i8, "rhs": i8b, "lhs_min": lo, "lhs_max": hi, "rhs_min": lo2, "rhs_max": hi2},
            {},
        ),
        (
            "add_calib",
            "quantized_elemwise_add",
            {"lhs": i8, "rhs": i8b, "lhs_min": lo, "lhs_max": hi, "rhs_min": lo2, "rhs_max": hi2},
            {"min_calib_range": -3.0, "max_calib_range": 3.5},
        ),
        (
            "add_u8",
            "quantized_elemwise_add",
            {"lhs": u8, "rhs": u8b, "lhs_min": z, "lhs_max": p, "rhs_min": z, "rhs_max": hi2},
            {},
        ),
        (
            "concat",
            "quantized_concat",
            {
                "arg0": i8,
                "arg1": i8b,
                "arg0_min": lo,
                "arg0_max": hi,
                "arg1_min": lo2,
                "arg1_max": hi2,
            },
            {"num_args": 2, "dim": 1},
        ),
        (
            "concat_u8",
            "quantized_concat",
            {"arg0": u8, "arg1": u8b, "arg0_min": z, "arg0_max": p, "arg1_min": z, "arg1_max": hi2},
            {"num_args": 2, "dim": 2},
        ),
        (
            "fc",
            "quantized_fully_connected",
            {
                "data": i8,
                "weight": w,
                "bias": bias,
                "min_data": lo,
                "max_data": hi,
                "min_weight": wlo,
                "max_weight": whi,
                "min_bias": blo,
                "max_bias": bhi,
            },
            {"num_hidden": 4},
        ),
        (
            "fc_nobias",
            "quantized_fully_connected",
            {
                "data": i8,
                "weight": w,
                "min_data": lo,
                "max_data": hi,
                "min_weight": wlo,
                "max_weight": whi,
            },
            {"num_hidden": 4, "no_bias": True},
        ),
        (
            "fc_u8",
            "quantized_fully_connected",
            {
                "data": u8,
                "weight": w,
                "bias": bias,
                "min_data": z,
                "max_data": p,
                "min_weight": wlo,
                "max_weight": whi,
                "min_bias": blo,
                "max_bias": bhi,
            },
            {"num_hidden": 4},
        ),  # fmt: skip
        (
            "add_mixed",
            "quantized_elemwise_add",
            {"lhs": i8, "rhs": u8b, "lhs_min": lo, "lhs_max": hi, "rhs_min": z, "rhs_max": p},
            {"min_calib_range": -3.0, "max_calib_range": 3.5},
        ),
        (
            "concat_mixed",
            "quantized_concat",
            {
                "arg0": u8,
                "arg1": i8b,
                "arg0_min": z,
                "arg0_max": p,
                "arg1_min": lo2,
                "arg1_max": hi2,
            },
            {"num_args": 2, "dim": 1},
        ),  # fmt: skip
        (
            "mul",
            "quantized_elemwise_mul",
            {"lhs": i8, "rhs": i8b, "lhs_min": lo, "lhs_max": hi, "rhs_min": lo2, "rhs_max": hi2},
            {},
        ),
        (
            "mul_calib",
            "quantized_elemwise_mul",
            {"lhs": i8, "rhs": i8b, "lhs_min": lo, "lhs_max": hi, "rhs_min": lo2, "rhs_max": hi2},
            {"min_calib_range": -4.0, "max_calib_range": 2.0},
        ),
        (
            "mul_float",
            "quantized_elemwise_mul",
            {"lhs": i8, "rhs": i8b, "lhs_min": lo, "lhs_max": hi, "rhs_min": lo2, "rhs_max": hi2},
            {"enable_float_output": True},
        ),
        (
            "bn_u8",
            "quantized_batch_norm",
            {**bn, "data": u8, "min_data": z, "max_data": p},
            {"min_calib_range": -2.0, "max_calib_range": 2.5, "fix_gamma": False, "eps": 0.01},
        ),
        (
            "bn_i8",
            "quantized_batch_norm",
            {**bn, "data": i8, "min_data": lo, "max_data": hi},
            {"min_calib_range": -3.0, "max_calib_range": 2.0, "fix_gamma": False},
        ),
        (
            "embedding",
            "quantized_embedding",
            {
                "data": np.array([[0, 3, 9], [2, -1, 4]], np.float32),
                "weight": cw.reshape(6, 18)[:, :5],
                "min_weight": wlo,
                "max_weight": whi,
            },
            {"input_dim": 6, "output_dim": 5},
        ),  # fmt: skip
        (
            "calib_entropy",
            "calibrate_entropy",
            {"hist": hist, "hist_edges": edges},
            {"num_quantized_bins": 15},
        ),
        (
            "calib_entropy_sparse",
            "calibrate_entropy",
            {"hist": sparse_hist, "hist_edges": edges},
            {"num_quantized_bins": 7},
        ),
        # MXNet's CPU (MKLDNN) quantized_conv takes uint8 data only
        (
            "conv",
            "quantized_conv",
            {
                "data": u8,
                "weight": cw,
                "bias": bias,
                "min_data": z,
                "max_data": p,
                "min_weight": wlo,
                "max_weight": whi,
                "min_bias": blo,
                "max_bias": bhi,
            },
            {"num_filter": 4, "kernel": (3, 3), "pad": (1, 1), "stride": (2, 1)},
        ),  # fmt: skip
        (
            "conv_nobias",
            "quantized_conv",
            {
                "data": u8,
                "weight": cw,
                "min_data": z,
                "max_data": p,
                "min_weight": wlo,
                "max_weight": whi,
            },
            {"num_filter": 4, "kernel": (3, 3), "no_bias": True},
        ),  # fmt: skip
    ]


def graph(mx_):
    """A symbol of quantized layers (pooling, flatten, fully connected, conv, add), for JSON
    both ways; its inputs come from ``graph_inputs``."""
    v = mx_.sym.var
    d, lo, hi = v("d"), v("d_min"), v("d_max")
    pool = mx_.sym.contrib.quantized_pooling(d, lo, hi, kernel=(2, 2), stride=(2, 2), name="qp")
    flat = mx_.sym.contrib.quantized_flatten(*pool, name="qf")
    fc = mx_.sym.contrib.quantized_fully_connected(
        flat[0], v("fw"), v("fb"), flat[1], flat[2], v("fw_min"), v("fw_max"), v("fb_min"),
        v("fb_max"), num_hidden=3, name="qfc")  # fmt: skip
    conv = mx_.sym.contrib.quantized_conv(
        data=d, weight=v("cw"), min_data=lo, max_data=hi, min_weight=v("cw_min"),
        max_weight=v("cw_max"), num_filter=2, kernel=(3, 3), pad=(1, 1), no_bias=True,
        name="qconv")  # fmt: skip
    add = mx_.sym.contrib.quantized_elemwise_add(
        v("a"), v("b"), v("a_min"), v("a_max"), v("b_min"), v("b_max"), name="qadd")  # fmt: skip
    return mx_.sym.Group([fc[0], fc[2], conv[0], conv[1], add[0]])


def graph_inputs():
    rng = np.random.RandomState(11)
    f = np.float32
    return {
        "d": rng.randint(0, 256, (2, 3, 4, 4)).astype(np.uint8),
        "d_min": np.array([0.0], f), "d_max": np.array([2.0], f),
        "fw": rng.randint(-127, 128, (3, 12)).astype(np.int8),
        "fb": rng.randint(-127, 128, (3,)).astype(np.int8),
        "fw_min": np.array([-0.5], f), "fw_max": np.array([0.5], f),
        "fb_min": np.array([-0.2], f), "fb_max": np.array([0.3], f),
        "cw": rng.randint(-127, 128, (2, 3, 3, 3)).astype(np.int8),
        "cw_min": np.array([-1.0], f), "cw_max": np.array([0.7], f),
        "a": rng.randint(-127, 128, (2, 5)).astype(np.int8),
        "b": rng.randint(-127, 128, (2, 5)).astype(np.int8),
        "a_min": np.array([-1.0], f), "a_max": np.array([1.0], f),
        "b_min": np.array([-3.0], f), "b_max": np.array([2.0], f),
    }  # fmt: skip
