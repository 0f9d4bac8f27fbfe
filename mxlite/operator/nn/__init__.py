"""Neural-network operators: convolution, pooling, normalisation, activations, embedding, ..."""

from . import activation as activation
from . import normalization as normalization
from . import dropout as dropout
