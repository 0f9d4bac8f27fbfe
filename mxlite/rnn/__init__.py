"""``mx.rnn``: MXNet 1.9.1's symbolic recurrent cells, bucketing iterator and checkpoints."""

# the names MXNet's mx.rnn carries from its modules' imports (its ``from .rnn import *``)
from .. import initializer as init  # noqa: F401  (MXNet's name for it here)
from .. import ndarray as ndarray
from .. import symbol as symbol
from ..io import DataBatch as DataBatch
from ..io import DataDesc as DataDesc
from ..io import DataIter as DataIter
from ..model import load_checkpoint as load_checkpoint
from ..model import save_checkpoint as save_checkpoint
from . import io as io
from . import rnn as rnn
from . import rnn_cell as rnn_cell
from .conv_cells import BaseConvRNNCell as BaseConvRNNCell
from .conv_cells import ConvGRUCell as ConvGRUCell
from .conv_cells import ConvLSTMCell as ConvLSTMCell
from .conv_cells import ConvRNNCell as ConvRNNCell
from .io import BucketSentenceIter as BucketSentenceIter
from .io import encode_sentences as encode_sentences
from .rnn import do_rnn_checkpoint as do_rnn_checkpoint
from .rnn import load_rnn_checkpoint as load_rnn_checkpoint
from .rnn import rnn_unroll as rnn_unroll
from .rnn import save_rnn_checkpoint as save_rnn_checkpoint
from .rnn_cell import BaseRNNCell as BaseRNNCell
from .rnn_cell import BidirectionalCell as BidirectionalCell
from .rnn_cell import DropoutCell as DropoutCell
from .rnn_cell import FusedRNNCell as FusedRNNCell
from .rnn_cell import GRUCell as GRUCell
from .rnn_cell import LSTMCell as LSTMCell
from .rnn_cell import ModifierCell as ModifierCell
from .rnn_cell import ResidualCell as ResidualCell
from .rnn_cell import RNNCell as RNNCell
from .rnn_cell import RNNParams as RNNParams
from .rnn_cell import SequentialRNNCell as SequentialRNNCell
from .rnn_cell import ZoneoutCell as ZoneoutCell
