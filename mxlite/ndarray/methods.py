"""NDArray methods that forward to an operator (``x.sum(axis=1)`` is ``mx.nd.sum(x, axis=1)``),
with MXNet 1.9.1's list; and ``reshape``, which returns a view sharing memory, as in MXNet."""

from __future__ import annotations

from typing import Any

from ..base import MXNetError
from . import invoke as _invoke
from . import op as _op_module
from .ndarray import NDArray, _wrap

# method name -> operator name, for every NDArray method of MXNet 1.9.1 that is an operator
OP_METHODS = {
    **{
        m: m
        for m in (
            "reshape_like zeros_like ones_like broadcast_axes repeat pad swapaxes split slice "
            "slice_axis slice_like take one_hot pick sort topk argsort argmax argmax_channel "
            "argmin "
            "clip abs sign shape_array size_array expand_dims tile transpose flip depth_to_space "
            "space_to_depth diag sum nansum prod nanprod mean max min norm round rint fix floor "
            "ceil trunc sin cos tan arcsin arccos arctan degrees radians sinh cosh tanh arcsinh "
            "arccosh arctanh exp expm1 log log10 log2 log1p sqrt rsqrt cbrt rcbrt square "
            "reciprocal relu sigmoid softmax log_softmax softmin squeeze broadcast_like"
        ).split()
    },
    "flatten": "Flatten",
}


def _op_method(method: str, op_name: str) -> Any:
    def fn(self: NDArray, *args: Any, **kwargs: Any) -> Any:
        f = getattr(_op_module, op_name, None)
        if f is None:
            raise MXNetError(f"NDArray.{method}: operator {op_name!r} is not available.")
        return f(self, *args, **kwargs)

    fn.__name__ = method
    fn.__doc__ = f"Convenience method for :func:`mxlite.nd.{op_name}` on this array."
    return fn


def reshape(self: NDArray, *shape: Any, **kwargs: Any) -> NDArray:
    """A view of this array with a new shape, sharing memory (MXNet's special values 0, -1,
    -2, -3, -4 and ``reverse=True`` work as in ``mx.nd.reshape``)."""
    from ..operator.tensor.shape import reshape_shape

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


def broadcast_to(self: NDArray, shape: Any) -> NDArray:
    """Broadcast to ``shape`` (a copy), as ``mx.nd.broadcast_to``."""
    return _op_module.broadcast_to(self, shape=tuple(shape))


def install() -> None:
    for method, op_name in OP_METHODS.items():
        setattr(NDArray, method, _op_method(method, op_name))
    NDArray.reshape = reshape
    NDArray.broadcast_to = broadcast_to
