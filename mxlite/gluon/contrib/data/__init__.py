"""``mx.gluon.contrib.data``: the interval sampler (the WikiText datasets, which download
their corpus, are not in mxlite)."""

from ....base import NOT_YET as _NOT_YET
from ....base import absent_names as _absent_names
from .sampler import IntervalSampler as IntervalSampler

# MXNet's names here that mxlite lacks, and why (tests/test_mxnet_names.py)
__getattr__ = _absent_names(
    "mxnet.gluon.contrib.data",
    {
        "text": _NOT_YET,
    },
)
