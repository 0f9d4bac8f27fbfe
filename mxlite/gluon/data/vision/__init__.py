"""``gluon.data.vision``: the vision datasets and ``transforms``."""

from . import transforms as transforms
from .datasets import *  # noqa: F403
from .datasets import __all__ as __all__
