"""``mx.gluon.contrib.data``: the interval sampler and the WikiText language-modelling
datasets (``text``)."""

from . import text as text
from .sampler import IntervalSampler as IntervalSampler
