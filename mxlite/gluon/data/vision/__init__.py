"""``gluon.data.vision``: the vision datasets. (``vision.transforms`` are HybridBlocks and come
with Gluon's blocks.)"""

from .datasets import *  # noqa: F403
from .datasets import __all__ as __all__
