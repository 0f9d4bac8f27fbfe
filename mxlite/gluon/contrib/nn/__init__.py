"""``mx.gluon.contrib.nn``: Concurrent, HybridConcurrent, Identity, SparseEmbedding,
SyncBatchNorm and the pixel shuffles."""

from .basic_layers import Concurrent as Concurrent
from .basic_layers import HybridConcurrent as HybridConcurrent
from .basic_layers import Identity as Identity
from .basic_layers import PixelShuffle1D as PixelShuffle1D
from .basic_layers import PixelShuffle2D as PixelShuffle2D
from .basic_layers import PixelShuffle3D as PixelShuffle3D
from .basic_layers import SparseEmbedding as SparseEmbedding
from .basic_layers import SyncBatchNorm as SyncBatchNorm
