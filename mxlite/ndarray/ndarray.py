"""NDArray: an asynchronous array, a view on a chunk of pooled storage guarded by one engine var.

Design note
-----------
A *chunk* is a storage handle plus one engine :class:`~mxlite.engine.Var`. An NDArray is a
typed, shaped view (``_data``, a NumPy or CuPy array over the chunk's buffer) together with its
chunk; views made by slicing or reshaping share the chunk, and so the var: every function that
writes any view is ordered with every function that reads any other. Operators never wait:
they push an engine function and return. ``asnumpy``/``wait_to_read``/``waitall`` wait, and
re-raise the failure of an earlier function that wrote what is read. When the last NDArray on
a chunk is gone, the chunk's storage is freed after the engine has run every function that
used it (``storage.free_after``, a ``push_delete`` on the var).
"""

from __future__ import annotations

import ctypes
import math
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import storage
from ..base import (
    BFLOAT16,
    MX_BFLOAT16,
    DTypeError,
    MXNetError,
    public_array,
    public_dtype,
    storage_dtype,
)
from ..base import NO_C_LIBRARY as _NO_C
from ..base import absent_names as _absent_names
from ..base import extend_class as _extend_class
from ..context import Context
from ..engine import Var, small_enough_inline
from ..engine import get as _engine

__all__ = ["NDArray", "waitall", "handle_of", "extend"]

py_slice = slice  # MXNet's ndarray module exports the builtin under this name; tests import it


# The arrays whose handles were handed out as MXNet's C API hands them to callbacks (an int,
# Executor.set_monitor_callback); NDArray(handle) looks them up. Weak: a handle keeps nothing
# alive, and is valid while its array lives, as in MXNet.
_LIVE_HANDLES: weakref.WeakValueDictionary[int, NDArray] = weakref.WeakValueDictionary()


def handle_of(arr: NDArray) -> int:
    """An integer handle of ``arr`` (what an ``NDArrayHandle`` callback argument holds in
    MXNet); ``NDArray(handle)`` or ``NDArray(ctypes.cast(handle, NDArrayHandle))`` gives
    back a view of ``arr``."""
    key = id(arr)
    _LIVE_HANDLES[key] = arr
    return key


def _from_handle(handle: Any) -> NDArray:
    value = handle.value if isinstance(handle, ctypes.c_void_p) else handle
    arr = _LIVE_HANDLES.get(value) if isinstance(value, int) else None
    if arr is None:
        raise MXNetError(
            "NDArray: create arrays with mx.nd.array, mx.nd.zeros, mx.nd.empty, ...; the "
            "constructor takes another NDArray's handle (a live one, as a callback receives "
            f"it), got {handle!r}."
        )
    return arr


class _Chunk:
    """Memory owned by NumPy plus the var that orders every access to it. Engine functions
    hold references to the arrays they use, so the memory outlives every pending function."""

    __slots__ = ("var", "ctx")
    handle = None

    def __init__(self, ctx: Context) -> None:
        self.var = Var()
        self.ctx = ctx


class _PooledChunk(_Chunk):
    """Memory from the storage pool, returned once the engine has run every user of the var."""

    __slots__ = ("handle",)

    def __init__(self, handle: Any, ctx: Context) -> None:
        self.var = Var()
        self.ctx = ctx
        self.handle = handle

    def __del__(self) -> None:
        try:
            storage.free_after(self.handle, self.var)
        except Exception:  # interpreter shutdown: modules may already be gone
            pass


# Below this size an array comes from NumPy's allocator: malloc reuses small blocks faster
# than any pool written in Python, and page faults (what the pool saves) start with the large
# blocks that malloc maps afresh (glibc's mmap threshold starts at 128 KiB).
SMALL_ARRAY_BYTES = 1 << 17

# MXNet's storage type ids (as its C API and symbol JSON's __storage_type__ number them)
_STORAGE_TYPE_STR_TO_ID = {"undefined": -1, "default": 0, "row_sparse": 1, "csr": 2}
_STORAGE_TYPE_ID_TO_STR = {v: k for k, v in _STORAGE_TYPE_STR_TO_ID.items()}
# MXNet's OpReqType numbers of the grad_req names (kNullOp 0, kWriteTo 1, kAddTo 3)
_GRAD_REQ_MAP = {"null": 0, "write": 1, "add": 3}


def _new(shape: Sequence[int], dtype: Any, ctx: Context) -> NDArray:
    """A fresh NDArray (contents undefined) of ``shape``/``dtype`` on ``ctx``."""
    dt = dtype if isinstance(dtype, np.dtype) and dtype.names is None else storage_dtype(dtype)
    nbytes = math.prod(shape) * dt.itemsize
    if nbytes < SMALL_ARRAY_BYTES and ctx.device_typeid != 2:
        return _wrap(_Chunk(ctx), np.empty(shape, dt))
    if ctx.device_typeid == 2 and dt == BFLOAT16:
        raise DTypeError(
            f"bfloat16 arrays live on the CPU only, as in MXNet 1.9.1 (its GPU kernels have no "
            f"bfloat16); got one of shape {tuple(shape)} for {ctx}."
        )
    handle = storage.alloc(nbytes, ctx)
    data = handle.buffer.view(dt).reshape(shape)
    return _wrap(_PooledChunk(handle, ctx), data)


def _wrap(chunk: _Chunk, data: Any, writable: bool = True) -> NDArray:
    arr = NDArray.__new__(NDArray)
    arr._chunk = chunk
    arr._data = data
    arr.writable = writable
    arr._grad = None
    arr._grad_req = "null"
    arr._ag = None
    arr._fresh_grad = False
    return arr


class NDArray:
    """An array on a device that computes asynchronously (``mx.nd.NDArray``).

    Create arrays with :func:`mxlite.nd.array`, :func:`zeros`, :func:`ones` and the like; every
    ``mx.nd`` operator returns new NDArrays at once while the engine computes.

    The modules that implement the rest add it through :func:`extend`, the one place that
    does: arithmetic (``arith.py``), indexing (``indexing.py``), the operator methods
    (``methods.py``), pickling (``utils.py``), DLPack (``dlpack.py``), ``tostype``
    (``sparse_array.py``) and
    ``attach_grad``/``backward``/``detach`` (``mxlite.autograd``).
    """

    __slots__ = (
        "_chunk",
        "_data",
        "writable",
        "_grad",
        "_grad_req",
        "_ag",
        "_fresh_grad",
        "__weakref__",
    )
    __array_priority__ = 1000.0  # numpy defers to our reflected operators

    def __init__(self, handle: Any = None, writable: bool = True) -> None:
        if handle is None:  # MXNet's pickles call NDArray(None), then __setstate__ fills it
            self._chunk = self._data = None
        else:
            if not isinstance(handle, NDArray):
                handle = _from_handle(handle)
            self._chunk = handle._chunk
            self._data = handle._data
        self.writable = writable
        self._grad = None
        self._grad_req = "null"
        self._ag = None
        self._fresh_grad = False

    # ---- attributes -------------------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        """The array's dimensions, a tuple of ints."""
        return self._data.shape

    @property
    def dtype(self) -> Any:
        """The element type, as a NumPy scalar type (``numpy.float32``), as in MXNet; bfloat16
        as MXNet's record dtype ``[('bfloat16', '<u2')]``."""
        return public_dtype(self._data.dtype)

    @property
    def size(self) -> int:
        return self._data.size

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def context(self) -> Context:
        """The device the array lives on."""
        return self._chunk.ctx

    ctx = context

    @property
    def stype(self) -> str:
        """Storage type: 'default' (dense); sparse arrays are in sparse.py."""
        return "default"

    @property
    def handle(self) -> NDArray:
        """Stands in for MXNet's C handle: ``NDArray(x.handle)`` makes another view of ``x``."""
        return self

    @property
    def T(self) -> NDArray:
        """The transpose (only for arrays of at most two dimensions, as in MXNet)."""
        if self.ndim > 2:
            raise MXNetError(
                f"NDArray.T: only 1-D and 2-D arrays; this one is {self.ndim}-D. "
                "Use transpose(axes=...)."
            )
        return self.transpose()

    @property
    def grad(self) -> NDArray | None:
        """The gradient buffer attached by ``attach_grad``, or None."""
        return self._grad

    # ---- synchronisation ----------------------------------------------------------------

    def wait_to_read(self) -> None:
        """Block until every pending write to this array is done; raise its failure if any."""
        _engine().wait_for_var(self._chunk.var)

    def asnumpy(self) -> np.ndarray:
        """Return a NumPy copy of the array, waiting for pending writes (bfloat16 as MXNet
        gives it: records of the raw 16 bits, dtype ``[('bfloat16', '<u2')]``)."""
        _engine().wait_for_var(self._chunk.var)
        data = self._data
        if isinstance(data, np.ndarray):
            return public_array(data.copy())
        return self._chunk.ctx.xp.asnumpy(data)

    def asscalar(self) -> Any:
        """Return the only element of a size-1 array as a NumPy scalar."""
        if self.size != 1:
            raise MXNetError(
                f"NDArray.asscalar: the array must have exactly one element, "
                f"its shape is {self.shape}."
            )
        return self.asnumpy().reshape(-1)[0]

    def item(self) -> Any:
        return self.asscalar()

    # ---- copies and conversions -----------------------------------------------------------

    def copy(self) -> NDArray:
        """A deep copy on the same context."""
        return self.copyto(self.context)

    def copyto(self, other: NDArray | Context) -> NDArray:
        """Copy into ``other`` (an NDArray of the same shape) or onto a new array on a Context."""
        if isinstance(other, Context):
            dst = _new(self.shape, self._data.dtype, other)
        elif isinstance(other, NDArray):
            if other.stype != "default":  # sparse: its parts are replaced
                other._write_from(self)
                return other
            if other._chunk is self._chunk and other._data is self._data:
                return other
            if other.shape != self.shape:
                raise MXNetError(
                    f"NDArray.copyto: argument 'other' has shape {other.shape}; "
                    f"the source has shape {self.shape}."
                )
            dst = other
        else:
            raise MXNetError(
                f"NDArray.copyto: argument 'other' must be an NDArray or a "
                f"Context, got {type(other).__name__}."
            )
        _push_copy(self, dst)
        return dst

    def as_in_context(self, context: Context) -> NDArray:
        """This array if it already is on ``context``, else a copy there."""
        if self.context == context:
            return self
        return self.copyto(context)

    def astype(self, dtype: Any, copy: bool = True) -> NDArray:
        """The array cast to ``dtype``; without ``copy``, ``self`` when the dtype matches."""
        dt = storage_dtype(dtype)
        if not copy and dt == self._data.dtype:
            return self
        dst = _new(self.shape, dt, self.context)
        _push_copy(self, dst)
        return dst

    # ---- Python protocol --------------------------------------------------------------------

    def __repr__(self) -> str:
        shape = "x".join(str(n) for n in self.shape)
        return f"\n{self.asnumpy()}\n<{type(self).__name__} {shape} @{self.context}>"

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d NDArray")
        return self.shape[0]

    def __iter__(self) -> Any:
        for i in range(len(self)):
            yield self[i]

    def __bool__(self) -> bool:
        if self.size == 0:
            return False
        if self.size == 1:
            return bool(self.asscalar())
        raise ValueError("The truth value of an NDArray with multiple elements is ambiguous.")

    __nonzero__ = __bool__

    def __float__(self) -> float:
        return float(self.asscalar())

    def __int__(self) -> int:
        return int(self.asscalar())

    def __index__(self) -> int:
        if not np.issubdtype(self._data.dtype, np.integer):
            raise TypeError("only integer NDArrays can be used as an index")
        return int(self.asscalar())

    __hash__ = object.__hash__  # arrays are keys by identity (dicts of params, autograd)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        arr = self.asnumpy()
        return arr if dtype is None else arr.astype(dtype, copy=False)


def _push_copy(src: NDArray, dst: NDArray) -> None:
    """Push ``dst[...] = src`` (with a cast, and across devices) as one engine function."""
    s, d = src._data, dst._data
    sctx, dctx = src._chunk.ctx, dst._chunk.ctx
    if sctx.device_typeid == 2 or dctx.device_typeid == 2:
        xp = dctx.xp

        def run(rctx: Any) -> None:
            d[...] = xp.asarray(s) if dctx.device_typeid == 2 else sctx.xp.asnumpy(s)

    else:

        def run(rctx: Any) -> None:
            np.copyto(d, s, casting="unsafe")

    inline = sctx.device_typeid != 2 and small_enough_inline(dctx, (s, d))
    const = () if src._chunk is dst._chunk else (src._chunk.var,)
    _engine().push_sync(run, dctx, const, (dst._chunk.var,), 0, "_copyto", inline=inline)


def array_from_numpy(src: np.ndarray, ctx: Context, dtype: Any = None) -> NDArray:
    """A new NDArray holding a copy of ``src`` (cast to ``dtype``), written synchronously: a
    fresh chunk has no pending functions. A bfloat16 source may come as MXNet's records of raw
    bits (what ``asnumpy`` gives)."""
    if src.dtype.names is not None and src.dtype == MX_BFLOAT16:
        src = src.view(BFLOAT16)
    dt = storage_dtype(dtype) if dtype is not None else src.dtype
    arr = _new(src.shape, dt, ctx)
    if ctx.device_typeid == 2:
        arr._data[...] = ctx.xp.asarray(src.astype(dt, copy=False))
    else:
        np.copyto(arr._data, src, casting="unsafe")
    return arr


# member name -> the module that added it through extend()
_EXTENDED_BY: dict[str, str] = {}


def extend(owner: str, members: dict[str, Any]) -> None:
    """Add to :class:`NDArray` the members that ``owner``, a module built on this one, implements
    (its methods need operators, autograd or files, which import this module): the one place
    where NDArray is given members from outside this file. A name that another module already
    added is an error, so two modules cannot silently replace each other's methods."""
    _extend_class(NDArray, _EXTENDED_BY, owner, members)


def waitall() -> None:
    """Wait for every pushed operation; raise the first failure not yet reported."""
    _engine().wait_for_all()


# MXNet's ndarray.py also defines these; here they live in the package (mx.nd), and the
# indexing-key helpers in indexing.py
_INDEXING_HELPERS = ("check_boolean_array_dimension", "get_indexing_dispatch_code",
                     "get_oshape_of_gather_nd_op", "indexing_key_expand_implicit_axes")  # fmt: skip
_from_indexing = _absent_names(
    "mxnet.ndarray.ndarray", {}, moved=_INDEXING_HELPERS, home="mxlite.ndarray.indexing"
)
_from_package = _absent_names(
    "mxnet.ndarray.ndarray",
    dict.fromkeys(("DLContext", "DLDataType", "DLManagedTensor", "DLTensor"), _NO_C),
    moved=(
        "add", "arange", "array", "concatenate", "divide", "empty", "equal", "eye",
        "from_dlpack", "from_numpy", "full", "greater", "greater_equal", "histogram",
        "imdecode", "lesser", "lesser_equal", "linspace", "logical_and", "logical_or",
        "logical_xor", "maximum", "minimum", "modulo", "moveaxis", "multiply", "not_equal",
        "onehot_encode", "ones", "power", "split_v2", "subtract", "to_dlpack_for_read",
        "to_dlpack_for_write", "true_divide", "zeros",
    ),
    home="mxlite.ndarray",
)  # fmt: skip


def __getattr__(name: str) -> Any:
    return (_from_indexing if name in _INDEXING_HELPERS else _from_package)(name)
