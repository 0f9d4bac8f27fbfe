"""``mx.gluon.contrib.estimator``: a training loop (``Estimator.fit``/``evaluate``) driven by
event handlers, with the per-batch work in a ``BatchProcessor``."""

from .batch_processor import BatchProcessor as BatchProcessor
from .estimator import Estimator as Estimator
from .event_handler import BatchBegin as BatchBegin
from .event_handler import BatchEnd as BatchEnd
from .event_handler import CheckpointHandler as CheckpointHandler
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
