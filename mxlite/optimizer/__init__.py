"""Optimizers (``mx.optimizer``), as MXNet 1.9.1: the registry, the Updater and every
optimizer MXNet ships (SGD, NAG, Adam, AdaGrad, AdaDelta, RMSProp, Adamax, Nadam, Ftrl, FTML,
Signum, LAMB, DCASGD, SGLD, ccSGD, LARS, LBSGD and Test); ``contrib`` holds GroupAdaGrad."""

from . import contrib as contrib
from .adaptive import FTML as FTML
from .adaptive import AdaDelta as AdaDelta
from .adaptive import AdaGrad as AdaGrad
from .adaptive import Adam as Adam
from .adaptive import Adamax as Adamax
from .adaptive import Ftrl as Ftrl
from .adaptive import Nadam as Nadam
from .adaptive import RMSProp as RMSProp
from .large_batch import LARS as LARS
from .large_batch import LBSGD as LBSGD
from .large_batch import Test as Test
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
