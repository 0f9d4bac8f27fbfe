"""``mx.image.detection``'s augmenters: each takes ``(image, label)`` and returns both, moving
the boxes (``[class, xmin, ymin, xmax, ymax, ...]`` rows in ``[0, 1]``) with the pixels."""

from __future__ import annotations

import json
import random
import warnings
from collections.abc import Iterator
from math import sqrt
from typing import Any

import numpy as np

from ..base import ParamError
from .augmenters import (
    Augmenter,
    CastAug,
    ColorJitterAug,
    ColorNormalizeAug,
    ForceResizeAug,
    HueJitterAug,
    LightingAug,
    RandomGrayAug,
    ResizeAug,
    _json_kwargs,
    _KeepArgs,
)
from .image import copyMakeBorder, fixed_crop, like, to_numpy

__all__ = [
    "DetAugmenter",
    "DetBorrowAug",
    "DetRandomSelectAug",
    "DetHorizontalFlipAug",
    "DetRandomCropAug",
    "DetRandomPadAug",
    "CreateMultiRandCropAugmenter",
    "CreateDetAugmenter",
]

_NUMERIC = (int, float, np.integer, np.floating)


class DetAugmenter:
    """Detection base augmenter"""

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = _json_kwargs(kwargs)

    def dumps(self) -> Any:
        """Saves the Augmenter to string"""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, src: Any, label: np.ndarray) -> tuple:
        """Abstract implementation body"""
        raise NotImplementedError("Must override implementation.")


class DetBorrowAug(DetAugmenter):
    """Borrow standard augmenter from image classification, which leaves the label alone.

    Parameters
    ----------
    augmenter : mx.image.Augmenter
        The borrowed standard augmenter which has no effect on label
    """

    def __init__(self, augmenter: Augmenter) -> None:
        if not isinstance(augmenter, Augmenter):
            raise TypeError("Borrowing from invalid Augmenter")
        super().__init__(augmenter=augmenter.dumps())
        self.augmenter = augmenter

    def dumps(self) -> Any:
        """Override the default one to avoid duplicate dump."""
        return [self.__class__.__name__.lower(), self.augmenter.dumps()]

    def __call__(self, src: Any, label: np.ndarray) -> tuple:
        """Augmenter implementation body"""
        return self.augmenter(src), label


class DetRandomSelectAug(DetAugmenter):
    """Randomly select one augmenter to apply, with chance to skip all.

    Parameters
    ----------
    aug_list : list of DetAugmenter
        The random selection will be applied to one of the augmenters
    skip_prob : float
        The probability to skip all augmenters and return input directly
    """

    def __init__(self, aug_list: Any, skip_prob: float = 0) -> None:
        super().__init__(skip_prob=skip_prob)
        if not isinstance(aug_list, (list, tuple)):
            aug_list = [aug_list]
        for aug in aug_list:
            if not isinstance(aug, DetAugmenter):
                raise ValueError("Allow DetAugmenter in list only")
        if not aug_list:
            skip_prob = 1
        self.aug_list = list(aug_list)
        self.skip_prob = skip_prob

    def dumps(self) -> Any:
        """Override default."""
        return [self.__class__.__name__.lower(), [x.dumps() for x in self.aug_list]]

    def __call__(self, src: Any, label: np.ndarray) -> tuple:
        """Augmenter implementation body"""
        if random.random() < self.skip_prob:
            return src, label
        random.shuffle(self.aug_list)
        return self.aug_list[0](src, label)


class DetHorizontalFlipAug(_KeepArgs, DetAugmenter):
    """Random horizontal flipping.

    Parameters
    ----------
    p : float
        chance [0, 1] to flip
    """

    def __init__(self, p: float) -> None:
        super().__init__(p=p)

    def __call__(self, src: Any, label: np.ndarray) -> tuple:
        """Augmenter implementation"""
        if random.random() < self.p:
            src = like(src, np.ascontiguousarray(to_numpy(src)[:, ::-1]))
            xmin = 1.0 - label[:, 3]
            label[:, 3] = 1.0 - label[:, 1]
            label[:, 1] = xmin
        return src, label


def _areas(boxes: np.ndarray) -> np.ndarray:
    return np.maximum(0, boxes[:, 3] - boxes[:, 1]) * np.maximum(0, boxes[:, 2] - boxes[:, 0])


def _as_range(name: str, value: Any) -> tuple:
    if isinstance(value, (tuple, list)):
        return tuple(value)
    if not isinstance(value, _NUMERIC):
        raise ParamError(f"{name} must be a number or a (low, high) pair, got {value!r}")
    return (value, value)


class _RegionAug(_KeepArgs, DetAugmenter):
    """DetRandomCropAug and DetRandomPadAug: a region drawn within ``area_range`` and
    ``aspect_ratio_range`` (a number ``x`` stands for ``(x, x)``); invalid ranges disable the
    augmenter with a warning (``area_range``'s top must exceed ``area_floor``)."""

    def __init__(self, where: str, area_floor: float, **kwargs: Any) -> None:
        for key in ("aspect_ratio_range", "area_range"):
            kwargs[key] = _as_range(f"{where}: {key}", kwargs[key])
        super().__init__(**kwargs)
        area, aspect = self.area_range, self.aspect_ratio_range
        self.enabled = False
        if area[1] <= area_floor or area[0] > area[1]:
            warnings.warn(f"Skip {where} due to invalid area_range: {area}", stacklevel=3)
        elif aspect[0] <= 0 or aspect[0] > aspect[1]:
            warnings.warn(f"Skip {where} due to invalid aspect_ratio_range: {aspect}", stacklevel=3)
        else:
            self.enabled = True

    def _draws(self, height: int, width: int) -> Iterator[tuple[float, int, int, float, float]]:
        """One draw per attempt (none when disabled or the image is empty): the aspect ratio,
        the heights giving the bottom and the top of ``area_range`` at that ratio, and the
        area bounds in pixels. A draw with a ratio <= 0 is skipped, as MXNet does."""
        if not self.enabled or height <= 0 or width <= 0:
            return
        min_area = self.area_range[0] * height * width
        max_area = self.area_range[1] * height * width
        for _ in range(self.max_attempts):
            ratio = random.uniform(*self.aspect_ratio_range)
            if ratio <= 0:
                continue
            h = int(round(sqrt(min_area / ratio)))
            max_h = int(round(sqrt(max_area / ratio)))
            yield ratio, h, max_h, min_area, max_area


class DetRandomCropAug(_RegionAug):
    """Random cropping with constraints

    Parameters
    ----------
    min_object_covered : float, default=0.1
        The cropped area of the image must contain at least this fraction of
        any bounding box supplied.
    min_eject_coverage : float, default=0.3
        The minimum coverage of cropped sample w.r.t its original size. With this
        constraint, objects that have marginal area after crop will be discarded.
    aspect_ratio_range : tuple of floats, default=(0.75, 1.33)
        The cropped area of the image must have an aspect ratio = width / height
        within this range.
    area_range : tuple of floats, default=(0.05, 1.0)
        The cropped area of the image must contain a fraction of the supplied
        image within in this range.
    max_attempts : int, default=50
        Number of attempts at generating a cropped/padded region of the image.
    """

    def __init__(
        self,
        min_object_covered: float = 0.1,
        aspect_ratio_range: Any = (0.75, 1.33),
        area_range: Any = (0.05, 1.0),
        min_eject_coverage: float = 0.3,
        max_attempts: int = 50,
    ) -> None:
        super().__init__(
            "DetRandomCropAug", 0,
            min_object_covered=min_object_covered,
            aspect_ratio_range=aspect_ratio_range,
            area_range=area_range,
            min_eject_coverage=min_eject_coverage,
            max_attempts=max_attempts,
        )  # fmt: skip

    def __call__(self, src: Any, label: np.ndarray) -> tuple:
        """Augmenter implementation body"""
        crop = self._random_crop_proposal(label, src.shape[0], src.shape[1])
        if crop:
            x, y, w, h, label = crop
            src = fixed_crop(src, x, y, w, h, None)
        return src, label

    @staticmethod
    def _intersect(boxes: np.ndarray, xmin: float, ymin: float, xmax: float, ymax: float) -> Any:
        left = np.maximum(boxes[:, 0], xmin)
        right = np.minimum(boxes[:, 2], xmax)
        top = np.maximum(boxes[:, 1], ymin)
        bot = np.minimum(boxes[:, 3], ymax)
        out = np.stack([left, top, right, bot], axis=1)
        out[np.logical_or(left >= right, top >= bot)] = 0
        return out

    def _satisfies(self, label: np.ndarray, box: tuple, width: int, height: int) -> bool:
        xmin, ymin, xmax, ymax = box
        if (xmax - xmin) * (ymax - ymin) < 2:
            return False
        areas = _areas(label[:, 1:])
        valid = np.where(areas * width * height > 2)[0]
        if valid.size < 1:
            return False
        inter = self._intersect(
            label[valid, 1:], xmin / width, ymin / height, xmax / width, ymax / height
        )
        coverages = _areas(inter) / areas[valid]
        coverages = coverages[coverages > 0]
        return coverages.size > 0 and np.amin(coverages) > self.min_object_covered

    def _update_labels(self, label: np.ndarray, crop: tuple, height: int, width: int) -> Any:
        xmin, ymin = float(crop[0]) / width, float(crop[1]) / height
        w, h = float(crop[2]) / width, float(crop[3]) / height
        out = label.copy()
        out[:, (1, 3)] = (out[:, (1, 3)] - xmin) / w
        out[:, (2, 4)] = (out[:, (2, 4)] - ymin) / h
        out[:, 1:5] = np.clip(out[:, 1:5], 0, 1)
        coverage = _areas(out[:, 1:]) * w * h / _areas(label[:, 1:])
        valid = (
            (out[:, 3] > out[:, 1]) & (out[:, 4] > out[:, 2]) & (coverage > self.min_eject_coverage)
        )
        if not valid.any():
            return None
        return out[valid]

    def _random_crop_proposal(self, label: np.ndarray, height: int, width: int) -> tuple:
        for ratio, h, max_h, min_area, max_area in self._draws(height, width):
            if round(max_h * ratio) > width:
                max_h = int(
                    (width + 0.4999999) / ratio
                )  # the largest h with round(h*ratio) <= width
            max_h = min(max_h, height)
            h = min(h, max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            area = w * h
            if area < min_area:
                h += 1
                w = int(round(h * ratio))
                area = w * h
            if area > max_area:
                h -= 1
                w = int(round(h * ratio))
                area = w * h
            if not (min_area <= area <= max_area and 0 <= w <= width and 0 <= h <= height):
                continue
            y = random.randint(0, max(0, height - h))
            x = random.randint(0, max(0, width - w))
            if self._satisfies(label, (x, y, x + w, y + h), width, height):
                new_label = self._update_labels(label, (x, y, w, h), height, width)
                if new_label is not None:
                    return x, y, w, h, new_label
        return ()


class DetRandomPadAug(_RegionAug):
    """Random padding augmenter.

    Parameters
    ----------
    aspect_ratio_range : tuple of floats, default=(0.75, 1.33)
        The padded area of the image must have an aspect ratio = width / height
        within this range.
    area_range : tuple of floats, default=(1.0, 3.0)
        The padded area of the image must be larger than the original area
    max_attempts : int, default=50
        Number of attempts at generating a padded region of the image.
    pad_val: float or tuple of float, default=(128, 128, 128)
        pixel value to be filled when padding is enabled.
    """

    def __init__(
        self,
        aspect_ratio_range: Any = (0.75, 1.33),
        area_range: Any = (1.0, 3.0),
        max_attempts: int = 50,
        pad_val: Any = (128, 128, 128),
    ) -> None:
        super().__init__(
            "DetRandomPadAug", 1.0,
            aspect_ratio_range=aspect_ratio_range,
            area_range=area_range,
            max_attempts=max_attempts,
            pad_val=pad_val,
        )  # fmt: skip

    def __call__(self, src: Any, label: np.ndarray) -> tuple:
        """Augmenter body"""
        height, width = src.shape[:2]
        pad = self._random_pad_proposal(label, height, width)
        if pad:
            x, y, w, h, label = pad
            values = self.pad_val if isinstance(self.pad_val, (list, tuple)) else [self.pad_val] * 3
            # 16 is cv2.BORDER_ISOLATED, as MXNet passes; with a constant fill it pads the same.
            src = copyMakeBorder(src, y, h - y - height, x, w - x - width, 16, values=values)
        return src, label

    def _random_pad_proposal(self, label: np.ndarray, height: int, width: int) -> tuple:
        for ratio, h, max_h, _, _ in self._draws(height, width):
            if round(h * ratio) < width:
                h = int((width + 0.499999) / ratio)
            h = min(max(h, height), max_h)
            if h < max_h:
                h = random.randint(h, max_h)
            w = int(round(h * ratio))
            if h - height < 2 or w - width < 2:
                continue
            y = random.randint(0, max(0, h - height))
            x = random.randint(0, max(0, w - width))
            out = label.copy()
            out[:, (1, 3)] = (out[:, (1, 3)] * width + x) / w
            out[:, (2, 4)] = (out[:, (2, 4)] * height + y) / h
            return x, y, w, h, out
        return ()


def CreateMultiRandCropAugmenter(  # noqa: N802 - MXNet's name
    min_object_covered: Any = 0.1,
    aspect_ratio_range: Any = (0.75, 1.33),
    area_range: Any = (0.05, 1.0),
    min_eject_coverage: Any = 0.3,
    max_attempts: Any = 50,
    skip_prob: float = 0,
) -> DetRandomSelectAug:
    """Helper function to create multiple random crop augmenters; each parameter may be a list,
    one value per augmenter (single values are repeated)."""
    params = [min_object_covered, aspect_ratio_range, area_range, min_eject_coverage, max_attempts]
    params = [p if isinstance(p, list) else [p] for p in params]
    num = max(len(p) for p in params)
    for p in params:
        if len(p) not in (1, num):
            raise ParamError("CreateMultiRandCropAugmenter: list arguments must have equal lengths")
    params = [p * num if len(p) == 1 else p for p in params]
    augs = [
        DetRandomCropAug(
            min_object_covered=moc,
            aspect_ratio_range=arr,
            area_range=ar,
            min_eject_coverage=mec,
            max_attempts=ma,
        )
        for moc, arr, ar, mec, ma in zip(*params)
    ]
    return DetRandomSelectAug(augs, skip_prob=skip_prob)


def CreateDetAugmenter(  # noqa: N802 - MXNet's name
    data_shape: tuple,
    resize: int = 0,
    rand_crop: float = 0,
    rand_pad: float = 0,
    rand_gray: float = 0,
    rand_mirror: bool = False,
    mean: Any = None,
    std: Any = None,
    brightness: float = 0,
    contrast: float = 0,
    saturation: float = 0,
    pca_noise: float = 0,
    hue: float = 0,
    inter_method: int = 2,
    min_object_covered: Any = 0.1,
    aspect_ratio_range: Any = (0.75, 1.33),
    area_range: Any = (0.05, 3.0),
    min_eject_coverage: Any = 0.3,
    max_attempts: Any = 50,
    pad_val: Any = (127, 127, 127),
) -> list:
    """Create augmenters for detection; the parameters are those of ``CreateAugmenter`` plus
    ``rand_crop``/``rand_pad`` (probabilities) and the constraints of ``DetRandomCropAug`` and
    ``DetRandomPadAug``."""
    auglist: list = []
    if resize > 0:
        auglist.append(DetBorrowAug(ResizeAug(resize, inter_method)))
    if rand_crop > 0:
        auglist.append(
            CreateMultiRandCropAugmenter(
                min_object_covered,
                aspect_ratio_range,
                area_range,
                min_eject_coverage,
                max_attempts,
                skip_prob=(1 - rand_crop),
            )
        )
    if rand_mirror > 0:
        auglist.append(DetHorizontalFlipAug(0.5))
    if rand_pad > 0:
        pad_aug = DetRandomPadAug(aspect_ratio_range, (1.0, area_range[1]), max_attempts, pad_val)
        auglist.append(DetRandomSelectAug([pad_aug], 1 - rand_pad))
    auglist.append(DetBorrowAug(ForceResizeAug((data_shape[2], data_shape[1]), inter_method)))
    auglist.append(DetBorrowAug(CastAug()))
    if brightness or contrast or saturation:
        auglist.append(DetBorrowAug(ColorJitterAug(brightness, contrast, saturation)))
    if hue:
        auglist.append(DetBorrowAug(HueJitterAug(hue)))
    if pca_noise > 0:
        eigval = np.array([55.46, 4.794, 1.148])
        eigvec = np.array(
            [[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]]
        )
        auglist.append(DetBorrowAug(LightingAug(pca_noise, eigval, eigvec)))
    if rand_gray > 0:
        auglist.append(DetBorrowAug(RandomGrayAug(rand_gray)))
    if mean is True:
        mean = np.array([123.68, 116.28, 103.53])
    if std is True:
        std = np.array([58.395, 57.12, 57.375])
    if mean is not None or std is not None:
        auglist.append(DetBorrowAug(ColorNormalizeAug(mean, std)))
    return auglist
