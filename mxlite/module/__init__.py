"""``mx.mod``: the Module API (MXNet 1.9.1's ``mxnet.module``)."""

from . import python_module as python_module
from .base_module import BaseModule as BaseModule
from .bucketing_module import BucketingModule as BucketingModule
from .executor_group import DataParallelExecutorGroup as DataParallelExecutorGroup
from .module import Module as Module
from .python_module import PythonLossModule as PythonLossModule
from .python_module import PythonModule as PythonModule
from .sequential_module import SequentialModule as SequentialModule
