"""Tensor operators: element-wise, broadcast, reductions, shapes, indexing, linear algebra."""

from . import elemwise_binary as elemwise_binary
from . import ordering as ordering
from . import reduce as reduce
from . import shape as shape
from . import layout as layout
from . import dot as dot
from . import join as join
from . import elemwise_unary as elemwise_unary
from . import misc as misc
from . import gather as gather
from . import linalg as linalg
