"""``ParameterDict``: a dictionary of Parameters keyed by full name, with a prefix for the ones
it creates and an optional dict to share from (imported from ``mx.gluon.parameter``)."""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

import numpy as np

from .. import initializer, ndarray
from ..base import ParamError
from ..context import Context
from ..ndarray.ndarray import NDArray
from .parameter_core import (
    Constant,
    GluonCheckError,
    Parameter,
    _brief_print_list,
    _indent,
    _same_dtype,
)

__all__ = ["ParameterDict"]


def _deferred(params: ParameterDict, name: str, shape: Any, init: Any, **kwargs: Any) -> Parameter:
    """``params.get(name)`` of a parameter created with deferred initialization: the first
    forward fills in the unknown (0) dimensions of ``shape``."""
    return params.get(name, shape=shape, init=init, allow_deferred_init=True, **kwargs)


class ParameterDict:
    """A dictionary managing a set of parameters.

    Parameters
    ----------
    prefix : str, default ``''``
        The prefix to be prepended to all Parameters' names created by this dict.
    shared : ParameterDict or None
        If not ``None``, when this dict's :py:meth:`get` method creates a new parameter, will
        first try to retrieve it from "shared" dict. Usually used for sharing parameters with
        another Block.
    """

    def __init__(self, prefix: str = "", shared: ParameterDict | None = None) -> None:
        self._prefix = prefix
        self._params: OrderedDict[str, Parameter] = OrderedDict()
        self._shared = shared

    def __repr__(self) -> str:
        name = self._prefix + " " if self._prefix else ""
        content = "\n".join(_indent(f"  {v}", 2) for v in self.values())
        return f"{name}(\n{content}\n)"

    def __getitem__(self, key: str) -> Parameter:
        return self._params[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._params)

    def __len__(self) -> int:
        return len(self._params)

    def __contains__(self, key: object) -> bool:
        return key in self._params

    def items(self) -> Any:
        return self._params.items()

    def keys(self) -> Any:
        return self._params.keys()

    def values(self) -> Any:
        return self._params.values()

    @property
    def prefix(self) -> str:
        """Prefix of this dict. It will be prepended to :py:class:`Parameter`s' name created
        with :py:func:`get`."""
        return self._prefix

    def _get_impl(self, name: str) -> Parameter | None:
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._shared._params[name]
        return None

    def get(self, name: str, **kwargs: Any) -> Parameter:
        """Retrieves a :py:class:`Parameter` with name ``self.prefix+name``. If not found,
        :py:func:`get` will first try to retrieve it from "shared" dict. If still not found,
        :py:func:`get` will create a new :py:class:`Parameter` with key-word arguments and
        insert it to self.

        Parameters
        ----------
        name : str
            Name of the desired Parameter. It will be prepended with this dictionary's prefix.
        **kwargs : dict
            The rest of key-word arguments for the created :py:class:`Parameter`.
        """
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
            return param
        for k, v in kwargs.items():
            existing = getattr(param, k, None)
            if existing is None:
                setattr(param, k, v)
                continue
            if k == "shape" and v is not None and len(v) == len(existing):
                merged, matched = [], True
                for d1, d2 in zip(v, existing):
                    if d1 != d2 and d1 > 0 and d2 > 0:
                        matched = False
                        break
                    merged.append(d2 if d1 in (0, -1) else d1)
                if matched:
                    param._shape = tuple(merged)
                    continue
            elif k == "dtype" and v is not None and _same_dtype(v, existing):
                continue
            if v is not None and v != existing:
                raise GluonCheckError(
                    f"Cannot retrieve Parameter '{name}' because desired attribute does not "
                    f"match with stored for attribute '{k}': desired '{v}' vs stored "
                    f"'{existing}'."
                )
        return param

    def get_constant(self, name: str, value: Any = None) -> Constant:
        """Retrieves a :py:class:`.Constant` with name ``self.prefix+name``; creates it with
        ``value`` when not found.

        Parameters
        ----------
        name : str
            Name of the desired Constant. It will be prepended with this dictionary's prefix.
        value : array-like
            Initial value of constant.
        """
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise KeyError(
                    f"No constant named '{name}'. Please specify value if you want to create "
                    "a new constant."
                )
            param = Constant(name, value)
            self._params[name] = param
        elif value is not None:
            if not isinstance(param, Constant):
                raise GluonCheckError(
                    f"Parameter '{name}' already exists but it is not a constant."
                )
            if isinstance(value, NDArray):
                value = value.asnumpy()
            value = np.asarray(value)
            if param.shape != value.shape or not (param.value.asnumpy() == value).all():
                raise GluonCheckError(
                    f"Constant '{name}' already exists but it's value doesn't match new value"
                )
        return param  # type: ignore[return-value]

    def update(self, other: Any) -> None:
        """Copies all Parameters in ``other`` to self."""
        for k, v in other.items():
            if k in self._params and self._params[k] is not v:
                raise GluonCheckError(
                    "Cannot update self with other because they have different Parameters "
                    f"with the same name '{k}'"
                )
        for k, v in other.items():
            self._params[k] = v

    def initialize(
        self,
        init: Any = None,
        ctx: Any = None,
        verbose: bool = False,
        force_reinit: bool = False,
    ) -> None:
        """Initializes all Parameters managed by this dictionary to be used for
        :py:class:`NDArray` API. It has no effect when using :py:class:`Symbol` API.

        Parameters
        ----------
        init : Initializer
            Global default Initializer to be used when :py:meth:`Parameter.init` is ``None``.
            Otherwise, :py:meth:`Parameter.init` takes precedence.
        ctx : Context or list of Context
            Keeps a copy of Parameters on one or many context(s).
        verbose : bool, default False
            Whether to verbosely print out details on initialization.
        force_reinit : bool, default False
            Whether to force re-initialization if parameter is already initialized.
        """
        if init is None:
            init = initializer.Uniform()
        if verbose:
            init.set_verbosity(verbose=verbose)
        for v in self.values():
            v.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self) -> None:
        """Sets all Parameters' gradient buffer to 0."""
        for p in self.values():
            p.zero_grad()

    def reset_ctx(self, ctx: Any) -> None:
        """Re-assign all Parameters to other contexts."""
        for p in self.values():
            p.reset_ctx(ctx)

    def list_ctx(self) -> list[Context]:
        """Returns a list of all the contexts on which the underlying Parameters are
        initialized."""
        s: set[Context] = set()
        for p in self.values():
            s.update(p.list_ctx())
        return list(s)

    def setattr(self, name: str, value: Any) -> None:
        """Set an attribute to a new value for all Parameters (e.g. ``grad_req``, ``lr_mult``).

        Parameters
        ----------
        name : str
            Name of the attribute.
        value : valid type for attribute name
            The new value for the attribute.
        """
        for p in self.values():
            setattr(p, name, value)

    def save(self, filename: str, strip_prefix: str = "") -> None:
        """Save parameters to file.

        Parameters
        ----------
        filename : str
            Path to parameter file.
        strip_prefix : str, default ''
            Strip prefix from parameter names before saving.
        """
        arg_dict = {}
        for param in self.values():
            weight = param._reduce()
            if not param.name.startswith(strip_prefix):
                raise ParamError(
                    f"Prefix '{strip_prefix}' is to be striped before saving, but Parameter's "
                    f"name '{param.name}' does not start with '{strip_prefix}'. this may be "
                    "due to your Block shares parameters from other Blocks or you forgot to "
                    "use 'with name_scope()' when creating child blocks."
                )
            arg_dict[param.name[len(strip_prefix) :]] = weight
        ndarray.save(filename, arg_dict)

    def load(
        self,
        filename: str,
        ctx: Any = None,
        allow_missing: bool = False,
        ignore_extra: bool = False,
        restore_prefix: str = "",
        cast_dtype: bool = False,
        dtype_source: str = "current",
    ) -> None:
        """Load parameters from file.

        Parameters
        ----------
        filename : str
            Path to parameter file.
        ctx : Context or list of Context
            Context(s) initialize loaded parameters on.
        allow_missing : bool, default False
            Whether to silently skip loading parameters not represents in the file.
        ignore_extra : bool, default False
            Whether to silently ignore parameters from the file that are not present in this
            ParameterDict.
        restore_prefix : str, default ''
            prepend prefix to names of stored parameters before loading.
        cast_dtype : bool, default False
            Cast the data type of the parameter.
        dtype_source : str, default 'current'
            must be in {'current', 'saved'}.
        """
        if restore_prefix:
            for name in self.keys():
                if not name.startswith(restore_prefix):
                    raise GluonCheckError(
                        f"restore_prefix is '{restore_prefix}' but Parameters name '{name}' "
                        f"does not start with '{restore_prefix}'."
                    )
        loaded = ndarray.load(filename)
        self.load_dict(
            loaded, ctx, allow_missing, ignore_extra, restore_prefix, filename, cast_dtype,
            dtype_source,
        )  # fmt: skip

    def load_dict(
        self,
        param_dict: Any,
        ctx: Any = None,
        allow_missing: bool = False,
        ignore_extra: bool = False,
        restore_prefix: str = "",
        filename: str | None = None,
        cast_dtype: bool = False,
        dtype_source: str = "current",
    ) -> None:
        """Load parameters from a dict (name to NDArray; ``arg:``/``aux:`` prefixes dropped)."""
        lprefix = len(restore_prefix)
        items = param_dict.items() if isinstance(param_dict, dict) else param_dict
        loaded = [(re.sub(r"^(arg|aux):", "", k), v) for k, v in items]
        arg_dict = {restore_prefix + k: v for k, v in loaded}
        where = f"file: {filename}" if filename else "param_dict"
        if not allow_missing:
            for name in self.keys():
                if name not in arg_dict:
                    raise GluonCheckError(
                        f"Parameter '{name[lprefix:]}' is missing in {where}, which contains "
                        f"parameters: {_brief_print_list(arg_dict.keys())}. Please make sure "
                        "source and target networks have the same prefix."
                    )
        for name, value in arg_dict.items():
            if name not in self._params:
                if not ignore_extra:
                    raise GluonCheckError(
                        f"Parameter '{name[lprefix:]}' loaded from {where} is not present in "
                        f"ParameterDict, choices are: {_brief_print_list(self._params.keys())}."
                        " Set ignore_extra to True to ignore. Please make sure source and "
                        "target networks have the same prefix."
                    )
                continue
            self[name]._load_init(value, ctx, cast_dtype=cast_dtype, dtype_source=dtype_source)
