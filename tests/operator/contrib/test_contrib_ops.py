"""Contrib operators without MXNet CPU golden values (count_sketch, the modulated deformable
convolution and group_adagrad_update exist only for GPU or sparse arrays in MXNet 1.9.1),
finite-difference gradients, and bad input."""

import numpy as np
import pytest

import mxlite as mx
from mxlite.base import MXNetError, ShapeError
from tests.operator.opcheck import backward, forward, numeric_grad


def test_count_sketch_matches_numpy():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(3, 5)).astype(np.float32)
    h = np.array([[0, 2, 2, 1, 3]], dtype=np.float32)
    s = np.array([[1, -1, 1, 1, -1]], dtype=np.float32)
    (out,) = forward("_contrib_count_sketch", [x, h, s], out_dim=4)
    want = np.zeros((3, 4), np.float32)
    for i in range(5):
        want[:, int(h[0, i])] += s[0, i] * x[:, i]
    np.testing.assert_allclose(out, want, rtol=1e-6)
    dx = backward("_contrib_count_sketch", [x, h, s], [np.ones((3, 4), np.float32)], out_dim=4)
    np.testing.assert_allclose(dx[0], np.tile(s, (3, 1)))


@pytest.mark.parametrize("dg", [1, 2])
def test_modulated_deformable_convolution_gradients(dg):
    rng = np.random.default_rng(dg)
    ins = [
        rng.normal(size=(1, 4, 4, 5)),
        rng.uniform(-1.2, 1.2, size=(1, 2 * dg * 9, 4, 5)),
        rng.uniform(0.2, 1.0, size=(1, dg * 9, 4, 5)),
        rng.normal(size=(2, 4, 3, 3)),
        rng.normal(size=(2,)),
    ]
    params = dict(kernel=(3, 3), pad=(1, 1), num_filter=2, num_deformable_group=dg)
    name = "_contrib_ModulatedDeformableConvolution"
    head = [rng.normal(size=(1, 2, 4, 5))]
    got = backward(name, ins, head, **params)
    want = numeric_grad(name, ins, head, eps=1e-6, **params)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-6)


def test_modulated_with_unit_mask_is_deformable_inside_the_map():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(1, 2, 7, 7))
    off = rng.uniform(-0.4, 0.4, size=(1, 18, 5, 5))
    w = rng.normal(size=(3, 2, 3, 3))
    params = dict(kernel=(3, 3), num_filter=3, no_bias=True)
    (mod,) = forward("_contrib_ModulatedDeformableConvolution",
                     [x, off, np.ones((1, 9, 5, 5)), w], **params)  # fmt: skip
    (dcn,) = forward("_contrib_DeformableConvolution", [x, off, w], **params)
    # away from the border (where DCN v1 clamps and v2 pads with zeros) the two agree
    np.testing.assert_allclose(mod[..., 1:4, 1:4], dcn[..., 1:4, 1:4], rtol=1e-12)


def test_group_adagrad_update_and_optimizer():
    rng = np.random.default_rng(1)
    w = rng.normal(size=(3, 4)).astype(np.float32)
    g = rng.normal(size=(3, 4)).astype(np.float32)
    hist = np.full((3, 1), 0.5, np.float32)
    out = mx.nd.array(w)
    h = mx.nd.array(hist)
    mx.nd.contrib.group_adagrad_update(out, mx.nd.array(g), h, out=out, lr=0.1, epsilon=1e-5)
    new_hist = hist + (g * g).mean(axis=1, keepdims=True)
    np.testing.assert_allclose(h.asnumpy(), new_hist, rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy(), w - 0.1 * g / np.sqrt(new_hist + 1e-5), rtol=1e-5)
    opt = mx.optimizer.create("groupadagrad", learning_rate=0.1)
    weight = mx.nd.array(w)
    state = opt.create_state(0, weight)
    opt.update(0, weight, mx.nd.array(g), state)
    expect = w - 0.1 * g / np.sqrt((g * g).mean(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(weight.asnumpy(), expect, rtol=1e-5)
    with pytest.raises(MXNetError, match="weight decay"):
        mx.optimizer.create("groupadagrad", wd=0.1).update(0, weight, mx.nd.array(g), state)


def test_adamw_skips_non_finite_rescale():
    w = mx.nd.ones((2, 2))
    m, v = mx.nd.zeros((2, 2)), mx.nd.zeros((2, 2))
    for scale in (0.0, float("nan"), float("inf")):
        mx.nd.contrib.adamw_update(w, mx.nd.ones((2, 2)), m, v, scale, out=w, lr=0.1, eta=1.0)
        assert (w.asnumpy() == 1).all() and (m.asnumpy() == 0).all()


def test_box_nms_writes_minus_one_for_no_valid_box():
    data = mx.nd.array([[0, 0.1, 0, 0, 1, 1]])
    out = mx.nd.contrib.box_nms(data, valid_thresh=0.5)
    assert (out.asnumpy() == -1).all()


def test_bad_input_names_operator_and_argument():
    with pytest.raises(ShapeError, match="box_iou.*lhs"):
        mx.nd.contrib.box_iou(mx.nd.ones((3, 5)), mx.nd.ones((2, 4)))
    with pytest.raises(ShapeError, match="ROIAlign"):
        mx.nd.contrib.ROIAlign(mx.nd.ones((1, 2, 3)), mx.nd.ones((1, 5)), pooled_size=(2, 2),
                               spatial_scale=1.0)  # fmt: skip
    with pytest.raises(ShapeError, match="boolean_mask"):
        mx.nd.contrib.boolean_mask(mx.nd.ones((3, 2)), mx.nd.ones((2,)))
    with pytest.raises(MXNetError, match="threshold"):
        mx.nd.contrib.bipartite_matching(mx.nd.ones((2, 2)))


def test_quadratic_and_gradient_multiplier_symbolic():
    data = mx.sym.var("data")
    net = mx.sym.contrib.gradientmultiplier(mx.sym.contrib.quadratic(data, a=2, b=1, c=0.5),
                                            scalar=-1.0)  # fmt: skip
    x = np.array([[0.5, -1.0]], np.float32)
    grad = mx.nd.zeros((1, 2))
    exe = net.bind(mx.cpu(), {"data": mx.nd.array(x)}, args_grad={"data": grad})
    out = exe.forward(is_train=True)[0].asnumpy()
    exe.backward([mx.nd.ones((1, 2))])
    np.testing.assert_allclose(out, 2 * x * x + x + 0.5)
    np.testing.assert_allclose(grad.asnumpy(), -(4 * x + 1))


def test_quantize_dequantize_int8_as_mxnet():
    a = mx.nd.array([[0.1392, 0.5928], [0.6027, 0.8579]])
    qa, lo, hi = mx.nd.contrib.quantize(a, mx.nd.array([0.0]), mx.nd.array([1.0]), out_type="int8")
    np.testing.assert_array_equal(qa.asnumpy(), [[18, 75], [77, 109]])
    back = mx.nd.contrib.dequantize(qa, lo, hi, out_type="float32")
    np.testing.assert_allclose(back.asnumpy(), [[0.14173228, 0.5905512], [0.6062992, 0.8582677]],
                               rtol=1e-6)  # fmt: skip
    qu, _, _ = mx.nd.contrib.quantize(a, mx.nd.array([0.0]), mx.nd.array([1.0]))
    np.testing.assert_array_equal(qu.asnumpy(), [[35, 151], [154, 219]])


@pytest.mark.parametrize("aligned", [False, True])
@pytest.mark.parametrize("ratio", [-1, 2])
def test_roialign_separable_equals_sample_by_sample(aligned, ratio):
    # ROIAlign's rows @ x @ columns.T per ROI against the dense (bins, H*W) matrix of every
    # sample's four bilinear weights (roi._sample_weights, MXNet's rules), forward and backward,
    # for regions inside, across and beyond the map's edges, and one of batch index -1
    from mxlite.operator.contrib import roi

    rng = np.random.default_rng(3)
    n, c, h, w = 2, 3, 9, 11
    x = rng.normal(size=(n, c, h, w)).astype(np.float64)
    rois = np.array([[0, 1.2, 2.3, 7.9, 8.1], [1, -2, 0.5, 4, 3.3], [0, 3, 3, 3.2, 3.1],
                     [1, 5.5, 1, 14, 12], [0, -9, -9, -3, -4], [-1, 1, 1, 4, 4]])  # fmt: skip
    params = dict(pooled_size=(3, 2), spatial_scale=1.0, sample_ratio=ratio, aligned=aligned)
    (got,) = forward("_contrib_ROIAlign", [x, rois], **params)
    head = rng.normal(size=got.shape)
    dx = backward("_contrib_ROIAlign", [x, rois], [head], **params)[0]
    want, want_dx = np.zeros_like(got), np.zeros_like(x)
    off = 0.5 if aligned else 0.0
    for r, (b, x1, y1, x2, y2) in enumerate(rois):
        if b < 0:
            continue
        x1, y1, x2, y2 = x1 - off, y1 - off, x2 - off, y2 - off
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        ys, xs = roi._bin_grid(np.float64, y1, x1, rh, rw, (3, 2), ratio)
        dense = roi._sample_weights(ys, xs, h, w, np.float64) / (ys.shape[2] * ys.shape[3])
        want[r] = (x[int(b)].reshape(c, -1) @ dense.T).reshape(c, 3, 2)
        want_dx[int(b)] += (head[r].reshape(c, -1) @ dense).reshape(c, h, w)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dx, want_dx, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("force", [False, True])
@pytest.mark.parametrize("topk", [-1, 150])
def test_multibox_detection_nms_equals_row_by_row_greedy(force, topk, monkeypatch):
    # the class-wise, blocked suppression against MXNet's greedy loop written row by row
    from mxlite.operator.contrib import multibox

    monkeypatch.setattr(multibox, "_NMS_BLOCK", 37)  # several blocks per class
    rng = np.random.default_rng(4)
    na, nc = 400, 4
    centres = rng.uniform(0.2, 0.8, (na, 2))
    size = rng.uniform(0.05, 0.3, (na, 2))
    anchors = np.concatenate([centres - size / 2, centres + size / 2], 1)[None].astype(np.float32)
    prob = rng.uniform(size=(2, nc, na)).astype(np.float32)
    prob[:, :, ::7] = prob[:, :, :1]  # equal scores
    loc = (rng.normal(size=(2, na * 4)) * 0.2).astype(np.float32)
    params = dict(nms_threshold=0.3, force_suppress=force, nms_topk=topk, threshold=0.2)
    (got,) = forward("_contrib_MultiBoxDetection", [prob, loc, anchors], **params)
    monkeypatch.setattr(multibox, "_NMS_BLOCK", 1)  # one row at a time: the plain loop
    (plain,) = forward("_contrib_MultiBoxDetection", [prob, loc, anchors], **params)
    np.testing.assert_array_equal(got, plain)
    for i in range(2):  # the greedy rule itself, row by row, on the rows kept before NMS
        rows = plain[i][plain[i, :, 0] >= 0]
        for r in range(len(rows)):
            for q in range(r):
                same = force or rows[q, 0] == rows[r, 0]
                iou = multibox._corner_iou(rows[q : q + 1, 2:], rows[r : r + 1, 2:])[0, 0]
                assert not (same and iou >= np.float32(0.3)), (i, q, r)
