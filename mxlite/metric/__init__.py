"""Online evaluation metrics (``mx.metric``), as MXNet 1.9.1's.

``base.py`` holds ``EvalMetric`` (its note explains ``sum_metric``/``num_inst`` and the global
statistics), the registry, ``create``, ``CompositeEvalMetric``, ``CustomMetric`` and ``np``;
``classification.py`` and ``regression.py`` the concrete metrics.
"""

from .. import ndarray as ndarray  # MXNet's module imports it; libraries import it from here
from .base import CompositeEvalMetric as CompositeEvalMetric
from .base import CustomMetric as CustomMetric
from .base import EvalMetric as EvalMetric
from .base import alias as alias
from .base import check_label_shapes as check_label_shapes
from .base import create as create
from .base import np as np
from .base import register as register
from .classification import F1 as F1
from .classification import MCC as MCC
from .classification import PCC as PCC
from .classification import Accuracy as Accuracy
from .classification import TopKAccuracy as TopKAccuracy
from .regression import MAE as MAE
from .regression import MSE as MSE
from .regression import RMSE as RMSE
from .regression import Caffe as Caffe
from .regression import CrossEntropy as CrossEntropy
from .regression import Loss as Loss
from .regression import NegativeLogLikelihood as NegativeLogLikelihood
from .regression import PearsonCorrelation as PearsonCorrelation
from .regression import Perplexity as Perplexity
from .regression import Torch as Torch

__all__ = [
    "EvalMetric",
    "CompositeEvalMetric",
    "CustomMetric",
    "check_label_shapes",
    "create",
    "register",
    "alias",
    "np",
    "Accuracy",
    "TopKAccuracy",
    "F1",
    "MCC",
    "PCC",
    "Perplexity",
    "MAE",
    "MSE",
    "RMSE",
    "CrossEntropy",
    "NegativeLogLikelihood",
    "PearsonCorrelation",
    "Loss",
    "Torch",
    "Caffe",
]
