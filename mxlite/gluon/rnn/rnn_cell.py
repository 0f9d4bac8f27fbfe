"""``mx.gluon.rnn.rnn_cell``: every recurrent cell, where MXNet defines them (the cells live
in ``basic_cell`` and the containers and modifiers in ``container_cell``)."""

from ... import ndarray as _ndarray
from ... import symbol as _symbol
from .basic_cell import GRUCell as GRUCell
from .basic_cell import HybridRecurrentCell as HybridRecurrentCell
from .basic_cell import LSTMCell as LSTMCell
from .basic_cell import RecurrentCell as RecurrentCell
from .basic_cell import RNNCell as RNNCell
from .container_cell import BidirectionalCell as BidirectionalCell
from .container_cell import DropoutCell as DropoutCell
from .container_cell import HybridSequentialRNNCell as HybridSequentialRNNCell
from .container_cell import ModifierCell as ModifierCell
from .container_cell import ResidualCell as ResidualCell
from .container_cell import SequentialRNNCell as SequentialRNNCell
from .container_cell import ZoneoutCell as ZoneoutCell

# what a cell's inputs may be (MXNet's name, read by libraries' cells)
tensor_types = (_symbol.Symbol, _ndarray.NDArray)
