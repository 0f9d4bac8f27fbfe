"""Samplers of ``gluon.contrib.data``."""

from __future__ import annotations

from collections.abc import Iterator

from ...data.sampler import Sampler

__all__ = ["IntervalSampler"]


class IntervalSampler(Sampler):
    """Samples elements from [0, length) at fixed intervals: ``0, k, 2k, ...``, then (with
    ``rollover``) ``1, 1+k, ...`` and so on until every index is used once.

    Parameters
    ----------
    length : int
        Length of the sequence.
    interval : int
        The number of items to skip between two samples.
    rollover : bool, default True
        Whether to start again from the first skipped item after reaching the end.
        If true, this sampler would start again from the first skipped item until all items
        are visited. Otherwise, iteration stops when end is reached and skipped items are
        ignored.

    Examples
    --------
    >>> list(IntervalSampler(13, interval=3))
    [0, 3, 6, 9, 12, 1, 4, 7, 10, 2, 5, 8, 11]
    >>> list(IntervalSampler(13, interval=3, rollover=False))
    [0, 3, 6, 9, 12]
    """

    def __init__(self, length: int, interval: int, rollover: bool = True) -> None:
        if interval >= length:
            raise ValueError(f"Interval {interval} must be smaller than length {length}")
        self._length = length
        self._interval = interval
        self._rollover = rollover

    def __iter__(self) -> Iterator[int]:
        for start in range(self._interval if self._rollover else 1):
            yield from range(start, self._length, self._interval)

    def __len__(self) -> int:
        return len(list(iter(self)))
