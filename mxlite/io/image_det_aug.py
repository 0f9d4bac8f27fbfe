"""The pixel and box work of ``ImageDetRecordIter``: MXNet's ``det_aug_default``, step by step
as MXNet's C++ runs it (shorter-edge resize, HSL/contrast jitter, mirror, random pad, random
crop with its samplers and constraints, then ``resize_mode``), on OpenCV BGR images and
``(n, object_width)`` object arrays ``[id, xmin, ymin, xmax, ymax, extra...]`` in ``[0, 1]``.

Boxes are ``(x, y, width, height)`` tuples in the same normalised coordinates.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import ParamError
from .image_aug import Draws

_TUPLES = (
    "min_crop_scales",
    "max_crop_scales",
    "min_crop_aspect_ratios",
    "max_crop_aspect_ratios",
    "min_crop_overlaps",
    "max_crop_overlaps",
    "min_crop_sample_coverages",
    "max_crop_sample_coverages",
    "min_crop_object_coverages",
    "max_crop_object_coverages",
    "max_crop_trials",
)


def _intersection(a: tuple, b: np.ndarray) -> np.ndarray:
    """Areas of the intersections of box ``a`` with each row ``(x, y, w, h)`` of ``b``."""
    w = np.minimum(a[0] + a[2], b[:, 0] + b[:, 2]) - np.maximum(a[0], b[:, 0])
    h = np.minimum(a[1] + a[3], b[:, 1] + b[:, 3]) - np.maximum(a[1], b[:, 1])
    return np.where((w > 0) & (h > 0), w * h, 0.0)


def _project(objects: np.ndarray, box: tuple) -> np.ndarray:
    out = objects.copy()
    x, y, w, h = box
    out[:, 1] = np.maximum(0.0, (objects[:, 1] - x) / w)
    out[:, 2] = np.maximum(0.0, (objects[:, 2] - y) / h)
    out[:, 3] = np.minimum(1.0, (objects[:, 3] - x) / w)
    out[:, 4] = np.minimum(1.0, (objects[:, 4] - y) / h)
    return out


class DetAug:
    """MXNet's ``det_aug_default``."""

    def __init__(self, p: dict, cv2: Any) -> None:
        if p["resize_mode"] not in ("force", "shrink", "fit"):
            raise ParamError(
                "ImageDetRecordIter: resize_mode must be 'force', 'shrink' or 'fit', got "
                f"{p['resize_mode']!r}"
            )
        if not (0 <= p["inter_method"] <= 4 or p["inter_method"] in (9, 10)):
            raise ParamError(f"ImageDetRecordIter: invalid inter_method {p['inter_method']}")
        if p["crop_emit_mode"] not in ("center", "overlap"):
            raise ParamError(
                f"ImageDetRecordIter: crop_emit_mode must be 'center' or 'overlap', got "
                f"{p['crop_emit_mode']!r}"
            )
        n = int(p["num_crop_sampler"])
        self.samplers = []
        columns = {}
        for key in _TUPLES:
            value = p[key]
            values = list(value) if isinstance(value, (tuple, list)) else [value]
            if len(values) == 1:
                values = values * n
            if len(values) != n:
                raise ParamError(
                    f"ImageDetRecordIter: {key} has {len(values)} values for num_crop_sampler={n}"
                )
            columns[key] = values
        for i in range(n):
            s = {key[:-1] if key.endswith("s") else key: columns[key][i] for key in _TUPLES}
            if not (0 <= s["min_crop_scale"] < s["max_crop_scale"] <= 1):
                raise ParamError(
                    "ImageDetRecordIter: need 0 <= min_crop_scales < max_crop_scales <= 1"
                )
            self.samplers.append(s)
        self.p, self.cv2 = p, cv2
        self.max_draws = 16 + 4 * sum(int(s["max_crop_trial"]) for s in self.samplers) + 2 * n

    def _interp(self, ow: int, oh: int, nw: int, nh: int, rnd: Draws) -> int:
        method = self.p["inter_method"]
        if method == 9:
            if nw > ow and nh > oh:
                return 2
            return 3 if (nw < ow and nh < oh) else 1
        if method == 10:
            return rnd.randint(0, 4)
        return method

    def _resize(self, img: np.ndarray, w: int, h: int, rnd: Draws) -> np.ndarray:
        interp = self._interp(img.shape[1], img.shape[0], w, h, rnd)
        out = self.cv2.resize(img, (int(w), int(h)), interpolation=interp)
        return out[:, :, None] if out.ndim == 2 else out

    def process(self, img: np.ndarray, objects: np.ndarray, rnd: Draws) -> tuple:
        """The augmented image and objects (invalid boxes dropped, as MXNet's label parser)."""
        p, cv2 = self.p, self.cv2
        if p["resize"] != -1:
            rows, cols = img.shape[:2]
            if rows > cols:
                img = self._resize(img, p["resize"], p["resize"] * rows // cols, rnd)
            else:
                img = self._resize(img, p["resize"] * cols // rows, p["resize"], rnd)
        objects = objects[(objects[:, 3] > objects[:, 1]) & (objects[:, 4] > objects[:, 2])]
        if (
            p["random_hue_prob"] > 0
            or p["random_saturation_prob"] > 0
            or p["random_illumination_prob"] > 0
            or p["random_contrast_prob"] > 0
        ):
            img = self._colour(img, rnd)
        if p["rand_mirror_prob"] > 0 and rnd.uniform() < p["rand_mirror_prob"]:
            img = img[:, ::-1]
            flipped = objects.copy()
            flipped[:, 1], flipped[:, 3] = 1.0 - objects[:, 3], 1.0 - objects[:, 1]
            objects = flipped
        if p["rand_pad_prob"] > 0 and p["max_pad_scale"] > 1 and rnd.uniform() < p["rand_pad_prob"]:
            scale = rnd.uniform(1.0, p["max_pad_scale"])
            if scale >= 1.05:
                x0, y0 = rnd.uniform(0, scale - 1), rnd.uniform(0, scale - 1)
                objects = _project(objects, (-x0, -y0, scale, scale))
                rows, cols = img.shape[:2]
                fill = [p["fill_value"]] * 4
                img = cv2.copyMakeBorder(
                    np.ascontiguousarray(img),
                    int(y0 * rows),
                    int((scale - y0 - 1) * rows),
                    int(x0 * cols),
                    int((scale - x0 - 1) * cols),
                    cv2.BORDER_CONSTANT,
                    value=fill,
                )
                img = img[:, :, None] if img.ndim == 2 else img
        if p["rand_crop_prob"] > 0 and self.samplers and rnd.uniform() < p["rand_crop_prob"]:
            img, objects = self._random_crop(img, objects, rnd)
        return self._fit(img, rnd), objects

    def _colour(self, img: np.ndarray, rnd: Draws) -> np.ndarray:
        p, cv2 = self.p, self.cv2
        h = int(rnd.uniform(-1, 1) * p["max_random_hue"])
        s = int(rnd.uniform(-1, 1) * p["max_random_saturation"])
        lum = int(rnd.uniform(-1, 1) * p["max_random_illumination"])
        c = rnd.uniform(-1, 1) * p["max_random_contrast"]
        h = h if rnd.uniform() < p["random_hue_prob"] else 0
        s = s if rnd.uniform() < p["random_saturation_prob"] else 0
        lum = lum if rnd.uniform() < p["random_illumination_prob"] else 0
        c = c if rnd.uniform() < p["random_contrast_prob"] else 0
        if h or s or lum:
            hls = cv2.cvtColor(np.ascontiguousarray(img), cv2.COLOR_BGR2HLS).astype(np.int32)
            hls += np.array([h, lum, s], dtype=np.int32)
            hls = np.clip(hls, 0, np.array([180, 255, 255])).astype(np.uint8)
            img = cv2.cvtColor(hls, cv2.COLOR_HLS2BGR)
        if abs(c) > 1e-3:
            img = np.clip(np.rint(img.astype(np.float32) * (c + 1.0)), 0, 255).astype(np.uint8)
        return img

    def _random_crop(self, img: np.ndarray, objects: np.ndarray, rnd: Draws) -> tuple:
        order = list(range(len(self.samplers)))
        for i in range(len(order) - 1, 0, -1):  # Fisher-Yates
            j = rnd.randint(0, i)
            order[i], order[j] = order[j], order[i]
        rows, cols = img.shape[:2]
        for idx in order:
            s = self.samplers[idx]
            for _ in range(int(s["max_crop_trial"])):
                box = self._crop_box(s, rnd, cols / rows)
                kept = self._try_crop(objects, box, s)
                if kept is not None:
                    left, top = int(box[0] * cols), int(box[1] * rows)
                    width, height = int(box[2] * cols), int(box[3] * rows)
                    return img[top : top + height, left : left + width], kept
        return img, objects

    @staticmethod
    def _crop_box(s: dict, rnd: Draws, aspect: float) -> tuple:
        scale = rnd.uniform(s["min_crop_scale"], s["max_crop_scale"]) + 1e-12
        lo = max(s["min_crop_aspect_ratio"] / aspect, scale * scale)
        hi = min(s["max_crop_aspect_ratio"] / aspect, 1.0 / (scale * scale))
        ratio = np.sqrt(rnd.uniform(lo, hi))
        w, h = min(1.0, scale * ratio), min(1.0, scale / ratio)
        return (rnd.uniform(0.0, 1 - w), rnd.uniform(0.0, 1 - h), w, h)

    def _try_crop(self, objects: np.ndarray, box: tuple, s: dict) -> np.ndarray | None:
        if len(objects) == 0:
            return objects
        gt = np.stack(
            [
                objects[:, 1],
                objects[:, 2],
                objects[:, 3] - objects[:, 1],
                objects[:, 4] - objects[:, 2],
            ],
            axis=1,
        )
        inter = _intersection(box, gt)
        ok = np.ones(len(objects), bool)
        if s["min_crop_overlap"] > 0 or s["max_crop_overlap"] < 1:
            iou = inter / (box[2] * box[3] + gt[:, 2] * gt[:, 3] - inter)
            iou = np.where(inter > 0, iou, 0.0)
            ok &= (iou >= s["min_crop_overlap"]) & (iou <= s["max_crop_overlap"])
        if s["min_crop_sample_coverage"] > 0 or s["max_crop_sample_coverage"] < 1:
            cover = inter / (box[2] * box[3])
            ok &= (cover >= s["min_crop_sample_coverage"]) & (
                cover <= s["max_crop_sample_coverage"]
            )
        if s["min_crop_object_coverage"] > 0 or s["max_crop_object_coverage"] < 1:
            cover = inter / (gt[:, 2] * gt[:, 3])
            ok &= (cover >= s["min_crop_object_coverage"]) & (
                cover <= s["max_crop_object_coverage"]
            )
        if not ok.any():
            return None
        if self.p["crop_emit_mode"] == "center":
            cx = (objects[:, 1] + objects[:, 3]) * 0.5
            cy = (objects[:, 2] + objects[:, 4]) * 0.5
            keep = (box[0] <= cx) & (cx < box[0] + box[2]) & (box[1] <= cy) & (cy < box[1] + box[3])
        else:
            keep = inter / (gt[:, 2] * gt[:, 3]) > self.p["emit_overlap_thresh"]
        if not keep.any():
            return None
        return _project(objects[keep], box)

    def _fit(self, img: np.ndarray, rnd: Draws) -> np.ndarray:
        _, h, w = self.p["data_shape"]
        rows, cols = img.shape[:2]
        mode = self.p["resize_mode"]
        if mode == "force":
            return self._resize(img, w, h, rnd)
        ratio = min(np.float32(h) / rows, np.float32(w) / cols)
        if mode == "fit" or rows > h or cols > w:
            return self._resize(img, int(ratio * cols), int(ratio * rows), rnd)
        return img
