"""The machinery behind ``mx.init``: the registry, ``InitDesc``, the ``Initializer`` base with
MXNet 1.9.1's name-pattern dispatch, and the two composite initializers ``Load`` and ``Mixed``.

Policy. An initializer is called as ``init(desc, arr)`` and fills the NDArray ``arr`` in place.
What it writes depends on the parameter's name, exactly as in MXNet 1.9.1:

- ``desc`` is an :class:`InitDesc` (what Module and Gluon pass): an ``__init__`` attribute in
  ``desc.attrs`` (set by ``mx.sym.Variable(init=...)``, or by BatchNorm for its moving stats)
  wins and names the initializer to use; otherwise the suffix picks the method: ``weight``,
  ``bias`` (zero), ``gamma`` (one), ``beta`` (zero), ``min`` (zero), ``max`` (one),
  ``weight_quantize``, ``bias_quantize``; any other name is an error.
- ``desc`` is a plain ``str`` (the deprecated legacy call): the older, longer table also knows
  ``upsampling*`` (bilinear), ``stn_loc*`` and the BatchNorm statistics ``moving_mean`` (zero),
  ``moving_var`` (one), ``moving_inv_var`` and ``moving_avg`` (zero).

Subclasses override ``_init_weight`` (and any other ``_init_*``). ``dumps()`` writes
``[lowercased class name, constructor kwargs]`` as JSON; :func:`create` reads it back, so a
symbol's ``__init__`` attribute saved by MXNet names the same initializer here.

State: the registry (lowercased name -> class) is module-global and filled at import time;
user classes join it through :func:`register` and :func:`alias`.

Example::

    >>> import mxlite as mx
    >>> arr = mx.nd.empty((2, 3))
    >>> mx.init.Constant(0.5)(mx.init.InitDesc("fc1_weight"), arr)
    >>> mx.init.Constant(0.5)(mx.init.InitDesc("fc1_bias"), arr)
    >>> float(arr.sum().asscalar())
    0.0
"""

from __future__ import annotations

import json
import logging
import re
import warnings
from collections.abc import Callable
from math import sqrt
from typing import Any

import numpy as np

from ..base import MXNetError, ParamError, ShapeError
from ..registry import Registry


class InitDesc(str):
    """Descriptor for the initialization pattern.

    Parameters
    ----------
    name : str
        Name of variable.
    attrs : dict of str to str
        Attributes of this variable taken from ``Symbol.attr_dict``.
    global_init : Initializer
        Global initializer to fallback to.
    """

    attrs: dict[str, str]
    global_init: Initializer | None

    def __new__(
        cls, name: str, attrs: dict[str, str] | None = None, global_init: Any = None
    ) -> InitDesc:
        ret = super().__new__(cls, name)
        ret.attrs = attrs or {}
        ret.global_init = global_init
        return ret


class Initializer:
    """The base class of an initializer."""

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = kwargs
        self._verbose = False
        self._print_func: Callable[[Any], str] | None = None

    def set_verbosity(
        self, verbose: bool = False, print_func: Callable[[Any], str] | None = None
    ) -> Initializer:
        """Switch on/off verbose mode.

        Parameters
        ----------
        verbose : bool
            switch on/off verbose mode
        print_func : function
            A function that computes statistics of initialized arrays. Takes an `NDArray` and
            returns an `str`. Defaults to the root mean square, ``norm(x) / sqrt(x.size)``.
        """
        self._verbose = verbose
        if print_func is None:

            def print_func(x: Any) -> str:
                return str(float(np.linalg.norm(x.asnumpy().ravel())) / sqrt(x.size))

        self._print_func = print_func
        return self

    def _verbose_print(self, desc: str, init: str, arr: Any) -> None:
        if self._verbose and self._print_func:
            logging.info("Initialized %s as %s: %s", desc, init, self._print_func(arr))

    def dumps(self) -> str:
        """Saves the initializer to string.

        Returns
        -------
        str
            JSON formatted string that describes the initializer.

        Examples
        --------
        >>> import mxlite as mx
        >>> mx.init.Normal(0.5).dumps()
        '["normal", {"sigma": 0.5}]'
        """
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, desc: str, arr: Any) -> None:
        """Initialize an array.

        Parameters
        ----------
        desc : InitDesc
            Initialization pattern descriptor.
        arr : NDArray
            The array to be initialized.
        """
        if not isinstance(desc, InitDesc):
            self._legacy_init(desc, arr)
            return
        if desc.global_init is None:
            desc.global_init = self
        init = desc.attrs.get("__init__", "")
        if init:
            create(init)._init_weight(desc, arr)
            self._verbose_print(desc, init, arr)
            return
        # The first matching suffix wins, in MXNet 1.9.1's order.
        for suffix, method in (
            ("weight", self._init_weight),
            ("bias", self._init_bias),
            ("gamma", self._init_gamma),
            ("beta", self._init_beta),
            ("min", self._init_zero),
            ("max", self._init_one),
            ("weight_quantize", self._init_quantized_weight),
            ("bias_quantize", self._init_quantized_bias),
        ):
            if desc.endswith(suffix):
                method(desc, arr)
                self._verbose_print(desc, suffix, arr)
                return
        self._init_default(desc, arr)

    def _legacy_init(self, name: Any, arr: Any) -> None:
        """Initialize by name alone (the pre-InitDesc call, deprecated in MXNet too)."""
        warnings.warn(
            "Calling initializer with init(str, NDArray) has been deprecated. "
            "please use init(mx.init.InitDesc(...), NDArray) instead.",
            DeprecationWarning,
            stacklevel=3,
        )
        from ..ndarray import NDArray

        if not isinstance(name, str):
            raise ParamError(f"Initializer: argument 'name' must be a str, got {type(name)}")
        if not isinstance(arr, NDArray):
            raise ParamError(f"Initializer: argument 'arr' must be an NDArray, got {type(arr)}")
        if name.startswith("upsampling"):
            self._init_bilinear(name, arr)
        elif name.startswith("stn_loc") and name.endswith("weight"):
            self._init_zero(name, arr)
        elif name.startswith("stn_loc") and name.endswith("bias"):
            self._init_loc_bias(name, arr)
        elif name.endswith("bias"):
            self._init_bias(name, arr)
        elif name.endswith("gamma"):
            self._init_gamma(name, arr)
        elif name.endswith("beta"):
            self._init_beta(name, arr)
        elif name.endswith("weight"):
            self._init_weight(name, arr)
        elif name.endswith("moving_mean"):
            self._init_zero(name, arr)
        elif name.endswith("moving_var"):
            self._init_one(name, arr)
        elif name.endswith("moving_inv_var") or name.endswith("moving_avg"):
            self._init_zero(name, arr)
        elif name.endswith("min"):
            self._init_zero(name, arr)
        elif name.endswith("max"):
            self._init_one(name, arr)
        else:
            self._init_default(name, arr)

    def _init_bilinear(self, _: str, arr: Any) -> None:
        arr[:] = bilinear_kernel(arr.shape)

    def _init_loc_bias(self, name: str, arr: Any) -> None:
        if arr.shape[0] != 6:
            raise ShapeError(
                f"Initializer: '{name}' (a spatial transformer's loc bias) must have 6 "
                f"elements, got shape {arr.shape}"
            )
        arr[:] = np.array([1.0, 0, 0, 0, 1.0, 0])

    def _init_zero(self, _: str, arr: Any) -> None:
        arr[:] = 0.0

    def _init_one(self, _: str, arr: Any) -> None:
        arr[:] = 1.0

    def _init_bias(self, _: str, arr: Any) -> None:
        arr[:] = 0.0

    def _init_quantized_bias(self, _: str, arr: Any) -> None:
        arr[:] = 0

    def _init_gamma(self, _: str, arr: Any) -> None:
        arr[:] = 1.0

    def _init_beta(self, _: str, arr: Any) -> None:
        arr[:] = 0.0

    def _init_weight(self, name: str, arr: Any) -> None:
        """Abstract method to Initialize weight."""
        raise NotImplementedError("Must override it")

    def _init_quantized_weight(self, _: str, arr: Any) -> None:
        from ..ndarray import random

        arr[:] = random.randint(-127, 127, shape=arr.shape, dtype="int32").asnumpy()

    def _init_default(self, name: str, _: Any) -> None:
        raise ParamError(
            f"Unknown initialization pattern for {name}. Default initialization is now "
            'limited to "weight", "bias", "gamma" (1.0), and "beta" (0.0). Please use '
            "mx.sym.Variable(init=mx.init.*) to set initialization pattern"
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Initializer):
            return NotImplemented
        return type(self) is type(other) and self._kwargs == other._kwargs

    __hash__ = None  # type: ignore[assignment]  # equal by value, and mutable: not hashable


def bilinear_kernel(shape: tuple[int, ...]) -> np.ndarray:
    """The bilinear upsampling kernel of ``shape`` (``(..., kh, kw)``), as float32."""
    if len(shape) != 4:
        raise ShapeError(f"Bilinear: the weight must be 4-D (n, c, kh, kw), got shape {shape}")
    f = np.ceil(shape[3] / 2.0)
    c = (2 * f - 1 - f % 2) / (2.0 * f)
    # MXNet walks the flat array with x = i % kw and y = (i // kw) % kh, so both
    # factors use the width's f and c even when kh != kw.
    x = np.arange(shape[3])
    y = np.arange(shape[2])
    row = 1 - np.abs(x / f - c)
    col = 1 - np.abs(y / f - c)
    kernel = (col[:, None] * row[None, :]).astype(np.float32)
    return np.broadcast_to(kernel, shape).copy()


_REGISTRY = Registry(Initializer, "initializer", "mx.init")


def register(klass: type) -> type:
    """Registers a custom initializer under its lowercased class name.

    Custom initializers can be created by extending `mx.init.Initializer` and implementing the
    required functions like `_init_weight` and `_init_bias`. The created initializer must be
    registered using `mx.init.register` before it can be called by name.

    Parameters
    ----------
    klass : class
        A subclass of `mx.init.Initializer` that needs to be registered as a custom initializer.
    """
    return _REGISTRY.register(klass)


alias = _REGISTRY.alias


def create(*args: Any, **kwargs: Any) -> Initializer:
    """Create an initializer instance from config.

    Parameters
    ----------
    initializer : str or Initializer instance
        Class name of desired instance (any case), a JSON string written by ``dumps()``
        (``'["xavier", {"magnitude": 2}]'``) or a dict with key ``initializer``. An instance
        is returned as it is.
    **kwargs : dict
        arguments to be passed to constructor
    """
    return _REGISTRY.create(*args, **kwargs)


class Load:
    """Initializes variables by loading data from file or dict.

    **Note** Load will drop ``arg:`` or ``aux:`` from name and initialize the variables that
    match with the prefix dropped.

    Parameters
    ----------
    param: str or dict of str->`NDArray`
        Parameter file or dict mapping name to NDArray.
    default_init: Initializer
        Default initializer when name is not found in `param`.
    verbose: bool
        Flag for enabling logging of source when initializing.
    """

    def __init__(self, param: Any, default_init: Any = None, verbose: bool = False) -> None:
        if isinstance(param, str):
            from ..ndarray import load

            param = load(param)
        if not isinstance(param, dict):
            raise ParamError(
                f"mx.init.Load: argument 'param' must be a dict of name to NDArray (or a file "
                f"holding one), got {type(param).__name__}"
            )
        self.param = {}
        for name, arr in param.items():
            if name.startswith("arg:") or name.startswith("aux:"):
                name = name[4:]
            self.param[name] = arr
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name: str, arr: Any) -> None:
        if name in self.param:
            if tuple(arr.shape) != tuple(self.param[name].shape):
                raise ShapeError(
                    f"mx.init.Load: parameter {name} cannot be initialized from loading. "
                    f"Shape mismatch, target {arr.shape} vs loaded {self.param[name].shape}"
                )
            arr[:] = self.param[name]
            if self.verbose:
                logging.info("Initialized %s by loading", name)
            return
        if self.default_init is None:
            raise MXNetError(
                f"mx.init.Load: cannot initialize {name}: not found in loaded param and no "
                "default Initializer is provided."
            )
        self.default_init(name, arr)
        if self.verbose:
            logging.info("Initialized %s by default", name)


class Mixed:
    """Initialize parameters using multiple initializers.

    Parameters
    ----------
    patterns: list of str
        List of regular expressions matching parameter names (``re.match``: from the start).
    initializers: list of Initializer
        List of initializers corresponding to `patterns`.

    Examples
    --------
    >>> import mxlite as mx
    >>> init = mx.init.Mixed(["bias", ".*"], [mx.init.Zero(), mx.init.Uniform(0.1)])
    """

    def __init__(self, patterns: list[str], initializers: list[Any]) -> None:
        if len(patterns) != len(initializers):
            raise ParamError(
                f"mx.init.Mixed: 'patterns' and 'initializers' must have the same length, got "
                f"{len(patterns)} and {len(initializers)}"
            )
        self.map = list(zip([re.compile(p) for p in patterns], initializers))

    def __call__(self, name: str, arr: Any) -> None:
        for prog, init in self.map:
            if prog.match(name):
                init(name, arr)
                return
        raise ParamError(
            f"mx.init.Mixed: parameter name {name} did not match any pattern. Consider "
            'adding a ".*" pattern at the end with a default Initializer.'
        )
