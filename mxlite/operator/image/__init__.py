"""The ``_image_*`` operators (``mx.nd.image``, ``mx.sym.image``): image tensors in HWC or NHWC
(``to_tensor`` turns them into CHW / NCHW floats, which ``normalize`` reads).

Design note
-----------
The deterministic operators (to_tensor, normalize, resize, crop, flips, adjust_lighting) are
array kernels; ``normalize`` and ``crop`` and the flips have MXNet's gradients. The random ones
draw their factors with ``numpy.random`` on the host, as ``mx.image``'s augmenters do (MXNet's
operators use the engine's generator: the draws differ, their distribution is the same).
Resizing goes through OpenCV (``mxlite[image]``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import Shape
from ...opencv import require_cv2
from ..param import Param, field
from ..registry import OpTest, register
from ..tensor.array_op import ArrayOp

__all__: list[str] = []

# ITU-R BT.601 luma (MXNet's and OpenCV's grey) and MXNet's AlexNet PCA lighting basis
_GREY = np.array([0.299, 0.587, 0.114], np.float32)
_EIGVAL = np.array([55.46, 4.794, 1.148], np.float32)
_EIGVEC = np.array(
    [[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140], [-0.5836, -0.6948, 0.4203]],
    np.float32,
)


def _check_image(op: ArrayOp, shape: Shape, chw: bool = False) -> None:
    if len(shape) not in (3, 4):
        layout = "(C, H, W) or (N, C, H, W)" if chw else "(H, W, C) or (N, H, W, C)"
        raise op.fail(f"the input must be {layout}, got shape {tuple(shape)}.")


class _ImageOp(ArrayOp):
    """One HWC/NHWC image input, output of the same shape unless ``out_shapes`` says."""

    differentiable = False

    def out_shapes(self, shape: Shape) -> list[Shape]:
        _check_image(self, shape)
        return [shape]


class _NoParam(Param):
    pass


@register("_image_to_tensor", aliases=("_npx__image_to_tensor",))
class ToTensorProp(_ImageOp):
    """(H, W, C) or (N, H, W, C) in [0, 255] to float32 (C, H, W) or (N, C, H, W) in [0, 1]."""

    param_class = _NoParam
    test = OpTest(shapes={"data": (4, 5, 3)}, grad=False)

    def out_shapes(self, shape: Shape) -> list[Shape]:
        _check_image(self, shape)
        return [(*shape[:-3], shape[-1], shape[-3], shape[-2])]

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None:
            return None
        return list(in_type), [np.dtype(np.float32)], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        x = ins[0].astype(np.float32) / 255.0
        return [xp.moveaxis(x, -1, -3)]


class NormalizeParam(Param):
    mean: tuple[float, ...] = field(default=(0.0, 0.0, 0.0, 0.0), doc="Mean of each channel.")
    std: tuple[float, ...] = field(default=(1.0, 1.0, 1.0, 1.0), doc="Std of each channel.")


@register("_image_normalize", aliases=("_npx__image_normalize",))
class NormalizeProp(ArrayOp):
    """(x - mean) / std per channel of a (C, H, W) or (N, C, H, W) tensor."""

    param_class = NormalizeParam
    test = OpTest(shapes={"data": (3, 4, 5)}, params={"mean": (0.1, 0.2, 0.3), "std": (1, 2, 3)})

    def out_shapes(self, shape: Shape) -> list[Shape]:
        _check_image(self, shape, chw=True)
        c = shape[-3]
        for name in ("mean", "std"):
            n = len(getattr(self.param, name))
            if n not in (1, c) and not (n == 4 and c < 4 and name in self._defaults()):
                raise self.fail(f"argument '{name}' has {n} values; the input has {c} channels.")
        return [shape]

    def _defaults(self) -> set:
        p = self.param
        return {n for n in ("mean", "std") if len(getattr(p, n)) == 4}

    def _stats(self, xp: Any, c: int, dtype: Any) -> tuple:
        def per_channel(v: tuple) -> Any:
            a = xp.asarray(v[:c] if len(v) >= c else v * c, dtype=dtype)
            return a.reshape(c, 1, 1)

        return per_channel(self.param.mean), per_channel(self.param.std)

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        mean, std = self._stats(xp, ins[0].shape[-3], ins[0].dtype)
        return [(ins[0] - mean) / std]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        _, std = self._stats(xp, ograds[0].shape[-3], ograds[0].dtype)
        return [ograds[0] / std]


class ResizeParam(Param):
    size: tuple[int, ...] = field(default=(), doc="Size of output image: (w, h) or one int.")
    keep_ratio: bool = field(default=False, doc="Keep the aspect ratio (size is the short edge).")
    interp: int = field(default=1, doc="Interpolation method (OpenCV's codes).")


def _resize_to(op: ArrayOp, h: int, w: int) -> tuple[int, int]:
    p = op.param
    size = tuple(p.size)
    if len(size) not in (1, 2) or any(s <= 0 for s in size):
        raise op.fail(f"argument 'size' must be one or two positive ints, got {size}.")
    if len(size) == 2:
        return size[1], size[0]
    if not p.keep_ratio:
        return size[0], size[0]
    if h > w:
        return int(size[0] * h / w), size[0]
    return size[0], int(size[0] * w / h)


@register("_image_resize", aliases=("_npx__image_resize",))
class ResizeProp(_ImageOp):
    """Resize an (H, W, C) or (N, H, W, C) image with OpenCV."""

    param_class = ResizeParam
    test = OpTest(shapes={"data": (4, 5, 3)}, params={"size": (3, 2)}, grad=False)

    def out_shapes(self, shape: Shape) -> list[Shape]:
        _check_image(self, shape)
        h, w = _resize_to(self, shape[-3], shape[-2])
        return [(*shape[:-3], h, w, shape[-1])]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        x = np.asarray(ins[0])
        h, w = _resize_to(self, x.shape[-3], x.shape[-2])
        if x.ndim == 3:
            return [xp.asarray(_resize(x, w, h, self.param.interp))]
        return [xp.asarray(np.stack([_resize(i, w, h, self.param.interp) for i in x]))]


def _resize(img: np.ndarray, w: int, h: int, interp: int) -> np.ndarray:
    """``cv2.resize`` of one (H, W, C) image; interp 0-4 are OpenCV's codes, 9 picks cubic to
    enlarge, area to shrink, and 10 one of 0-4 at random (as mx.image)."""
    cv2 = require_cv2("_image_resize")
    if interp == 9:
        oh, ow = img.shape[:2]
        interp = 2 if h > oh and w > ow else 3 if h < oh and w < ow else 1
    elif interp == 10:
        interp = int(np.random.randint(0, 5))
    out = cv2.resize(np.ascontiguousarray(img), (int(w), int(h)), interpolation=interp)
    return out[:, :, None] if out.ndim == 2 else out


class CropParam(Param):
    x: int = field(doc="Left boundary of the cropping area.")
    y: int = field(doc="Top boundary of the cropping area.")
    width: int = field(doc="Width of the cropping area.")
    height: int = field(doc="Height of the cropping area.")


@register("_image_crop", aliases=("_npx__image_crop",))
class CropProp(_ImageOp):
    """Crop an (H, W, C) or (N, H, W, C) image to ``[y, y+height) x [x, x+width)``."""

    param_class = CropParam
    differentiable = True
    test = OpTest(shapes={"data": (4, 5, 3)}, params={"x": 1, "y": 0, "width": 3, "height": 2})

    def out_shapes(self, shape: Shape) -> list[Shape]:
        _check_image(self, shape)
        p = self.param
        h, w = shape[-3], shape[-2]
        if p.x < 0 or p.y < 0 or p.width <= 0 or p.height <= 0:
            raise self.fail(f"the crop ({p.x}, {p.y}, {p.width}, {p.height}) must be positive.")
        if p.x + p.width > w or p.y + p.height > h:
            raise self.fail(
                f"the crop x={p.x}, y={p.y}, width={p.width}, height={p.height} falls outside "
                f"the image of height {h} and width {w}."
            )
        return [(*shape[:-3], p.height, p.width, shape[-1])]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        p = self.param
        return [ins[0][..., p.y : p.y + p.height, p.x : p.x + p.width, :]]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        p = self.param
        g = xp.zeros(in_shapes[0], ograds[0].dtype)
        g[..., p.y : p.y + p.height, p.x : p.x + p.width, :] = ograds[0]
        return [g]


class _FlipProp(_ImageOp):
    param_class = _NoParam
    differentiable = True
    axis = -2  # width
    random = False
    test = OpTest(shapes={"data": (4, 6, 3)})  # MXNet 1.9.1 flips odd widths wrongly on CPU

    def out_shapes(self, shape: Shape) -> list[Shape]:
        if len(shape) != 3:
            raise self.fail(f"the input must be (H, W, C), got shape {tuple(shape)}.")
        return [shape]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        if self.random and np.random.random() >= 0.5:
            self._flipped = False
            return [ins[0].copy()]
        self._flipped = True
        return [xp.flip(ins[0], axis=self.axis)]

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [xp.flip(ograds[0], axis=self.axis) if self._flipped else ograds[0]]


@register("_image_flip_left_right", aliases=("_npx__image_flip_left_right",))
class FlipLeftRightProp(_FlipProp):
    """Mirror an image horizontally."""


@register("_image_flip_top_bottom", aliases=("_npx__image_flip_top_bottom",))
class FlipTopBottomProp(_FlipProp):
    """Mirror an image vertically."""

    axis = -3


@register("_image_random_flip_left_right", aliases=("_npx__image_random_flip_left_right",))
class RandomFlipLeftRightProp(_FlipProp):
    """Mirror an image horizontally with probability 0.5."""

    random = True
    test = None


@register("_image_random_flip_top_bottom", aliases=("_npx__image_random_flip_top_bottom",))
class RandomFlipTopBottomProp(_FlipProp):
    """Mirror an image vertically with probability 0.5."""

    axis = -3
    random = True
    test = None


def _blend(x: Any, alpha: float, other: Any) -> Any:
    return x * alpha + other * (1 - alpha)


def _grey(x: Any) -> Any:
    return (x * _GREY).sum(axis=-1, keepdims=True)


def _brightness(x: Any, f: float) -> Any:
    return x * f


def _contrast(x: Any, f: float) -> Any:
    mean = _grey(x).mean(axis=(-3, -2), keepdims=True)
    return _blend(x, f, mean)


def _saturation(x: Any, f: float) -> Any:
    return _blend(x, f, _grey(x))


def _hue(x: Any, f: float) -> Any:
    # a turn of the hue by f * 360 degrees (MXNet turns it in HLS), as a rotation of the
    # chroma plane in YIQ space
    u, w = np.cos(f * 2 * np.pi), np.sin(f * 2 * np.pi)
    t_yiq = np.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.321], [0.211, -0.523, 0.311]])
    t_rgb = np.array([[1.0, 0.956, 0.621], [1.0, -0.272, -0.647], [1.0, -1.107, 1.705]])
    rot = np.array([[1.0, 0.0, 0.0], [0.0, u, -w], [0.0, w, u]])
    t = (t_rgb @ rot @ t_yiq).T.astype(np.float32)
    return x @ t


class _RandomFactorParam(Param):
    min_factor: float = field(doc="Minimum factor.")
    max_factor: float = field(doc="Maximum factor.")


class _RandomColorProp(_ImageOp):
    param_class = _RandomFactorParam
    kernel = staticmethod(_brightness)

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        f = np.random.uniform(self.param.min_factor, self.param.max_factor)
        x = ins[0].astype(np.float32)
        return [type(self).kernel(x, f).astype(ins[0].dtype)]


@register("_image_random_brightness", aliases=("_npx__image_random_brightness",))
class RandomBrightnessProp(_RandomColorProp):
    """Scale the brightness by a factor drawn from [min_factor, max_factor]."""


@register("_image_random_contrast", aliases=("_npx__image_random_contrast",))
class RandomContrastProp(_RandomColorProp):
    """Blend with the mean grey level by a factor drawn from [min_factor, max_factor]."""

    kernel = staticmethod(_contrast)


@register("_image_random_saturation", aliases=("_npx__image_random_saturation",))
class RandomSaturationProp(_RandomColorProp):
    """Blend with the grey image by a factor drawn from [min_factor, max_factor]."""

    kernel = staticmethod(_saturation)


@register("_image_random_hue", aliases=("_npx__image_random_hue",))
class RandomHueProp(_RandomColorProp):
    """Rotate the hue by a factor drawn from [min_factor, max_factor]."""

    kernel = staticmethod(_hue)


class ColorJitterParam(Param):
    brightness: float = field(default=0.0, doc="How much to jitter brightness.")
    contrast: float = field(default=0.0, doc="How much to jitter contrast.")
    saturation: float = field(default=0.0, doc="How much to jitter saturation.")
    hue: float = field(default=0.0, doc="How much to jitter hue.")


@register("_image_random_color_jitter", aliases=("_npx__image_random_color_jitter",))
class RandomColorJitterProp(_ImageOp):
    """Jitter brightness, contrast, saturation and hue, in a random order."""

    param_class = ColorJitterParam

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        p = self.param
        x = ins[0].astype(np.float32)
        steps = [
            (_brightness, p.brightness),
            (_contrast, p.contrast),
            (_saturation, p.saturation),
            (_hue, p.hue),
        ]
        for k in np.random.permutation(4):
            fn, amount = steps[k]
            if amount > 0:
                lo = -amount if fn is _hue else max(0.0, 1 - amount)
                hi = amount if fn is _hue else 1 + amount
                x = fn(x, np.random.uniform(lo, hi))
        return [x.astype(ins[0].dtype)]


class AdjustLightingParam(Param):
    alpha: tuple[float, ...] = field(doc="The lighting alphas for the R, G, B channels.")


def _lighting(x: Any, alpha: Any) -> Any:
    rgb = _EIGVEC @ (np.asarray(alpha, np.float32) * _EIGVAL)
    return x + rgb.astype(np.float32)


@register("_image_adjust_lighting", aliases=("_npx__image_adjust_lighting",))
class AdjustLightingProp(_ImageOp):
    """Add AlexNet-style PCA lighting noise with the given alphas."""

    param_class = AdjustLightingParam
    test = OpTest(shapes={"data": (4, 5, 3)}, params={"alpha": (0.1, 0.2, 0.3)}, grad=False)

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        x = ins[0].astype(np.float32)
        return [_lighting(x, self.param.alpha).astype(ins[0].dtype)]


class RandomLightingParam(Param):
    alpha_std: float = field(default=0.05, doc="Level of the lighting noise.")


@register("_image_random_lighting", aliases=("_npx__image_random_lighting",))
class RandomLightingProp(_ImageOp):
    """Add AlexNet-style PCA lighting noise with alphas drawn from N(0, alpha_std)."""

    param_class = RandomLightingParam

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        x = ins[0].astype(np.float32)
        alpha = np.random.normal(0, self.param.alpha_std, size=3)
        return [_lighting(x, alpha).astype(ins[0].dtype)]
