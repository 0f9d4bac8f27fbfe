"""``mx.gluon.contrib``: experimental layers (``nn``) and recurrent cells (``rnn``)."""

from . import nn as nn
from . import rnn as rnn
