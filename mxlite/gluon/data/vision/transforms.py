"""``gluon.data.vision.transforms``: image transforms as Blocks, on ``mx.nd.image`` operators
(HybridBlocks, usable inside hybridized pipelines) and ``mx.image`` functions (Blocks)."""

from __future__ import annotations

import random
from numbers import Number
from typing import Any

import numpy as np

from .... import image
from ....util import is_np_array
from ...block import Block, HybridBlock
from ...nn import HybridSequential, Sequential

__all__ = [
    "Compose", "HybridCompose", "Cast", "ToTensor", "Normalize", "Rotate", "RandomRotation",
    "RandomResizedCrop", "CropResize", "CenterCrop", "Resize", "RandomFlipLeftRight",
    "RandomFlipTopBottom", "RandomBrightness", "RandomContrast", "RandomSaturation",
    "RandomHue", "RandomColorJitter", "RandomLighting", "RandomApply", "HybridRandomApply",
    "RandomGray",
]  # fmt: skip


def _ops(F: Any) -> Any:
    """The operator namespace of ``F`` for this mode: ``F.npx`` (np arrays) in NumPy mode."""
    return F.npx if is_np_array() else F


class Compose(Sequential):
    """Sequentially composes multiple transforms (runs of HybridBlocks are hybridized together).

    Parameters
    ----------
    transforms : list of transform Blocks.
        The list of transforms to be composed.

    Inputs:
        - **data**: input tensor with shape of the first transform Block requires.

    Outputs:
        - **out**: output tensor with shape of the last transform Block produces.
    """

    def __init__(self, transforms: list) -> None:
        super().__init__()
        run: list = []
        for t in [*transforms, None]:
            if isinstance(t, HybridBlock):
                run.append(t)
                continue
            if len(run) == 1:
                self.add(run[0])
            elif len(run) > 1:
                block = HybridSequential()
                for b in run:
                    block.add(b)
                block.hybridize()
                self.add(block)
            run = []
            if t is not None:
                self.add(t)


class HybridCompose(HybridSequential):
    """Sequentially composes multiple transforms, all of them HybridBlocks.

    Parameters
    ----------
    transforms : list of transform HybridBlocks.
        The list of transforms to be composed.
    """

    def __init__(self, transforms: list) -> None:
        super().__init__()
        for t in transforms:
            if not isinstance(t, HybridBlock):
                raise ValueError(f"HybridCompose: {t!r} is not a HybridBlock; use Compose.")
            self.add(t)
        self.hybridize()


class Cast(HybridBlock):
    """Cast inputs to a specific data type

    Parameters
    ----------
    dtype : str, default 'float32'
        The target data type, in string or `numpy.dtype`.
    """

    def __init__(self, dtype: Any = "float32") -> None:
        super().__init__()
        self._dtype = dtype

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return _ops(F).cast(x, self._dtype)


class ToTensor(HybridBlock):
    """Converts an image NDArray or batch of image NDArray to a tensor NDArray: (H x W x C) or
    (N x H x W x C) in [0, 255] to float32 (C x H x W) or (N x C x H x W) in [0, 1)."""

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return _ops(F).image.to_tensor(x)


class Normalize(HybridBlock):
    """Normalize a tensor of shape (C x H x W) or (N x C x H x W) with mean and standard
    deviation: ``output[i] = (input[i] - mean[i]) / std[i]`` per channel.

    Parameters
    ----------
    mean : float or tuple of floats
        The mean values.
    std : float or tuple of floats
        The standard deviation values.
    """

    def __init__(self, mean: Any = 0.0, std: Any = 1.0) -> None:
        super().__init__()
        self._mean = tuple(mean) if isinstance(mean, (list, tuple)) else (mean,)
        self._std = tuple(std) if isinstance(std, (list, tuple)) else (std,)

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return _ops(F).image.normalize(x, mean=self._mean, std=self._std)


def _float32_only(x: Any) -> None:
    if x.dtype is not np.float32 and np.dtype(x.dtype) != np.float32:
        raise TypeError(
            "This transformation only supports float32. Consider calling it after ToTensor"
        )


class Rotate(Block):
    """Rotate the input image by a given angle. Keeps the original image shape.

    Parameters
    ----------
    rotation_degrees : float32
        Desired rotation angle in degrees.
    zoom_in : bool
        Zoom in image so that no padding is present in final output.
    zoom_out : bool
        Zoom out image so that the entire original image is present in final output.
    """

    def __init__(self, rotation_degrees: float, zoom_in: bool = False, zoom_out: bool = False):
        super().__init__()
        self._args = (rotation_degrees, zoom_in, zoom_out)

    def forward(self, x: Any) -> Any:
        _float32_only(x)
        return image.imrotate(x, *self._args)


class RandomRotation(Block):
    """Random rotate the input image by a random angle in ``angle_limits``.

    Parameters
    ----------
    angle_limits : tuple
        Tuple of 2 elements containing the upper and lower limit for rotation angles in degree.
    zoom_in : bool
        Zoom in image so that no padding is present in final output.
    zoom_out : bool
        Zoom out image so that the entire original image is present in final output.
    rotate_with_proba : float32
        Probability of rotating the image.
    """

    def __init__(
        self,
        angle_limits: tuple,
        zoom_in: bool = False,
        zoom_out: bool = False,
        rotate_with_proba: float = 1.0,
    ) -> None:
        super().__init__()
        lower, upper = angle_limits
        if lower >= upper:
            raise ValueError("`angle_limits` must be an ordered tuple")
        if rotate_with_proba < 0 or rotate_with_proba > 1:
            raise ValueError("Probability of rotating the image should be between 0 and 1")
        self._args = (angle_limits, zoom_in, zoom_out)
        self._rotate_with_proba = rotate_with_proba

    def forward(self, x: Any) -> Any:
        if np.random.random() > self._rotate_with_proba:
            return x
        _float32_only(x)
        return image.random_rotate(x, *self._args)


class RandomResizedCrop(Block):
    """Crop the input image with random scale and aspect ratio, then resize it to ``size``.

    Parameters
    ----------
    size : int or tuple of (W, H)
        Size of the final output.
    scale : tuple of two floats
        The area of the crop relative to the input, drawn from this range.
    ratio : tuple of two floats
        The aspect ratio range of the crop.
    interpolation: int
        Interpolation method for resizing (OpenCV's codes).
    """

    def __init__(
        self,
        size: Any,
        scale: tuple = (0.08, 1.0),
        ratio: tuple = (3.0 / 4.0, 4.0 / 3.0),
        interpolation: int = 1,
    ) -> None:
        super().__init__()
        if isinstance(size, Number):
            size = (size, size)
        self._args = (size, scale, ratio, interpolation)

    def forward(self, x: Any) -> Any:
        return image.random_size_crop(x, *self._args)[0]


class CropResize(HybridBlock):
    """Crop the input image with and optionally resize it.

    Parameters
    ----------
    x : int
        Left boundary of the cropping area
    y : int
        Top boundary of the cropping area
    width : int
        Width of the cropping area
    height : int
        Height of the cropping area
    size : int or tuple of (w, h)
        Optional, resize to new size after cropping
    interpolation : int, optional
        Interpolation method for resizing (OpenCV's codes).
    """

    def __init__(
        self,
        x: int,
        y: int,
        width: int,
        height: int,
        size: Any = None,
        interpolation: int | None = None,
    ) -> None:
        super().__init__()
        self._x, self._y, self._width, self._height = x, y, width, height
        self._size = size
        self._interpolation = interpolation

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        out = _ops(F).image.crop(x, self._x, self._y, self._width, self._height)
        if self._size:
            interp = 1 if self._interpolation is None else self._interpolation
            out = _ops(F).image.resize(out, _size(self._size), False, interp)
        return out


class CenterCrop(Block):
    """Crops the image `src` to the given `size` by trimming on all four sides and preserving
    the center of the image. Upsamples if `src` is smaller than `size`.

    Parameters
    ----------
    size : int or tuple of (W, H)
        Size of output image.
    interpolation : int
        Interpolation method for resizing (OpenCV's codes).
    """

    def __init__(self, size: Any, interpolation: int = 1) -> None:
        super().__init__()
        if isinstance(size, Number):
            size = (size, size)
        self._args = (size, interpolation)

    def forward(self, x: Any) -> Any:
        return image.center_crop(x, *self._args)[0]


def _size(size: Any) -> tuple:
    return tuple(size) if isinstance(size, (list, tuple)) else (size,)


class Resize(HybridBlock):
    """Resize an image or a batch of image NDArray to the given size.

    Parameters
    ----------
    size : int or tuple of (W, H)
        Size of output image.
    keep_ratio : bool
        Whether to resize the short edge or both edges to `size`, if size is give as an integer.
    interpolation : int
        Interpolation method for resizing (OpenCV's codes).
    """

    def __init__(self, size: Any, keep_ratio: bool = False, interpolation: int = 1) -> None:
        super().__init__()
        self._keep = keep_ratio
        self._size = size
        self._interpolation = interpolation

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return _ops(F).image.resize(x, _size(self._size), self._keep, self._interpolation)


class RandomFlipLeftRight(HybridBlock):
    """Randomly flip the input image left to right with a probability of 0.5."""

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return _ops(F).image.random_flip_left_right(x)


class RandomFlipTopBottom(HybridBlock):
    """Randomly flip the input image top to bottom with a probability of 0.5."""

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return _ops(F).image.random_flip_top_bottom(x)


class _RandomFactor(HybridBlock):
    _op = ""

    def __init__(self, amount: float) -> None:
        super().__init__()
        self._args = (max(0, 1 - amount), 1 + amount)

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return getattr(F.image, self._op)(x, *self._args)


class RandomBrightness(_RandomFactor):
    """Randomly jitters image brightness with a factor chosen from
    ``[max(0, 1 - brightness), 1 + brightness]``.

    Parameters
    ----------
    brightness: float
        How much to jitter brightness.
    """

    _op = "random_brightness"

    def __init__(self, brightness: float) -> None:
        super().__init__(brightness)


class RandomContrast(_RandomFactor):
    """Randomly jitters image contrast with a factor chosen from
    ``[max(0, 1 - contrast), 1 + contrast]``.

    Parameters
    ----------
    contrast: float
        How much to jitter contrast.
    """

    _op = "random_contrast"

    def __init__(self, contrast: float) -> None:
        super().__init__(contrast)


class RandomSaturation(_RandomFactor):
    """Randomly jitters image saturation with a factor chosen from
    ``[max(0, 1 - saturation), 1 + saturation]``.

    Parameters
    ----------
    saturation: float
        How much to jitter saturation.
    """

    _op = "random_saturation"

    def __init__(self, saturation: float) -> None:
        super().__init__(saturation)


class RandomHue(_RandomFactor):
    """Randomly jitters image hue with a factor chosen from ``[max(0, 1 - hue), 1 + hue]``.

    Parameters
    ----------
    hue: float
        How much to jitter hue.
    """

    _op = "random_hue"

    def __init__(self, hue: float) -> None:
        super().__init__(hue)


class RandomColorJitter(HybridBlock):
    """Randomly jitters the brightness, contrast, saturation, and hue of an image.

    Parameters
    ----------
    brightness : float
        How much to jitter brightness.
    contrast : float
        How much to jitter contrast.
    saturation : float
        How much to jitter saturation.
    hue : float
        How much to jitter hue.
    """

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0) -> None:
        super().__init__()
        self._args = (brightness, contrast, saturation, hue)

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return _ops(F).image.random_color_jitter(x, *self._args)


class RandomLighting(HybridBlock):
    """Add AlexNet-style PCA-based noise to an image.

    Parameters
    ----------
    alpha : float
        Intensity of the image.
    """

    def __init__(self, alpha: float) -> None:
        super().__init__()
        self._alpha = alpha

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        return _ops(F).image.random_lighting(x, self._alpha)


class RandomGray(HybridBlock):
    """Randomly convert to gray image (the three channels all hold the grey level).

    Parameters
    ----------
    p : float
        Probability to convert to grayscale
    """

    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        self.p = p

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        if self.p < random.random():
            return x
        mat = F.reshape(F.array([0.299, 0.587, 0.114] * 3), shape=(3, 3)).T
        return _ops(F).cast(F.dot(_ops(F).cast(x, "float32"), mat), "uint8")


class RandomApply(Sequential):
    """Apply a list of transformations randomly given probability

    Parameters
    ----------
    transforms
        List of transformations.
    p : float
        Probability of applying the transformations.
    """

    def __init__(self, transforms: Any, p: float = 0.5) -> None:
        super().__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, x: Any) -> Any:
        if self.p < random.random():
            return x
        return self.transforms(x)


class HybridRandomApply(HybridSequential):
    """Apply a list of transformations randomly given probability

    Parameters
    ----------
    transforms
        List of transformations which must be HybridBlocks.
    p : float
        Probability of applying the transformations.
    """

    def __init__(self, transforms: Any, p: float = 0.5) -> None:
        super().__init__()
        if not isinstance(transforms, HybridBlock):
            raise ValueError("HybridRandomApply: argument 'transforms' must be a HybridBlock.")
        self.transforms = transforms
        self.p = p

    def hybrid_forward(self, F: Any, x: Any) -> Any:
        if self.p < random.random():
            return x
        return self.transforms(x)
