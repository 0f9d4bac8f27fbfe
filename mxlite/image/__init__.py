"""``mx.image`` (also ``mx.img``): image decoding, augmentation and the Python image
iterators, with OpenCV (``mxlite[image]``) as the codec."""

# modules MXNet's package carries under these names
from .. import io as io
from .. import ndarray as nd
from .. import recordio as recordio
from ..numpy_extension import image as _npx_image
from ..util import is_np_array as is_np_array
from . import detection as det
from . import detection as detection
from . import image as image
from .augmenters import *  # noqa: F403
from .augmenters import __all__ as _aug_all
from .detection import *  # noqa: F403
from .detection import __all__ as _det_all
from .image import *  # noqa: F403
from .image import __all__ as _img_all
from .image_iter import ImageIter as ImageIter

__all__ = [*_img_all, *_aug_all, *_det_all, "ImageIter", "image", "detection", "det", "io", "nd",
           "recordio", "is_np_array"]  # fmt: skip
_npx_image.provide(__name__, {n: globals()[n] for n in __all__})  # mx.npx.image has them too
