"""Gluon parameters (``mx.gluon.parameter``): ``Parameter``, ``Constant``, ``ParameterDict`` and
``DeferredInitializationError``, as MXNet 1.9.1's module holds them (they are defined in
``parameter_core.py`` and ``parameter_dict.py``)."""

from .parameter_core import Constant as Constant
from .parameter_core import DeferredInitializationError as DeferredInitializationError
from .parameter_core import GluonCheckError as GluonCheckError
from .parameter_core import Parameter as Parameter
from .parameter_core import shape_is_known as shape_is_known
from .parameter_core import tensor_types as tensor_types
from .parameter_dict import ParameterDict as ParameterDict

__all__ = [
    "DeferredInitializationError",
    "Parameter",
    "Constant",
    "ParameterDict",
    "tensor_types",
]
