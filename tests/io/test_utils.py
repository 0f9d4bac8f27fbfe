"""mxlite.io.utils: the batch cursor shared by CSVIter and LibSVMIter."""

from __future__ import annotations

from mxlite.io.utils import RoundBatchCursor


def _epoch(cursor: RoundBatchCursor) -> list[tuple[list[int], int]]:
    batches = []
    while (rows := cursor.next_rows()) is not None:
        batches.append((rows.tolist(), cursor.pad))
    cursor.reset()
    return batches


def test_round_batch_borrows_from_the_start_and_the_next_epoch_goes_on() -> None:
    cursor = RoundBatchCursor(5, 3)
    assert _epoch(cursor) == [([0, 1, 2], 0), ([3, 4, 0], 1)]
    assert _epoch(cursor) == [([1, 2, 3], 0), ([4, 0, 1], 2)]
    assert _epoch(cursor) == [([2, 3, 4], 0)]
    assert _epoch(cursor) == [([0, 1, 2], 0), ([3, 4, 0], 1)]


def test_without_round_batch_the_last_batch_is_short() -> None:
    cursor = RoundBatchCursor(5, 3, round_batch=False)
    assert _epoch(cursor) == [([0, 1, 2], 0), ([3, 4], 1)]
    assert _epoch(cursor) == [([0, 1, 2], 0), ([3, 4], 1)]
