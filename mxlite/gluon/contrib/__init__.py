"""``mx.gluon.contrib``: experimental layers (``nn``, the deformable ``cnn``), recurrent cells
(``rnn``) and the ``estimator`` training loop."""

from . import cnn as cnn
from . import data as data
from . import estimator as estimator
from . import nn as nn
from . import rnn as rnn
