"""Neural-network operators: convolution, pooling, normalisation, activations, embedding, ..."""

from . import activation as activation
from . import batch_norm_v1 as batch_norm_v1
from . import convolution as convolution
from . import correlation as correlation
from . import crop as crop
from . import ctc as ctc
from . import deconvolution as deconvolution
from . import dropout as dropout
from . import embedding as embedding
from . import fully_connected as fully_connected
from . import im2col as im2col
from . import local_norm as local_norm
from . import loss_output as loss_output
from . import normalization as normalization
from . import pooling as pooling
from . import rnn as rnn
from . import roi_pooling as roi_pooling
from . import sequence as sequence
from . import softmax as softmax
from . import spatial as spatial
from . import upsampling as upsampling
