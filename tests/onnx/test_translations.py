"""Per-operator ONNX translations, attributes at their edges: ONNX Runtime against mxlite, and
the import of each exported graph back into mxlite."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx

from .cases import export_and_compare, import_and_compare

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

S = mx.sym
RNG = np.random.default_rng(0)


def r(*shape, low=-2.0, high=2.0, dtype=np.float32) -> np.ndarray:
    return RNG.uniform(low, high, shape).astype(dtype)


def x_(shape, **kw):
    return {"x": r(*shape, **kw)}


X = S.var("x")
Y = S.var("y")

# id -> (symbol, inputs, params)
CASES: dict[str, tuple] = {
    "conv2d": (S.Convolution(X, kernel=(3, 3), num_filter=4, stride=(2, 1), pad=(1, 2),
                             dilate=(1, 2), name="c"),
               x_((2, 3, 9, 8)), {"c_weight": r(4, 3, 3, 3), "c_bias": r(4)}),
    "conv1d_group_nobias": (S.Convolution(X, kernel=(3,), num_filter=4, num_group=2,
                                          no_bias=True, name="c"),
                            x_((2, 4, 7)), {"c_weight": r(4, 2, 3)}),
    "conv3d": (S.Convolution(X, kernel=(2, 2, 2), num_filter=2, name="c"), x_((1, 2, 4, 4, 4)),
               {"c_weight": r(2, 2, 2, 2, 2), "c_bias": r(2)}),
    "deconv_adj": (S.Deconvolution(X, kernel=(3, 3), num_filter=3, stride=(2, 2), pad=(1, 1),
                                   adj=(1, 1), name="d"),
                   x_((2, 2, 4, 5)), {"d_weight": r(2, 3, 3, 3)}),
    "deconv_target": (S.Deconvolution(X, kernel=(4, 4), num_filter=2, stride=(2, 2),
                                      target_shape=(9, 9), no_bias=False, num_group=2, name="d"),
                      x_((1, 4, 4, 4)), {"d_weight": r(4, 1, 4, 4), "d_bias": r(2)}),
    "fc_flatten": (S.FullyConnected(X, num_hidden=3, name="f"), x_((2, 2, 3, 2)),
                   {"f_weight": r(3, 12), "f_bias": r(3)}),
    "fc_noflatten": (S.FullyConnected(X, num_hidden=3, flatten=False, no_bias=True, name="f"),
                     x_((2, 4, 5)), {"f_weight": r(3, 5)}),
    "bn_fix_gamma": (S.BatchNorm(X, name="b"), x_((2, 3, 4, 4)),
                     {"b_gamma": r(3), "b_beta": r(3), "b_moving_mean": r(3),
                      "b_moving_var": r(3, low=0.5)}),
    "bn_axis_last": (S.BatchNorm(X, axis=-1, fix_gamma=False, eps=1e-3, name="b"),
                     x_((2, 4, 3)),
                     {"b_gamma": r(3), "b_beta": r(3), "b_moving_mean": r(3),
                      "b_moving_var": r(3, low=0.5)}),
    "bn_global": (S.BatchNorm(X, fix_gamma=False, use_global_stats=True, name="b"),
                  x_((2, 3, 5)),
                  {"b_gamma": r(3), "b_beta": r(3), "b_moving_mean": r(3),
                   "b_moving_var": r(3, low=0.5)}),
    "instance_norm": (S.InstanceNorm(X, name="n", eps=1e-3), x_((2, 3, 4, 4)),
                      {"n_gamma": r(3), "n_beta": r(3)}),
    "layer_norm": (S.LayerNorm(X, name="n"), x_((2, 3, 5)), {"n_gamma": r(5), "n_beta": r(5)}),
    "layer_norm_axis1": (S.LayerNorm(X, axis=1, name="n"), x_((2, 3, 5)),
                         {"n_gamma": r(3), "n_beta": r(3)}),
    "group_norm": (S.GroupNorm(X, num_groups=2, name="n"), x_((2, 4, 3, 3)),
                   {"n_gamma": r(2), "n_beta": r(2)}),
    "l2norm_instance": (S.L2Normalization(X), x_((2, 3, 4)), {}),
    "l2norm_channel": (S.L2Normalization(X, mode="channel"), x_((2, 3, 4)), {}),
    "l2norm_spatial": (S.L2Normalization(X, mode="spatial"), x_((2, 3, 4, 2)), {}),
    "lrn": (S.LRN(X, nsize=3, alpha=0.01, beta=0.6, knorm=1.5), x_((2, 5, 3, 3)), {}),
    "pool_max_full": (S.Pooling(X, kernel=(3, 3), stride=(2, 2), pooling_convention="full"),
                      x_((2, 2, 8, 8)), {}),
    "pool_avg_pad": (S.Pooling(X, kernel=(3, 3), stride=(2, 2), pad=(1, 1), pool_type="avg"),
                     x_((2, 2, 7, 7)), {}),
    "pool_avg_nopad_count": (S.Pooling(X, kernel=(3, 3), pad=(1, 1), pool_type="avg",
                                       count_include_pad=False), x_((2, 2, 5, 5)), {}),
    "pool_avg_full": (S.Pooling(X, kernel=(2, 2), stride=(2, 2), pool_type="avg",
                                pooling_convention="full"), x_((1, 2, 5, 5)), {}),
    "pool_sum": (S.Pooling(X, kernel=(2, 2), pool_type="sum"), x_((1, 2, 4, 4)), {}),
    "pool_lp": (S.Pooling(X, kernel=(2, 2), pool_type="lp", p_value=2), x_((1, 2, 4, 4)), {}),
    "pool_global_max": (S.Pooling(X, kernel=(1, 1), global_pool=True), x_((2, 3, 4, 5)), {}),
    "pool_global_avg": (S.Pooling(X, kernel=(1, 1), global_pool=True, pool_type="avg"),
                        x_((2, 3, 4, 5)), {}),
    "pool_global_sum": (S.Pooling(X, kernel=(1, 1), global_pool=True, pool_type="sum"),
                        x_((2, 3, 4, 5)), {}),
    "pool1d": (S.Pooling(X, kernel=(2,), stride=(2,)), x_((2, 3, 6)), {}),
    "pool3d_avg": (S.Pooling(X, kernel=(2, 2, 2), pool_type="avg"), x_((1, 2, 4, 4, 4)), {}),
    "upsampling_nearest": (S.UpSampling(X, scale=2, sample_type="nearest"), x_((1, 2, 3, 3)),
                           {}),
    "dropout_flatten": (S.Flatten(S.Dropout(X, p=0.7)), x_((2, 3, 2)), {}),
    "embedding": (S.Embedding(X, input_dim=6, output_dim=3, name="e"),
                  {"x": RNG.integers(0, 6, (2, 4)).astype(np.float32)}, {"e_weight": r(6, 3)}),
    "prelu": (S.LeakyReLU(X, act_type="prelu", name="p"), x_((2, 3, 4)), {"p_gamma": r(3)}),
    "softmax_output_4d": (S.SoftmaxOutput(X, name="softmax"), x_((2, 3, 2, 2)), {}),
    "softmax_output_multi": (S.SoftmaxOutput(X, multi_output=True, name="softmax"),
                             x_((2, 3, 4)), {}),
    "softmax_output_preserve": (S.SoftmaxOutput(X, preserve_shape=True, name="softmax"),
                                x_((2, 3, 4)), {}),
    "logistic_output": (S.LogisticRegressionOutput(X, name="lro"), x_((2, 3)), {}),
    "linear_output": (S.LinearRegressionOutput(S.relu(X), name="lin"), x_((2, 3)), {}),
    "softmax_temperature": (S.softmax(X, axis=1, temperature=2.5), x_((2, 3, 4)), {}),
    "log_softmax_axis0": (S.log_softmax(X, axis=0), x_((3, 4)), {}),
    "softmin": (S.softmin(X), x_((3, 4)), {}),
    "softmax_activation_channel": (S.SoftmaxActivation(X, mode="channel"), x_((2, 3, 4)), {}),
    "softmax_activation_instance": (S.SoftmaxActivation(X), x_((2, 5)), {}),
    "reshape_codes": (S.Reshape(X, shape=(0, -1)), x_((2, 3, 4)), {}),
    "reshape_minus2": (S.Reshape(X, shape=(-2,)), x_((2, 3, 4)), {}),
    "reshape_minus3": (S.Reshape(X, shape=(-3, -2)), x_((2, 3, 4)), {}),
    "reshape_minus4": (S.Reshape(X, shape=(0, -4, 2, -1, -2)), x_((2, 4, 3)), {}),
    "reshape_reverse": (S.Reshape(X, shape=(-1, 0), reverse=True), x_((2, 3, 4)), {}),
    "transpose": (S.transpose(X, axes=(1, 2, 0)), x_((2, 3, 4)), {}),
    "transpose_default": (S.transpose(X), x_((2, 3, 4)), {}),
    "swapaxis": (S.SwapAxis(X, dim1=0, dim2=2), x_((2, 3, 4)), {}),
    "expand_squeeze": (S.squeeze(S.expand_dims(X, axis=-1), axis=(1,)), x_((2, 1, 3)), {}),
    "squeeze_all_static": (S.squeeze(X), x_((2, 1, 3, 1)), {}),
    "concat_stack": (S.stack(S.Concat(X, Y, dim=2), S.Concat(Y, X, dim=2), axis=1),
                     {"x": r(2, 3, 2), "y": r(2, 3, 4)}, {}),
    "slice_channel": (S.Group(list(S.SliceChannel(X, num_outputs=3, axis=1))), x_((2, 6, 2)),
                      {}),
    "slice_channel_squeeze": (S.Group(list(S.SliceChannel(X, num_outputs=2, axis=2,
                                                          squeeze_axis=True))),
                              x_((2, 3, 2)), {}),
    "split_v2": (S.Group(list(S.split_v2(X, (1, 3), axis=1))), x_((2, 5, 2)), {}),
    "slice_steps": (S.slice(X, begin=(None, 2, -1), end=(None, None, 0), step=(1, 1, -2)),
                    x_((2, 4, 5)), {}),
    "slice_axis": (S.slice_axis(X, axis=-1, begin=1, end=None), x_((2, 4)), {}),
    "slice_like": (S.slice_like(X, Y, axes=(1,)), {"x": r(2, 5), "y": r(2, 3)}, {}),
    "reverse": (S.reverse(X, axis=1), x_((2, 3, 4)), {}),
    "tile": (S.tile(X, reps=(2, 1, 3)), x_((2, 3)), {}),
    "repeat_axis": (S.repeat(X, repeats=2, axis=1), x_((2, 3)), {}),
    "repeat_flat": (S.repeat(X, repeats=3), x_((2, 3)), {}),
    "pad_constant": (S.Pad(X, mode="constant", pad_width=(0, 0, 0, 0, 1, 2, 2, 1),
                           constant_value=0.5), x_((1, 2, 3, 3)), {}),
    "pad_edge": (S.Pad(X, mode="edge", pad_width=(0, 0, 0, 0, 1, 1, 2, 2)), x_((1, 2, 3, 3)),
                 {}),
    "pad_reflect": (S.Pad(X, mode="reflect", pad_width=(0, 0, 0, 0, 1, 1, 2, 2)),
                    x_((1, 2, 3, 3)), {}),
    "broadcast_to": (S.broadcast_to(X, shape=(0, 3, 4)), x_((2, 1, 4)), {}),
    "broadcast_axis": (S.broadcast_axis(X, axis=(1,), size=(3,)), x_((2, 1, 4)), {}),
    "broadcast_like": (S.broadcast_like(X, Y), {"x": r(1, 3), "y": r(2, 3)}, {}),
    "depth_to_space": (S.depth_to_space(X, block_size=2), x_((1, 8, 2, 3)), {}),
    "space_to_depth": (S.space_to_depth(X, block_size=2), x_((1, 2, 4, 6)), {}),
    "take_clip": (S.take(X, Y, axis=1), {"x": r(2, 4), "y": np.array([[-1, 2], [5, 0]],
                                                                       np.float32)}, {}),
    "take_wrap": (S.take(X, Y, axis=0, mode="wrap"), {"x": r(3, 2), "y": np.array([-1, 4.0],
                                                                                   np.float32)},
                  {}),
    "pick": (S.pick(X, Y, axis=1), {"x": r(3, 4), "y": np.array([0, 3, 1], np.float32)}, {}),
    "pick_keepdims": (S.pick(X, Y, axis=0, keepdims=True),
                      {"x": r(3, 4), "y": np.array([0, 2, 1, 1], np.float32)}, {}),
    "where": (S.where(S.var("c"), X, Y),
              {"c": np.array([[1, 0], [0, 1]], np.float32), "x": r(2, 2), "y": r(2, 2)}, {}),
    "where_rows": (S.where(S.var("c"), X, Y),
                   {"c": np.array([1, 0], np.float32), "x": r(2, 3), "y": r(2, 3)}, {}),
    "one_hot": (S.one_hot(X, depth=4, on_value=2.0, off_value=-1.0),
                {"x": np.array([0, 3, 1], np.float32)}, {}),
    "topk_both": (S.Group(list(S.topk(X, k=2, ret_typ="both"))), x_((2, 5)), {}),
    "topk_value_ascend": (S.topk(X, k=3, axis=0, ret_typ="value", is_ascend=True),
                          x_((4, 2)), {}),
    "topk_indices": (S.topk(X, k=2), x_((2, 5)), {}),
    "sort": (S.sort(X, axis=1, is_ascend=False), x_((2, 5)), {}),
    "argsort": (S.argsort(X, axis=0), x_((4, 3)), {}),
    "zeros_ones_like": (S.zeros_like(X) + S.ones_like(X) * X, x_((2, 3)), {}),
    "shape_size": (S.Group([S.shape_array(X), S.size_array(X)]), x_((2, 3)), {}),
    "creation": (X + S.zeros((2, 3)) + S.ones((2, 3)) + S.full((2, 3), 2.5), x_((2, 3)), {}),
    "arange": (S.broadcast_add(X, S.arange(0, 3)), x_((2, 3)), {}),
    "clip_cast": (S.Cast(S.clip(X, a_min=-0.5, a_max=1.0), dtype="float64"), x_((2, 3)), {}),
    "add_n": (S.add_n(X, Y, X), {"x": r(2, 3), "y": r(2, 3)}, {}),
    "smooth_l1": (S.smooth_l1(X, scalar=2.0), x_((3, 4)), {}),
    "hard_sigmoid": (S.hard_sigmoid(X, alpha=0.3, beta=0.4), x_((3, 4)), {}),
    "dot_2d_t": (S.dot(X, Y, transpose_a=True, transpose_b=True),
                 {"x": r(3, 2), "y": r(4, 3)}, {}),
    "dot_nd_2d": (S.dot(X, Y), {"x": r(2, 3, 4), "y": r(4, 5)}, {}),
    "dot_nd_nd": (S.dot(X, Y), {"x": r(2, 3), "y": r(3, 4, 2)}, {}),
    "dot_1d": (S.dot(X, Y), {"x": r(3), "y": r(3)}, {}),
    "batch_dot_t": (S.batch_dot(X, Y, transpose_a=True, transpose_b=True),
                    {"x": r(2, 3, 4), "y": r(2, 5, 3)}, {}),
    "argmax_argmin": (S.Group([S.argmax(X, axis=1), S.argmin(X, axis=0, keepdims=True),
                               S.argmax(X), S.argmax_channel(X)]), x_((3, 4)), {}),
    "norm": (S.Group([S.norm(X), S.norm(X, ord=1, axis=1, keepdims=True)]), x_((3, 4)), {}),
    "nansum_nanprod": (S.Group([S.nansum(X, axis=0), S.nanprod(X, axis=1)]),
                       {"x": np.array([[1, np.nan, 2], [np.nan, 3, 0.5]], np.float32)}, {}),
}  # fmt: skip

CASES.update({
    "linalg_gemm": (S.linalg.gemm(X, Y, S.var("z"), transpose_a=True, alpha=0.5, beta=2.0),
                    {"x": r(2, 3, 4), "y": r(2, 3, 5), "z": r(2, 4, 5)}, {}),
    "linalg_gemm2_syrk": (S.Group([S.linalg.gemm2(X, Y, transpose_b=True, alpha=1.5),
                                   S.linalg.syrk(X, transpose=True, alpha=0.5)]),
                          {"x": r(2, 3, 4), "y": r(2, 5, 4)}, {}),
    "moments": (S.Group(list(S.moments(X, axes=(0, 2)))), x_((2, 3, 4)), {}),
    "cumsum": (S.Group([S.np.cumsum(X, axis=1), S.np.cumsum(X)]) if hasattr(S, "np")
               else S._internal._np_cumsum(X, axis=1), x_((2, 3)), {}),
    "gather_nd": (S.gather_nd(X, Y), {"x": r(3, 4, 2),
                                      "y": np.array([[0, 2, 1], [3, 0, 3]], np.float32)}, {}),
    "scatter_nd": (S.scatter_nd(X, Y, shape=(3, 4)),
                   {"x": r(3), "y": np.array([[0, 2, 1], [3, 0, 2]], np.float32)}, {}),
    "batch_take": (S.batch_take(X, Y), {"x": r(3, 4), "y": np.array([0, 3, 9], np.int32)},
                   {}),
})  # fmt: skip

CASES.update({
    "upsampling_bilinear": (S.UpSampling(X, S.var("w"), scale=2, sample_type="bilinear",
                                         num_filter=2, num_args=1), x_((1, 2, 3, 3)),
                            {"w": r(2, 1, 4, 4)}),
    "roi_pooling": (S.ROIPooling(X, Y, pooled_size=(2, 2), spatial_scale=0.5),
                    {"x": r(1, 2, 8, 8), "y": np.array([[0, 1, 1, 9, 7], [0, 0, 2, 5, 14]],
                                                        np.float32)}, {}),
    "crop_center": (S.Crop(X, h_w=(3, 2), center_crop=True, num_args=1), x_((1, 2, 6, 5)), {}),
    "crop_like": (S.Crop(X, Y, offset=(1, 2), num_args=2), {"x": r(1, 2, 6, 5),
                                                           "y": r(1, 1, 3, 2)}, {}),
    "arange_like": (S.Group([S.contrib.arange_like(X, start=1.5, step=0.5),
                             S.contrib.arange_like(X, axis=1)]), x_((2, 3)), {}),
    "sequence_ops": (S.Group([S.SequenceReverse(X), S.SequenceLast(X), S.SequenceMask(X)]),
                     x_((3, 2, 4)), {}),
})  # fmt: skip

REDUCE = ["sum", "mean", "max", "min", "prod"]
for _name in REDUCE:
    _fn = getattr(S, _name)
    CASES[f"reduce_{_name}"] = (
        S.Group([_fn(X), _fn(X, axis=1), _fn(X, axis=(0, 2), keepdims=True),
                 _fn(X, axis=1, exclude=True)]),
        x_((2, 3, 4), low=0.5, high=1.5), {},
    )  # fmt: skip

UNARY = {
    "abs": None, "negative": None, "exp": None, "sqrt": (0.1, 4), "reciprocal": (0.5, 2),
    "log": (0.1, 4), "sin": None, "cos": None, "tan": (-1, 1), "arcsin": (-0.9, 0.9),
    "arccos": (-0.9, 0.9), "arctan": None, "sinh": None, "cosh": None, "tanh": None,
    "arcsinh": None, "arccosh": (1.1, 3), "arctanh": (-0.9, 0.9), "sigmoid": None,
    "relu": None, "floor": None, "ceil": None, "rint": None, "round": None, "sign": None,
    "erf": None, "softsign": None, "square": None, "rsqrt": (0.1, 4), "trunc": None,
    "fix": None, "log1p": (-0.5, 2), "expm1": None, "log2": (0.1, 4), "log10": (0.1, 4),
    "cbrt": None, "rcbrt": (0.5, 2), "degrees": None, "radians": None, "logical_not": None,
}  # fmt: skip
for _name, _range in UNARY.items():
    lo, hi = _range or (-2.0, 2.0)
    _x = r(3, 4, low=lo, high=hi)
    if _name in ("round", "rint", "trunc", "fix", "floor", "ceil", "logical_not"):
        _x = np.array([[-2.5, -1.5, -0.5, 0.0], [0.5, 1.5, 2.5, 0.3], [-0.7, 1.0, 3.7, -3.2]],
                      np.float32)  # fmt: skip
    CASES[f"unary_{_name}"] = (getattr(S, _name)(X), {"x": _x}, {})

for _act in ("relu", "sigmoid", "tanh", "softrelu", "softsign"):
    CASES[f"act_{_act}"] = (S.Activation(X, act_type=_act), x_((2, 3)), {})
for _act in ("leaky", "elu", "selu", "gelu", "rrelu"):
    CASES[f"leaky_{_act}"] = (S.LeakyReLU(X, act_type=_act, slope=0.2)[0], x_((2, 3)), {})

BINARY = ["add", "sub", "mul", "div", "power", "maximum", "minimum", "mod", "hypot", "equal",
          "not_equal", "greater", "greater_equal", "lesser", "lesser_equal", "logical_and",
          "logical_or", "logical_xor"]  # fmt: skip
for _name in BINARY:
    _x, _y = r(2, 3, low=0.5, high=3), r(1, 3, low=0.5, high=3)
    if _name == "mod":
        _x, _y = r(2, 3, low=-5, high=5), np.array([[1.5, -2.0, 3.0]], np.float32)
    if _name in ("equal", "not_equal", "greater_equal", "lesser_equal") or "logical" in _name:
        _x, _y = np.round(_x), np.round(_y)
    CASES[f"broadcast_{_name}"] = (getattr(S, f"broadcast_{_name}")(X, Y), {"x": _x, "y": _y}, {})
CASES["elemwise"] = (
    S.elemwise_div(S.elemwise_mul(S.elemwise_sub(S.elemwise_add(X, Y), Y), Y), Y + 3),
    {"x": r(2, 3), "y": r(2, 3, low=0.5)}, {},
)  # fmt: skip
CASES["scalars"] = (
    S.Group([X + 1, X - 2, 2 - X, X * 3, X / 4, 4 / X, X**2, 2**X, X % 1.5, 3 % X,
             S.maximum(X, 0.5), S.minimum(X, 0.5), X > 1, X >= 1, X < 1, X <= 1, X == 1,
             X != 1]),
    {"x": np.array([[0.5, 1.0, 2.0], [3.0, 1.5, 0.75]], np.float32)}, {},
)  # fmt: skip


def rnn_case(mode: str, layers: int, bidir: bool, state_outputs: bool) -> tuple:
    T, N, C, H = 4, 2, 3, 5
    D = 2 if bidir else 1
    g = {"lstm": 4, "gru": 3}.get(mode, 1)
    size = 0
    for layer in range(layers):
        size += D * (g * H * (C if layer == 0 else D * H) + g * H * H + 2 * g * H)
    inputs = [X, S.var("p"), S.var("h")] + ([S.var("cell")] if mode == "lstm" else [])
    out = S.RNN(*inputs, state_size=H, num_layers=layers, bidirectional=bidir, mode=mode,
                state_outputs=state_outputs, name="rnn")  # fmt: skip
    sym = S.Group(list(out)) if state_outputs else out
    feeds = {"x": r(T, N, C), "h": r(layers * D, N, H)}
    if mode == "lstm":
        feeds["cell"] = r(layers * D, N, H)
    return sym, feeds, {"p": r(size, low=-0.5, high=0.5)}


CASES["rnn_lstm_bidir_2layers_states"] = rnn_case("lstm", 2, True, True)
CASES["rnn_gru"] = rnn_case("gru", 1, False, False)
CASES["rnn_gru_bidir_states"] = rnn_case("gru", 1, True, True)
CASES["rnn_tanh_2layers"] = rnn_case("rnn_tanh", 2, False, False)
CASES["rnn_relu_bidir"] = rnn_case("rnn_relu", 1, True, True)

# exported with a dynamic batch and run at another batch as well
DYNAMIC = {
    "reshape_codes", "reshape_minus4", "reshape_reverse", "softmax_output_4d", "fc_flatten",
    "bn_axis_last", "group_norm", "squeeze_all_static", "broadcast_to", "repeat_axis",
    "zeros_ones_like", "pool_max_full", "embedding", "tile", "conv2d",
}  # fmt: skip
# not imported back: their exported graphs compute a shape (Shape, Range) that mxlite's
# operators take as a parameter
NO_IMPORT = {"slice_like", "arange_like"}


def other_batch(feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {k: np.concatenate([v, v[:1] * 0.5]) for k, v in feeds.items()}


OPSET: dict[str, int] = {}


@pytest.mark.parametrize("case", sorted(CASES))
def test_translation(case: str, tmp_path) -> None:
    sym, feeds, params = CASES[case]
    dynamic = case in DYNAMIC
    path = export_and_compare(
        sym, feeds, params, str(tmp_path / "m.onnx"), dynamic_batch=dynamic,
        other_batch=other_batch(feeds) if dynamic else None, opset=OPSET.get(case),
    )  # fmt: skip
    if case not in NO_IMPORT:
        import_and_compare(path, feeds)


OPSET_SENSITIVE = ["reduce_mean", "reduce_max", "norm", "slice_channel", "split_v2",
                   "expand_squeeze", "pad_constant", "upsampling_nearest", "bn_fix_gamma",
                   "rnn_lstm_bidir_2layers_states", "argmax_argmin", "layer_norm"]  # fmt: skip


@pytest.mark.parametrize("opset", [13, 17, 18])
@pytest.mark.parametrize("case", OPSET_SENSITIVE)
def test_translation_older_opsets(case: str, opset: int, tmp_path) -> None:
    sym, feeds, params = CASES[case]
    model = export_and_compare(sym, feeds, params, str(tmp_path / "m.onnx"), opset=opset)
    import onnx

    assert onnx.load(model).opset_import[0].version == opset
