"""``gluon.data``: datasets, samplers and the DataLoader. Needs nothing of Gluon's blocks."""

from . import dataloader_v1 as _dataloader_v1  # noqa: F401  (registers the NDArray reducers)
from . import vision as vision
from .dataloader import DataLoader as DataLoader
from .dataset import ArrayDataset as ArrayDataset
from .dataset import Dataset as Dataset
from .dataset import RecordFileDataset as RecordFileDataset
from .dataset import SimpleDataset as SimpleDataset
from .sampler import BatchSampler as BatchSampler
from .sampler import FilterSampler as FilterSampler
from .sampler import RandomSampler as RandomSampler
from .sampler import Sampler as Sampler
from .sampler import SequentialSampler as SequentialSampler
