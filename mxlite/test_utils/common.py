"""The general helpers of ``mx.test_utils``: the test context and dtype, random shapes and
data, small tensors, ``retry``, ``environment`` and the platform probes MXNet's tests call.

Example::

    >>> import mxlite as mx
    >>> from mxlite.test_utils import rand_ndarray
    >>> rand_ndarray((2, 3)).shape
    (2, 3)
"""

from __future__ import annotations

import functools
import numbers
import os
import platform
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import numpy.random as rnd

from .. import ndarray as nd
from ..base import MXNetError, ParamError, ShapeError
from ..context import Context, current_context, num_gpus
from .sparse import create_sparse_array as create_sparse_array
from .sparse import create_sparse_array_zd as create_sparse_array_zd
from .sparse import rand_sparse_ndarray as rand_sparse_ndarray
from .sparse import shuffle_csr_column_indices as shuffle_csr_column_indices

# ---------------------------------------------------------------------------------------------
# Contexts and dtypes (tolerances and comparisons are in compare.py)


def default_context() -> Context:
    """Return the context tests run on: the current default context."""
    return current_context()


def set_default_context(ctx: Context) -> None:
    """Make ``ctx`` the default context of this thread (what :func:`default_context` returns)."""
    if not isinstance(ctx, Context):
        raise MXNetError(
            f"set_default_context: argument 'ctx' must be a Context, got {type(ctx).__name__}."
        )
    Context.default_ctx = ctx


def default_dtype() -> type:
    """Return the default dtype of test data: ``numpy.float32``."""
    return np.float32


# ---------------------------------------------------------------------------------------------
# Random data


def random_arrays(*shapes: Sequence[int]) -> Any:
    """Return standard-normal float32 NumPy arrays of the given shapes (one array if one shape)."""
    arrays = [
        np.array(np.random.randn(), dtype=default_dtype())
        if len(s) == 0
        else np.random.randn(*s).astype(default_dtype())
        for s in shapes
    ]
    return arrays[0] if len(arrays) == 1 else arrays


def random_uniform_arrays(*shapes: Sequence[int], **kwargs: Any) -> list[np.ndarray]:
    """Return uniform NumPy arrays of the given shapes.

    Parameters
    ----------
    *shapes : tuple of int
        One shape per array.
    low : float, default 0.0
    high : float, default 1.0
    dtype : numpy dtype, default numpy.float32
    """
    low = kwargs.pop("low", 0.0)
    high = kwargs.pop("high", 1.0)
    dtype = kwargs.pop("dtype", default_dtype())
    if kwargs:
        raise ParamError(f"random_uniform_arrays: unexpected arguments {sorted(kwargs)}.")
    return [np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]


def random_sample(population: Sequence[Any], k: int) -> Sequence[Any]:
    """Return ``k`` elements of ``population`` chosen at random, without replacement."""
    if not 0 <= k <= len(population):
        raise ParamError(f"random_sample: argument 'k' must be in [0, {len(population)}], got {k}.")
    population_copy = population[:]
    np.random.shuffle(population_copy)
    return population_copy[0:k]


def _sorted_items(d: Mapping[Any, Any]) -> list[tuple[Any, Any]]:
    return sorted(d.items(), key=lambda t: t[0])


def _sorted_dict(d: Mapping[Any, Any]) -> OrderedDict[Any, Any]:
    return OrderedDict(_sorted_items(d))


def rand_shape_2d(dim0: int = 10, dim1: int = 10, allow_zero_size: bool = False) -> tuple[int, int]:
    """Return a random 2-d shape with dims in [1, dim] (or [0, dim] with allow_zero_size)."""
    low = 0 if allow_zero_size else 1
    return rnd.randint(low, dim0 + 1), rnd.randint(low, dim1 + 1)


def rand_shape_3d(
    dim0: int = 10, dim1: int = 10, dim2: int = 10, allow_zero_size: bool = False
) -> tuple[int, int, int]:
    """Return a random 3-d shape with dims in [1, dim] (or [0, dim] with allow_zero_size)."""
    low = 0 if allow_zero_size else 1
    return rnd.randint(low, dim0 + 1), rnd.randint(low, dim1 + 1), rnd.randint(low, dim2 + 1)


def rand_shape_nd(num_dim: int, dim: int = 10, allow_zero_size: bool = False) -> tuple[int, ...]:
    """Return a random ``num_dim``-d shape with dims in [1, dim] (or [0, dim])."""
    low = 0 if allow_zero_size else 1
    return tuple(int(d) for d in rnd.randint(low, dim + 1, size=num_dim))


def rand_coord_2d(x_low: int, x_high: int, y_low: int, y_high: int) -> tuple[int, int]:
    """Return a random ``(x, y)`` with x in [x_low, x_high) and y in [y_low, y_high)."""
    x = np.random.randint(x_low, x_high, dtype=np.int64)
    y = np.random.randint(y_low, y_high, dtype=np.int64)
    return x, y


def rand_ndarray(
    shape: Sequence[int] | int,
    stype: str = "default",
    density: float | None = None,
    dtype: Any = None,
    modifier_func: Callable[[Any], Any] | None = None,
    shuffle_csr_indices: bool = False,
    distribution: str | None = None,
    ctx: Context | None = None,
) -> nd.NDArray:
    """Return an NDArray of standard-normal values.

    Parameters
    ----------
    shape : tuple of int
        The shape.
    stype : str, default 'default'
        Storage type: 'default', 'row_sparse' or 'csr'.
    density, modifier_func, shuffle_csr_indices, distribution
        Used by sparse storage types only.
    dtype : numpy dtype, optional
        The dtype; float32 by default.
    ctx : Context, optional
        Where the array lives; :func:`default_context` by default.
    """
    if stype != "default":
        arr, _ = rand_sparse_ndarray(shape, stype, density=density, dtype=dtype,
                                     modifier_func=modifier_func, distribution=distribution,
                                     shuffle_csr_indices=shuffle_csr_indices, ctx=ctx)  # fmt: skip
        return arr
    shape = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
    return nd.array(random_arrays(shape), dtype=dtype, ctx=ctx or default_context())


def assign_each(the_input: np.ndarray, function: Callable[[Any], Any] | None) -> np.ndarray:
    """Return ``function`` applied to each element of ``the_input`` (a float64 array)."""
    if function is None:
        return np.array(the_input)
    flat = np.asarray(the_input).reshape(-1)
    return np.array([function(v) for v in flat], dtype=np.float64).reshape(the_input.shape)


def assign_each2(
    input1: np.ndarray, input2: np.ndarray, function: Callable[[Any, Any], Any] | None
) -> np.ndarray:
    """Return ``function`` applied to each pair of elements of two same-shape arrays."""
    if function is None:
        return np.array(input1)
    if input1.shape != input2.shape:
        raise ShapeError(f"assign_each2: shapes {input1.shape} and {input2.shape} differ.")
    pairs = zip(np.asarray(input1).reshape(-1), np.asarray(input2).reshape(-1))
    return np.array([function(x, y) for x, y in pairs], dtype=np.float64).reshape(input1.shape)


def create_2d_tensor(rows: int, columns: int, dtype: Any = np.int64) -> nd.NDArray:
    """Return a (rows, columns) NDArray whose row i holds i (for large-tensor tests)."""
    col = nd.arange(0, rows, dtype=dtype).reshape(rows, 1)
    return nd.broadcast_to(col, shape=(rows, columns))


def create_vector(size: int, dtype: Any = np.int64) -> nd.NDArray:
    """Return ``arange(size)`` as an NDArray (for large-tensor tests)."""
    return nd.arange(0, size, dtype=dtype)


def get_identity_mat(size: int) -> nd.NDArray:
    """Return a float32 identity matrix NDArray of shape (size, size)."""
    mat = nd.zeros((size, size))
    for i in range(size):
        mat[i, i] = 1
    return mat


def get_identity_mat_batch(size: int) -> nd.NDArray:
    """Return a batch of two identity matrices, shape (2, size, size)."""
    eye = get_identity_mat(size).asnumpy()
    return nd.array([eye, eye])


def np_reduce(dat: np.ndarray, axis: Any, keepdims: bool, numpy_reduce_func: Callable) -> Any:
    """Reduce ``dat`` with a NumPy reduction over one or several axes, one axis at a time.

    Parameters
    ----------
    dat : np.ndarray
        Same as NumPy.
    axis : None or int or list-like
        Same as NumPy.
    keepdims : bool
        Same as NumPy.
    numpy_reduce_func : function
        A NumPy reducing function like ``np.sum`` or ``np.max``.
    """
    if isinstance(axis, int):
        axis = [axis]
    else:
        axis = list(axis) if axis is not None else list(range(len(dat.shape)))
    ret = dat
    for i in sorted(axis, reverse=True):
        ret = numpy_reduce_func(ret, axis=i)
    if keepdims:
        kept = list(dat.shape)
        for i in axis:
            kept[i] = 1
        ret = ret.reshape(tuple(kept))
    return ret


def assert_exception(f: Callable[..., Any], exception_type: Any, *args: Any, **kwargs: Any) -> None:
    """Check that ``f(*args, **kwargs)`` raises ``exception_type``; fail otherwise."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    name = getattr(exception_type, "__name__", str(exception_type))
    raise AssertionError(f"{getattr(f, '__name__', f)} did not raise {name}")


def retry(n: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate a stochastic test so that it is tried up to ``n`` times before it fails.

    Only an ``AssertionError`` triggers another try; the last one is raised.
    """
    if not isinstance(n, int) or n <= 0:
        raise ParamError(f"retry: argument 'n' must be an int > 0, got {n!r}.")

    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            for i in range(n):
                try:
                    return f(*args, **kwargs)
                except AssertionError:
                    if i == n - 1:
                        raise
                    nd.waitall()
            return None

        return wrapper

    return decorate


# ---------------------------------------------------------------------------------------------
# Environment and platform


@contextmanager
def _environment(env_vars: dict[str, str | None]) -> Iterator[None]:
    snapshot = {name: os.environ.get(name) for name in env_vars}
    _set_environ(env_vars)
    try:
        yield
    finally:
        try:
            # operators already pushed may still read the settings being restored
            nd.waitall()
        finally:
            _set_environ(snapshot)


def _set_environ(env_vars: Mapping[str, str | None]) -> None:
    for name, value in env_vars.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def environment(*args: Any) -> Any:
    """Set environment variables for a ``with`` block (or a decorated function), then restore.

    Parameters
    ----------
    *args
        Either ``name, value`` for one variable, or one dict ``{name: value}``. A value of None
        unsets the variable. The previous values come back afterwards, also when the body
        raises.

    Examples
    --------
    >>> with environment('MXNET_ENGINE_TYPE', 'NaiveEngine'):
    ...     os.environ['MXNET_ENGINE_TYPE']
    'NaiveEngine'
    """
    if len(args) == 1 and isinstance(args[0], dict):
        env_vars = dict(args[0])
    elif len(args) == 2:
        env_vars = {args[0]: args[1]}
    else:
        raise ParamError(
            "environment: expected one dict argument, or two arguments (name and value); "
            f"got {len(args)} argument(s)."
        )
    for name, value in env_vars.items():
        if not isinstance(name, str) or not (value is None or isinstance(value, str)):
            raise ParamError(
                f"environment: {name!r} must map to a str or None, got {type(value).__name__} "
                f"{value!r}."
            )
    return _environment(env_vars)


def with_environment(*args_: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate a test so that it runs inside ``environment(*args_)``."""

    def test_helper(orig_test: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(orig_test)
        def test_new(*args: Any, **kwargs: Any) -> Any:
            with environment(*args_):
                return orig_test(*args, **kwargs)

        return test_new

    return test_helper


def set_env_var(key: str, val: str, default_val: str = "") -> str:
    """Set the environment variable ``key`` to ``val``; return its old value (or default_val)."""
    prev_val = os.environ.get(key, default_val)
    os.environ[key] = val
    return prev_val


def _runs_test_as_is(min_version: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    # mxlite computes with NumPy/CuPy, never with cuDNN or a CUDA version of its own, so no test
    # is expected to fail for lack of one: the decorated test simply runs.
    def test_helper(orig_test: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(orig_test)
        def test_new(*args: Any, **kwargs: Any) -> Any:
            return orig_test(*args, **kwargs)

        return test_new

    return test_helper


def assert_raises_cudnn_not_satisfied(
    min_version: str,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate a test that needs cuDNN ``min_version``; in mxlite it always runs normally."""
    return _runs_test_as_is(min_version)


def assert_raises_cuda_not_satisfied(
    min_version: str,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorate a test that needs CUDA ``min_version``; in mxlite it always runs normally."""
    return _runs_test_as_is(min_version)


def list_gpus() -> range:
    """Return ``range(n)`` for the n GPUs that can be used (empty without CuPy or a GPU)."""
    return range(num_gpus())


def is_cd_run() -> bool:
    """Return whether the test runs as part of MXNet's continuous delivery (``CD_JOB=1``)."""
    return os.environ.get("CD_JOB", 0) == "1"


def is_aarch64_run() -> bool:
    """Return whether the machine is aarch64."""
    return platform.machine() == "aarch64"


def has_tvm_ops() -> bool:
    """Return whether operators generated by TVM are available: never in mxlite."""
    return False


def is_op_runnable() -> bool:
    """Return whether TVM-dependent operator tests can run here: always in mxlite."""
    return True
