"""``mx.mod``: the Module API (MXNet 1.9.1's ``mxnet.module``)."""

from ..base import NOT_YET as _NOT_YET
from ..base import absent_names as _absent_names
from .base_module import BaseModule as BaseModule
from .bucketing_module import BucketingModule as BucketingModule
from .executor_group import DataParallelExecutorGroup as DataParallelExecutorGroup
from .module import Module as Module
from .sequential_module import SequentialModule as SequentialModule

# MXNet's names here that mxlite lacks, and why (tests/test_mxnet_names.py)
__getattr__ = _absent_names(
    "mxnet.module",
    {
        "PythonLossModule": _NOT_YET,
        "PythonModule": _NOT_YET,
        "python_module": _NOT_YET,
    },
)
