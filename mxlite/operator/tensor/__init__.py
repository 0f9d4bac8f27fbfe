"""Tensor operators: element-wise, broadcast, reductions, shapes, indexing, linear algebra."""

from . import amp as amp
from . import dot as dot
from . import elemwise_binary as elemwise_binary
from . import elemwise_unary as elemwise_unary
from . import gather as gather
from . import join as join
from . import layout as layout
from . import linalg as linalg
from . import misc as misc
from . import ordering as ordering
from . import reduce as reduce
from . import shape as shape
