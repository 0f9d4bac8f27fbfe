"""``mx.gluon.contrib.rnn``: VariationalDropoutCell, LSTMPCell and the convolutional cells."""

from .conv_rnn_cell import Conv1DGRUCell as Conv1DGRUCell
from .conv_rnn_cell import Conv1DLSTMCell as Conv1DLSTMCell
from .conv_rnn_cell import Conv1DRNNCell as Conv1DRNNCell
from .conv_rnn_cell import Conv2DGRUCell as Conv2DGRUCell
from .conv_rnn_cell import Conv2DLSTMCell as Conv2DLSTMCell
from .conv_rnn_cell import Conv2DRNNCell as Conv2DRNNCell
from .conv_rnn_cell import Conv3DGRUCell as Conv3DGRUCell
from .conv_rnn_cell import Conv3DLSTMCell as Conv3DLSTMCell
from .conv_rnn_cell import Conv3DRNNCell as Conv3DRNNCell
from .rnn_cell import LSTMPCell as LSTMPCell
from .rnn_cell import VariationalDropoutCell as VariationalDropoutCell
