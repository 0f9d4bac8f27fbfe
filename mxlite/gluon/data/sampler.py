"""``gluon.data`` samplers: the order in which a ``DataLoader`` visits a dataset, and how it
groups indices into batches."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ...base import ParamError

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "FilterSampler", "BatchSampler"]


class Sampler:
    """Base class for samplers.

    All samplers should subclass `Sampler` and define `__iter__` and `__len__` methods.
    """

    def __iter__(self) -> Iterator:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """Samples elements from [start, start+length) sequentially.

    Parameters
    ----------
    length : int
        Length of the sequence.
    start : int, default is 0
        The start of the sequence index.
    """

    def __init__(self, length: int, start: int = 0) -> None:
        self._length = length
        self._start = start

    def __iter__(self) -> Iterator:
        return iter(range(self._start, self._start + self._length))

    def __len__(self) -> int:
        return self._length


class RandomSampler(Sampler):
    """Samples elements from [0, length) randomly without replacement (``numpy.random``).

    Parameters
    ----------
    length : int
        Length of the sequence.
    """

    def __init__(self, length: int) -> None:
        self._length = length

    def __iter__(self) -> Iterator:
        indices = np.arange(self._length)
        np.random.shuffle(indices)
        return iter(indices)

    def __len__(self) -> int:
        return self._length


class FilterSampler(Sampler):
    """Samples elements from a Dataset for which `fn` returns True.

    Parameters
    ----------
    fn : callable
        A callable function that takes a sample and returns a boolean
    dataset : Dataset
        The dataset to filter.
    """

    def __init__(self, fn: Any, dataset: Any) -> None:
        self._fn = fn
        self._dataset = dataset
        self._indices = [i for i, sample in enumerate(dataset) if fn(sample)]

    def __iter__(self) -> Iterator:
        return iter(self._indices)

    def __len__(self) -> int:
        return len(self._indices)


_LAST_BATCH = ("keep", "discard", "rollover")


class BatchSampler(Sampler):
    """Wraps over another `Sampler` and return mini-batches of samples.

    Parameters
    ----------
    sampler : Sampler
        The source Sampler.
    batch_size : int
        Size of mini-batch.
    last_batch : {'keep', 'discard', 'rollover'}
        Specifies how the last batch is handled if batch_size does not evenly
        divide sequence length.

        If 'keep', the last batch will be returned directly, but will contain
        less element than `batch_size` requires.

        If 'discard', the last batch will be discarded.

        If 'rollover', the remaining elements will be rolled over to the next
        iteration.

    Examples
    --------
    >>> sampler = mx.gluon.data.SequentialSampler(10)
    >>> batch_sampler = mx.gluon.data.BatchSampler(sampler, 3, 'keep')
    >>> list(batch_sampler)
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    """

    def __init__(self, sampler: Any, batch_size: int, last_batch: str = "keep") -> None:
        if last_batch not in _LAST_BATCH:
            raise ParamError(
                f"BatchSampler: last_batch must be one of 'keep', 'discard', or 'rollover', "
                f"but got {last_batch!r}"
            )
        if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise ParamError(f"BatchSampler: batch_size must be an int >= 1, got {batch_size!r}")
        self._sampler = sampler
        self._batch_size = int(batch_size)
        self._last_batch = last_batch
        self._prev: list = []

    def __iter__(self) -> Iterator:
        batch, self._prev = self._prev, []
        for i in self._sampler:
            batch.append(i)
            if len(batch) == self._batch_size:
                yield batch
                batch = []
        if batch:
            if self._last_batch == "keep":
                yield batch
            elif self._last_batch == "rollover":
                self._prev = batch

    def __len__(self) -> int:
        if self._last_batch == "keep":
            return (len(self._sampler) + self._batch_size - 1) // self._batch_size
        if self._last_batch == "discard":
            return len(self._sampler) // self._batch_size
        return (len(self._prev) + len(self._sampler)) // self._batch_size
