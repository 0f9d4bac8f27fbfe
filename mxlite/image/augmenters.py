"""``mx.image``'s augmenters and ``CreateAugmenter``.

An augmenter is a callable object that takes an image (``(h, w, c)``, an NDArray or a numpy
array) and returns the augmented image of the same kind; ``dumps()`` describes it as JSON, as
in MXNet. Random choices draw from Python's ``random`` and ``numpy.random`` exactly where
MXNet's do, so ``random.seed``/``np.random.seed`` make a run reproducible.

>>> import mxlite as mx
>>> augs = mx.image.CreateAugmenter((3, 4, 4), rand_mirror=True)
>>> [type(a).__name__ for a in augs]
['CenterCropAug', 'HorizontalFlipAug', 'CastAug']
"""

from __future__ import annotations

import json
import random
import warnings
from typing import Any

import numpy as np

from ..base import ParamError
from .image import (
    SIZE_CROP_PARAMS_DOC,
    _get_interp_method,
    _is_nd,
    center_crop,
    like,
    random_crop,
    random_size_crop,
    resize_np,
    resize_short,
    to_numpy,
)

__all__ = [
    "Augmenter",
    "SequentialAug",
    "ResizeAug",
    "ForceResizeAug",
    "RandomCropAug",
    "RandomSizedCropAug",
    "CenterCropAug",
    "RandomOrderAug",
    "BrightnessJitterAug",
    "ContrastJitterAug",
    "SaturationJitterAug",
    "HueJitterAug",
    "ColorJitterAug",
    "LightingAug",
    "ColorNormalizeAug",
    "RandomGrayAug",
    "HorizontalFlipAug",
    "CastAug",
    "CreateAugmenter",
]

_GRAY_COEF = np.array([0.299, 0.587, 0.114], dtype=np.float32)


def _float(src: Any) -> np.ndarray:
    arr = to_numpy(src)
    return arr if arr.dtype.kind == "f" else arr.astype(np.float32)


def _json_kwargs(kwargs: dict) -> dict:
    """``kwargs`` with arrays (NDArray or NumPy) turned into lists, as ``dumps`` writes them."""
    for k, v in kwargs.items():
        if _is_nd(v):
            v = v.asnumpy()
        if isinstance(v, np.ndarray):
            kwargs[k] = v.tolist()
    return kwargs


class Augmenter:
    """Image Augmenter base class"""

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = _json_kwargs(kwargs)

    def dumps(self) -> Any:
        """Saves the Augmenter to string

        Returns
        -------
        str
            JSON formatted string that describes the Augmenter.
        """
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, src: Any) -> Any:
        """Abstract implementation body"""
        raise NotImplementedError("Must override implementation.")


class _KeepArgs:
    """Mixin before Augmenter or DetAugmenter: the constructor's keyword arguments are also
    the augmenter's attributes."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        vars(self).update(kwargs)


class _ListAug(Augmenter):
    """SequentialAug and RandomOrderAug: a list ``ts`` of augmenters, dumped as a list."""

    def __init__(self, ts: list) -> None:
        super().__init__()
        self.ts = ts

    def dumps(self) -> Any:
        """Override the default to avoid duplicate dump."""
        return [self.__class__.__name__.lower(), [x.dumps() for x in self.ts]]


class SequentialAug(_ListAug):
    """Composing a sequential augmenter list.

    Parameters
    ----------
    ts : list of augmenters
        A series of augmenters to be applied in sequential order.
    """

    def __call__(self, src: Any) -> Any:
        """Augmenter body"""
        for aug in self.ts:
            src = aug(src)
        return src


class ResizeAug(_KeepArgs, Augmenter):
    """Make resize shorter edge to size augmenter.

    Parameters
    ----------
    size : int
        The length to be set for the shorter edge.
    interp : int, optional, default=2
        Interpolation method. See resize_short for details.
    """

    def __init__(self, size: int, interp: int = 2) -> None:
        super().__init__(size=size, interp=interp)

    def __call__(self, src: Any) -> Any:
        """Augmenter body"""
        return resize_short(src, self.size, self.interp)


class ForceResizeAug(_KeepArgs, Augmenter):
    """Force resize to size regardless of aspect ratio

    Parameters
    ----------
    size : tuple of (int, int)
        The desired size as in (width, height)
    interp : int, optional, default=2
        Interpolation method. See resize_short for details.
    """

    def __init__(self, size: tuple, interp: int = 2) -> None:
        super().__init__(size=size, interp=interp)

    def __call__(self, src: Any) -> Any:
        """Augmenter body"""
        sizes = (src.shape[0], src.shape[1], self.size[1], self.size[0])
        arr = resize_np(to_numpy(src), *self.size, _get_interp_method(self.interp, sizes))
        return like(src, arr)


class RandomCropAug(_KeepArgs, Augmenter):
    """Make random crop augmenter

    Parameters
    ----------
    size : tuple of (int, int)
        The size (width, height) to crop.
    interp : int, optional, default=2
        Interpolation method. See resize_short for details.
    """

    def __init__(self, size: tuple, interp: int = 2) -> None:
        super().__init__(size=size, interp=interp)

    def __call__(self, src: Any) -> Any:
        """Augmenter body"""
        return random_crop(src, self.size, self.interp)[0]


class RandomSizedCropAug(Augmenter):
    """Make random crop with random resizing and random aspect ratio jitter augmenter.

    Parameters
    ----------"""

    __doc__ = (__doc__ or "") + SIZE_CROP_PARAMS_DOC + "\n    "

    def __init__(
        self, size: tuple, area: Any, ratio: tuple, interp: int = 2, **kwargs: Any
    ) -> None:
        super().__init__(size=size, area=area, ratio=ratio, interp=interp)
        self.size = size
        if "min_area" in kwargs:
            warnings.warn(
                "`min_area` is deprecated. Please use `area` instead.", DeprecationWarning, 2
            )
            self.area = kwargs.pop("min_area")
        else:
            self.area = area
        self.ratio = ratio
        self.interp = interp
        if kwargs:
            raise ParamError(f"RandomSizedCropAug: unexpected keyword arguments {sorted(kwargs)}")

    def __call__(self, src: Any) -> Any:
        """Augmenter body"""
        return random_size_crop(src, self.size, self.area, self.ratio, self.interp)[0]


class CenterCropAug(_KeepArgs, Augmenter):
    """Make center crop augmenter.

    Parameters
    ----------
    size : list or tuple of int
        The desired output image size (width, height).
    interp : int, optional, default=2
        Interpolation method. See resize_short for details.
    """

    def __init__(self, size: tuple, interp: int = 2) -> None:
        super().__init__(size=size, interp=interp)

    def __call__(self, src: Any) -> Any:
        """Augmenter body"""
        return center_crop(src, self.size, self.interp)[0]


class RandomOrderAug(_ListAug):
    """Apply list of augmenters in random order

    Parameters
    ----------
    ts : list of augmenters
        A series of augmenters to be applied in random order
    """

    def __call__(self, src: Any) -> Any:
        """Augmenter body"""
        random.shuffle(self.ts)
        for t in self.ts:
            src = t(src)
        return src


class BrightnessJitterAug(_KeepArgs, Augmenter):
    """Random brightness jitter augmentation.

    Parameters
    ----------
    brightness : float
        The brightness jitter ratio range, [0, 1]
    """

    def __init__(self, brightness: float) -> None:
        super().__init__(brightness=brightness)

    def __call__(self, src: Any) -> Any:
        """Augmenter body"""
        alpha = 1.0 + random.uniform(-self.brightness, self.brightness)
        arr = _float(src)
        return like(src, (arr * alpha).astype(arr.dtype, copy=False))


class ContrastJitterAug(_KeepArgs, Augmenter):
    """Random contrast jitter augmentation.

    Parameters
    ----------
    contrast : float
        The contrast jitter ratio range, [0, 1]
    """

    def __init__(self, contrast: float) -> None:
        super().__init__(contrast=contrast)

    def __call__(self, src: Any) -> Any:
        """Augmenter body"""
        alpha = 1.0 + random.uniform(-self.contrast, self.contrast)
        arr = _float(src)
        gray = arr * _GRAY_COEF
        gray_mean = 3.0 * (1.0 - alpha) / gray.size * gray.sum(dtype=np.float32)
        return like(src, (arr * alpha + gray_mean).astype(arr.dtype, copy=False))


class SaturationJitterAug(_KeepArgs, Augmenter):
    """Random saturation jitter augmentation.

    Parameters
    ----------
    saturation : float
        The saturation jitter ratio range, [0, 1]
    """

    def __init__(self, saturation: float) -> None:
        super().__init__(saturation=saturation)

    def __call__(self, src: Any) -> Any:
        """Augmenter body"""
        alpha = 1.0 + random.uniform(-self.saturation, self.saturation)
        arr = _float(src)
        gray = (arr * _GRAY_COEF).sum(axis=2, keepdims=True) * (1.0 - alpha)
        return like(src, (arr * alpha + gray).astype(arr.dtype, copy=False))


class HueJitterAug(_KeepArgs, Augmenter):
    """Random hue jitter augmentation.

    Parameters
    ----------
    hue : float
        The hue jitter ratio range, [0, 1]
    """

    def __init__(self, hue: float) -> None:
        super().__init__(hue=hue)
        # RGB -> YIQ and back; the hue turn is a rotation in the IQ plane.
        self.tyiq = np.array(
            [[0.299, 0.587, 0.114], [0.596, -0.274, -0.321], [0.211, -0.523, 0.311]]
        )
        self.ityiq = np.array([[1.0, 0.956, 0.621], [1.0, -0.272, -0.647], [1.0, -1.107, 1.705]])

    def __call__(self, src: Any) -> Any:
        """Augmenter body"""
        alpha = random.uniform(-self.hue, self.hue)
        u = np.cos(alpha * np.pi)
        w = np.sin(alpha * np.pi)
        bt = np.array([[1.0, 0.0, 0.0], [0.0, u, -w], [0.0, w, u]])
        t = np.dot(np.dot(self.ityiq, bt), self.tyiq).T.astype(np.float32)
        arr = _float(src)
        return like(src, np.dot(arr, t).astype(arr.dtype, copy=False))


class ColorJitterAug(RandomOrderAug):
    """Apply random brightness, contrast and saturation jitter in random order.

    Parameters
    ----------
    brightness : float
        The brightness jitter ratio range, [0, 1]
    contrast : float
        The contrast jitter ratio range, [0, 1]
    saturation : float
        The saturation jitter ratio range, [0, 1]
    """

    def __init__(self, brightness: float, contrast: float, saturation: float) -> None:
        ts: list = []
        if brightness > 0:
            ts.append(BrightnessJitterAug(brightness))
        if contrast > 0:
            ts.append(ContrastJitterAug(contrast))
        if saturation > 0:
            ts.append(SaturationJitterAug(saturation))
        super().__init__(ts)


class LightingAug(_KeepArgs, Augmenter):
    """Add PCA based noise.

    Parameters
    ----------
    alphastd : float
        Noise level
    eigval : 3x1 np.array
        Eigen values
    eigvec : 3x3 np.array
        Eigen vectors
    """

    def __init__(self, alphastd: float, eigval: Any, eigvec: Any) -> None:
        super().__init__(alphastd=alphastd, eigval=eigval, eigvec=eigvec)

    def __call__(self, src: Any) -> Any:
        """Augmenter body"""
        alpha = np.random.normal(0, self.alphastd, size=(3,))
        rgb = np.dot(self.eigvec * alpha, self.eigval)
        arr = _float(src)
        return like(src, (arr + rgb).astype(arr.dtype, copy=False))


class ColorNormalizeAug(Augmenter):
    """Mean and std normalization.

    Parameters
    ----------
    mean : NDArray
        RGB mean to be subtracted
    std : NDArray
        RGB standard deviation to be divided
    """

    def __init__(self, mean: Any, std: Any) -> None:
        super().__init__(mean=mean, std=std)
        self.mean = None if mean is None else to_numpy(mean).astype(np.float32)
        self.std = None if std is None else to_numpy(std).astype(np.float32)

    def __call__(self, src: Any) -> Any:
        """Augmenter body"""
        arr = _float(src)
        if self.mean is not None:
            arr = arr - self.mean
        if self.std is not None:
            arr = arr / self.std
        return like(src, arr.astype(np.float32, copy=False))


class RandomGrayAug(_KeepArgs, Augmenter):
    """Randomly convert to gray image.

    Parameters
    ----------
    p : float
        Probability to convert to grayscale
    """

    def __init__(self, p: float) -> None:
        super().__init__(p=p)
        self.mat = np.array(
            [[0.21, 0.21, 0.21], [0.72, 0.72, 0.72], [0.07, 0.07, 0.07]], dtype=np.float32
        )

    def __call__(self, src: Any) -> Any:
        """Augmenter body"""
        if random.random() < self.p:
            arr = _float(src)
            src = like(src, np.dot(arr, self.mat).astype(arr.dtype, copy=False))
        return src


class HorizontalFlipAug(_KeepArgs, Augmenter):
    """Random horizontal flip.

    Parameters
    ----------
    p : float
        Probability to flip image horizontally
    """

    def __init__(self, p: float) -> None:
        super().__init__(p=p)

    def __call__(self, src: Any) -> Any:
        """Augmenter body"""
        if random.random() < self.p:
            src = like(src, np.ascontiguousarray(to_numpy(src)[:, ::-1]))
        return src


class CastAug(Augmenter):
    """Cast to float32"""

    def __init__(self, typ: str = "float32") -> None:
        super().__init__(type=typ)
        self.typ = typ

    def __call__(self, src: Any) -> Any:
        """Augmenter body"""
        return src.astype(self.typ)


def CreateAugmenter(  # noqa: N802 - MXNet's name
    data_shape: tuple,
    resize: int = 0,
    rand_crop: bool = False,
    rand_resize: bool = False,
    rand_mirror: bool = False,
    mean: Any = None,
    std: Any = None,
    brightness: float = 0,
    contrast: float = 0,
    saturation: float = 0,
    hue: float = 0,
    pca_noise: float = 0,
    rand_gray: float = 0,
    inter_method: int = 2,
) -> list:
    """Creates an augmenter list.

    Parameters
    ----------
    data_shape : tuple of int
        Shape for output data
    resize : int
        Resize shorter edge if larger than 0 at the begining
    rand_crop : bool
        Whether to enable random cropping other than center crop
    rand_resize : bool
        Whether to enable random sized cropping, require rand_crop to be enabled
    rand_gray : float
        [0, 1], probability to convert to grayscale for all channels, the number
        of channels will not be reduced to 1
    rand_mirror : bool
        Whether to apply horizontal flip to image with probability 0.5
    mean : np.ndarray or None
        Mean pixel values for [r, g, b]
    std : np.ndarray or None
        Standard deviations for [r, g, b]
    brightness : float
        Brightness jittering range (percent)
    contrast : float
        Contrast jittering range (percent)
    saturation : float
        Saturation jittering range (percent)
    hue : float
        Hue jittering range (percent)
    pca_noise : float
        Pca noise level (percent)
    inter_method : int, default=2(Bicubic)
        Interpolation method for all resizing operations (0-4, 9 auto, 10 random).

    Examples
    --------
    >>> # An example of creating multiple augmenters
    >>> augs = mx.image.CreateAugmenter(data_shape=(3, 300, 300), rand_mirror=True,
    ...    mean=True, brightness=0.125, contrast=0.125, rand_gray=0.05,
    ...    saturation=0.125, pca_noise=0.05, inter_method=10)
    """
    auglist: list = []
    if resize > 0:
        auglist.append(ResizeAug(resize, inter_method))
    crop_size = (data_shape[2], data_shape[1])
    if rand_resize:
        if not rand_crop:
            raise ParamError("CreateAugmenter: rand_resize=True needs rand_crop=True")
        auglist.append(RandomSizedCropAug(crop_size, 0.08, (3.0 / 4.0, 4.0 / 3.0), inter_method))
    elif rand_crop:
        auglist.append(RandomCropAug(crop_size, inter_method))
    else:
        auglist.append(CenterCropAug(crop_size, inter_method))
    if rand_mirror:
        auglist.append(HorizontalFlipAug(0.5))
    auglist.append(CastAug())
    if brightness or contrast or saturation:
        auglist.append(ColorJitterAug(brightness, contrast, saturation))
    if hue:
        auglist.append(HueJitterAug(hue))
    if pca_noise > 0:
        eigval = np.array([55.46, 4.794, 1.148])
        eigvec = np.array(
            [[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]]
        )
        auglist.append(LightingAug(pca_noise, eigval, eigvec))
    if rand_gray > 0:
        auglist.append(RandomGrayAug(rand_gray))
    if mean is True:
        mean = np.array([123.68, 116.28, 103.53])
    elif mean is not None:
        _check_channels("mean", mean)
    if std is True:
        std = np.array([58.395, 57.12, 57.375])
    elif std is not None:
        _check_channels("std", std)
    if mean is not None or std is not None:
        auglist.append(ColorNormalizeAug(mean, std))
    return auglist


def _check_channels(name: str, value: Any) -> None:
    if not (isinstance(value, np.ndarray) or _is_nd(value)) or value.shape[0] not in (1, 3):
        raise ParamError(
            f"CreateAugmenter: argument '{name}' must be True or an array of 1 or 3 values, "
            f"got {value!r}"
        )
