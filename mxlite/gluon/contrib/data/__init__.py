"""``mx.gluon.contrib.data``: the interval sampler (the WikiText datasets, which download
their corpus, are not in mxlite)."""

from .sampler import IntervalSampler as IntervalSampler
