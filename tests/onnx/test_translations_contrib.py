"""ONNX translations of the contrib, AMP and storage operators (mxlite/onnx/translations/
contrib.py and detection.py), attributes at their edges: ONNX Runtime against mxlite, and the
import of each exported graph back into mxlite where mxlite's importer reads every node."""

from __future__ import annotations

import numpy as np
import pytest

import mxlite as mx

from .cases import export_and_compare, import_and_compare

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

S = mx.sym
C = mx.sym.contrib
RNG = np.random.default_rng(1)
X, Y = S.var("x"), S.var("y")


def r(*shape, low=-2.0, high=2.0, dtype=np.float32) -> np.ndarray:
    return RNG.uniform(low, high, shape).astype(dtype)


def dets(b: int, n: int, classes: int = 3) -> np.ndarray:
    """Detections (b, n, 6): class id, score, corner box; some overlapping, some tied."""
    xy = RNG.uniform(0, 8, (b, n, 2))
    wh = RNG.uniform(1, 4, (b, n, 2))
    cls = RNG.integers(0, classes, (b, n, 1))
    score = np.round(RNG.uniform(0, 1, (b, n, 1)), 1)  # ties on purpose
    return np.concatenate([cls, score, xy, xy + wh], -1).astype(np.float32)


BN = {"b_gamma": r(3), "b_beta": r(3), "b_moving_mean": r(3), "b_moving_var": r(3, low=0.5)}
ROIS = np.array([[0, 1, 1, 6, 5], [1, 0, 2, 3.5, 7], [-1, 0, 0, 4, 4], [0, 2, 2, 2.5, 2.2]],
                np.float32)  # fmt: skip
QKV = r(4, 2, 12)

# id -> (symbol, inputs, params)
CASES: dict[str, tuple] = {
    "amp_cast": (S.amp_cast(X, dtype="float16"), {"x": r(2, 3)}, {}),
    "amp_cast_int_untouched": (S.amp_cast(X, dtype="float16"),
                               {"x": np.array([1, 2], np.int32)}, {}),
    "amp_multicast": (S.Group(list(S.amp_multicast(X, Y, num_outputs=2))),
                      {"x": r(2, 3).astype(np.float16), "y": r(2, 3)}, {}),
    "amp_multicast_narrow": (S.Group(list(S.amp_multicast(X, Y, num_outputs=2,
                                                          cast_narrow=True))),
                             {"x": r(2, 3).astype(np.float16), "y": r(2, 3)}, {}),
    "cast_storage": (S.cast_storage(X, stype="default") * 2, {"x": r(2, 3)}, {}),
    "sync_batch_norm": (C.SyncBatchNorm(X, name="b", key="k"), {"x": r(2, 3, 4)}, BN),
    "batch_norm_v1": (S.BatchNorm_v1(X, fix_gamma=False, eps=1e-3, name="b"),
                      {"x": r(2, 3, 2, 2)}, BN),
    "ste_and_multiplier": (S.Group([C.round_ste(X), C.sign_ste(X),
                                    C.gradientmultiplier(X, scalar=-1.0)]),
                           {"x": np.array([[-2.5, -0.5, 0.0], [0.5, 1.5, np.nan]], np.float32)},
                           {}),
    "div_sqrt_dim": (C.div_sqrt_dim(X), {"x": r(2, 3, 5)}, {}),
    "quadratic": (C.quadratic(X, a=1.5, b=-0.5, c=2.0), {"x": r(2, 3)}, {}),
    "sparse_embedding": (C.SparseEmbedding(X, input_dim=5, output_dim=2, name="e"),
                         {"x": np.array([[0, 4], [2, 2]], np.float32)}, {"e_weight": r(5, 2)}),
    "square_sum": (S.Group([S._internal._square_sum(X, axis=1),
                            S._internal._square_sum(X, axis=0, keepdims=True)]),
                   {"x": r(3, 4)}, {}),
    "scatter_forms": (S.Group([S._internal._scatter_elemwise_div(X, Y),
                               S._internal._scatter_plus_scalar(X, scalar=1.5),
                               S._internal._scatter_minus_scalar(X, scalar=0.5)]),
                      {"x": r(2, 3), "y": r(2, 3, low=0.5)}, {}),
    "index_copy": (C.index_copy(X, S.var("i"), Y),
                   {"x": r(5, 3), "i": np.array([4, 0], np.int64), "y": r(2, 3)}, {}),
    "quantize_dequantize_uint8": (
        S.Group([C.dequantize(*C.quantize(X, S.var("lo"), S.var("hi"), out_type="uint8"))]),
        {"x": r(3, 4, low=-1, high=3), "lo": np.array([-1], np.float32),
         "hi": np.array([3], np.float32)}, {}),
    "quantize_int8": (S.Group(list(C.quantize(X, S.var("lo"), S.var("hi"), out_type="int8"))),
                      {"x": r(3, 4, low=-3, high=2), "lo": np.array([-3], np.float32),
                       "hi": np.array([2], np.float32)}, {}),
    "box_iou_corner": (C.box_iou(X, Y), {"x": np.array([[0, 0, 2, 2], [1, 1, 3, 3],
                                                        [2, 2, 1, 1]], np.float32),
                                         "y": r(2, 2, 4, low=0, high=3)}, {}),
    "box_iou_center": (C.box_iou(X, Y, format="center"), {"x": r(3, 4, low=0.5, high=3),
                                                          "y": r(2, 4, low=0.5, high=3)}, {}),
    "box_decode_center": (C.box_decode(X, Y, std0=0.1, std1=0.1, std2=0.2, std3=0.2),
                          {"x": r(2, 3, 4, low=-1, high=1), "y": r(1, 4, 4, low=1, high=3)}, {}),
    "box_decode_corner_clip": (C.box_decode(X, Y, clip=0.5, format="corner"),
                               {"x": r(2, 3, 4, low=-1, high=1),
                                "y": np.sort(r(1, 3, 4, low=0, high=4), -1)}, {}),
    "roi_align": (C.ROIAlign(X, Y, pooled_size=(2, 3), spatial_scale=0.5),
                  {"x": r(2, 2, 6, 7), "y": ROIS}, {}),
    "roi_align_aligned_ratio": (C.ROIAlign(X, Y, pooled_size=(3, 2), spatial_scale=1.0,
                                           sample_ratio=2, aligned=True),
                                {"x": r(2, 2, 6, 7), "y": ROIS}, {}),
    "bilinear_resize": (C.BilinearResize2D(X, height=5, width=7), {"x": r(1, 2, 3, 4)}, {}),
    "bilinear_resize_down_to_1": (C.BilinearResize2D(X, height=1, width=3),
                                  {"x": r(1, 2, 4, 6)}, {}),
    "bilinear_resize_align": (C.BilinearResize2D(X, height=6, width=2, align_corners=True),
                              {"x": r(2, 1, 3, 5)}, {}),
    "bilinear_resize_like": (C.BilinearResize2D(X, Y, mode="like"),
                             {"x": r(1, 2, 3, 4), "y": r(1, 1, 5, 2)}, {}),
    "bilinear_resize_scale": (C.BilinearResize2D(X, scale_height=2.0, scale_width=0.5),
                              {"x": r(1, 2, 3, 4)}, {}),
    "adaptive_pool_global": (C.AdaptiveAvgPooling2D(X), {"x": r(2, 3, 5, 4)}, {}),
    "adaptive_pool_even": (C.AdaptiveAvgPooling2D(X, output_size=(2, 3)),
                           {"x": r(2, 3, 4, 6)}, {}),
    "adaptive_pool_uneven": (C.AdaptiveAvgPooling2D(X, output_size=(3, 4)),
                             {"x": r(2, 3, 5, 7)}, {}),
    "multibox_prior": (C.MultiBoxPrior(X, sizes=(0.5, 0.25), ratios=(1, 2, 0.5), clip=True),
                       {"x": r(2, 3, 4, 5)}, {}),
    "selfatt": (S.Group([C.interleaved_matmul_selfatt_qk(X, heads=2),
                         C.interleaved_matmul_selfatt_valatt(X, Y, heads=2)]),
                {"x": QKV, "y": r(4, 4, 4)}, {}),
    "encdec": (S.Group([C.interleaved_matmul_encdec_qk(X, Y, heads=2),
                        C.interleaved_matmul_encdec_valatt(Y, S.var("a"), heads=2)]),
               {"x": r(3, 2, 4), "y": r(5, 2, 8), "a": r(4, 3, 5)}, {}),
    "all_finite": (S.Group([S.all_finite(X), S.multi_all_finite(X, Y, num_arrays=2)]),
                   {"x": r(2, 3), "y": np.array([1, np.inf, 2], np.float32)}, {}),
    "allclose": (S.Group([C.allclose(X, Y, rtol=0.1, atol=0.01),
                          C.allclose(X, Y, equal_nan=False)]),
                 {"x": np.array([1, np.nan, 2.05], np.float32),
                  "y": np.array([1.05, np.nan, 2], np.float32)}, {}),
    "index_array": (S.Group([C.index_array(X), C.index_array(X, axes=(-1, 0))]),
                    {"x": r(2, 3, 4)}, {}),
    "modulated_deformable_conv": (
        C.ModulatedDeformableConvolution(X, S.var("off"), S.var("m"), kernel=(3, 2), stride=(2, 1),
                                         pad=(1, 1), dilate=(1, 2), num_filter=4, num_group=2,
                                         num_deformable_group=2, name="dc"),
        {"x": r(2, 4, 7, 8), "off": r(2, 24, 4, 8), "m": r(2, 12, 4, 8, low=0, high=1)},
        {"dc_weight": r(4, 2, 3, 2), "dc_bias": r(4)}),
    "box_nms_default": (C.box_nms(X), {"x": dets(2, 12)}, {}),
    "box_nms_class_aware": (C.box_nms(X, id_index=0, overlap_thresh=0.3, valid_thresh=0.15,
                                      topk=6, background_id=2), {"x": dets(2, 16)}, {}),
    "box_nms_force_center_out": (C.box_nms(X, id_index=0, force_suppress=True, topk=50,
                                           out_format="center"), {"x": dets(1, 10)}, {}),
    "box_nms_center_in_4d": (C.box_nms(X, coord_start=0, score_index=4, in_format="center",
                                       overlap_thresh=0.1),
                             {"x": np.abs(r(2, 2, 7, 5, low=0.5, high=6))}, {}),
    "box_nms_topk0": (C.box_nms(X, topk=0, out_format="center"), {"x": dets(1, 4)}, {}),
}  # fmt: skip

DYNAMIC = {"box_nms_default", "box_nms_class_aware", "roi_align", "bilinear_resize",
           "adaptive_pool_uneven", "sync_batch_norm", "amp_multicast",
           "index_array"}  # fmt: skip
# exported graphs whose nodes mxlite's importer does not read back (ONNX operators with no
# mxlite counterpart: NonMaxSuppression, RoiAlign, ScatterND, Resize's linear modes ...)
IMPORT = set(CASES) - {"adaptive_pool_uneven", "index_copy", "all_finite", "index_array",
                          "modulated_deformable_conv"} - {
    c for c in CASES if c.startswith("box_nms") and c != "box_nms_topk0"}  # fmt: skip


def other_batch(feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {k: np.concatenate([v, v[:1]]) if v.ndim > 1 else v for k, v in feeds.items()}


@pytest.mark.parametrize("case", sorted(CASES))
def test_translation(case: str, tmp_path) -> None:
    sym, feeds, params = CASES[case]
    dynamic = case in DYNAMIC
    path = export_and_compare(
        sym, feeds, params, str(tmp_path / "m.onnx"), dynamic_batch=dynamic,
        other_batch=other_batch(feeds) if dynamic else None,
    )  # fmt: skip
    if case in IMPORT:
        import_and_compare(path, feeds)


def test_operator_support_knows_the_opset_an_operator_needs() -> None:
    assert "_contrib_ModulatedDeformableConvolution" in mx.onnx.get_operator_support(19)
    assert "_contrib_ModulatedDeformableConvolution" not in mx.onnx.get_operator_support(18)
    assert "_contrib_box_nms" in mx.onnx.get_operator_support(13)


def test_unexpressible_attributes_are_named(tmp_path) -> None:
    out = str(tmp_path / "m.onnx")
    ps = C.ROIAlign(X, Y, pooled_size=(2, 2), spatial_scale=1.0, position_sensitive=True,
                    name="psroi")  # fmt: skip
    with pytest.raises(mx.MXNetError, match="psroi.*ROIAlign.*position_sensitive=True"):
        mx.onnx.export_model(ps, {}, [(1, 8, 4, 4), (1, 5)], onnx_file_path=out)
    al = C.ROIAlign(X, Y, pooled_size=(2, 2), spatial_scale=1.0, aligned=True, name="al")
    with pytest.raises(mx.MXNetError, match="al.*aligned=True.*opset 16"):
        mx.onnx.export_model(al, {}, [(1, 2, 4, 4), (1, 5)], onnx_file_path=out,
                             opset_version=15)  # fmt: skip
    acc = S.all_finite(X, init_output=False, name="acc")
    with pytest.raises(mx.MXNetError, match="acc.*init_output=False"):
        mx.onnx.export_model(acc, {}, [(2,)], onnx_file_path=out)
    dc = C.ModulatedDeformableConvolution(X, Y, S.var("m"), kernel=(1, 1), num_filter=1,
                                          no_bias=True, name="dcn")  # fmt: skip
    with pytest.raises(mx.MXNetError, match="dcn.*opset_version=18.*opset 19"):
        mx.onnx.export_model(dc, {"dcn_weight": np.ones((1, 1, 1, 1), np.float32)},
                             [(1, 1, 2, 2), (1, 2, 2, 2), (1, 1, 2, 2)], onnx_file_path=out,
                             opset_version=18)  # fmt: skip
    cs = C.count_sketch(X, Y, S.var("s"), out_dim=4, name="cs")
    with pytest.raises(mx.MXNetError, match="cs.*_contrib_count_sketch.*not exported"):
        mx.onnx.export_model(cs, {}, [(2, 3), (1, 3), (1, 3)], onnx_file_path=out)


def test_import_roi_align_and_linear_resize_from_other_tools(tmp_path) -> None:
    import onnx
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2, 6, 7])
    rois = helper.make_tensor_value_info("rois", TensorProto.FLOAT, [3, 4])
    idx = helper.make_tensor_value_info("idx", TensorProto.INT64, [3])
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in ("a", "b")]
    nodes = [
        helper.make_node("RoiAlign", ["x", "rois", "idx"], ["a"], output_height=2,
                         output_width=3, sampling_ratio=2, spatial_scale=0.5),
        helper.make_node("Resize", ["x", "", "", "sizes"], ["b"], mode="linear",
                         coordinate_transformation_mode="half_pixel"),
    ]  # fmt: skip
    sizes = helper.make_tensor("sizes", TensorProto.INT64, [4], [2, 2, 9, 4])
    for opset in (13, 16):  # RoiAlign without and with its half-pixel shift
        graph = helper.make_graph(nodes, "g", [x, rois, idx], outs, [sizes])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        path = str(tmp_path / f"m{opset}.onnx")
        onnx.save(model, path)
        feeds = {
            "x": r(2, 2, 6, 7),
            "idx": np.array([0, 1, 1], np.int64),
            "rois": np.array([[1, 1, 6, 5], [0, 2, 3.5, 7], [2, 2, 2.5, 2.2]], np.float32),
        }
        import_and_compare(path, feeds)


def test_detection_head_exports_end_to_end(tmp_path) -> None:
    # an SSD-style head: anchors, decoded boxes, class scores, class-aware suppression
    feat = S.Convolution(X, kernel=(3, 3), pad=(1, 1), num_filter=4, name="feat")
    anchors = C.MultiBoxPrior(feat, sizes=(0.3, 0.6), ratios=(1, 2), clip=True)
    loc = S.Convolution(feat, kernel=(1, 1), num_filter=12, name="loc")
    loc = S.Reshape(S.transpose(loc, axes=(0, 2, 3, 1)), shape=(0, -1, 4))
    cls = S.Convolution(feat, kernel=(1, 1), num_filter=9, name="cls")
    cls = S.softmax(S.Reshape(S.transpose(cls, axes=(0, 2, 3, 1)), shape=(0, -1, 3)), axis=-1)
    boxes = C.box_decode(loc, anchors, std0=0.1, std1=0.1, std2=0.2, std3=0.2, format="corner")
    det = S.Concat(S.argmax(cls, axis=-1, keepdims=True), S.max(cls, axis=-1, keepdims=True),
                   boxes, dim=-1)  # fmt: skip
    sym = C.box_nms(det, id_index=0, valid_thresh=0.34, topk=40, overlap_thresh=0.45)
    params = {"feat_weight": r(4, 3, 3, 3, low=-0.5, high=0.5), "feat_bias": r(4),
              "loc_weight": r(12, 4, 1, 1, low=-0.3, high=0.3), "loc_bias": r(12),
              "cls_weight": r(9, 4, 1, 1), "cls_bias": r(9)}  # fmt: skip
    feeds = {"x": r(2, 3, 6, 6)}
    export_and_compare(sym, feeds, params, str(tmp_path / "ssd.onnx"), dynamic_batch=True,
                       other_batch=other_batch(feeds))  # fmt: skip


@pytest.mark.parametrize("opset", [13, 18])
@pytest.mark.parametrize(
    "case", ["box_nms_class_aware", "roi_align", "bilinear_resize", "all_finite", "square_sum"]
)
def test_translation_older_opsets(case: str, opset: int, tmp_path) -> None:
    sym, feeds, params = CASES[case]
    export_and_compare(sym, feeds, params, str(tmp_path / "m.onnx"), opset=opset)
