"""The operator registry and every operator (``mx.operator`` holds the custom-op API)."""

from . import custom as custom
from . import image as image
from . import nn as nn
from . import optimizer_multi_ops as optimizer_multi_ops
from . import optimizer_ops as optimizer_ops
from . import random as random
from . import registry as registry
from . import tensor as tensor
from .custom import CustomOp as CustomOp
from .custom import CustomOpProp as CustomOpProp
from .custom import register as register
from .introspect import OperatorArguments as OperatorArguments
from .introspect import get_all_registered_operators as get_all_registered_operators
from .introspect import get_operator_arguments as get_operator_arguments
from .registry import OpContext as OpContext
from .registry import Operator as Operator
from .registry import OperatorProperty as OperatorProperty
from .req import OpReq as OpReq
from .simple_op import GradNeeds as GradNeeds
from .simple_op import simple_op as simple_op

# What ``from mxnet.operator import *`` gives in MXNet; without it the star import would also
# bind our subpackages (``random``, ``nn``, ...) over the caller's own modules.
__all__ = [
    "CustomOp",
    "CustomOpProp",
    "register",
    "OperatorArguments",
    "get_all_registered_operators",
    "get_operator_arguments",
]
