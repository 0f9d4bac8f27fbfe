"""Neural-network operators: convolution, pooling, normalisation, activations, embedding, ..."""

from . import pooling as pooling
from . import activation as activation
from . import normalization as normalization
from . import dropout as dropout
from . import softmax as softmax
from . import loss_output as loss_output
from . import ctc as ctc
from . import upsampling as upsampling
from . import roi_pooling as roi_pooling
from . import embedding as embedding
from . import sequence as sequence
from . import crop as crop
from . import rnn as rnn
from . import fully_connected as fully_connected
from . import convolution as convolution
from . import deconvolution as deconvolution
from . import spatial as spatial
from . import correlation as correlation
from . import im2col as im2col
