"""MXNet's contrib operators (``mx.nd.contrib.*`` / ``mx.sym.contrib.*``): detection and vision
operators, straight-through estimators, and the other ``_contrib_*`` entries."""

from . import batch_norm_relu as batch_norm_relu
from . import boolean_mask as boolean_mask
from . import bounding_box as bounding_box
from . import calibrate as calibrate
from . import deformable as deformable
from . import deformable_psroi as deformable_psroi
from . import dgl_graph as dgl_graph
from . import elemwise as elemwise
from . import fft as fft
from . import hawkes as hawkes
from . import mrcnn as mrcnn
from . import multi_lamb as multi_lamb
from . import multibox as multibox
from . import optimizer as optimizer
from . import proposal as proposal
from . import quantize as quantize
from . import quantized_layers as quantized_layers
from . import quantized_ops as quantized_ops
from . import reset_arrays as reset_arrays
from . import resize as resize
from . import roi as roi
from . import sync_batch_norm as sync_batch_norm
from . import tensor as tensor
