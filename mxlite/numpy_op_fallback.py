"""``mx.numpy_op_fallback``: the custom operators (``Custom`` with these ``op_type``\\ s) that
MXNet 1.9.1 composes some ``mx.np`` functions of, so that a graph holds the same node as
MXNet's; :func:`register` also makes each callable as ``mx.nd.np._internal.<op_type>`` and
``mx.sym.np._internal.<op_type>``.

``mvn_fallback`` (``np.random.multivariate_normal``)
    inputs ``mean`` (..., k) and ``cov`` (..., k, k), parameter ``size``; the output has shape
    ``size + broadcast(mean.shape, cov.shape[:-1])``: ``mean + L @ z`` with ``L`` the Cholesky
    factor of ``cov`` and ``z`` standard normal, no gradient. (MXNet 1.9.1's kernel multiplies
    ``z`` by ``L``'s transpose, whose samples have covariance ``L.T @ L``, not ``cov``; these
    follow the distribution NumPy documents.)
``empty_like_fallback``, ``resize_fallback``, ``unravel_index_fallback``
    ``np.empty_like`` (dtype, order, subok, shape), ``np.resize`` (new_shape) and
    ``np.unravel_index`` (shape), computed by official NumPy.

Parameters arrive as MXNet passes them to a custom operator: strings of Python literals.
"""

from __future__ import annotations

import ast
import functools
from typing import Any, ClassVar

import numpy as np

from .base import add_members
from .context import Context
from .ndarray import numpy as _nd_np
from .numpy import linalg as _linalg
from .numpy import random as _random
from .numpy.multiarray import call, view_np
from .operator import custom
from .operator.custom import CustomOp, CustomOpProp
from .symbol import numpy as _sym_np

__all__ = [
    "register",
    "EmptyLike",
    "EmptyLikeProp",
    "Resize",
    "ResizeProp",
    "Unravel_index",
    "Unravel_indexProp",
    "MultivariateNormal",
    "MultivariateNormalProp",
]


def register(op_name: str, imperative: bool = True, symbolic: bool = True) -> Any:
    """Register a ``CustomOpProp`` as ``op_type=op_name`` and, as MXNet does, add the
    function ``Custom(..., op_type=op_name)`` to ``mx.nd.np._internal`` (``imperative``) and
    ``mx.sym.np._internal`` (``symbolic``), unless an operator of that name serves it there
    already (mxlite has native ``_npi_<op_name>`` operators for some; ``Custom`` nodes of
    MXNet's graphs still run through the registered class)."""

    def helper(prop_cls: type[CustomOpProp]) -> type[CustomOpProp]:
        prop_cls = custom.register(op_name)(prop_cls)
        fn = functools.partial(call, "Custom", op_type=op_name)  # arrays or symbols
        for flag, module in ((imperative, _nd_np._internal), (symbolic, _sym_np._internal)):
            if flag and not hasattr(module, op_name):
                add_members(vars(module), module.__name__, __name__, {op_name: fn})
        return prop_cls

    return helper


def _literal(value: Any) -> Any:
    return ast.literal_eval(value) if isinstance(value, str) else value


def _shape_literal(value: Any) -> tuple:
    """A shape attribute (an int or a tuple of ints, or its string) as a tuple."""
    shape = _literal(value)
    return (shape,) if isinstance(shape, int) else tuple(shape)


class _NoGradientOp(CustomOp):
    """A fallback operator without a gradient, as in MXNet; ``_what`` names it."""

    _what: ClassVar[str]

    def backward(self, req: list, out_grad: list, in_data: list, out_data: list, in_grad: list,
                 aux: list) -> None:  # fmt: skip
        raise NotImplementedError(f"{self._what}: the operator has no gradient (as in MXNet).")


class EmptyLike(_NoGradientOp):
    _what = "empty_like"

    def forward(self, is_train: bool, req: list, in_data: list, out_data: list,
                aux: list) -> None:  # fmt: skip
        pass  # uninitialised, as np.empty_like's result


@register("empty_like_fallback")
class EmptyLikeProp(CustomOpProp):
    """``np.empty_like(prototype, dtype)``: the prototype's shape, ``dtype`` or its dtype."""

    def __init__(self, dtype: Any = None, order: Any = "C", subok: Any = "False",
                 shape: Any = "None") -> None:  # fmt: skip
        super().__init__(need_top_grad=True)
        self._dtype = None if dtype in (None, "None") else np.dtype(dtype)

    def list_arguments(self) -> list[str]:
        return ["prototype"]

    def infer_shape(self, in_shape: list) -> tuple:
        return (in_shape[0],), (in_shape[0],), ()

    def infer_type(self, in_type: list) -> tuple:
        return (in_type[0],), (self._dtype or in_type[0],), ()

    def create_operator(self, ctx: Context, in_shapes: list, in_dtypes: list) -> CustomOp:
        return EmptyLike()


class Resize(_NoGradientOp):
    _what = "resize"

    def __init__(self, new_shape: Any) -> None:
        super().__init__()
        self._new_shape = new_shape

    def forward(self, is_train: bool, req: list, in_data: list, out_data: list,
                aux: list) -> None:  # fmt: skip
        self.assign(out_data[0], req[0], np.resize(in_data[0].asnumpy(), self._new_shape))


@register("resize_fallback")
class ResizeProp(CustomOpProp):
    """``np.resize(a, new_shape)``: ``a`` repeated (or cut) to ``new_shape``."""

    def __init__(self, new_shape: Any) -> None:
        super().__init__(need_top_grad=True)
        self._new_shape = _shape_literal(new_shape)

    def list_arguments(self) -> list[str]:
        return ["a"]

    def infer_shape(self, in_shape: list) -> tuple:
        return (in_shape[0],), (self._new_shape,), ()

    def create_operator(self, ctx: Context, in_shapes: list, in_dtypes: list) -> CustomOp:
        return Resize(self._new_shape)


class Unravel_index(_NoGradientOp):  # noqa: N801  (MXNet's name)
    _what = "unravel_index"

    def __init__(self, shape: Any) -> None:
        super().__init__()
        self._shape = shape

    def forward(self, is_train: bool, req: list, in_data: list, out_data: list,
                aux: list) -> None:  # fmt: skip
        idx = np.unravel_index(in_data[0].asnumpy(), self._shape)  # integer indices only
        self.assign(out_data[0], req[0], np.stack(idx).reshape(out_data[0].shape))


@register("unravel_index_fallback")
class Unravel_indexProp(CustomOpProp):  # noqa: N801  (MXNet's name)
    """``np.unravel_index(indices, shape)`` as one array: (len(shape),) + indices' shape."""

    def __init__(self, shape: Any) -> None:
        super().__init__(need_top_grad=True)
        self._shape = _shape_literal(shape)

    def list_arguments(self) -> list[str]:
        return ["indices"]

    def infer_shape(self, in_shape: list) -> tuple:
        return (in_shape[0],), ((len(self._shape), *in_shape[0]),), ()

    def create_operator(self, ctx: Context, in_shapes: list, in_dtypes: list) -> CustomOp:
        return Unravel_index(self._shape)


class MultivariateNormal(_NoGradientOp):
    _what = "random.multivariate_normal"

    def __init__(self, size: Any = None) -> None:
        super().__init__()
        self._size = size

    def forward(self, is_train: bool, req: list, in_data: list, out_data: list,
                aux: list) -> None:  # fmt: skip
        mean, cov = (view_np(x) for x in in_data)
        if cov.dtype == np.float16:  # the factorisation runs in float32
            chol = _linalg.cholesky(cov.astype(np.float32)).astype(np.float16)
        else:
            chol = _linalg.cholesky(cov)
        shape = out_data[0].shape
        z = _random.normal(size=shape, dtype=mean.dtype, ctx=mean.context)
        self.assign(out_data[0], req[0], mean + (chol @ z.reshape(shape + (1,))).reshape(shape))


@register("mvn_fallback")
class MultivariateNormalProp(CustomOpProp):
    """Samples of N(mean, cov), ``size`` of them per broadcast batch entry."""

    def __init__(self, size: Any = None) -> None:
        super().__init__(need_top_grad=True)
        value = _literal(size)
        self._size = (value,) if isinstance(value, int) else value

    def list_arguments(self) -> list[str]:
        return ["mean", "cov"]

    def infer_shape(self, in_shape: list) -> tuple:
        mean, cov = (tuple(s) for s in in_shape)
        where = "random.multivariate_normal"
        if len(mean) < 1:
            raise ValueError(f"{where}: argument 'mean' must be at least 1-D, got shape {mean}.")
        if len(cov) < 2 or cov[-1] != cov[-2]:
            raise ValueError(f"{where}: argument 'cov' must end in two equal axes, got shape "
                             f"{cov}.")  # fmt: skip
        if cov[-1] != mean[-1]:
            raise ValueError(f"{where}: 'mean' and 'cov' must have the same length, got shapes "
                             f"{mean} and {cov}.")  # fmt: skip
        try:
            batch = np.broadcast_shapes(mean, cov[:-1])
        except ValueError:
            raise ValueError(f"{where}: the shapes of 'mean' {mean} and 'cov' {cov} do not "
                             "broadcast.") from None  # fmt: skip
        out = tuple(self._size or ()) + tuple(batch)
        return in_shape, (out,), ()

    def create_operator(self, ctx: Context, in_shapes: list, in_dtypes: list) -> CustomOp:
        return MultivariateNormal(self._size)
