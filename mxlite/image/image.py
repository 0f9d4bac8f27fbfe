"""``mx.image``'s functions: decoding (OpenCV), resizing, cropping, normalising, rotating.

OpenCV is the codec and the resampler, as in MXNet, so decoded pixels and resizes equal
MXNet's. It comes with the optional extra ``mxlite[image]`` and is imported on first use.
Images are ``(height, width, channels)`` arrays, RGB unless ``to_rgb=False``. Each function
takes an ``NDArray`` or a ``numpy.ndarray`` and returns the same kind; the pixel work runs
in OpenCV, which releases the GIL, so decoding threads run in parallel.
Random choices use Python's ``random`` and ``numpy.random``, as MXNet's do.

>>> import mxlite as mx, numpy as np
>>> mx.image.scale_down((640, 480), (720, 120))
(640, 106)
"""

from __future__ import annotations

import numbers
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from ..base import MXNetError, ParamError
from ..base import absent_names as _absent_names
from ..opencv import decode_bgr, require_cv2

__all__ = [
    "imread",
    "imdecode",
    "imresize",
    "scale_down",
    "copyMakeBorder",
    "resize_short",
    "fixed_crop",
    "random_crop",
    "center_crop",
    "color_normalize",
    "random_size_crop",
    "imrotate",
    "random_rotate",
]


def _is_nd(x: Any) -> bool:
    from ..ndarray import NDArray

    return isinstance(x, NDArray)


def to_numpy(x: Any) -> np.ndarray:
    """The pixels of ``x`` (an NDArray or anything NumPy takes) as a numpy array."""
    return x.asnumpy() if _is_nd(x) else np.asarray(x)


def like(src: Any, arr: np.ndarray, out: Any = None) -> Any:
    """``arr`` as the kind ``src`` is: an NDArray for an NDArray, else the numpy array."""
    if out is not None:
        out[:] = arr
        return out
    if not _is_nd(src):
        return arr
    return _nd(arr)


def _decode_rgb(func: str, data: Any, flag: int, to_rgb: bool) -> np.ndarray:
    """Decoded pixels, RGB(A) when ``to_rgb``: a reversed view of OpenCV's BGR(A), which the
    caller's copy into an NDArray makes contiguous."""
    img = decode_bgr(func, data, flag)
    if to_rgb and img.shape[2] == 3:
        return img[:, :, ::-1]
    if to_rgb and img.shape[2] == 4:
        return img[:, :, [2, 1, 0, 3]]
    return img


# The end of imread's and imdecode's docstrings
_DECODE_OUT_DOC = """
    out : NDArray, optional
        Output buffer. Use `None` for automatic allocation.

    Returns
    -------
    NDArray
        An `NDArray` containing the image (height, width, channels), uint8.
    """


def _decoded(img: np.ndarray, out: Any) -> Any:
    """The decoded ``img`` written into ``out``, or a new array when ``out`` is None."""
    if out is not None:
        out[:] = img
        return out
    return _nd(img)


def imread(filename: str, flag: int = 1, to_rgb: bool = True, out: Any = None) -> Any:
    """Read and decode an image to an NDArray.

    Parameters
    ----------
    filename : str
        Name of the image file to be loaded.
    flag : {0, 1}, default 1
        1 for three channel color output. 0 for grayscale output.
    to_rgb : bool, default True
        True for RGB formatted output (MXNet default). False for BGR formatted output."""
    try:
        with open(filename, "rb") as f:
            data = f.read()
    except OSError as exc:
        raise MXNetError(f"imread: cannot read image file {filename!r}: {exc.strerror}") from exc
    return _decoded(_decode_rgb(f"imread({filename!r})", data, flag, to_rgb), out)


imread.__doc__ = (imread.__doc__ or "") + _DECODE_OUT_DOC


def _nd(arr: np.ndarray) -> Any:
    """``arr`` as an NDArray, an ``mx.np.ndarray`` in NumPy mode (as MXNet's ``_npi`` image
    functions give)."""
    from ..util import is_np_array

    if is_np_array():
        from ..numpy import array as np_array

        return np_array(arr, dtype=arr.dtype)
    from ..ndarray import array

    return array(arr, dtype=arr.dtype)


def imdecode(buf: Any, flag: int = 1, to_rgb: bool = True, out: Any = None) -> Any:
    """Decode an image to an NDArray.

    Parameters
    ----------
    buf : str/bytes/bytearray or numpy.ndarray
        Binary image data as string or numpy ndarray.
    flag : int, optional, default=1
        1 for three channel color output. 0 for grayscale output.
    to_rgb : int, optional, default=True
        1 for RGB formatted output (MXNet default). 0 for BGR formatted output."""
    if _is_nd(buf):
        buf = buf.asnumpy().astype(np.uint8)
    elif not isinstance(buf, (bytes, bytearray, memoryview, np.ndarray)):
        raise ValueError(
            "imdecode: buf must be of type bytes, bytearray or numpy.ndarray, got "
            f"{type(buf).__name__}; convert a str to bytes first"
        )
    return _decoded(_decode_rgb("imdecode", buf, flag, to_rgb), out)


imdecode.__doc__ = (imdecode.__doc__ or "") + _DECODE_OUT_DOC


def imresize(src: Any, w: int, h: int, interp: int = 1, out: Any = None) -> Any:
    """Resize image with OpenCV.

    Parameters
    ----------
    src : NDArray
        source image (height, width, channels)
    w : int, required
        Width of resized image.
    h : int, required
        Height of resized image.
    interp : int, optional, default=1
        Interpolation method (0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos,
        9 cubic for enlarge / area for shrink / bilinear else, 10 random of 0-4).
    out : NDArray, optional
        The output NDArray to hold the result.

    Returns
    -------
    NDArray
        The resized image.
    """
    arr = to_numpy(src)
    return like(src, resize_np(arr, w, h, interp), out)


def resize_np(arr: np.ndarray, w: int, h: int, interp: int = 1) -> np.ndarray:
    """``cv2.resize`` of an ``(h, w, c)`` array, keeping the channel axis."""
    cv2 = require_cv2("imresize")
    if w <= 0 or h <= 0:
        raise ParamError(f"imresize: the new size must be positive, got w={w}, h={h}")
    interp = _get_interp_method(interp, (arr.shape[0], arr.shape[1], h, w))
    res = cv2.resize(np.ascontiguousarray(arr), (int(w), int(h)), interpolation=interp)
    if res.ndim == 2:
        res = res[:, :, None]
    return res


def scale_down(src_size: tuple, size: tuple) -> tuple[int, int]:
    """Scales down crop size if it's larger than image size.

    Parameters
    ----------
    src_size : tuple of int
        Size of the image in (width, height) format.
    size : tuple of int
        Size of the crop in (width, height) format.

    Returns
    -------
    tuple of int
        A tuple containing the scaled crop size in (width, height) format.
    """
    w, h = size
    sw, sh = src_size
    if sh < h:
        w, h = float(w * sh) / h, sh
    if sw < w:
        w, h = sw, float(h * sw) / w
    return int(w), int(h)


def copyMakeBorder(  # noqa: N802 - MXNet's name
    src: Any,
    top: int,
    bot: int,
    left: int,
    right: int,
    type: int = 0,  # noqa: A002 - MXNet's argument name
    value: float = 0.0,
    values: Any = (),
    out: Any = None,
) -> Any:
    """Pad image border with OpenCV.

    Parameters
    ----------
    src : NDArray
        source image
    top, bot, left, right : int, required
        Top, bottom, left and right margin.
    type : int, optional, default='0'
        Filling type (default=cv2.BORDER_CONSTANT).
    value : double, optional, default=0
        (Deprecated! Use ``values`` instead.) Fill with single value.
    values : tuple of <double>, optional, default=[]
        Fill with value(RGB[A] or gray), up to 4 channels.
    out : NDArray, optional
        The output NDArray to hold the result.
    """
    cv2 = require_cv2("copyMakeBorder")
    arr = to_numpy(src)
    fill = list(values) if len(values) else [value] * 4
    res = cv2.copyMakeBorder(arr, top, bot, left, right, type, value=fill)
    if res.ndim == 2:
        res = res[:, :, None]
    return like(src, res, out)


def _get_interp_method(interp: int, sizes: tuple = ()) -> int:
    """The OpenCV interpolation for ``interp`` (9 and 10 pick one from ``sizes``/at random).

    ``sizes`` is ``(old_height, old_width, new_height, new_width)``.
    """
    if interp == 9:
        if sizes:
            oh, ow, nh, nw = sizes
            if nh > oh and nw > ow:
                return 2
            if nh < oh and nw < ow:
                return 3
            return 1
        return 2
    if interp == 10:
        return random.randint(0, 4)
    if interp not in (0, 1, 2, 3, 4):
        raise ValueError(f"Unknown interp method {interp}")
    return interp


def resize_short(src: Any, size: int, interp: int = 2) -> Any:
    """Resizes shorter edge to size.

    Parameters
    ----------
    src : NDArray
        The original image.
    size : int
        The length to be set for the shorter edge.
    interp : int, optional, default=2
        Interpolation method used for resizing the image.

    Returns
    -------
    NDArray
        An 'NDArray' containing the resized image.
    """
    h, w = src.shape[:2]
    if h > w:
        new_h, new_w = size * h // w, size
    else:
        new_h, new_w = size, size * w // h
    return imresize(src, new_w, new_h, interp=_get_interp_method(interp, (h, w, new_h, new_w)))


def fixed_crop(
    src: Any, x0: int, y0: int, w: int, h: int, size: tuple | None = None, interp: int = 2
) -> Any:
    """Crop src at fixed location, and (optionally) resize it to size.

    Parameters
    ----------
    src : NDArray
        Input image
    x0 : int
        Left boundary of the cropping area
    y0 : int
        Top boundary of the cropping area
    w : int
        Width of the cropping area
    h : int
        Height of the cropping area
    size : tuple of (w, h)
        Optional, resize to new size after cropping
    interp : int, optional, default=2
        Interpolation method. See resize_short for details.

    Returns
    -------
    NDArray
        An `NDArray` containing the cropped image.
    """
    arr = to_numpy(src)
    out = arr[y0 : y0 + h, x0 : x0 + w]
    if size is not None and (w, h) != tuple(size):
        sizes = (h, w, size[1], size[0])
        out = resize_np(out, size[0], size[1], _get_interp_method(interp, sizes))
    return like(src, np.ascontiguousarray(out))


# The Returns section of random_crop and random_size_crop
_CROP_RETURNS_DOC = """

    Returns
    -------
    NDArray
        An `NDArray` containing the cropped image.
    Tuple
        A tuple (x, y, width, height) where (x, y) is top-left position of the crop in the
        original image and (width, height) are the dimensions of the cropped image.
    """


def _scaled_crop(
    src: Any, size: tuple, interp: int, corner: Callable[[int, int], tuple[int, int]]
) -> tuple[Any, tuple]:
    """random_crop and center_crop: the largest box of ``size``'s aspect ratio that fits, with
    its top-left corner at ``corner(room_x, room_y)``, resized to ``size``."""
    h, w = src.shape[:2]
    new_w, new_h = scale_down((w, h), size)
    x0, y0 = corner(w - new_w, h - new_h)
    out = fixed_crop(src, x0, y0, new_w, new_h, size, interp)
    return out, (x0, y0, new_w, new_h)


def random_crop(src: Any, size: tuple, interp: int = 2) -> tuple[Any, tuple]:
    """Randomly crop `src` with `size` (width, height); upsample the result if `src` is smaller."""
    return _scaled_crop(
        src, size, interp, lambda dx, dy: (random.randint(0, dx), random.randint(0, dy))
    )


random_crop.__doc__ = (random_crop.__doc__ or "") + _CROP_RETURNS_DOC


def center_crop(src: Any, size: tuple, interp: int = 2) -> tuple[Any, tuple]:
    """Crops the image `src` to the given `size` (width, height) by trimming on all four sides
    and preserving the center of the image; upsamples if `src` is smaller than `size`.

    Returns
    -------
    NDArray
        The cropped image.
    Tuple
        (x, y, width, height) where x, y are the positions of the crop in the original image
        and width, height the dimensions of the crop.
    """
    return _scaled_crop(src, size, interp, lambda dx, dy: (int(dx / 2), int(dy / 2)))


def color_normalize(src: Any, mean: Any, std: Any = None) -> Any:
    """Normalize src with mean and std.

    Parameters
    ----------
    src : NDArray
        Input image
    mean : NDArray
        RGB mean to be subtracted
    std : NDArray
        RGB standard deviation to be divided

    Returns
    -------
    NDArray
        An `NDArray` containing the normalized image.
    """
    if mean is not None:
        src = src - mean
    if std is not None:
        src = src / std
    return src


# random_size_crop's parameters, which RandomSizedCropAug takes too
SIZE_CROP_PARAMS_DOC = """
    size : tuple of (int, int)
        Size of the crop formatted as (width, height).
    area : float in (0, 1] or tuple of (float, float)
        If tuple, minimum area and maximum area to be maintained after cropping
        If float, minimum area to be maintained after cropping, maximum area is set to 1.0
    ratio : tuple of (float, float)
        Aspect ratio range as (min_aspect_ratio, max_aspect_ratio)
    interp: int, optional, default=2
        Interpolation method. See resize_short for details."""


def random_size_crop(
    src: Any, size: tuple, area: Any, ratio: tuple, interp: int = 2, **kwargs: Any
) -> tuple[Any, tuple]:
    """Randomly crop src with size. Randomize area and aspect ratio.

    Parameters
    ----------
    src : NDArray
        Input image"""
    h, w = src.shape[:2]
    src_area = h * w
    if "min_area" in kwargs:
        area = kwargs.pop("min_area")
    if kwargs:
        raise ParamError(f"random_size_crop: unexpected arguments {sorted(kwargs)}")
    if isinstance(area, numbers.Number):
        area = (area, 1.0)
    for _ in range(10):
        target_area = random.uniform(area[0], area[1]) * src_area
        log_ratio = (np.log(ratio[0]), np.log(ratio[1]))
        new_ratio = np.exp(random.uniform(*log_ratio))
        new_w = int(round(np.sqrt(target_area * new_ratio)))
        new_h = int(round(np.sqrt(target_area / new_ratio)))
        if new_w <= w and new_h <= h:
            x0 = random.randint(0, w - new_w)
            y0 = random.randint(0, h - new_h)
            out = fixed_crop(src, x0, y0, new_w, new_h, size, interp)
            return out, (x0, y0, new_w, new_h)
    return center_crop(src, size, interp)


random_size_crop.__doc__ = (
    (random_size_crop.__doc__ or "") + SIZE_CROP_PARAMS_DOC + _CROP_RETURNS_DOC
)


def imrotate(src: Any, rotation_degrees: Any, zoom_in: bool = False, zoom_out: bool = False) -> Any:
    """Rotates the input image(s) of a specific rotation degree.

    Parameters
    ----------
    src : NDArray
        Input image (format CHW) or batch of images (format NCHW), float32.
    rotation_degrees: scalar or NDArray
        Wanted rotation in degrees. A scalar for a single image, otherwise a mono-dimensional
        vector of angles or a scalar.
    zoom_in: bool
        If True input image(s) will be zoomed in a way so that no padding
        will be shown in the output result.
    zoom_out: bool
        If True input image(s) will be zoomed in a way so that the whole
        original image will be contained in the output result.

    Returns
    -------
    NDArray
        An `NDArray` containing the rotated image(s).
    """
    from .. import ndarray as nd

    if zoom_in and zoom_out:
        raise ValueError("imrotate: `zoom_in` and `zoom_out` cannot be both True")
    if src.dtype is not np.float32 and np.dtype(src.dtype) != np.float32:
        raise TypeError("imrotate: only `float32` images are supported")
    expanded = False
    if src.ndim == 3:
        expanded = True
        src = src.expand_dims(axis=0)
        if not isinstance(rotation_degrees, numbers.Number):
            raise TypeError("imrotate: a single image needs a scalar rotation angle")
    elif src.ndim != 4:
        raise ValueError("imrotate: only 3D and 4D images are supported")
    n, _, h, w = src.shape
    if isinstance(rotation_degrees, numbers.Number):
        angles = np.full((n,), rotation_degrees, dtype=np.float32)
    else:
        angles = to_numpy(rotation_degrees).astype(np.float32).reshape(-1)
    if len(angles) != n:
        raise ValueError("imrotate: the number of images must equal the number of angles")
    rad = (np.pi * angles / 180).astype(np.float32)[:, None, None]
    hscale, wscale = float(h - 1) / 2, float(w - 1) / 2
    hm = (np.arange(h, dtype=np.float32)[:, None] - hscale) * np.ones((1, w), np.float32)
    wm = (np.arange(w, dtype=np.float32)[None, :] - wscale) * np.ones((h, 1), np.float32)
    c, s = np.cos(rad), np.sin(rad)
    w_rot = (wm * c - hm * s) / wscale
    h_rot = (wm * s + hm * c) / hscale
    scale: Any = np.float32(1)
    if zoom_in or zoom_out:
        hf, wf = np.float32(h), np.float32(w)
        rho = np.sqrt(hf * hf + wf * wf)
        ang = np.arctan(hf / wf)
        a = np.abs(rad)
        max_x = np.maximum(np.abs(rho * np.cos(ang + a)), np.abs(rho * np.cos(ang - a)))
        max_y = np.maximum(np.abs(rho * np.sin(ang + a)), np.abs(rho * np.sin(ang - a)))
        if zoom_out:
            scale = np.maximum(max_x / wf, max_y / hf)
        else:
            scale = np.minimum(wf / max_x, hf / max_y)
        scale = scale[:, None]
    grid = np.stack([w_rot, h_rot], axis=1).astype(np.float32) * scale
    out = nd.BilinearSampler(src, nd.array(grid.astype(np.float32), ctx=src.context))
    return out[0] if expanded else out


def random_rotate(
    src: Any, angle_limits: tuple, zoom_in: bool = False, zoom_out: bool = False
) -> Any:
    """Random rotates `src` by an angle included in angle limits.

    Parameters
    ----------
    src : NDArray
        Input image (format CHW) or batch of images (format NCHW), float32.
    angle_limits: tuple
        Tuple of 2 elements containing the upper and lower limit for rotation angles in degree.
    zoom_in: bool
        If True input image(s) will be zoomed in a way so that no padding will be shown.
    zoom_out: bool
        If True input image(s) will be zoomed in a way so that the whole original image will be
        contained in the output result.

    Returns
    -------
    NDArray
        An `NDArray` containing the rotated image(s).
    """
    if src.ndim == 3:
        degrees: Any = np.random.uniform(*angle_limits)
    else:
        degrees = np.random.uniform(*angle_limits, size=src.shape[0])
    return imrotate(src, degrees, zoom_in=zoom_in, zoom_out=zoom_out)


# MXNet's image.py also defines the augmenters and ImageIter; here they have their files
__getattr__ = _absent_names(
    "mxnet.image.image",
    {},
    moved=("Augmenter", "BrightnessJitterAug", "CastAug", "CenterCropAug", "ColorJitterAug",
           "ColorNormalizeAug", "ContrastJitterAug", "CreateAugmenter", "ForceResizeAug",
           "HorizontalFlipAug", "HueJitterAug", "ImageIter", "LightingAug", "RandomCropAug",
           "RandomGrayAug", "RandomOrderAug", "RandomSizedCropAug", "ResizeAug",
           "SaturationJitterAug", "SequentialAug"),
    home="mxlite.image",
)  # fmt: skip
