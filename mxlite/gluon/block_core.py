"""Base container of all neural network models (``mx.gluon.Block``), as MXNet 1.9.1's.

Design note
-----------
A :class:`Block` owns a :class:`ParameterDict` (its own parameters, full names such as
``dense0_weight``) and an ordered set of child blocks, registered when assigned as attributes.
Prefixes are MXNet's: a block made outside any ``name_scope`` takes ``<class>N_`` from the
process-wide :class:`mxlite.name.NameManager`; inside a parent's ``name_scope`` it counts per
class within that parent and prepends the parent's prefix. Saving and loading (keyed by the
structural names, ``0.weight``, ``features.3.bias``) are in ``block_files.py``, a base class.

:class:`HybridBlock` and :class:`SymbolBlock` live in ``hybrid_block.py`` and
``symbol_block.py``; ``block.py`` re-exports the three, where MXNet code imports them from.
"""

from __future__ import annotations

import re
import threading
import warnings
import weakref
from collections import OrderedDict
from typing import Any

from .. import name as _name
from ..base import ParamError
from ..ndarray.ndarray import NDArray
from ..numpy.multiarray import ndarray as np_ndarray
from ..symbol.numpy import _Symbol
from ..symbol.symbol import Symbol
from ..util import is_np_array
from .block_files import BlockFiles, _is_hybrid
from .parameter import GluonCheckError, Parameter, ParameterDict
from .utils import HookHandle, _indent

__all__ = ["Block"]


def _attached(hooks: dict, hook: Any) -> HookHandle:
    """A new handle holding ``hook`` in ``hooks``."""
    handle = HookHandle()
    handle.attach(hooks, hook)
    return handle


def _unregistered(data: Any, children: set) -> bool:
    """Whether the container ``data`` holds a Block that is not one of ``children`` (a module
    function: a recursive closure would be a cycle keeping the children alive)."""
    if isinstance(data, (list, tuple)):
        return any(_unregistered(x, children) for x in data)
    if isinstance(data, dict):
        return any(_unregistered(x, children) for x in data.values())
    return isinstance(data, Block) and data not in children


class _BlockScope:
    """Scope for collecting child `Block` s."""

    _current = threading.local()

    def __init__(self, block: Block, weak: bool = False) -> None:
        # a block's own scope holds it weakly (``weak``): the block holds its scope, and a cycle
        # would keep a dropped block (and a hybridized one's executors with their planned
        # memory) until the cycle collector runs; a scope made for another object (MXNet's
        # tests enter one around a stand-in) keeps it alive
        self._block_ref = weakref.ref(block) if weak else (lambda: block)
        self._counter: dict[str, int] = {}
        self._old_scope: _BlockScope | None = None
        self._name_scope: _name.Prefix | None = None

    @property
    def _block(self) -> Block:
        return self._block_ref()  # type: ignore[return-value]  # alive while its scope is used

    def __getstate__(self) -> dict:
        # pickled with its block under MXNet's attribute name '_block' (pickles go both ways
        # with MXNet), which a weak reference could not be
        state = {k: v for k, v in self.__dict__.items() if k != "_block_ref"}
        state["_block"] = self._block
        return state

    def __setstate__(self, state: dict) -> None:
        state = dict(state)
        self._block_ref = weakref.ref(state.pop("_block"))
        self.__dict__.update(state)

    @staticmethod
    def create(prefix: str | None, params: ParameterDict | None, hint: str) -> tuple:
        """The prefix and the parameter dict of a new block."""
        current = getattr(_BlockScope._current, "value", None)
        if current is None:
            if prefix is None:
                prefix = _name.NameManager.current.get(None, hint) + "_"
            if params is None:
                params = ParameterDict(prefix)
            else:
                params = ParameterDict(params.prefix, params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = f"{hint}{count}_"
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self) -> _BlockScope:
        if self._block._empty_prefix:
            return self
        self._old_scope = getattr(_BlockScope._current, "value", None)
        _BlockScope._current.value = self
        self._name_scope = _name.Prefix(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._block._empty_prefix:
            return
        self._name_scope.__exit__(*exc)  # type: ignore[union-attr]
        self._name_scope = None
        _BlockScope._current.value = self._old_scope


class Block(BlockFiles):
    """Base class for all neural network layers and models. Your models should
    subclass this class.

    :py:class:`Block` can be nested recursively in a tree structure. You can create and
    assign child :py:class:`Block` as regular attributes::

        from mxnet.gluon import Block, nn
        from mxnet import ndarray as F

        class Model(Block):
            def __init__(self, **kwargs):
                super(Model, self).__init__(**kwargs)
                # use name_scope to give child Blocks appropriate names.
                with self.name_scope():
                    self.dense0 = nn.Dense(20)
                    self.dense1 = nn.Dense(20)

            def forward(self, x):
                x = F.relu(self.dense0(x))
                return F.relu(self.dense1(x))

    Parameters
    ----------
    prefix : str
        Prefix acts like a name space. All children blocks created in parent block's
        :py:meth:`name_scope` will have parent block's prefix in their name.
    params : ParameterDict or None
        :py:class:`ParameterDict` for sharing weights with the new :py:class:`Block`. For
        example, if you want ``dense1`` to share ``dense0``'s weights, you can do::

            dense0 = nn.Dense(20)
            dense1 = nn.Dense(20, params=dense0.collect_params())
    """

    def __init__(self, prefix: str | None = None, params: ParameterDict | None = None) -> None:
        self._empty_prefix = prefix == ""
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith("_") else self._prefix
        self._scope = _BlockScope(self, weak=True)
        self._children: OrderedDict[str, Block] = OrderedDict()
        self._reg_params: dict[str, Parameter] = {}
        self._forward_hooks: OrderedDict = OrderedDict()
        self._forward_pre_hooks: OrderedDict = OrderedDict()

    def __repr__(self) -> str:
        modstr = "\n".join(
            f"  ({key}): {_indent(repr(block), 2)}"
            for key, block in self.__dict__.items()
            if isinstance(block, Block)
        )
        return f"{self.__class__.__name__}(\n{modstr}\n)"

    def __setattr__(self, name: str, value: Any) -> None:
        """Registers parameters."""
        if hasattr(self, name):
            existing = getattr(self, name)
            if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
                raise TypeError(
                    f"Changing attribute type for {name} from {type(existing)} to "
                    f"{type(value)}is not allowed."
                )
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            if name in self._reg_params:
                raise GluonCheckError(
                    f"Overriding Parameter attribute {name} is not allowed. If you want to "
                    "share parameters between blocks, please set 'params' at Block "
                    "construction instead."
                )
            self._reg_params[name] = value
        super().__setattr__(name, value)

    def _check_container_with_block(self) -> None:
        children = set(self._children.values())
        for k, v in self.__dict__.items():
            if isinstance(v, (list, tuple, dict)) and not (k.startswith("__") or k == "_children"):
                if _unregistered(v, children):
                    warnings.warn(
                        f'"{self.__class__.__name__}.{k}" is an unregistered container with '
                        "Blocks. Note that Blocks inside the list, tuple or dict will not be "
                        "registered automatically. Make sure to register them using "
                        "register_child() or switching to nn.Sequential/nn.HybridSequential "
                        "instead. ",
                        stacklevel=3,
                    )

    def _alias(self) -> str:
        return self.__class__.__name__.lower()

    @property
    def prefix(self) -> str:
        """Prefix of this :py:class:`Block`."""
        return self._prefix

    @property
    def name(self) -> str:
        """Name of this :py:class:`Block`, without '_' in the end."""
        return self._name

    def name_scope(self) -> _BlockScope:
        """Returns a name space object managing a child :py:class:`Block` and parameter
        names. Should be used within a ``with`` statement::

            with self.name_scope():
                self.dense = nn.Dense(20)
        """
        return self._scope

    @property
    def params(self) -> ParameterDict:
        """Returns this :py:class:`Block`'s parameter dictionary (does not include its
        children's parameters)."""
        return self._params

    def collect_params(self, select: str | None = None) -> ParameterDict:
        """Returns a :py:class:`ParameterDict` containing this :py:class:`Block` and all of
        its children's Parameters (default), or only those whose names match the regular
        expression ``select``, e.g. ``model.collect_params('.*weight|.*bias')``.

        Parameters
        ----------
        select : str
            regular expressions

        Returns
        -------
        The selected :py:class:`ParameterDict`
        """
        self._check_container_with_block()
        ret = ParameterDict(self._params.prefix)
        if not select:
            ret.update(self.params)
        else:
            pattern = re.compile(select)
            ret.update({k: v for k, v in self.params.items() if pattern.match(k)})
        for child in self._children.values():
            ret.update(child.collect_params(select=select))
        return ret

    def _collect_params_with_prefix(self, prefix: str = "") -> dict[str, Parameter]:
        if prefix:
            prefix += "."
        ret = {prefix + key: val for key, val in self._reg_params.items()}
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    def register_child(self, block: Block, name: str | None = None) -> None:
        """Registers block as a child of self. :py:class:`Block` s assigned to self as
        attributes will be registered automatically."""
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_forward_pre_hook(self, hook: Any) -> HookHandle:
        """Registers a forward pre-hook on the block, called as ``hook(block, input)`` before
        :py:meth:`forward`.

        Returns
        -------
        :class:`mxnet.gluon.utils.HookHandle`
        """
        return _attached(self._forward_pre_hooks, hook)

    def register_forward_hook(self, hook: Any) -> HookHandle:
        """Registers a forward hook on the block, called as ``hook(block, input, output)``
        after :py:meth:`forward`.

        Returns
        -------
        :class:`mxnet.gluon.utils.HookHandle`
        """
        return _attached(self._forward_hooks, hook)

    def apply(self, fn: Any) -> Block:
        """Applies ``fn`` recursively to every child block as well as self.

        Parameters
        ----------
        fn : callable
            Function to be applied to each submodule, of form `fn(block)`.

        Returns
        -------
        this block
        """
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def initialize(
        self,
        init: Any = None,
        ctx: Any = None,
        verbose: bool = False,
        force_reinit: bool = False,
    ) -> None:
        """Initializes :py:class:`Parameter` s of this :py:class:`Block` and its children.
        Equivalent to ``block.collect_params().initialize(...)``

        Parameters
        ----------
        init : Initializer, default Uniform()
            Global default Initializer to be used when :py:meth:`Parameter.init` is ``None``.
        ctx : Context or list of Context
            Keeps a copy of Parameters on one or many context(s).
        verbose : bool, default False
            Whether to verbosely print out details on initialization.
        force_reinit : bool, default False
            Whether to force re-initialization if parameter is already initialized.
        """
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def hybridize(self, active: bool = True, **kwargs: Any) -> None:
        """Activates or deactivates :py:class:`HybridBlock` s recursively. Has no effect on
        non-hybrid children.

        Parameters
        ----------
        active : bool, default True
            Whether to turn hybrid on or off.
        static_alloc : bool, default False
            Statically allocate memory to improve speed. Memory usage may increase.
        static_shape : bool, default False
            Optimize for invariant input shapes between iterations. Must also
            set static_alloc to True. Change of input shapes is still allowed
            but slower.
        """
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    def cast(self, dtype: Any) -> None:
        """Cast this Block to use another data type.

        Parameters
        ----------
        dtype : str or numpy.dtype
            The new data type.
        """
        for child in self._children.values():
            child.cast(dtype)
        for param in self.params.values():
            param.cast(dtype)

    def zero_grad(self) -> None:
        """Sets all Parameters' gradient buffer to 0."""
        self.collect_params().zero_grad()

    def reset_ctx(self, ctx: Any) -> None:
        """Re-assign all Parameters to other contexts."""
        self.collect_params().reset_ctx(ctx)

    def share_parameters(self, shared: dict) -> Block:
        """Share parameters recursively inside the model: every parameter of this block whose
        structural name (as ``save_parameters`` writes it, e.g. ``0.weight``) is a key of
        ``shared`` is replaced by that Parameter.

        Parameters
        ----------
        shared : dict of str to Parameter
            Structural name to the Parameter to use.

        Returns
        -------
        this block
        """
        if shared is None:
            return self
        if not isinstance(shared, dict):
            raise ParamError(
                f"share_parameters: argument 'shared' must be a dict of structural name to "
                f"Parameter, got {type(shared).__name__}."
            )
        self._share(shared, "")
        return self

    def _share(self, shared: dict, prefix: str) -> None:
        for key, param in list(self._reg_params.items()):
            new = shared.get(prefix + key)
            if new is None or new is param:
                continue
            self._reg_params[key] = new
            object.__setattr__(self, key, new)
            full = [k for k, v in self._params.items() if v is param]
            for k in full:
                self._params._params[k] = new
        for name, child in self._children.items():
            child._share(shared, prefix + name + ".")
        clear = getattr(self, "_clear_cached_op", None)
        if clear is not None:
            clear()

    def __call__(self, *args: Any) -> Any:
        """Calls forward. Only accepts positional arguments."""
        for hook in self._forward_pre_hooks.values():
            hook(self, args)
        out = self.forward(*args)
        for hook in self._forward_hooks.values():
            hook(self, args, out)
        if is_np_array():
            _check_all_np_outputs(out)
        return out

    def forward(self, *args: Any) -> Any:
        """Overrides to implement forward computation using :py:class:`NDArray`. Only
        accepts positional arguments."""
        raise NotImplementedError

    def register_op_hook(self, callback: Any, monitor_all: bool = False) -> None:
        """Install a callback, called on each operator's output when hybridized."""
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    def summary(self, *inputs: Any) -> None:
        """Print the summary of the model's output and parameters.

        The network must have been initialized, and must not have been hybridized.

        Parameters
        ----------
        inputs : object
            Any input that the model supports. For any tensor in the input, only
            :class:`mxnet.ndarray.NDArray` is supported.
        """
        summary: OrderedDict[str, dict] = OrderedDict()
        seen: set[int] = set()
        hooks: list[HookHandle] = []

        def shape_str(args: Any) -> str:
            def shapes(x: Any) -> Any:
                if isinstance(x, (list, tuple)):
                    return [shapes(i) for i in x]
                return x.shape if isinstance(x, NDArray) else x

            s = shapes(args)
            return (str(s)[1:-1] if isinstance(s, list) else str(s)).replace("L", "")

        def register(block: Block) -> None:
            if _is_hybrid(block) and block._active:
                raise GluonCheckError(f'"{block.name}" must not be hybridized to print summary.')

            def hook(block: Block, _: Any, outputs: Any) -> None:
                key = f"{block.__class__.__name__}-{len(summary)}"
                row = summary[key] = {"output_shape": shape_str(outputs)}
                n = trainable = shared = 0
                for p in block.params.values():
                    size = p.data().size
                    n += size
                    trainable += 0 if p.grad_req == "null" else size
                    if id(p) in seen:
                        shared += size
                    else:
                        seen.add(id(p))
                row.update(n_params=n, trainable=trainable, shared=shared)

            if not getattr(block, "_summary_transparent", False):  # the sequential containers
                hooks.append(block.register_forward_hook(hook))

        summary["Input"] = {
            "output_shape": shape_str(list(inputs) if len(inputs) > 1 else inputs[0]),
            "n_params": 0,
            "trainable": 0,
            "shared": 0,
        }
        try:
            self.apply(register)
            self(*inputs)
            fmt = "{:>20}  {:>42} {:>15}"
            print("-" * 80)
            print(fmt.format("Layer (type)", "Output Shape", "Param #"))
            print("=" * 80)
            total = trainable = shared = 0
            for layer, row in summary.items():
                print(fmt.format(layer, str(row["output_shape"]), row["n_params"]))
                total += row["n_params"]
                trainable += row["trainable"]
                shared += row["shared"]
            print("=" * 80)
            print("Parameters in forward computation graph, duplicate included")
            print("   Total params: " + str(total))
            print("   Trainable params: " + str(trainable))
            print("   Non-trainable params: " + str(total - trainable))
            print("Shared params in forward computation graph: " + str(shared))
            print("Unique parameters in model: " + str(total - shared))
            print("-" * 80)
        finally:
            for h in hooks:
                h.detach()


def _check_all_np_outputs(out: Any) -> None:
    """In NumPy-array mode a block's outputs are all mx.np arrays (or mx.sym.np symbols)."""
    if isinstance(out, (list, tuple)):
        for o in out:
            _check_all_np_outputs(o)
    elif isinstance(out, NDArray) and not isinstance(out, np_ndarray):
        raise TypeError(
            "Block: in NumPy-array mode (npx.set_np) every output must be an mx.np.ndarray, "
            f"got {type(out).__name__}; use as_np_ndarray() on it."
        )
    elif isinstance(out, Symbol) and not isinstance(out, _Symbol):
        raise TypeError(
            "Block: in NumPy-array mode (npx.set_np) every output must be an mx.sym.np._Symbol, "
            f"got {type(out).__name__}; use as_np_ndarray() on it."
        )
