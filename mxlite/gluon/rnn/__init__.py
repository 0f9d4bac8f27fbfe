"""``mx.gluon.rnn``: recurrent cells (one step at a time, ``unroll``) and the fused layers
``RNN``, ``LSTM`` and ``GRU`` (MXNet's ``RNN`` operator over the whole sequence)."""

from .rnn_cell import BidirectionalCell as BidirectionalCell
from .rnn_cell import DropoutCell as DropoutCell
from .rnn_cell import GRUCell as GRUCell
from .rnn_cell import HybridRecurrentCell as HybridRecurrentCell
from .rnn_cell import HybridSequentialRNNCell as HybridSequentialRNNCell
from .rnn_cell import LSTMCell as LSTMCell
from .rnn_cell import ModifierCell as ModifierCell
from .rnn_cell import RecurrentCell as RecurrentCell
from .rnn_cell import ResidualCell as ResidualCell
from .rnn_cell import RNNCell as RNNCell
from .rnn_cell import SequentialRNNCell as SequentialRNNCell
from .rnn_cell import ZoneoutCell as ZoneoutCell
from .rnn_layer import GRU as GRU
from .rnn_layer import LSTM as LSTM
from .rnn_layer import RNN as RNN
