"""The pixel work of ``ImageRecordIter``: MXNet's default augmenter (``aug_default``), step by
step as MXNet's C++ runs it, on OpenCV BGR images.

``DefaultAug.process`` takes a decoded ``(h, w, c)`` uint8 image and a ``Draws`` (the
uniform random numbers of that image, drawn ahead on the iterator's thread so that the result
does not depend on which worker runs it) and returns the ``(H, W, c)`` crop of ``data_shape``.
Mirroring, mean/std, ``scale`` and the random contrast/illumination come after, batch-wide,
in ``ImageRecordIter``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base import ParamError

# MXNet's PCA lighting basis: eigenvectors scaled by their eigenvalues (ImageNet RGB).
_EIGVEC = np.array(
    [
        [55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009],
        [55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140],
        [55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203],
    ],
    dtype=np.float32,
)

NUM_DRAWS = 96  # upper bound of the uniform numbers one image can use (10 crop attempts x 5 + rest)


class Draws:
    """The random numbers of one image, used in order."""

    __slots__ = ("_row", "_k")

    def __init__(self, row: np.ndarray) -> None:
        self._row = row
        self._k = 0

    def uniform(self, low: float = 0.0, high: float = 1.0) -> float:
        u = float(self._row[self._k])
        self._k += 1
        return low + (high - low) * u

    def randint(self, low: int, high: int) -> int:
        """An int in ``[low, high]``, both ends included (as std::uniform_int_distribution)."""
        return min(high, low + int(self.uniform() * (high - low + 1)))

    def normal(self, std: float) -> float:
        u1 = max(self.uniform(), 1e-12)
        u2 = self.uniform()
        return std * math.sqrt(-2.0 * math.log(u1)) * math.cos(2 * math.pi * u2)


@dataclass
class AugParams:
    """The parameters of MXNet's default image augmenter (``ImageAugmentParam``)."""

    data_shape: tuple = (3, 224, 224)
    resize: int = -1
    rand_crop: bool = False
    random_resized_crop: bool = False
    max_rotate_angle: float = 0.0
    max_aspect_ratio: float = 0.0
    min_aspect_ratio: float | None = None
    max_shear_ratio: float = 0.0
    max_crop_size: int = -1
    min_crop_size: int = -1
    max_random_scale: float = 1.0
    min_random_scale: float = 1.0
    max_random_area: float = 1.0
    min_random_area: float = 1.0
    max_img_size: float = 1e10
    min_img_size: float = 0.0
    brightness: float = 0.0
    contrast: float = 0.0
    saturation: float = 0.0
    pca_noise: float = 0.0
    random_h: int = 0
    random_s: int = 0
    random_l: int = 0
    rotate: float = -1.0
    fill_value: int = 255
    inter_method: int = 1
    pad: int = 0


class DefaultAug:
    """MXNet's ``aug_default`` on numpy/OpenCV images."""

    def __init__(self, p: AugParams, cv2: Any) -> None:
        if not (0 <= p.inter_method <= 4 or p.inter_method in (9, 10)):
            raise ParamError(
                f"ImageRecordIter: invalid inter_method {p.inter_method}; valid values are "
                "0, 1, 2, 3, 4, 9, 10"
            )
        if p.random_resized_crop and (
            p.min_random_scale != 1.0
            or p.max_random_scale != 1.0
            or p.min_crop_size != -1
            or p.max_crop_size != -1
            or p.rand_crop
        ):
            raise ParamError(
                "ImageRecordIter: random_resized_crop=True conflicts with min_random_scale, "
                "max_random_scale, min_crop_size, max_crop_size and rand_crop"
            )
        self.p = p
        self.cv2 = cv2
        if p.min_aspect_ratio is not None:
            self.ratio_range = (p.min_aspect_ratio, p.max_aspect_ratio)
        else:
            self.ratio_range = (1 - p.max_aspect_ratio, 1 + p.max_aspect_ratio)
        lo, hi = self.ratio_range
        self.affine = (
            p.max_rotate_angle > 0
            or p.max_shear_ratio > 0
            or p.rotate > 0
            or p.max_random_scale != 1.0
            or p.min_random_scale != 1.0
            or (not p.random_resized_crop and (lo != 1.0 or hi != 1.0))
            or p.max_img_size != 1e10
            or p.min_img_size != 0.0
        )
        self.resized_crop = p.random_resized_crop and (
            p.max_random_area != 1.0 or p.min_random_area != 1.0 or lo != 1.0 or hi != 1.0
        )
        self.color = p.brightness > 0 or p.contrast > 0 or p.saturation > 0
        self.hsl = p.random_h != 0 or p.random_s != 0 or p.random_l != 0

    def _interp(self, ow: int, oh: int, nw: float, nh: float, rnd: Draws) -> int:
        method = self.p.inter_method
        if method == 9:
            if nw > ow and nh > oh:
                return 2
            if nw < ow and nh < oh:
                return 3
            return 1
        if method == 10:
            return rnd.randint(0, 4)
        return method

    def _resize(self, img: np.ndarray, w: int, h: int, interp: int) -> np.ndarray:
        out = self.cv2.resize(img, (int(w), int(h)), interpolation=interp)
        return out[:, :, None] if out.ndim == 2 else out

    def process(self, img: np.ndarray, rnd: Draws) -> np.ndarray:
        p, cv2 = self.p, self.cv2
        _, out_h, out_w = p.data_shape
        if p.resize != -1:
            rows, cols = img.shape[:2]
            if rows > cols:
                nh, nw = p.resize * rows // cols, p.resize
            else:
                nh, nw = p.resize, p.resize * cols // rows
            img = self._resize(img, nw, nh, self._interp(cols, rows, nw, nh, rnd))
        if self.affine:
            img = self._affine(img, rnd)
        if p.pad > 0:
            fill = [p.fill_value] * 4
            img = cv2.copyMakeBorder(
                img, p.pad, p.pad, p.pad, p.pad, cv2.BORDER_CONSTANT, value=fill
            )
            img = img[:, :, None] if img.ndim == 2 else img
        cropped = False
        if self.resized_crop:
            img, cropped = self._random_resized_crop(img, rnd)
        elif not p.random_resized_crop and (p.max_crop_size != -1 or p.min_crop_size != -1):
            rows, cols = img.shape[:2]
            if not (cols >= p.max_crop_size and rows >= p.max_crop_size >= p.min_crop_size):
                raise ParamError("ImageRecordIter: input image size smaller than max_crop_size")
            size = rnd.randint(p.min_crop_size, p.max_crop_size)
            y, x = rows - size, cols - size
            if p.rand_crop:
                y, x = rnd.randint(0, y), rnd.randint(0, x)
            else:
                y, x = y // 2, x // 2
            interp = self._interp(size, size, out_w, out_h, rnd)
            img = self._resize(img[y : y + size, x : x + size], out_w, out_h, interp)
            cropped = True
        if not cropped:
            img = self._crop(img, out_h, out_w, rnd)
        if self.color:
            img = self._color(img, rnd)
        if self.hsl:
            img = self._hsl(img, rnd)
        if p.pca_noise > 0:
            alpha = np.array([rnd.normal(p.pca_noise) for _ in range(3)], dtype=np.float32)
            rgb = _EIGVEC @ alpha
            img = np.clip(img.astype(np.int32) + rgb[::-1].astype(np.int32), 0, 255).astype(
                np.uint8
            )
        return img

    def _crop(self, img: np.ndarray, out_h: int, out_w: int, rnd: Draws) -> np.ndarray:
        rows, cols = img.shape[:2]
        interp = self._interp(cols, rows, out_w, out_h, rnd)
        if rows < out_h:
            new_cols = int(np.float32(out_h) / np.float32(rows) * np.float32(cols))
            img = self._resize(img, new_cols, out_h, interp)
            rows, cols = img.shape[:2]
        if cols < out_w:
            new_rows = int(np.float32(out_w) / np.float32(cols) * np.float32(rows))
            img = self._resize(img, out_w, new_rows, interp)
            rows, cols = img.shape[:2]
        y, x = rows - out_h, cols - out_w
        if self.p.rand_crop:
            y, x = rnd.randint(0, y), rnd.randint(0, x)
        else:
            y, x = y // 2, x // 2
        return img[y : y + out_h, x : x + out_w]

    def _affine(self, img: np.ndarray, rnd: Draws) -> np.ndarray:
        p, cv2 = self.p, self.cv2
        shear = rnd.uniform() * p.max_shear_ratio * 2 - p.max_shear_ratio
        angle = rnd.randint(-int(p.max_rotate_angle), int(p.max_rotate_angle))
        if p.rotate > 0:
            angle = p.rotate
        a, b = math.cos(angle / 180.0 * math.pi), math.sin(angle / 180.0 * math.pi)
        scale = ratio = 1.0
        if not p.random_resized_crop:
            scale = rnd.uniform() * (p.max_random_scale - p.min_random_scale) + p.min_random_scale
            lo, hi = self.ratio_range
            ratio = rnd.uniform() * (hi - lo) + lo
        hs = 2 * scale / (1 + ratio)
        ws = ratio * hs
        rows, cols = img.shape[:2]
        new_w = max(p.min_img_size, min(p.max_img_size, scale * cols))
        new_h = max(p.min_img_size, min(p.max_img_size, scale * rows))
        m = np.zeros((2, 3), dtype=np.float32)
        m[0, 0] = hs * a - shear * b * ws
        m[1, 0] = -b * ws
        m[0, 1] = hs * b + shear * a * ws
        m[1, 1] = a * ws
        m[0, 2] = (new_w - (m[0, 0] * cols + m[0, 1] * rows)) / 2
        m[1, 2] = (new_h - (m[1, 0] * cols + m[1, 1] * rows)) / 2
        interp = self._interp(cols, rows, new_w, new_h, rnd)
        fill = (p.fill_value, p.fill_value, p.fill_value)
        out = cv2.warpAffine(
            img,
            m,
            (int(new_w), int(new_h)),
            flags=interp,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=fill,
        )
        return out[:, :, None] if out.ndim == 2 else out

    def _random_resized_crop(self, img: np.ndarray, rnd: Draws) -> tuple[np.ndarray, bool]:
        p = self.p
        lo, hi = self.ratio_range
        if lo <= 0 or p.min_random_area > p.max_random_area or lo > hi:
            raise ParamError(
                "ImageRecordIter: random_resized_crop needs 0 < min_aspect_ratio <= "
                "max_aspect_ratio and min_random_area <= max_random_area"
            )
        rows, cols = img.shape[:2]
        area = rows * cols
        _, out_h, out_w = p.data_shape
        for _ in range(10):
            target = area * rnd.uniform(p.min_random_area, p.max_random_area)
            ratio = rnd.uniform(lo, hi)
            h = int(round(math.sqrt(target / ratio)))
            w = int(round(math.sqrt(target * ratio)))
            if rnd.uniform() > 0.5:
                h, w = w, h
            if h <= rows and w <= cols:
                y = rnd.randint(0, rows - h)
                x = rnd.randint(0, cols - w)
                interp = self._interp(w, h, out_w, out_h, rnd)
                return self._resize(img[y : y + h, x : x + w], out_w, out_h, interp), True
        return img, False

    def _color(self, img: np.ndarray, rnd: Draws) -> np.ndarray:
        p, cv2 = self.p, self.cv2
        alpha_b = 1.0 + rnd.uniform(-p.brightness, p.brightness)
        alpha_c = 1.0 + rnd.uniform(-p.contrast, p.contrast)
        alpha_s = 1.0 + rnd.uniform(-p.saturation, p.saturation)
        order = [0, 1, 2]
        for i in (2, 1):  # Fisher-Yates
            j = rnd.randint(0, i)
            order[i], order[j] = order[j], order[i]
        for step in order:
            if step == 0:
                img = cv2.convertScaleAbs(img, alpha=alpha_b) if alpha_b >= 0 else img * 0
            elif step == 1:
                gray = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
                mean = float(cv2.mean(gray)[0])
                img = _saturate(img.astype(np.float32) * alpha_c + (1 - alpha_c) * mean)
            else:
                gray = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_RGB2GRAY), cv2.COLOR_GRAY2BGR)
                img = cv2.addWeighted(img, alpha_s, gray, 1 - alpha_s, 0.0)
        return img

    def _hsl(self, img: np.ndarray, rnd: Draws) -> np.ndarray:
        p, cv2 = self.p, self.cv2
        hls = cv2.cvtColor(img, cv2.COLOR_BGR2HLS).astype(np.int32)
        shifts = []
        for limit in (p.random_h, p.random_s, p.random_l):
            r = (rnd.uniform() + 4 * rnd.uniform()) / 5
            shifts.append(int(r * limit * 2 - limit))
        h, s, lum = shifts
        hls += np.array([h, lum, s], dtype=np.int32)
        hls = np.clip(hls, 0, np.array([180, 255, 255])).astype(np.uint8)
        return cv2.cvtColor(hls, cv2.COLOR_HLS2BGR)


def _saturate(x: np.ndarray) -> np.ndarray:
    return np.clip(np.rint(x), 0, 255).astype(np.uint8)
