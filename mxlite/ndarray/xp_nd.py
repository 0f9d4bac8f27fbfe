"""An ``xp`` array module whose functions are NDArray operators (for higher-order autograd).

Design note
-----------
SimpleOp gradients are written against ``xp`` (numpy or cupy) and array arithmetic. Handed
:data:`xp_nd` and NDArrays instead, the same gradient code calls ``mx.nd`` operators, so under
``autograd.record()`` the gradient computation is itself recorded and can be differentiated
again (``autograd.grad(..., create_graph=True)``). Only what gradients use is mapped; anything
else raises an MXNetError naming the missing function. ``out=`` is accepted as None only:
NDArray operators allocate their results.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import MXNetError, numeric_types
from ..operator import registry
from ..operator.simple_op import Env, GradNeeds, _SimpleProp
from . import arith
from .invoke import invoke
from .ndarray import NDArray, _new, _wrap

__all__ = ["xp_nd", "unbroadcast_nd", "as_entry", "backward_recorded"]

_props: dict[tuple, Any] = {}


def _op(name: str, inputs: list[NDArray], **params: Any) -> NDArray:
    key = (name, tuple(sorted(params.items())))
    prop = _props.get(key)
    if prop is None:
        prop = _props[key] = registry.get(name).get_prop(params)
    return invoke(prop, inputs)


def _no_out(fn: str, out: Any) -> None:
    if out is not None:
        raise MXNetError(f"xp_nd.{fn}: argument 'out' must be None (NDArray results are new).")


def _unary(name: str) -> Any:
    def fn(x: Any, out: Any = None) -> Any:
        _no_out(name, out)
        if isinstance(x, numeric_types):
            return getattr(np, name)(x)
        return _op(name, [x])

    fn.__name__ = name
    return fn


def _like(x: Any, ref: NDArray) -> NDArray:
    """``x`` as an NDArray shaped like ``ref`` (scalars become constant arrays)."""
    if isinstance(x, NDArray):
        return x
    return arith.add(_op("zeros_like", [ref]), float(x))


def _binary(name: str, array_op: str, scalar_op: str, rscalar_op: str | None) -> Any:
    def fn(a: Any, b: Any, out: Any = None) -> Any:
        _no_out(name, out)
        a_nd, b_nd = isinstance(a, NDArray), isinstance(b, NDArray)
        if a_nd and b_nd:
            return _op(array_op, [a, b])
        if a_nd:
            return _op(scalar_op, [a], scalar=float(b))
        if b_nd:
            if rscalar_op is None:
                return _op(array_op, [_like(a, b), b])
            return _op(rscalar_op, [b], scalar=float(a))
        return getattr(np, name)(a, b)

    fn.__name__ = name
    return fn


class _XpND:
    """The module-like object; see the module note."""

    float16, float32, float64 = np.float16, np.float32, np.float64
    int8, int32, int64, uint8 = np.int8, np.int32, np.int64, np.uint8

    exp = staticmethod(_unary("exp"))
    expm1 = staticmethod(_unary("expm1"))
    log = staticmethod(_unary("log"))
    log1p = staticmethod(_unary("log1p"))
    log2 = staticmethod(_unary("log2"))
    log10 = staticmethod(_unary("log10"))
    sin = staticmethod(_unary("sin"))
    cos = staticmethod(_unary("cos"))
    tan = staticmethod(_unary("tan"))
    arcsin = staticmethod(_unary("arcsin"))
    arccos = staticmethod(_unary("arccos"))
    arctan = staticmethod(_unary("arctan"))
    sinh = staticmethod(_unary("sinh"))
    cosh = staticmethod(_unary("cosh"))
    tanh = staticmethod(_unary("tanh"))
    sqrt = staticmethod(_unary("sqrt"))
    cbrt = staticmethod(_unary("cbrt"))
    square = staticmethod(_unary("square"))
    abs = staticmethod(_unary("abs"))
    absolute = abs
    sign = staticmethod(_unary("sign"))
    floor = staticmethod(_unary("floor"))
    ceil = staticmethod(_unary("ceil"))
    trunc = staticmethod(_unary("trunc"))
    negative = staticmethod(_unary("negative"))
    reciprocal = staticmethod(_unary("reciprocal"))

    add = staticmethod(_binary("add", "broadcast_add", "_plus_scalar", None))
    subtract = staticmethod(_binary("subtract", "broadcast_sub", "_minus_scalar", "_rminus_scalar"))
    multiply = staticmethod(_binary("multiply", "broadcast_mul", "_mul_scalar", None))
    true_divide = staticmethod(
        _binary("true_divide", "broadcast_div", "_div_scalar", "_rdiv_scalar")
    )
    divide = true_divide
    power = staticmethod(_binary("power", "broadcast_power", "_power_scalar", "_rpower_scalar"))
    maximum = staticmethod(_binary("maximum", "broadcast_maximum", "_maximum_scalar", None))
    minimum = staticmethod(_binary("minimum", "broadcast_minimum", "_minimum_scalar", None))
    hypot = staticmethod(_binary("hypot", "broadcast_hypot", "_hypot_scalar", None))
    mod = staticmethod(_binary("mod", "broadcast_mod", "_mod_scalar", "_rmod_scalar"))

    @staticmethod
    def zeros_like(x: NDArray, dtype: Any = None) -> NDArray:
        out = _op("zeros_like", [x])
        return out if dtype is None else out.astype(dtype, copy=False)

    @staticmethod
    def ones_like(x: NDArray, dtype: Any = None) -> NDArray:
        out = _op("ones_like", [x])
        return out if dtype is None else out.astype(dtype, copy=False)

    @staticmethod
    def full_like(x: NDArray, fill_value: Any, dtype: Any = None) -> NDArray:
        out = arith.add(_op("zeros_like", [x]), float(fill_value))
        return out if dtype is None else out.astype(dtype, copy=False)

    @staticmethod
    def where(cond: Any, a: Any, b: Any) -> NDArray:
        ref = next((v for v in (cond, a, b) if isinstance(v, NDArray)), None)
        if ref is None:
            return np.where(cond, a, b)
        return _op("where", [_like(cond, ref), _like(a, ref), _like(b, ref)])

    @staticmethod
    def clip(x: NDArray, a_min: Any, a_max: Any, out: Any = None) -> NDArray:
        _no_out("clip", out)
        return _op("clip", [x], a_min=float(a_min), a_max=float(a_max))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # protocol probes (inspect, doctest, pickle) get the usual
            raise AttributeError(name)
        raise MXNetError(
            f"xp_nd: '{name}' has no NDArray operator here, so this gradient cannot be "
            "recorded for higher-order differentiation (create_graph=True)."
        )


xp_nd = _XpND()


def unbroadcast_nd(grad: NDArray, shape: tuple) -> NDArray:
    """Sum ``grad`` back to ``shape`` with recorded NDArray operators (see simple_op)."""
    if grad.shape == tuple(shape):
        return grad
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and grad.shape[lead + i] != 1
    )
    out = _op("sum", [grad], axis=axes, keepdims=True) if axes else grad
    return _op("Reshape", [out], shape=tuple(shape))


# ---- autograd's create_graph backward ----------------------------------------------------


def as_entry(arr: NDArray | None, entry: tuple | None) -> NDArray | None:
    """A view of a saved array that stands for ``entry`` in the graph being recorded."""
    if arr is None:
        return None
    out = _wrap(arr._chunk, arr._data)
    out._ag = entry
    return out


class _Recorder:
    """What an operator's ``recorded_gradient`` writes with: ``op(name, inputs, **params)`` is
    one recorded operator call; ``op.constant(arr)`` is ``arr`` as a constant of the gradient
    (a value forward drew, not a graph entry)."""

    def __call__(self, name: str, inputs: list[NDArray], **params: Any) -> NDArray:
        return _op(name, inputs, **params)

    @staticmethod
    def constant(arr: NDArray) -> NDArray:
        return _wrap(arr._chunk, arr._data)


_RECORDER = _Recorder()


def backward_recorded(node: Any, out_grads: list[NDArray], train: bool) -> list:
    """``node``'s backward as recorded NDArray operators (create_graph=True): a SimpleOp's
    gradient runs on the calling thread with ``xp_nd`` as its ``xp``, on views of the
    saved arrays that stand for their graph entries, so the result is differentiable."""
    prop = node.prop
    ins = [as_entry(x, e) for x, e in zip(node.in_data, node.inputs)]
    outs = [as_entry(o, (node, i)) for i, o in enumerate(node.out_data)]
    og = out_grads[0]
    if prop.recorded_gradient is not None:
        grads = prop.recorded_gradient(prop, _RECORDER, og, ins, outs)
    elif isinstance(prop, _SimpleProp) and prop.grad is not None:
        env = Env(prop.param, (), train)
        needs = prop.grad_needs
        try:
            if needs is GradNeeds.OUT_GRAD:
                grads = prop.grad(xp_nd, og, env)
            elif needs is GradNeeds.OUTPUT:
                grads = prop.grad(xp_nd, og, outs[0], env)
            else:
                grads = prop.grad(xp_nd, og, *ins, env)
        except (AttributeError, TypeError) as exc:
            raise MXNetError(
                f"autograd.grad(create_graph=True): the gradient of operator "
                f"'{prop.op_name}' cannot be recorded for higher-order differentiation ({exc})."
            ) from None
        if prop.arity == 1:
            grads = (grads,)
    else:
        raise MXNetError(
            f"autograd.grad(create_graph=True): operator '{prop.op_name}' has no "
            "differentiable gradient (higher-order gradients exist for SimpleOp operators: "
            "element-wise unary, binary and scalar ones); compute this part without "
            "create_graph."
        )
    res: list[NDArray | None] = []
    for e, g, (shape, dtype) in zip(node.inputs, grads, node.in_meta):
        if e is None or g is None:
            res.append(None)
            continue
        if not isinstance(g, NDArray):  # a constant gradient
            c = _new(shape, dtype, node.ctx)
            c[:] = g
            g = c
        res.append(unbroadcast_nd(g, shape))
    return res
