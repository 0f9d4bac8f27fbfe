"""GluonCV 0.10.5 workloads, run unchanged on real MXNet 1.9.1 and on mxlite's ``mxnet`` alias.

``python gluoncv_cases.py OUT.npz [CASE ...]`` runs the cases (all by default) under whatever
``import mxnet`` gives: ``tools/golden/cases/gluoncv.py`` runs it under real MXNet to write the
golden file, ``tests/run/test_gluoncv.py`` under ``python -m mxlite.run`` and compares.

Parameters are not stored (ResNet-50 alone is 100 MB): every parameter is set from
``numpy.random.RandomState(k)``, which gives the same numbers on NumPy 1.23 and 2.x, so both
sides compute with the same weights. ``mx.random`` streams differ between the two and are never
relied on. Input sizes are small to keep the test fast on two cores.
"""

from __future__ import annotations

import json
import random
import sys
import time

import gluoncv
import mxnet as mx
import numpy as np
from gluoncv.data.transforms import presets
from gluoncv.utils import bbox as ubbox
from mxnet import autograd, gluon


def set_params(net, seed: int) -> list:
    """Give every non-constant parameter values from RandomState(seed * 1000 + k); names back."""
    names = []
    for k, (name, p) in enumerate(net.collect_params().items()):
        names.append(name)
        if type(p).__name__ == "Constant":
            continue
        rs = np.random.RandomState(seed * 1000 + k)
        shape = p.shape
        if name.endswith("gamma"):
            v = rs.uniform(0.4, 0.9, shape)
        elif name.endswith(("running_var", "moving_var")):
            v = rs.uniform(0.5, 1.5, shape)
        elif name.endswith(("beta", "bias", "running_mean", "moving_mean")):
            v = rs.uniform(-0.1, 0.1, shape)
        elif len(shape) > 1:
            fan_in = int(np.prod(shape[1:]))
            v = rs.normal(0.0, np.sqrt(1.0 / fan_in), shape)
        else:
            v = rs.uniform(-0.1, 0.1, shape)
        p.set_data(mx.nd.array(v.astype(p.dtype)))
    return names


def image(seed: int, shape) -> mx.nd.NDArray:
    return mx.nd.array(np.random.RandomState(seed).uniform(-1, 1, shape).astype("float32"))


def _outs(res) -> list:
    res = res if isinstance(res, (list, tuple)) else [res]
    return [r.asnumpy() for r in res]


def infer(model: str, size, seed: int, adjust=None, **kwargs) -> dict:
    """get_model, random weights, forward imperative then hybridized."""
    net = gluoncv.model_zoo.get_model(model, pretrained=False, **kwargs)
    if adjust is not None:
        adjust(net)
    net.initialize()
    x = image(seed, (1, 3) + tuple(size))
    net(x)  # finishes deferred initialisation
    names = set_params(net, seed)
    out = {"names": np.array(json.dumps(names))}
    for i, a in enumerate(_outs(net(x))):
        out[f"imperative{i}"] = a
    net.hybridize()
    for i, a in enumerate(_outs(net(x))):
        out[f"hybrid{i}"] = a
    return out


def case_resnet50_v1b() -> dict:
    return infer("resnet50_v1b", (64, 64), 1)


def case_mobilenetv2() -> dict:
    return infer("mobilenetv2_0.25", (64, 64), 2)


def case_ssd() -> dict:
    return infer("ssd_512_resnet50_v1_voc", (128, 128), 3, pretrained_base=False)


def case_yolo3() -> dict:
    return infer("yolo3_darknet53_voc", (96, 96), 4, pretrained_base=False)


def _few_rois(net) -> None:
    # 300 proposals each through ResNet's stage 4 take half a minute even on MXNet; 16 do
    net._rpn_test_post_nms = net.rpn._test_post_nms = 16


def case_faster_rcnn() -> dict:
    return infer("faster_rcnn_resnet50_v1b_voc", (128, 128), 5, _few_rois, pretrained_base=False)


def case_center_net() -> dict:
    return infer("center_net_resnet18_v1b_voc", (128, 128), 6, pretrained_base=False)


def case_fcn() -> dict:
    return infer("fcn_resnet50_voc", (64, 64), 7, pretrained_base=False, crop_size=64)


def case_simple_pose() -> dict:
    return infer("simple_pose_resnet18_v1b", (64, 48), 8, pretrained_base=False)


def _seed_all(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    mx.random.seed(seed)


def _src_image(seed: int, h: int, w: int):
    img = np.random.RandomState(seed).randint(0, 256, (h, w, 3)).astype("uint8")
    label = np.array([[10, 12, 70, 60, 3], [40, 30, 90, 75, 7]], dtype="float32")
    return mx.nd.array(img, dtype="uint8"), label


def case_presets() -> dict:
    """Validation presets (deterministic) and utils.bbox."""
    src, label = _src_image(11, 80, 100)
    out = {}
    img, lab = presets.ssd.SSDDefaultValTransform(64, 64)(src, label)
    out["ssd_val_img"], out["ssd_val_label"] = img.asnumpy(), lab
    img, lab = presets.yolo.YOLO3DefaultValTransform(64, 64)(src, label)
    out["yolo_val_img"], out["yolo_val_label"] = img.asnumpy(), lab
    x, orig = presets.rcnn.transform_test(src, short=48, max_size=96)
    out["rcnn_test"], out["rcnn_orig"] = x.asnumpy(), orig
    x, orig = presets.ssd.transform_test(src, short=48)
    out["ssd_test"] = x.asnumpy()
    a, b = label[:, :4], label[::-1, :4] + 5
    out["bbox_iou"] = ubbox.bbox_iou(a, b)
    out["bbox_xywh"] = ubbox.bbox_xyxy_to_xywh(a)
    out["bbox_clip"] = ubbox.bbox_clip_xyxy(a, 64, 50)
    return out


def _ssd_with_targets(model: str, size: int, seed: int) -> tuple:
    """An SSD with random weights (``set_params(net, seed)``) and its train transform."""
    net = gluoncv.model_zoo.get_model(model, pretrained_base=False)
    net.initialize()
    with autograd.train_mode():
        _, _, anchors = net(mx.nd.zeros((1, 3, size, size)))
    set_params(net, seed)
    _seed_all(seed)
    return presets.ssd.SSDDefaultTrainTransform(size, size, anchors), net


def case_ssd_train(jitter: float = 0.0) -> dict:
    """Two SGD steps of SSD with SSDDefaultTrainTransform targets and SSDMultiBoxLoss."""
    tf, net = _ssd_with_targets("ssd_300_mobilenet0.25_voc", 128, 9)
    img, cls_t, box_t = tf(*_src_image(12, 90, 110))
    out = {"img": img.asnumpy(), "cls_t": cls_t.asnumpy(), "box_t": box_t.asnumpy()}
    net.hybridize()
    loss_fn = gluoncv.loss.SSDMultiBoxLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.01, "wd": 5e-4})
    x = img.expand_dims(0) * (1 + jitter)
    cls_t, box_t = cls_t.expand_dims(0), box_t.expand_dims(0)
    losses = []
    for _ in range(2):
        with autograd.record():
            cls_pred, box_pred, _ = net(x)
            total, cls_l, box_l = loss_fn([cls_pred], [box_pred], [cls_t], [box_t])
            autograd.backward(total)
        trainer.step(1)
        losses.append([total[0].asscalar(), cls_l[0].asscalar(), box_l[0].asscalar()])
    out["losses"] = np.array(losses)
    out["checksums"] = _checksums(net)
    return out


def case_ssd_fixed_gamma() -> dict:
    """One SGD step (momentum, weight decay) of ssd_512_mobilenet1.0_voc on a batch of two:
    the BatchNorm gammas with fix_gamma=True of the SymbolBlock feature expander
    (``ssd0_expand_trans_bn0_gamma``, ...) move by MXNet's update, which starts from the ones
    that BatchNorm's forward writes into them (issue 32)."""
    tf, net = _ssd_with_targets("ssd_512_mobilenet1.0_voc", 128, 15)
    batch = [tf(*_src_image(16 + i, 90, 110)) for i in range(2)]
    x, cls_t, box_t = (mx.nd.stack(*parts) for parts in zip(*batch))
    params = net.collect_params()
    # names without the block's prefix (ssd0_, ssd1_, ...: how many SSDs the process made)
    fixed = [n for n in params if "_expand" in n and n.endswith("gamma")]
    before = {n: params[n].data().asnumpy() for n in fixed}
    trainer = gluon.Trainer(params, "sgd", {"learning_rate": 0.001, "momentum": 0.9, "wd": 5e-4})
    with autograd.record():
        cls_pred, box_pred, _ = net(x)
        total, _, _ = gluoncv.loss.SSDMultiBoxLoss()([cls_pred], [box_pred], [cls_t], [box_t])
        autograd.backward(total)
    trainer.step(2)
    out = {"fixed": np.array(json.dumps([n[len(net.prefix) :] for n in fixed]))}
    for n in fixed:
        short = n[len(net.prefix) :]
        out[f"grad/{short}"] = params[n].grad().asnumpy()
        out[f"update/{short}"] = params[n].data().asnumpy() - before[n]
    return out


def case_yolo3_train(jitter: float = 0.0) -> dict:
    """Two SGD steps of YOLOv3 with YOLO3DefaultTrainTransform targets and its built-in loss."""
    size = 96
    net = gluoncv.model_zoo.get_model("yolo3_mobilenet0.25_voc", pretrained_base=False)
    net.initialize()
    net(mx.nd.zeros((1, 3, size, size)))
    set_params(net, 10)
    _seed_all(10)
    src, label = _src_image(13, 90, 110)
    tf = presets.yolo.YOLO3DefaultTrainTransform(size, size, net)
    img, *targets, gt = tf(src, label)
    out = {"img": img.asnumpy()}
    for i, t in enumerate(targets):
        out[f"target{i}"] = t.asnumpy()
    net.hybridize()
    # lr 1e-4: YOLOv3's loss picks its ignored anchors by thresholds on its own predictions, so
    # float32 rounding flips some and moves first-step gradients by tens of percent (MXNet's own,
    # against an input moved by 1e-6); at lr 1e-3 the second step turned that into 1-5% of the
    # parameters' sum of squares, from run to run of mxlite's timed convolution choice alone
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 1e-4, "wd": 5e-4})
    batch = [a.expand_dims(0) for a in (img * (1 + jitter), gt, *targets)]
    losses = []
    for _ in range(2):
        with autograd.record():
            parts = net(*batch)
            autograd.backward(sum(parts))
        trainer.step(1)
        losses.append([p.asnumpy().sum() for p in parts])
    out["losses"] = np.array(losses)
    out["checksums"] = _checksums(net)
    return out


def _checksums(net) -> np.ndarray:
    """Sum and sum of squares of every trainable parameter, in collect_params order (gammas
    of BatchNorm with fix_gamma=True included: both of MXNet's kernels write ones into them in
    each training forward, as mxlite's do)."""
    sums = []
    for p in net.collect_params().values():
        if p.grad_req != "null":
            a = p.data().asnumpy().astype("float64")
            sums.append([a.sum(), (a * a).sum()])
    return np.array(sums)


def case_load_parameters(path: str) -> dict:
    """load_parameters of a file MXNet saved (cifar_resnet20_v1), then inference."""
    net = gluoncv.model_zoo.get_model("cifar_resnet20_v1", classes=10)
    net.load_parameters(path)
    x = image(14, (2, 3, 32, 32))
    out = {"imperative0": net(x).asnumpy()}
    net.hybridize()
    out["hybrid0"] = net(x).asnumpy()
    return out


CASES = {n[5:]: f for n, f in sorted(globals().items()) if n.startswith("case_")}
CASES.pop("load_parameters")
# what MXNet's own result moves by when the input moves by this much (relatively): batch-1
# BatchNorm on 3x3 maps makes the gradients of these random-weight networks ill-conditioned
JITTER = 1e-4


def main(argv: list) -> None:
    """OUT.npz [--params=FILE] [--spread] [CASE ...]: run the cases, save every array.

    ``--params`` is the ``.params`` file for ``load_parameters``; ``--spread`` also runs each
    training case with its input scaled by ``1 + JITTER`` and saves the difference as
    ``<case>/spread/<key>``: the test's tolerance for those arrays.
    """
    out_path, rest = argv[0], argv[1:]
    params = next((a.split("=", 1)[1] for a in rest if a.startswith("--params=")), None)
    spread = "--spread" in rest
    names = [a for a in rest if not a.startswith("--")] or list(CASES)
    result, times = {}, {}
    for name in names:
        t = time.perf_counter()
        arrays = case_load_parameters(params) if name == "load_parameters" else CASES[name]()
        times[name] = round(time.perf_counter() - t, 2)
        if spread and name.endswith("_train"):
            moved = CASES[name](JITTER)
            for k in ("losses", "checksums"):
                arrays[f"spread/{k}"] = np.abs(moved[k] - arrays[k])
        for k, v in arrays.items():
            result[f"{name}/{k}"] = v
        print(f"{name}: {times[name]} s", file=sys.stderr, flush=True)
    result["times"] = np.array(json.dumps(times))
    np.savez_compressed(out_path, **result)


if __name__ == "__main__":
    main(sys.argv[1:])
