"""Optimizers (``mx.optimizer``), as MXNet 1.9.1: the registry, the Updater and every
optimizer MXNet ships (SGD, NAG, Adam, AdaGrad, AdaDelta, RMSProp, Adamax, Nadam, Ftrl, FTML,
Signum, LAMB, DCASGD, SGLD, ccSGD); ``contrib`` holds GroupAdaGrad."""

from ..base import NOT_YET as _NOT_YET
from ..base import absent_names as _absent_names
from . import contrib as contrib
from .adaptive import FTML as FTML
from .adaptive import AdaDelta as AdaDelta
from .adaptive import AdaGrad as AdaGrad
from .adaptive import Adam as Adam
from .adaptive import Adamax as Adamax
from .adaptive import Ftrl as Ftrl
from .adaptive import Nadam as Nadam
from .adaptive import RMSProp as RMSProp
from .optimizer import Optimizer as Optimizer
from .optimizer import Updater as Updater
from .optimizer import create as create
from .optimizer import get_updater as get_updater
from .optimizer import register as register
from .others import DCASGD as DCASGD
from .others import LAMB as LAMB
from .others import NAG as NAG
from .others import SGLD as SGLD
from .others import Signum as Signum
from .sgd import SGD as SGD
from .sgd import ccSGD as ccSGD

# MXNet's names here that mxlite lacks, and why (tests/test_mxnet_names.py)
__getattr__ = _absent_names(
    "mxnet.optimizer",
    {
        "LARS": _NOT_YET,
        "LBSGD": _NOT_YET,
        "Test": _NOT_YET,
    },
)
