"""``mx.io``: data iterators (the DataIter protocol, NDArrayIter, CSVIter, LibSVMIter, ResizeIter,
PrefetchingIter)."""

from . import io as io
from . import utils as utils
from .csv_iter import CSVIter as CSVIter
from .io import DataBatch as DataBatch
from .io import DataDesc as DataDesc
from .io import DataIter as DataIter
from .io import PrefetchingIter as PrefetchingIter
from .io import ResizeIter as ResizeIter
from .libsvm_iter import LibSVMIter as LibSVMIter
from .ndarray_iter import NDArrayIter as NDArrayIter
from .utils import _getdata_by_idx as _getdata_by_idx
from .utils import _has_instance as _has_instance
from .utils import _init_data as _init_data
