"""Random sampling operators: ``_random_*``, ``_random_*_like``, ``_sample_*``,
``_sample_multinomial``, ``_sample_unique_zipfian`` and ``_shuffle``; every one draws from the
device generator that ``mx.random.seed`` seeds (``ResourceRequest.RANDOM``). Also the
deterministic densities of those distributions, ``_random_pdf_*``."""

from . import multinomial as multinomial
from . import pdf as pdf
from . import sample as sample
from . import unique_zipfian as unique_zipfian
