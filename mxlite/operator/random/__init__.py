"""Random sampling operators: ``_random_*``, ``_random_*_like``, ``_sample_*``,
``_sample_multinomial`` and ``_shuffle``; every one draws from the device generator that
``mx.random.seed`` seeds (``ResourceRequest.RANDOM``)."""

from . import multinomial as multinomial
from . import sample as sample
