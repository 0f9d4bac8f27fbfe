"""``mx.io``: data iterators (the DataIter protocol, NDArrayIter, CSVIter, LibSVMIter,
ResizeIter, PrefetchingIter, ImageRecordIter and its uint8/int8/detection variants,
MNISTIter; MXDataIter, their common type, and the deprecated _v1 record iterators)."""

from . import io as io
from . import utils as utils
from .csv_iter import CSVIter as CSVIter
from .image_det_record_iter import ImageDetRecordIter as ImageDetRecordIter
from .image_record_iter import ImageRecordInt8Iter as ImageRecordInt8Iter
from .image_record_iter import ImageRecordIter as ImageRecordIter
from .image_record_iter import ImageRecordUInt8Iter as ImageRecordUInt8Iter
from .io import DataBatch as DataBatch
from .io import DataDesc as DataDesc
from .io import DataIter as DataIter
from .io import PrefetchingIter as PrefetchingIter
from .io import ResizeIter as ResizeIter
from .libsvm_iter import LibSVMIter as LibSVMIter
from .mnist_iter import MNISTIter as MNISTIter
from .mx_data_iter import ImageRecordIter_v1 as ImageRecordIter_v1
from .mx_data_iter import ImageRecordUInt8Iter_v1 as ImageRecordUInt8Iter_v1
from .mx_data_iter import MXDataIter as MXDataIter
from .ndarray_iter import NDArrayIter as NDArrayIter
from .utils import _getdata_by_idx as _getdata_by_idx
from .utils import _has_instance as _has_instance
from .utils import _init_data as _init_data
