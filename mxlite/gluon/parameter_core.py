"""Gluon parameters (``mx.gluon.Parameter``, ``Constant``), as MXNet 1.9.1's; ``parameter.py``
re-exports them with ``ParameterDict``, where MXNet defines them.

Design note
-----------
A :class:`Parameter` holds one NDArray per context (``_data``) and, unless ``grad_req`` is
'null', one gradient per context (``_grad``), marked as autograd variables. Its shape may be
partly unknown (0 in a dimension, -1 under ``mx.np_shape``) until the first forward pass: then
``initialize`` only records what to do (``_deferred_init``: initializer, contexts, default
initializer, data) and ``_finish_deferred_init`` does it once the owning block has inferred the
shape. Names are full names (``dense0_weight``): :meth:`ParameterDict.save` files are keyed by
them, as MXNet's are.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .. import autograd, initializer, ndarray, symbol
from ..base import MXNetError, ParamError, storage_dtype
from ..context import Context, cpu, current_context
from ..ndarray.ndarray import NDArray
from ..numpy.multiarray import ndarray as np_ndarray
from ..util import is_np_array, is_np_shape

__all__ = [
    "DeferredInitializationError",
    "Parameter",
    "Constant",
    "tensor_types",
]

tensor_types = (symbol.Symbol, ndarray.NDArray)


class DeferredInitializationError(MXNetError):
    """Error for unfinished deferred initialization."""


class GluonCheckError(MXNetError, AssertionError):
    """A failed consistency check where MXNet 1.9.1 raises ``AssertionError`` (code written for
    it catches that); it is also an :class:`MXNetError`."""


def shape_is_known(shape: Any) -> bool:
    """Whether every dimension of ``shape`` is known (0 is unknown; -1 too under np_shape)."""
    if shape is None:
        return False
    unknown = -1 if is_np_shape() else 0
    if len(shape) == 0:
        return unknown == -1
    return all(d != unknown and d != -1 and d is not None for d in shape)


def _brief_print_list(lst: Any, limit: int = 7) -> str:
    """``'a', 'b', ..., 'z'``: at most ``limit`` quoted items."""
    lst = list(lst)
    if len(lst) > limit:
        head = _brief_print_list(lst[: limit // 2], limit)
        tail = _brief_print_list(lst[-limit // 2 :], limit)
        return f"{head}, ..., {tail}"
    return ", ".join(f"'{x}'" for x in lst)


def _indent(s: str, num_spaces: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    pad = " " * num_spaces
    return lines[0] + "\n" + "\n".join(pad + line for line in lines[1:])


def _stype(stype: str) -> dict[str, str]:
    """The ``stype`` keyword for creating an array: none for dense ones."""
    return {} if stype == "default" else {"stype": stype}


def _zeros(shape: Any, ctx: Context, dtype: Any, stype: str = "default") -> NDArray:
    """A zero array for a parameter or its gradient: an ``mx.np`` one in NumPy-array mode."""
    if stype != "default" and is_np_array():
        raise ParamError(f"mxnet.numpy.zeros does not support stype = {stype}")
    zeros = ndarray.zeros(shape, ctx=ctx, dtype=dtype, **_stype(stype))
    return zeros.as_np_ndarray() if is_np_array() else zeros


def _same_dtype(a: Any, b: Any) -> bool:
    return storage_dtype(a) == storage_dtype(b)


class Parameter:
    """A Container holding parameters (weights) of Blocks.

    :py:class:`Parameter` holds a copy of the parameter on each :py:class:`Context` after it
    is initialized with ``Parameter.initialize(...)``. If :py:attr:`grad_req` is not
    ``'null'``, it also holds a gradient array on each :py:class:`Context`.

    Parameters
    ----------
    name : str
        Name of this parameter.
    grad_req : {'write', 'add', 'null'}, default 'write'
        Specifies how to update gradient to grad arrays.
    shape : int or tuple of int, default None
        Shape of this parameter. By default shape is not specified; a 0 dimension is inferred
        at the first forward pass.
    dtype : numpy.dtype or str, default 'float32'
        Data type of this parameter.
    lr_mult : float, default 1.0
        Learning rate multiplier.
    wd_mult : float, default 1.0
        Weight decay multiplier (L2 regularizer coefficient).
    init : Initializer, default None
        Initializer of this parameter. Will use the global initializer by default.
    allow_deferred_init : bool, default False
        Whether initialization may wait until the shape is known.
    differentiable : bool, default True
        A parameter that is not differentiable always has ``grad_req='null'``.
    stype : {'default', 'row_sparse', 'csr'}, default 'default'
        The storage type of the parameter.
    grad_stype : {'default', 'row_sparse', 'csr'}, default 'default'
        The storage type of the parameter's gradient.
    """

    def __init__(self, name: str, grad_req: str = "write", shape: Any = None,
                 dtype: Any = np.float32, lr_mult: float = 1.0, wd_mult: float = 1.0,
                 init: Any = None, allow_deferred_init: bool = False,
                 differentiable: bool = True, stype: str = "default",
                 grad_stype: str = "default") -> None:  # fmt: skip
        self._var: symbol.Symbol | None = None
        self._data: list[NDArray] | None = None
        self._grad: list[NDArray] | None = None
        self._ctx_list: list[Context] | None = None
        self._ctx_map: dict[Context, int] = {}
        self._trainer: Any = None
        self._deferred_init: tuple = ()
        self._differentiable = differentiable
        self._allow_deferred_init = allow_deferred_init
        self._grad_req: str | None = None
        shape = (shape,) if isinstance(shape, int) else shape
        self._shape = None if shape is None else tuple(shape)
        self.name = name
        self._dtype = dtype
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.grad_req = grad_req
        self.init = init
        for what, value in (("stype", stype), ("grad_stype", grad_stype)):
            if value not in ("default", "row_sparse", "csr"):
                raise GluonCheckError(
                    f"Parameter {name!r}: {what} must be one of 'default', 'row_sparse' or "
                    f"'csr', got {value!r}."
                )
        self._stype = stype
        self._grad_stype = grad_stype

    def __repr__(self) -> str:
        return f"Parameter {self.name} (shape={self.shape}, dtype={self.dtype})"

    def __getstate__(self) -> dict[str, Any]:
        # MXNet keeps _ctx_map as [[index by cpu device_id], [index by gpu device_id]] (a
        # context's device_typeid & 1 picks the list): pickles carry that layout both ways
        state = self.__dict__.copy()
        ctx_map: list[list[int | None]] = [[], []]
        for i, ctx in enumerate(self._ctx_list or ()):
            ids = ctx_map[ctx.device_typeid & 1]
            ids.extend([None] * (ctx.device_id + 1 - len(ids)))
            ids[ctx.device_id] = i
        state["_ctx_map"] = ctx_map
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._ctx_map = {c: i for i, c in enumerate(self._ctx_list or ())}

    # ---- attributes --------------------------------------------------------------------------

    @property
    def grad_req(self) -> str:
        return self._grad_req  # type: ignore[return-value]

    @grad_req.setter
    def grad_req(self, req: str) -> None:
        if req not in ("write", "add", "null"):
            raise GluonCheckError(
                f"grad_req must be one of 'write', 'add', or 'null', but got {req!r}"
            )
        if not self._differentiable:
            req = "null"
        if self._grad_req == req:
            return
        self._grad_req = req
        if req == "null" and self._grad is not None:
            self._grad = None
            self._data = [i.detach() for i in self._data]  # type: ignore[union-attr]
        elif self._data is not None:
            self._init_grad()

    @property
    def dtype(self) -> Any:
        """The type of the parameter; setting it casts the data."""
        return self._dtype

    @dtype.setter
    def dtype(self, dtype: Any) -> None:
        self.cast(dtype)

    @property
    def shape(self) -> tuple | None:
        """The shape of the parameter (unknown dimensions are 0, or -1 under np_shape)."""
        if self._shape is None:
            return None
        if is_np_shape():
            return tuple(i if i != 0 else -1 for i in self._shape)
        return self._shape

    @shape.setter
    def shape(self, new_shape: Any) -> None:
        new_shape = None if new_shape is None else tuple(new_shape)
        if self._shape is None or new_shape is None:
            self._shape = new_shape
            return
        if len(self._shape) != len(new_shape) or not all(
            j in (-1, 0, i) for i, j in zip(new_shape, self._shape)
        ):
            raise GluonCheckError(
                f"Parameter {self.name!r}: expected shape {self._shape} is incompatible with "
                f"given shape {new_shape}."
            )
        self._shape = new_shape

    @property
    def stype(self) -> str:
        return self._stype

    def _set_trainer(self, trainer: Any) -> None:
        if self._stype != "default" and self._trainer and trainer and self._trainer is not trainer:
            raise RuntimeError(
                f"Failed to set the trainer for Parameter '{self.name}' because it was already "
                f"set. More than one trainers for a {self._stype} Parameter is not supported."
            )
        self._trainer = trainer

    # ---- data per context --------------------------------------------------------------------

    def _check_and_get(self, arr_list: list | None, ctx: Any) -> Any:
        if arr_list is not None:
            if ctx is list:
                return arr_list
            if ctx is None:
                if len(arr_list) == 1:
                    return arr_list[0]
                ctx = current_context()
            idx = self._ctx_map.get(ctx)
            if idx is not None:
                return arr_list[idx]
            raise RuntimeError(
                f"Parameter '{self.name}' was not initialized on context {ctx}. It was only "
                f"initialized on {self._ctx_list}."
            )
        if self._deferred_init:
            raise DeferredInitializationError(
                f"Parameter '{self.name}' has not been initialized yet because initialization "
                "was deferred. Actual initialization happens during the first forward pass. "
                "Please pass one batch of data through the network before accessing "
                "Parameters. You can also avoid deferred initialization by specifying "
                "in_units, num_features, etc., for network layers."
            )
        raise RuntimeError(
            f"Parameter '{self.name}' has not been initialized. Note that you should "
            "initialize parameters and create Trainer with Block.collect_params() instead of "
            "Block.params because the later does not include Parameters of nested child Blocks"
        )

    def _load_init(
        self, data: NDArray, ctx: Any, cast_dtype: bool = False, dtype_source: str = "current"
    ) -> None:
        """(Re)initialize with ``data`` loaded from a file."""
        if cast_dtype and dtype_source not in ("current", "saved"):
            raise ParamError(
                f"load: dtype_source must be 'current' or 'saved', got {dtype_source!r}."
            )
        if self.shape:
            unknown = -1 if is_np_shape() else 0
            if len(self.shape) != len(data.shape) or not all(
                s in (unknown, d) for s, d in zip(self.shape, data.shape)
            ):
                raise GluonCheckError(
                    f"Failed loading Parameter '{self.name}' from saved params: shape "
                    f"incompatible expected {self.shape} vs saved {data.shape}"
                )
            self.shape = tuple(d if s == unknown else s for s, d in zip(self.shape, data.shape))
        if self.dtype is not None and not _same_dtype(self.dtype, data.dtype):
            if not cast_dtype:
                raise GluonCheckError(
                    f"Failed loading Parameter '{self.name}' from saved params: dtype "
                    f"incompatible expected {np.dtype(self.dtype).type} vs saved "
                    f"{np.dtype(data.dtype).type}. Set cast_dtype=True to cast the dtype of "
                    "saved params."
                )
            if dtype_source == "current":
                data = data.astype(self.dtype, copy=False)
            else:
                self.dtype = data.dtype
        if getattr(data, "stype", "default") != self._stype:
            data = data.tostype(self._stype)
        if isinstance(ctx, Context):
            ctx = [ctx]
        if self._data is None:
            if self._deferred_init:
                if ctx is not None and set(ctx) != set(self._deferred_init[1]):
                    raise GluonCheckError(
                        f"Failed to load Parameter '{self.name}' on {ctx} because it was "
                        f"previous initialized on {self.list_ctx()}."
                    )
                ctx = self._deferred_init[1]
            elif ctx is None:
                ctx = [cpu()]
            self._init_impl(data, ctx)
        else:
            if ctx is not None and set(ctx) != set(self.list_ctx()):
                raise GluonCheckError(
                    f"Failed to load Parameter '{self.name}' on {ctx} because it was "
                    f"previous initialized on {self.list_ctx()}."
                )
            self.set_data(data)
        self._deferred_init = ()

    def _finish_deferred_init(self) -> None:
        """Initialize now that the shape is known."""
        if not self._deferred_init:
            return
        init, ctx, default_init, data = self._deferred_init
        self._deferred_init = ()
        if not shape_is_known(self.shape):
            raise GluonCheckError(
                f"Cannot initialize Parameter '{self.name}' because it has invalid shape: "
                f"{self.shape}. Please specify in_units, in_channels, etc for `Block`s."
            )
        with autograd.pause():
            if data is None:
                data = _zeros(self.shape, cpu(), self.dtype, self._stype)
                desc = initializer.InitDesc(self.name, {"__init__": init})
                initializer.create(default_init)(desc, data)
            self._init_impl(data, ctx)

    def _init_impl(self, data: NDArray, ctx_list: list[Context]) -> None:
        self._ctx_list = list(ctx_list)
        self._ctx_map = {c: i for i, c in enumerate(self._ctx_list)}
        self._data = [data.copyto(c) for c in self._ctx_list]
        self._init_grad()

    def _init_grad(self) -> None:
        if self.grad_req == "null":
            self._grad = None
            return
        self._grad = [_zeros(i.shape, i.context, i.dtype, self._grad_stype) for i in self._data]
        self._mark_variables()

    def _mark_variables(self) -> None:
        # autograd keeps classic buffers; an mx.np gradient is a view on the same chunk
        grads = [g.as_nd_ndarray() if isinstance(g, np_ndarray) else g for g in self._grad]
        autograd.mark_variables(self._data, grads, self.grad_req)

    def _reduce(self) -> NDArray:
        """The value on cpu (the mean over the contexts)."""
        if self._stype != "default":  # the store holds the one true copy
            rows = ndarray.arange(0, self.shape[0], dtype="int64", ctx=cpu())
            data = ndarray.zeros(self.shape, ctx=cpu(), dtype=self.dtype, stype=self._stype)
            self._trainer._row_sparse_pull(self, data, rows, full_idx=True)
            return data
        block = self.list_data()
        if len(block) == 1:
            return block[0].copyto(cpu())
        return ndarray.add_n(*(w.copyto(cpu()) for w in block)) / len(block)

    def initialize(
        self,
        init: Any = None,
        ctx: Any = None,
        default_init: Any = None,
        force_reinit: bool = False,
    ) -> None:
        """Initializes parameter and gradient arrays. Only used for :py:class:`NDArray` API.

        Parameters
        ----------
        init : Initializer
            The initializer to use. Overrides :py:meth:`Parameter.init` and default_init.
        ctx : Context or list of Context, defaults to :py:meth:`context.current_context()`.
            Initialize Parameter on given context.
        default_init : Initializer
            Default initializer is used when both :py:func:`init`
            and :py:meth:`Parameter.init` are ``None``.
        force_reinit : bool, default False
            Whether to force re-initialization if parameter is already initialized.
        """
        if default_init is None:
            default_init = initializer.Uniform()
        if self._data is not None and not force_reinit:
            warnings.warn(
                f"Parameter '{self.name}' is already initialized, ignoring. Set "
                "force_reinit=True to re-initialize.",
                stacklevel=2,
            )
            return
        self._data = self._grad = None
        if ctx is None:
            ctx = [current_context()]
        if isinstance(ctx, Context):
            ctx = [ctx]
        if init is None:
            init = default_init if self.init is None else self.init
        if not shape_is_known(self.shape):
            if self._allow_deferred_init:
                self._deferred_init = (init, ctx, default_init, None)
                return
            raise ParamError(
                f"Cannot initialize Parameter '{self.name}' because it has invalid shape: "
                f"{self.shape}."
            )
        self._deferred_init = (init, ctx, default_init, None)
        self._finish_deferred_init()

    def reset_ctx(self, ctx: Any) -> None:
        """Re-assign Parameter to other contexts.

        Parameters
        ----------
        ctx : Context or list of Context, default ``context.current_context()``.
            Assign Parameter to given context. If ctx is a list of Context, a
            copy will be made for each context.
        """
        if ctx is None:
            ctx = [current_context()]
        if isinstance(ctx, Context):
            ctx = [ctx]
        if self._data:
            data = self._reduce()
            with autograd.pause():
                self._init_impl(data, ctx)
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, ctx, default_init, data)
        else:
            raise ParamError(
                f"Cannot reset context for Parameter '{self.name}' because it has not been "
                "initialized."
            )

    def set_data(self, data: Any) -> None:
        """Sets this parameter's value on all contexts."""
        self.shape = data.shape
        if self._data is None:
            if not self._deferred_init:
                raise GluonCheckError(f"Parameter '{self.name}' has not been initialized")
            self._deferred_init = self._deferred_init[:3] + (data,)
            return
        trainer = self._trainer
        if trainer is not None and getattr(trainer, "_kv_initialized", False):
            if getattr(trainer, "_update_on_kvstore", False) and self not in getattr(
                trainer, "_params_to_init", ()
            ):
                trainer._reset_kvstore()
        for arr in self._data:
            arr[:] = data

    def row_sparse_data(self, row_id: NDArray) -> NDArray:
        """Returns a copy of the 'row_sparse' parameter on the same context as row_id's."""
        if self._stype != "row_sparse":
            self._wrong_stype(f"a copy of Parameter {self.name}", "row_sparse_data")
        return self._get_row_sparse(self._data, row_id.context, row_id)

    def _wrong_stype(self, what: str, method: str) -> None:
        """Raises the error of asking ``method`` for ``what`` of a parameter of the other
        storage type."""
        other = "data" if "row_sparse" in method else "row_sparse_data"
        raise RuntimeError(
            f"Cannot return {what} via {method}() because its storage type is {self._stype}. "
            f"Please use {other}() instead."
        )

    def _get_row_sparse(self, arr_list: list | None, ctx: Any, row_id: NDArray) -> Any:
        """The rows ``row_id`` pulled from the trainer's store into this parameter's copy."""
        if not isinstance(row_id, NDArray):
            raise TypeError(f"row_id must have NDArray type, but {type(row_id)} is given")
        if not self._trainer:
            raise RuntimeError(
                f"Cannot get row_sparse data for Parameter '{self.name}' when no Trainer is "
                "created with it."
            )
        results = self._check_and_get(arr_list, ctx)
        self._trainer._row_sparse_pull(self, results, row_id)
        return results

    def list_row_sparse_data(self, row_id: NDArray) -> list[NDArray]:
        """Returns copies of the 'row_sparse' parameter on all contexts."""
        if self._stype != "row_sparse":
            self._wrong_stype(
                f"copies of Parameter '{self.name}' on all contexts", "list_row_sparse_data"
            )
        return self._get_row_sparse(self._data, list, row_id)

    def data(self, ctx: Context | None = None) -> NDArray:
        """Returns a copy of this parameter on one context. Must have been initialized on this
        context before. For sparse parameters, use :py:meth:`Parameter.row_sparse_data`
        instead.

        Parameters
        ----------
        ctx : Context
            Desired context.
        """
        if self._stype != "default":
            self._wrong_stype(f"a copy of Parameter '{self.name}' on ctx {ctx}", "data")
        return self._check_and_get(self._data, ctx)

    def list_data(self) -> list[NDArray]:
        """Returns copies of this parameter on all contexts, in the same order as creation."""
        if self._stype != "default":
            self._wrong_stype(f"copies of Parameter '{self.name}' on all contexts", "list_data")
        return self._check_and_get(self._data, list)

    def grad(self, ctx: Context | None = None) -> NDArray:
        """Returns a gradient buffer for this parameter on one context."""
        return self._check_and_get_grad(ctx)

    def list_grad(self) -> list[NDArray]:
        """Returns gradient buffers on all contexts, in the same order as :py:meth:`values`."""
        return self._check_and_get_grad(list)

    def _check_and_get_grad(self, ctx: Any) -> Any:
        """:meth:`_check_and_get` on the gradients, which a ``grad_req='null'`` parameter lacks."""
        if self._data is not None and self._grad is None:
            raise RuntimeError(
                f"Cannot get gradient array for Parameter '{self.name}' because grad_req='null'"
            )
        return self._check_and_get(self._grad, ctx)

    def list_ctx(self) -> list[Context]:
        """Returns a list of contexts this parameter is initialized on."""
        if self._data is None:
            if self._deferred_init:
                return self._deferred_init[1]
            raise RuntimeError(f"Parameter '{self.name}' has not been initialized")
        return self._ctx_list  # type: ignore[return-value]

    def zero_grad(self) -> None:
        """Sets gradient buffer on all contexts to 0. No action is taken if parameter is
        uninitialized or doesn't require gradient."""
        if self._grad is None:
            return
        for g in self._grad:
            g[:] = 0

    def var(self) -> symbol.Symbol:
        """Returns a symbol representing this parameter."""
        if self._var is None:
            self._var = symbol.var(
                self.name,
                shape=self.shape,
                dtype=self.dtype,
                lr_mult=self.lr_mult,
                wd_mult=self.wd_mult,
                init=self.init,
                stype=self._stype,
            )
        return self._var

    def cast(self, dtype: Any) -> None:
        """Cast data and gradient of this Parameter to a new data type.

        Parameters
        ----------
        dtype : str or numpy.dtype
            The new data type.
        """
        self._dtype = dtype
        self._var = None
        if self._data is None:
            return
        with autograd.pause():
            self._data = [i.astype(dtype) for i in self._data]
            if self._grad is None:
                return
            self._grad = [i.astype(dtype) for i in self._grad]
            self._mark_variables()


class _ConstantInit(initializer.Initializer):
    """Copies a fixed value (the initializer of a :class:`Constant`)."""

    def __init__(self, value: NDArray) -> None:
        super().__init__()
        self._value = value

    def _init_weight(self, _: Any, arr: Any) -> None:
        self._value.copyto(arr)


class Constant(Parameter):
    """A constant parameter for holding immutable tensors. ``Constant`` s are ignored by
    ``autograd`` and ``Trainer``, thus their values will not change during training. But you
    can still update their values manually with the ``set_data`` method.

    Parameters
    ----------
    name : str
        Name of the parameter.
    value : array-like
        Initial value for the constant.
    """

    def __init__(self, name: str, value: Any) -> None:
        if not isinstance(value, NDArray):
            value = ndarray.array(value)
            value = value.as_np_ndarray() if is_np_array() else value
        self.value = value
        init_name = f"Constant_{name}_{id(self)}"
        init = _ConstantInit(value)
        initializer.alias(init_name)(type(init))
        super().__init__(name, grad_req="null", shape=value.shape, dtype=value.dtype, init=init)

    def __repr__(self) -> str:
        return f"Constant {self.name} (shape={self.shape}, dtype={self.dtype})"

    @property
    def grad_req(self) -> str:
        return "null"

    @grad_req.setter
    def grad_req(self, req: str) -> None:
        if req != "null":
            warnings.warn(
                f'Constant parameter "{self.name}" does not support grad_req other than '
                f'"null", and new value "{req}" is ignored.',
                stacklevel=2,
            )

    def var(self) -> symbol.Symbol:
        if self._var is None:
            self._var = symbol.var(self.name, shape=self.shape, dtype=self.dtype)
        return self._var
