"""``gluon.data`` datasets: the ``Dataset`` protocol (``__getitem__``, ``__len__``) and its
lazy views (``transform``, ``transform_first``, ``filter``, ``shard``, ``take``, ``sample``),
``SimpleDataset``, ``ArrayDataset`` and ``RecordFileDataset``."""

from __future__ import annotations

import os
from typing import Any

from ... import recordio
from ...base import ParamError

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset"]


class Dataset:
    """Abstract dataset class. All datasets should have this interface.

    Subclasses need to override `__getitem__`, which returns the i-th
    element, and `__len__`, which returns the total number elements.

    .. note:: An mxnet or numpy array can be directly used as a dataset.
    """

    def __getitem__(self, idx: int) -> Any:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def filter(self, fn: Any) -> Dataset:
        """Returns a new dataset with samples filtered by the filter function `fn`.

        Parameters
        ----------
        fn : callable
            A filter function that takes a sample as input and returns a boolean.
        """
        from .sampler import FilterSampler

        return _SampledDataset(self, FilterSampler(fn, self))

    def shard(self, num_shards: int, index: int) -> Dataset:
        """Returns a new dataset includes only 1/num_shards of this dataset.

        The first ``len % num_shards`` shards hold one sample more than the others.

        Parameters
        ----------
        num_shards: int
            A int representing the number of data shards.
        index: int
            A int representing the index of the current shard.
        """
        if num_shards <= 0:
            raise ParamError(f"Dataset.shard: num_shards must be > 0, got {num_shards}")
        if not 0 <= index < num_shards:
            raise ParamError(f"Dataset.shard: index {index} out of bound for {num_shards} shards")
        from .sampler import SequentialSampler

        length = len(self)
        shard_len, rest = divmod(length, num_shards)
        start = shard_len * index + min(index, rest)
        end = start + shard_len + (index < rest)
        return _SampledDataset(self, SequentialSampler(end - start, start))

    def take(self, count: int | None) -> Dataset:
        """Returns a new dataset with at most `count` number of samples in it.

        Parameters
        ----------
        count : int or None
            A integer representing the number of elements of this dataset that
            should be taken to form the new dataset. If count is None, or if count
            is greater than the size of this dataset, the new dataset will contain
            all elements of this dataset.
        """
        if count is None or count > len(self):
            count = len(self)
        from .sampler import SequentialSampler

        return _SampledDataset(self, SequentialSampler(count))

    def sample(self, sampler: Any) -> Dataset:
        """Returns a new dataset with elements sampled by the sampler.

        Parameters
        ----------
        sampler : Sampler
            A Sampler that returns the indices of sampled elements.
        """
        from .sampler import Sampler

        if not isinstance(sampler, Sampler):
            raise TypeError(
                f"Invalid sampler type: {type(sampler)}. Expected gluon.data.Sampler instead."
            )
        return _SampledDataset(self, sampler)

    def transform(self, fn: Any, lazy: bool = True) -> Dataset:
        """Returns a new dataset with each sample transformed by the transformer function `fn`.

        Parameters
        ----------
        fn : callable
            A transformer function that takes a sample as input and
            returns the transformed sample.
        lazy : bool, default True
            If False, transforms all samples at once. Otherwise,
            transforms each sample on demand. Note that if `fn`
            is stochastic, you must set lazy to True or you will
            get the same result on all epochs.
        """
        trans = _LazyTransformDataset(self, fn)
        if lazy:
            return trans
        return SimpleDataset([trans[i] for i in range(len(trans))])

    def transform_first(self, fn: Any, lazy: bool = True) -> Dataset:
        """Returns a new dataset with the first element of each sample transformed by `fn`.

        This is mostly applicable when each sample contains two components
        - features and label, i.e., (X, y), and you only want to transform
        the first element X (i.e., the features) while keeping the label y unchanged.

        Parameters
        ----------
        fn : callable
            A transformer function that takes the first element of a sample
            as input and returns the transformed element.
        lazy : bool, default True
            If False, transforms all samples at once. Otherwise,
            transforms each sample on demand.
        """
        return self.transform(_TransformFirstClosure(fn), lazy)


class SimpleDataset(Dataset):
    """Simple Dataset wrapper for lists and arrays.

    Parameters
    ----------
    data : dataset-like object
        Any object that implements `len()` and `[]`.
    """

    def __init__(self, data: Any) -> None:
        self._data = data

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, idx: int) -> Any:
        return self._data[idx]


class _LazyTransformDataset(Dataset):
    """Lazily transformed dataset."""

    def __init__(self, data: Any, fn: Any) -> None:
        self._data = data
        self._fn = fn

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, idx: int) -> Any:
        item = self._data[idx]
        if isinstance(item, tuple):
            return self._fn(*item)
        return self._fn(item)


class _TransformFirstClosure:
    """Use callable object instead of nested function, it can be pickled."""

    def __init__(self, fn: Any) -> None:
        self._fn = fn

    def __call__(self, x: Any, *args: Any) -> Any:
        if args:
            return (self._fn(x),) + args
        return self._fn(x)


class _SampledDataset(Dataset):
    """Dataset with elements chosen by a sampler"""

    def __init__(self, dataset: Any, sampler: Any) -> None:
        self._dataset = dataset
        self._sampler = sampler
        self._indices = list(iter(sampler))

    def __len__(self) -> int:
        return len(self._sampler)

    def __getitem__(self, idx: int) -> Any:
        return self._dataset[self._indices[idx]]


class ArrayDataset(Dataset):
    """A dataset that combines multiple dataset-like objects, e.g.
    Datasets, lists, arrays, etc.

    The i-th sample is defined as `(x1[i], x2[i], ...)`.

    Parameters
    ----------
    *args : one or more dataset-like objects
        The data arrays.
    """

    def __init__(self, *args: Any) -> None:
        if not args:
            raise ParamError("ArrayDataset: needs at least 1 array")
        from ...ndarray import NDArray

        self._length = len(args[0])
        self._data = []
        for i, data in enumerate(args):
            if len(data) != self._length:
                raise ParamError(
                    f"ArrayDataset: all arrays must have the same length; array[0] has length "
                    f"{self._length} while array[{i}] has {len(data)}."
                )
            if isinstance(data, NDArray) and len(data.shape) == 1:
                data = data.asnumpy()
            self._data.append(data)

    def __getitem__(self, idx: int) -> Any:
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def __len__(self) -> int:
        return self._length


class RecordFileDataset(Dataset):
    """A dataset wrapping over a RecordIO (.rec) file.

    Each sample is a string representing the raw content of an record.

    Parameters
    ----------
    filename : str
        Path to rec file.
    """

    def __init__(self, filename: str) -> None:
        self.idx_file = os.path.splitext(filename)[0] + ".idx"
        self.filename = filename
        self._record = recordio.MXIndexedRecordIO(self.idx_file, self.filename, "r")

    def __getitem__(self, idx: int) -> bytes:
        return self._record.read_idx(self._record.keys[idx])

    def __len__(self) -> int:
        return len(self._record.keys)
