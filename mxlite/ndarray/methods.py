"""NDArray methods that forward to an operator (``x.sum(axis=1)`` is ``mx.nd.sum(x, axis=1)``):
one per name an operator declares in its ``fluent``; and ``reshape``, which returns a view
sharing memory, as in MXNet."""

from __future__ import annotations

from typing import Any

from ..base import MXNetError
from ..operator import registry
from . import _internal
from . import invoke as _invoke
from . import op as _op_module
from .ndarray import NDArray, _wrap, extend


def _op_method(method: str) -> Any:
    def fn(self: NDArray, *args: Any, **kwargs: Any) -> Any:
        f = getattr(_op_module, method, None)
        if f is None:
            raise MXNetError(f"NDArray.{method}: operator {method!r} is not available.")
        return f(self, *args, **kwargs)

    fn.__name__ = method
    fn.__doc__ = f"Convenience method for :func:`mxlite.nd.{method}` on this array."
    return fn


def reshape(self: NDArray, *shape: Any, **kwargs: Any) -> NDArray:
    """A view of this array with a new shape, sharing memory (MXNet's special values 0, -1,
    -2, -3, -4 and ``reverse=True`` work as in ``mx.nd.reshape``)."""
    from ..operator.tensor.array_op import reshape_shape

    reverse = kwargs.pop("reverse", False)
    if "shape" in kwargs:
        shape = kwargs.pop("shape")
    elif len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = shape[0]
    if kwargs:
        raise MXNetError(f"NDArray.reshape: unknown argument {next(iter(kwargs))!r}.")
    new = reshape_shape(self.shape, tuple(shape), reverse)
    if _invoke._state[0] and self._ag is not None:  # recorded, so the gradient flows back
        return _op_module.Reshape(self, shape=new)
    return _wrap(self._chunk, self._data.reshape(new), self.writable)


def _view_or_op(self: NDArray, inplace: bool, new_shape: tuple, op_name: str, **kw: Any) -> Any:
    if inplace and not (_invoke._state[0] and self._ag is not None):
        return _wrap(self._chunk, self._data.reshape(new_shape), self.writable)
    return getattr(_op_module, op_name)(self, **kw)


def flatten(self: NDArray, inplace: bool = False) -> NDArray:
    """Collapse all but the first axis; ``inplace=True`` returns a view sharing memory."""
    first = self.shape[0] if self.ndim else 1
    rest = self.size // first if first else 0
    return _view_or_op(self, inplace, (first, rest), "Flatten")


def expand_dims(self: NDArray, axis: int, inplace: bool = False) -> NDArray:
    """Insert an axis of size 1 at ``axis``; ``inplace=True`` returns a view."""
    ax = axis if axis >= 0 else axis + self.ndim + 1
    new = self.shape[:ax] + (1,) + self.shape[ax:]
    return _view_or_op(self, inplace, new, "expand_dims", axis=axis)


def squeeze(self: NDArray, axis: Any = None, inplace: bool = False) -> NDArray:
    """Remove axes of size 1 (all, or those in ``axis``); ``inplace=True`` returns a view."""
    axes = range(self.ndim) if axis is None else (axis,) if isinstance(axis, int) else axis
    axes = {a % self.ndim for a in axes}
    new = tuple(n for i, n in enumerate(self.shape) if not (i in axes and n == 1)) or (1,)
    kw = {} if axis is None else {"axis": axis}
    return _view_or_op(self, inplace, new, "squeeze", **kw)


def broadcast_to(self: NDArray, shape: Any) -> NDArray:
    """Broadcast to ``shape`` (a copy), as ``mx.nd.broadcast_to``."""
    return _op_module.broadcast_to(self, shape=tuple(shape))


def split_v2(self: NDArray, *args: Any, **kwargs: Any) -> Any:
    """Convenience method for :func:`mxlite.nd.split_v2` on this array."""
    from .extras import split_v2 as _split_v2

    return _split_v2(self, *args, **kwargs)


def slice_assign(self: NDArray, rhs: NDArray, begin: Any, end: Any, step: Any) -> NDArray:
    """Write ``rhs`` into the region ``begin:end:step`` of this array, in place; return it."""
    return _internal._slice_assign(self, rhs, begin=begin, end=end, step=step, out=self)


def slice_assign_scalar(self: NDArray, value: float, begin: Any, end: Any, step: Any) -> NDArray:
    """Write ``value`` into the region ``begin:end:step`` of this array, in place; return it."""
    return _internal._slice_assign_scalar(
        self, scalar=value, begin=begin, end=end, step=step, out=self
    )


def as_nd_ndarray(self: NDArray) -> NDArray:
    """This array itself: it already is a classic (``mx.nd``) NDArray."""
    return self


def install() -> None:
    # the operators' fluent methods (OperatorProperty.fluent), and those written here
    members = {method: _op_method(method) for method in registry.fluent_methods()}
    members.update(
        reshape=reshape,
        broadcast_to=broadcast_to,
        flatten=flatten,
        expand_dims=expand_dims,
        squeeze=squeeze,
        split_v2=split_v2,
        slice_assign=slice_assign,
        slice_assign_scalar=slice_assign_scalar,
        as_nd_ndarray=as_nd_ndarray,
        __abs__=lambda self: _op_module.abs(self),
    )
    extend(__name__, members)
