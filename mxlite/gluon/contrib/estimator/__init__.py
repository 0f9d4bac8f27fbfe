"""``mx.gluon.contrib.estimator``: a training loop (``Estimator.fit``/``evaluate``) driven by
event handlers, with the per-batch work in a ``BatchProcessor``."""

from ....base import NOT_YET as _NOT_YET
from ....base import absent_names as _absent_names
from .batch_processor import BatchProcessor as BatchProcessor
from .estimator import Estimator as Estimator
from .event_handler import BatchBegin as BatchBegin
from .event_handler import BatchEnd as BatchEnd
from .event_handler import EarlyStoppingHandler as EarlyStoppingHandler
from .event_handler import EpochBegin as EpochBegin
from .event_handler import EpochEnd as EpochEnd
from .event_handler import GradientUpdateHandler as GradientUpdateHandler
from .event_handler import LoggingHandler as LoggingHandler
from .event_handler import MetricHandler as MetricHandler
from .event_handler import StoppingHandler as StoppingHandler
from .event_handler import TrainBegin as TrainBegin
from .event_handler import TrainEnd as TrainEnd
from .event_handler import ValidationHandler as ValidationHandler

# MXNet's names here that mxlite lacks, and why (tests/test_mxnet_names.py)
__getattr__ = _absent_names(
    "mxnet.gluon.contrib.estimator",
    {
        "CheckpointHandler": _NOT_YET,
    },
)
