"""``mx.gluon``: blocks, parameters, layers, losses and the Trainer, as MXNet 1.9.1's."""

from . import block as block
from . import data as data
from . import loss as loss
from . import model_zoo as model_zoo
from . import nn as nn
from . import parameter as parameter
from . import trainer as trainer
from . import utils as utils
from .block import Block as Block
from .block import HybridBlock as HybridBlock
from .block import SymbolBlock as SymbolBlock
from .parameter import Constant as Constant
from .parameter import DeferredInitializationError as DeferredInitializationError
from .parameter import Parameter as Parameter
from .parameter import ParameterDict as ParameterDict
from .parameter import tensor_types as tensor_types
from .trainer import Trainer as Trainer
