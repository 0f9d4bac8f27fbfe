"""Row-sparse parameters of a Module held in its KVStore (``Module.prepare``, ``get_params``).

With ``update_on_kvstore``, ``update()`` changes only the store's copy of a row_sparse
parameter; ``prepare`` pulls the rows the next batch needs into the executors, and reading
the parameters pulls every row, as MXNet 1.9.1's Module does.
"""

from __future__ import annotations

import warnings
from typing import Any

from .. import ndarray as nd
from ..base import MXNetError

__all__ = ["pull_rows", "pull_all_rows"]


def pull_rows(kvstore: Any, on_store: bool, group: Any, data_batch: Any, row_id_fn: Any) -> None:
    """Pull the rows ``row_id_fn(data_batch)`` names (a dict of parameter name to row ids)
    into the executors' copies of those row_sparse parameters."""
    if not kvstore or not on_store:
        warnings.warn(
            "Parameters are not updated in the KVStore. No need to call sparse_row_id_fn.",
            stacklevel=3,
        )
        return
    row_ids = row_id_fn(data_batch)
    if not isinstance(row_ids, dict):
        raise MXNetError(
            "Module.prepare: sparse_row_id_fn must return a dict of parameter name to row ids, "
            f"got {type(row_ids).__name__}."
        )
    for name, rows in row_ids.items():
        idx = group.param_names.index(name)
        value = group.param_arrays[idx]
        if value[0].stype != "row_sparse":
            warnings.warn(
                f"{name}.stype is not 'row_sparse'. No need to perform row_sparse_pull.",
                stacklevel=3,
            )
        else:
            kvstore.row_sparse_pull(name, value, row_ids=rows, priority=-idx)


def pull_all_rows(kvstore: Any, params: dict) -> None:
    """Pull every row of the row_sparse parameters in ``params`` from the store."""
    for name, value in sorted(params.items()):
        if value.stype == "row_sparse":
            rows = nd.arange(0, value.shape[0], dtype="int64")
            kvstore.row_sparse_pull(name, value, row_ids=rows)
