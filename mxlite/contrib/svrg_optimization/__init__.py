"""``mx.contrib.svrg_optimization``: stochastic variance-reduced gradient (SVRG) training for
Module: :class:`SVRGModule` and its helper optimizers."""

from . import svrg_module as svrg_module
from . import svrg_optimizer as svrg_optimizer
from .svrg_module import SVRGModule as SVRGModule

__all__ = ["SVRGModule", "svrg_module", "svrg_optimizer"]
