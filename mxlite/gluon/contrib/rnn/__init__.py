"""``mx.gluon.contrib.rnn``: VariationalDropoutCell and LSTMPCell."""

from .rnn_cell import LSTMPCell as LSTMPCell
from .rnn_cell import VariationalDropoutCell as VariationalDropoutCell
