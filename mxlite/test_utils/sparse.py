"""Random sparse arrays for tests, as MXNet 1.9.1's ``mx.test_utils`` makes them.

``rand_sparse_ndarray`` draws a CSR matrix (uniform, through ``scipy.sparse.rand``, or
"powerlaw": each row holds about twice the stored values of the one before) or a row-sparse
array (each row kept with probability ``density``), and returns it with its parts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import MXNetError

__all__ = [
    "rand_sparse_ndarray",
    "create_sparse_array",
    "create_sparse_array_zd",
    "shuffle_csr_column_indices",
]


def _nd() -> Any:
    from .. import ndarray

    return ndarray


def _check_csr_args(rows: int, cols: int, density: float, distribution: str) -> None:
    if not 0 <= density <= 1:
        raise ValueError("density has to be between 0 and 1")
    if rows <= 0 or cols <= 0:
        raise ValueError("num_rows or num_cols should be greater than 0")
    if distribution == "powerlaw" and int(rows * cols * density) < 2 * rows:
        raise ValueError(
            f"not supported for this density: {density} for this shape ({rows}, {cols}); "
            "keep num_rows * num_cols * density >= 2 * num_rows"
        )


def shuffle_csr_column_indices(csr: Any) -> None:
    """Shuffle the column indices within each row of a SciPy CSR matrix, in place."""
    for i in range(len(csr.indptr) - 1):
        lo, hi = csr.indptr[i], csr.indptr[i + 1]
        part = np.array(csr.indices[lo:hi])
        np.random.shuffle(part)
        csr.indices[lo:hi] = part


def _uniform_csr(rows, cols, density, dtype, data_init, shuffle):
    from ..operator.sparse.storage import scipy_sparse

    _check_csr_args(rows, cols, density, "uniform")
    m = scipy_sparse().rand(rows, cols, density, dtype=dtype, format="csr")
    if data_init is not None:
        m.data.fill(data_init)
    if shuffle:
        shuffle_csr_column_indices(m)
    return _nd().sparse.csr_matrix((m.data, m.indices, m.indptr), shape=(rows, cols), dtype=dtype)


def _powerlaw_csr(rows, cols, density, dtype):
    """Column 0 of every row first; then row r fills columns up to 2**(r+1) (whole rows once
    that reaches the width), until ``rows * cols * density`` values are stored."""
    _check_csr_args(rows, cols, density, "powerlaw")
    left = int(rows * cols * density)
    out = np.zeros((rows, cols), dtype=dtype)
    first = min(rows, left)
    out[:first, 0] = 1 + np.random.uniform(0.001, 2, size=first)
    left -= first
    width = 2
    for r in range(rows):
        if left <= 0:
            break
        limit = min(cols, width)
        if limit == cols and left > limit:
            out[r] = 1 + np.random.uniform(0.001, 2)
            left -= limit - 1
            continue
        n = min(limit - 1, left)
        out[r, 1 : 1 + n] = 1 + np.random.uniform(0.001, 2, size=n)
        left -= n
        width *= 2
    if left > 0:
        raise ValueError(f"not supported for this density: {density} for this shape "
                         f"({rows},{cols})")  # fmt: skip
    return _nd().array(out).tostype("csr")


def rand_sparse_ndarray(
    shape: Any,
    stype: str,
    density: float | None = None,
    dtype: Any = None,
    distribution: str | None = None,
    data_init: Any = None,
    rsp_indices: Any = None,
    modifier_func: Any = None,
    shuffle_csr_indices: bool = False,
    ctx: Any = None,
) -> tuple[Any, tuple]:
    """A random sparse NDArray and its parts: ``(arr, (values, indices))`` for row_sparse,
    ``(arr, (indptr, indices, data))`` for csr.

    Parameters
    ----------
    shape : tuple of int
    stype : {'csr', 'row_sparse'}
    density : float, optional
        The fraction of stored rows (row_sparse) or values (csr); random when None.
    dtype : numpy.dtype, optional
        Default: the default dtype (float32).
    distribution : {'uniform', 'powerlaw'}, optional
        'powerlaw' (csr only) doubles the stored values from row to row.
    data_init : float, optional
        A value for every stored element.
    rsp_indices : array, optional
        The rows to store (row_sparse).
    modifier_func : callable, optional
        Applied to every stored value (row_sparse).
    shuffle_csr_indices : bool, default False
        Leave each row's column indices in random order (csr).
    """
    from ..context import current_context

    ctx = ctx or current_context()
    density = np.random.rand() if density is None else density
    dtype = np.float32 if dtype is None else dtype
    distribution = distribution or "uniform"
    if stype == "row_sparse":
        if distribution != "uniform":
            raise MXNetError(f"rand_sparse_ndarray: distribution {distribution!r} is not "
                             "supported for row_sparse")  # fmt: skip
        if rsp_indices is not None:
            indices = np.asarray(rsp_indices)
        else:
            indices = np.argwhere(np.random.rand(shape[0]) < density).flatten()
        if indices.shape[0] == 0:
            arr = _nd().zeros(shape, stype="row_sparse", dtype=dtype, ctx=ctx)
            return arr, (np.array([], dtype=dtype), np.array([]))
        val = np.random.rand(indices.shape[0], *shape[1:]).astype(dtype)
        if data_init is not None:
            val.fill(data_init)
        if modifier_func is not None:
            val = np.vectorize(modifier_func, otypes=[np.float64])(val) if val.size else val
        arr = _nd().sparse.row_sparse_array((val, indices), shape=shape, dtype=dtype, ctx=ctx)
        return arr, (val, indices)
    if stype == "csr":
        if len(shape) != 2:
            raise MXNetError(f"rand_sparse_ndarray: a csr array is 2-D, got shape {shape}.")
        if distribution == "uniform":
            csr = _uniform_csr(shape[0], shape[1], density, dtype, data_init, shuffle_csr_indices)
        elif distribution == "powerlaw":
            csr = _powerlaw_csr(shape[0], shape[1], density, dtype)
        else:
            raise MXNetError(f"rand_sparse_ndarray: unknown distribution {distribution!r}.")
        csr = csr.as_in_context(ctx)
        return csr, (csr.indptr, csr.indices, csr.data)
    raise MXNetError(f"rand_sparse_ndarray: unknown storage type {stype!r}.")


def create_sparse_array(
    shape: Any,
    stype: str,
    data_init: Any = None,
    rsp_indices: Any = None,
    dtype: Any = None,
    modifier_func: Any = None,
    density: float = 0.5,
    shuffle_csr_indices: bool = False,
) -> Any:
    """A random sparse array; row-sparse indices given are sorted first."""
    if stype not in ("row_sparse", "csr"):
        raise AssertionError("Unknown storage type: " + str(stype))
    if stype == "row_sparse" and rsp_indices is not None:
        rsp_indices = np.sort(np.asarray(rsp_indices))
    arr, _ = rand_sparse_ndarray(
        shape, stype, density=density, data_init=data_init, dtype=dtype,
        rsp_indices=rsp_indices if stype == "row_sparse" else None,
        modifier_func=modifier_func,
        shuffle_csr_indices=shuffle_csr_indices if stype == "csr" else False,
    )  # fmt: skip
    return arr


def create_sparse_array_zd(
    shape: Any,
    stype: str,
    density: float,
    data_init: Any = None,
    rsp_indices: Any = None,
    dtype: Any = None,
    modifier_func: Any = None,
    shuffle_csr_indices: bool = False,
) -> Any:
    """Like :func:`create_sparse_array`; row-sparse arrays store only ``rsp_indices``."""
    if stype == "row_sparse":
        density = 0.0
    return create_sparse_array(shape, stype, data_init=data_init, rsp_indices=rsp_indices,
                               dtype=dtype, modifier_func=modifier_func, density=density,
                               shuffle_csr_indices=shuffle_csr_indices)  # fmt: skip
