"""``HybridBlock`` and ``SymbolBlock`` (imported from ``mx.gluon.block``, as in MXNet 1.9.1).

Design note
-----------
A :class:`HybridBlock` runs ``hybrid_forward(F, x, *args, **params)`` with ``F = mx.nd`` until
``hybridize()``. After that, its first call traces ``hybrid_forward`` once with ``F = mx.sym``
on variables ``data`` (``data0``, ``data1``, ... for several inputs) and the parameters'
``var()``; the traced graph becomes an ``mx.nd.CachedOp`` (``executor/cached_op.py``), which
binds one executor per input signature and is recorded by autograd as a single node. Nested
inputs and outputs are flattened with a format (``_flatten``/``_regroup``) as MXNet does, so
a block may take and return lists. Parameters with unknown shapes are completed by shape
inference over the traced graph on the first call, hybridized or not.
"""

from __future__ import annotations

import warnings
from typing import Any

from .. import ndarray, symbol
from ..base import ParamError, flatten_nested, regroup_nested
from ..executor import CachedOp
from ..ndarray.ndarray import NDArray
from ..numpy.multiarray import as_np
from ..symbol.numpy import _Symbol, as_np_symbol
from ..symbol.subgraph import check_backend
from ..symbol.symbol import Symbol
from ..util import is_np_array
from .block_core import Block
from .parameter_core import DeferredInitializationError, GluonCheckError
from .parameter_dict import ParameterDict

__all__ = ["HybridBlock"]


def _gather_type_ctx_info(args: Any) -> tuple[bool, bool, set, Any]:
    """(has a Symbol, has an NDArray, the contexts, the first context) of nested ``args``."""
    if isinstance(args, NDArray):
        return False, True, {args.context}, args.context
    if isinstance(args, Symbol):
        return True, False, set(), None
    if isinstance(args, (list, tuple)):
        has_sym = has_nd = False
        ctxs: set = set()
        first = None
        for a in args:
            s, n, c, f = _gather_type_ctx_info(a)
            has_sym, has_nd = has_sym or s, has_nd or n
            if first is None:
                first = f
            ctxs |= c
            if has_sym and has_nd:
                break
        return has_sym, has_nd, ctxs, first
    return False, False, set(), None


def _leaf_format(x: Any) -> int | None:
    """A leaf's format: 0 an array, n > 1 a symbol of n outputs, -1 None."""
    if isinstance(x, NDArray):
        return 0
    if isinstance(x, Symbol):
        n = len(x.list_outputs())
        return n if n > 1 else 0
    return -1 if x is None else None


def _flatten(args: Any, inout_str: str) -> tuple[list, Any]:
    """The flat list of arrays or symbols in nested ``args`` and the format to rebuild it."""

    def bad(item: Any) -> Exception:
        return ParamError(
            f"When hybridized, the input of HybridBlock {inout_str} must be (nested) list of "
            f"Symbol or NDArray, but got {item} of type {type(item)}"
        )

    return flatten_nested(args, _leaf_format, bad)


def _regroup(args: list, fmt: Any) -> Any:
    """Rebuild the nesting that :func:`_flatten` recorded in ``fmt``."""
    return regroup_nested(args, fmt)[0]


class HybridBlock(Block):
    """`HybridBlock` supports forwarding with both Symbol and NDArray.

    `HybridBlock` is similar to `Block`, with a few differences::

        import mxnet as mx
        from mxnet.gluon import HybridBlock, nn

        class Model(HybridBlock):
            def __init__(self, **kwargs):
                super(Model, self).__init__(**kwargs)
                # use name_scope to give child Blocks appropriate names.
                with self.name_scope():
                    self.dense0 = nn.Dense(20)
                    self.dense1 = nn.Dense(20)

            def hybrid_forward(self, F, x):
                x = F.relu(self.dense0(x))
                return F.relu(self.dense1(x))

    Forward computation in :py:class:`HybridBlock` must be static to work with
    :py:class:`Symbol` s, i.e. you cannot call :py:meth:`NDArray.asnumpy`,
    :py:attr:`NDArray.shape`, :py:attr:`NDArray.dtype`, `NDArray` indexing (`x[i]`) etc on
    tensors. Also, you cannot use branching or loop logic that bases on non-constant
    expressions like random numbers or intermediate results, since they change the graph
    structure for each iteration.

    Before activating with :py:meth:`hybridize()`, :py:class:`HybridBlock` works just like
    normal :py:class:`Block`. After activation, :py:class:`HybridBlock` will create a
    symbolic graph representing the forward computation and cache it. On subsequent
    forwards, the cached graph will be used instead of :py:meth:`hybrid_forward`.
    """

    def __init__(self, prefix: str | None = None, params: ParameterDict | None = None) -> None:
        super().__init__(prefix=prefix, params=params)
        self._cached_graph: tuple = ()
        self._cached_op: Any = None
        self._cached_op_args: list[tuple[bool, Any]] = []
        self._out_format: Any = None
        self._in_format: Any = None
        self._active = False
        self._flags: list[tuple[str, Any]] = []
        self._callback: Any = None
        self._monitor_all = False
        self._backend: str | None = None
        self._backend_opts: dict[str, Any] = {}

    def __setattr__(self, name: str, value: Any) -> None:
        """Registers parameters."""
        super().__setattr__(name, value)
        if isinstance(value, HybridBlock):
            self._clear_cached_op()

    def _get_graph(self, *args: Any) -> tuple:
        if not self._cached_graph:
            flat_args, self._in_format = _flatten(args, "input")
            real = sum(a is not None for a in flat_args)
            if real == 0:
                raise ParamError(
                    f"All args are None and we do not support such a case. Received args={args}"
                )
            inputs: list[Any] = []
            sym_inputs = []
            np_mode = is_np_array()
            for a in flat_args:
                if a is None:
                    inputs.append(None)
                    continue
                v = symbol.var(f"data{len(sym_inputs)}" if real > 1 else "data")
                if np_mode:  # NumPy semantics: the graph is traced with mx.sym.np symbols
                    v = as_np_symbol(v)
                inputs.append(v)
                sym_inputs.append(v)
            grouped = _regroup(inputs, self._in_format)
            params = {k: p.var() for k, p in self._reg_params.items()}
            if np_mode:
                params = {k: as_np_symbol(v) for k, v in params.items()}
            with self.name_scope():
                out = self.hybrid_forward(symbol, *grouped, **params)
            out, self._out_format = _flatten(out, "output")
            # mx.sym.np outputs give mx.np arrays when the graph runs (MXNet's rule)
            self._np_outputs = all(isinstance(o, _Symbol) for o in out)
            if np_mode and not self._np_outputs:
                raise TypeError(
                    "HybridBlock: in NumPy-array mode every output must be an mx.sym.np "
                    "symbol; use as_np_ndarray() on the classic ones."
                )
            self._cached_graph = (sym_inputs, symbol.Group(out))
        return self._cached_graph

    def _build_cache(self, *args: Any) -> None:
        data, out = self._get_graph(*args)
        if self._backend:
            # the MKLDNN backends fuse nodes and add or drop no parameter
            out = out.optimize_for(self._backend, **self._backend_opts)
            if is_np_array():
                out = out.as_np_ndarray()
            self._cached_graph = data, out
        data_names = {d.name: i for i, d in enumerate(data)}
        input_names = out.list_inputs()
        params = dict(self.collect_params().items())
        for name in input_names:
            if name not in params and name not in data_names:
                raise GluonCheckError(f"Unknown input to HybridBlock: {name}")
        unused = [f"{i}-th" for name, i in data_names.items() if name not in input_names]
        if unused:
            warnings.warn(
                f"The {', '.join(unused)} input to HybridBlock is not used by any computation. "
                "Is this intended?",
                stacklevel=4,
            )
        unused_params = [n for n in params if n not in input_names]
        if unused_params:
            warnings.warn(
                f"Parameter {', '.join(unused_params)} is not used by any computation. "
                "Is this intended?",
                stacklevel=4,
            )
        flat, _ = _flatten(args, "input")
        try:
            for name in input_names:
                if name in params:
                    params[name].data()
        except DeferredInitializationError:
            self._deferred_infer_shape(*flat)
            for name in input_names:
                if name in params:
                    params[name]._finish_deferred_init()
        self._cached_op_args = []
        data_indices, param_indices = [], []
        for i, name in enumerate(input_names):
            if name in data_names:
                data_indices.append(i)
                self._cached_op_args.append((True, data_names[name]))
            else:
                param_indices.append(i)
                self._cached_op_args.append((False, params[name]))
        flags = [("data_indices", data_indices), ("param_indices", param_indices)]
        self._cached_op = CachedOp(out, flags + self._flags)
        if self._callback is not None:
            self._cached_op._register_op_hook(self._callback, self._monitor_all)

    def _deferred_infer_shape(self, *args: Any) -> None:
        try:
            self.infer_shape(*args)
        except Exception as e:
            raise ParamError(
                f"Deferred initialization failed because shape cannot be inferred. {e}"
            ) from e

    def _call_cached_op(self, *args: Any) -> Any:
        if self._cached_op is None:
            self._build_cache(*args)
        flat, fmt = _flatten(args, "input")
        if fmt != self._in_format:
            n_in, n = len(self._in_format), len(fmt)
            if n_in > n:
                valid = all(f == -1 for f in self._in_format[n:]) and fmt == self._in_format[:n]
            elif n_in < n:
                valid = all(f == -1 for f in fmt[n_in:]) and fmt[:n_in] == self._in_format
            else:
                valid = False
            if not valid:
                raise ParamError(
                    "The argument structure of HybridBlock does not match the cached version. "
                    f"Stored format = {fmt}, input format = {self._in_format}"
                )
        real = [a for a in flat if a is not None]
        cargs = [real[i] if is_arg else i.data() for is_arg, i in self._cached_op_args]
        out = self._cached_op(*cargs)
        if isinstance(out, NDArray):
            out = [out]
        if is_np_array() or getattr(self, "_np_outputs", False):
            out = as_np(out)
        return _regroup(out, self._out_format)

    def optimize_for(
        self,
        x: Any,
        *args: Any,
        backend: str | None = None,
        clear: bool = False,
        static_alloc: bool = False,
        static_shape: bool = False,
        inline_limit: int = 2,
        forward_bulk_size: int | None = None,
        backward_bulk_size: int | None = None,
        **kwargs: Any,
    ) -> None:
        """Partitions the graph for the subgraph ``backend`` ('MKLDNN' or 'MKLDNN_QUANTIZE',
        MXNet 1.9.1's CPU backends): hybridizes with it and builds the cached graph for the
        inputs ``x, *args`` without running it; a later call or :meth:`export` uses the fused
        graph. The other parameters are :meth:`hybridize`'s; ``**kwargs`` are backend options.
        """
        if kwargs:
            self._backend_opts = kwargs
        if not backend:
            raise ParamError('Must specify "backend" to optimize_for')
        self.hybridize(True, backend, clear, static_alloc, static_shape, inline_limit,
                       forward_bulk_size, backward_bulk_size)  # fmt: skip
        flat, _ = _flatten([x, *args], "input")
        if not any(isinstance(a, (NDArray, Symbol)) for a in flat):
            raise ParamError(
                "optimize_for: in HybridBlock, there must be one NDArray or one Symbol in the "
                "input; please check the type of the args."
            )
        self._build_cache(x, *args)

    def _clear_cached_op(self) -> None:
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = []

    def register_child(self, block: Block, name: str | None = None) -> None:
        if not isinstance(block, HybridBlock):
            raise ParamError(
                f"Children of HybridBlock must also be HybridBlock, but {block} has type "
                f"{type(block)}. If you are using Sequential, please try HybridSequential "
                "instead."
            )
        super().register_child(block, name)
        self._clear_cached_op()

    def hybridize(
        self,
        active: bool = True,
        backend: Any = None,
        clear: bool = True,
        static_alloc: bool = False,
        static_shape: bool = False,
        inline_limit: int = 2,
        forward_bulk_size: int | None = None,
        backward_bulk_size: int | None = None,
        **kwargs: Any,
    ) -> None:
        """Activates or deactivates :py:class:`HybridBlock` s recursively. Has no effect on
        non-hybrid children.

        Parameters
        ----------
        active : bool, default True
            Whether to turn hybrid on or off.
        backend : str
            The subgraph backend the cached graph is partitioned by ('MKLDNN' or
            'MKLDNN_QUANTIZE'), default None.
        clear : bool, default True
            Clears any previous optimizations.
        static_alloc : bool, default False
            Statically allocate memory to improve speed. Memory usage may increase.
        static_shape : bool, default False
            Optimize for invariant input shapes between iterations. Must also
            set static_alloc to True. Change of input shapes is still allowed
            but slower.
        inline_limit : optional int, default 2
            Maximum number of operators that can be inlined.
        forward_bulk_size : optional int, default None
            Segment size of bulk execution during forward pass.
        backward_bulk_size : optional int, default None
            Segment size of bulk execution during backward pass.
        """
        if backend is not None:
            check_backend(backend, "hybridize")
        if kwargs:
            self._backend_opts = kwargs
        self._backend = backend
        self._active = active
        self._flags = [
            ("static_alloc", static_alloc),
            ("static_shape", static_shape),
            ("inline_limit", inline_limit),
        ]
        if forward_bulk_size is not None:
            self._flags.append(("forward_bulk_size", forward_bulk_size))
        if backward_bulk_size is not None:
            self._flags.append(("backward_bulk_size", backward_bulk_size))
        if clear:
            self._clear_cached_op()
        if active and (self._forward_hooks or self._forward_pre_hooks):
            warnings.warn(
                f'"{self}" is being hybridized while still having forward hook/pre-hook. If '
                f'"{self}" is a child of HybridBlock, the hooks will not take effect.',
                stacklevel=2,
            )
        super().hybridize(
            active, static_alloc=static_alloc, static_shape=static_shape,
            inline_limit=inline_limit, forward_bulk_size=forward_bulk_size,
            backward_bulk_size=backward_bulk_size,
        )  # fmt: skip

    def cast(self, dtype: Any) -> None:
        self._clear_cached_op()
        super().cast(dtype)

    def _infer_attrs(self, infer_fn: str, attr: str, *args: Any) -> None:
        """Infer the shapes or dtypes of the parameters from the inputs."""
        inputs, out = self._get_graph(*args)
        flat, _ = _flatten(args, "input")
        real = [a for a in flat if a is not None]
        known = {i.name: getattr(j, attr) for i, j in zip(inputs, real)}
        arg_attrs, _, aux_attrs = getattr(out, infer_fn)(**known)
        if arg_attrs is None:
            raise ParamError(f"{infer_fn}: could not infer the parameters from {known}.")
        sdict = dict(zip(out.list_arguments(), arg_attrs))
        sdict.update(zip(out.list_auxiliary_states(), aux_attrs))
        for p in self.collect_params().values():
            if p.name in sdict:
                setattr(p, attr, sdict[p.name])

    def infer_shape(self, *args: Any) -> None:
        """Infers shape of Parameters from inputs."""
        self._infer_attrs("infer_shape", "shape", *args)

    def infer_type(self, *args: Any) -> None:
        """Infers data type of Parameters from inputs."""
        self._infer_attrs("infer_type", "dtype", *args)

    def export(self, path: str, epoch: int = 0, remove_amp_cast: bool = True) -> tuple:
        """Export HybridBlock to json format that can be loaded by
        `gluon.SymbolBlock.imports`, `mxnet.mod.Module` or the C++ interface.

        .. note:: When there are only one input, it will have name `data`. When there
                  Are more than one inputs, they will be named as `data0`, `data1`, etc.

        Parameters
        ----------
        path : str
            Path to save model. Two files `path-symbol.json` and `path-xxxx.params`
            will be created, where xxxx is the 4 digits epoch number.
        epoch : int
            Epoch number of saved model.
        remove_amp_cast : bool, optional
            Whether to remove the amp_cast and amp_multicast operators, before saving the
            model.

        Returns
        -------
        symbol_filename : str
            Filename to which model symbols were saved, including `path` prefix.
        params_filename : str
            Filename to which model parameters were saved, including `path` prefix.
        """
        if not self._cached_graph:
            raise RuntimeError(
                "Please first call block.hybridize() and then run forward with this block at "
                "least once before calling export."
            )
        sym = self._cached_graph[1]
        sym_file = f"{path}-symbol.json"
        sym.save(sym_file, remove_amp_cast=remove_amp_cast)
        arg_names = set(sym.list_arguments())
        aux_names = set(sym.list_auxiliary_states())
        arg_dict = {}
        params = self._cached_op_args or [(False, p) for p in self.collect_params().values()]
        for is_arg, param in params:
            if is_arg:
                continue
            if param.name in arg_names:
                arg_dict[f"arg:{param.name}"] = param._reduce()
            elif param.name in aux_names:
                arg_dict[f"aux:{param.name}"] = param._reduce()
            else:
                warnings.warn(f'Parameter "{param.name}" is not found in the graph. ', stacklevel=3)
        params_file = f"{path}-{epoch:04d}.params"
        ndarray.save(params_file, arg_dict)
        return sym_file, params_file

    def register_op_hook(self, callback: Any, monitor_all: bool = False) -> None:
        """Install op hook for block recursively.

        Parameters
        ----------
        callback : function
            Function called to inspect the values of the intermediate outputs
            of blocks after hybridization. It takes 3 parameters:
            name of the tensor being inspected (str)
            name of the operator producing or consuming that tensor (str)
            tensor being inspected (NDArray).
        monitor_all : bool, default False
            If True, monitor both input and output, otherwise monitor output only.
        """
        self._callback = callback
        self._monitor_all = monitor_all
        for child in self._children.values():
            child._callback = callback
            child._monitor_all = monitor_all

    def forward(self, x: Any, *args: Any) -> Any:
        """Defines the forward computation. Arguments can be either
        :py:class:`NDArray` or :py:class:`Symbol`."""
        has_sym, has_nd, ctxs, first_ctx = _gather_type_ctx_info([x, *args])
        if has_sym and has_nd:
            raise ParamError(
                "In HybridBlock, we do not support mixed NDArrays and Symbols types for the "
                "input. Please check the type of the args.\n"
            )
        if not has_sym and not has_nd:
            raise ParamError(
                "In HybridBlock, there must be one NDArray or one Symbol in the input. Please "
                "check the type of the args.\n"
            )
        if has_nd:
            ctx = first_ctx
            if self._active:
                if len(ctxs) > 1:
                    raise ParamError(
                        "Find multiple contexts in the input, After hybridized, the "
                        "HybridBlock only supports one input context. You can print the "
                        "ele.ctx in the input arguments to inspect their contexts. Find all "
                        f"contexts = {ctxs}"
                    )
                with ctx:
                    return self._call_cached_op(x, *args)
            with ctx:
                try:
                    params = {k: v.data(ctx) for k, v in self._reg_params.items()}
                except DeferredInitializationError:
                    self._deferred_infer_shape(x, *args)
                    for v in self.params.values():
                        v._finish_deferred_init()
                    params = {k: v.data(ctx) for k, v in self._reg_params.items()}
                return self.hybrid_forward(ndarray, x, *args, **params)
        params = {k: v.var() for k, v in self._reg_params.items()}
        with self.name_scope():
            return self.hybrid_forward(symbol, x, *args, **params)

    def hybrid_forward(self, F: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        """Overrides to construct symbolic graph for this `Block`.

        Parameters
        ----------
        x : Symbol or NDArray
            The first input tensor.
        *args : list of Symbol or list of NDArray
            Additional input tensors.
        """
        raise NotImplementedError
