"""``mx.gluon.contrib``: experimental layers (``nn``), recurrent cells (``rnn``) and the
``estimator`` training loop."""

from . import data as data
from . import estimator as estimator
from . import nn as nn
from . import rnn as rnn
