"""SimpleOp: the unified API for unary and binary operators (seeds/simple-op.md).

An operator is described by its forward function and its gradient, the gradient typed by what
it reads besides ``out_grad`` (:class:`GradNeeds`): nothing, the output, or the inputs. From
that the builder derives the backward dependencies, so the memory planner and autograd know
what they may free, and the in-place options (``forward_inplace``: the output may overwrite
the first input, kInplaceInOut; ``gradient_inplace``: the first input gradient may overwrite
``out_grad``, kInplaceOutIn). The result is an ordinary registry entry serving ``mx.nd`` and
``mx.sym`` alike.

Kernels are functions of ``xp`` (numpy or cupy), the input arrays, an :class:`Env` (the
``scalar``, the parsed ``param`` and the requested ``resource`` list, MXNet's EnvArguments)
and ``out``: the array to write into, or None when the result is to be accumulated. A kernel
may compute into ``out`` and return it (no copy), or return a new array that is then assigned.

Example (the seed's worked example, registered in tensor/elemwise_unary.py)::

    simple_op("smooth_l1", forward=_smooth_l1, gradient=_smooth_l1_grad,
              grad_needs=GradNeeds.INPUT, gradient_inplace=True, scalar=True)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum
from typing import Any

import numpy as np

from ..base import MXNetError, Shape, ShapeError
from ..context import Context
from ..util import is_np_shape
from .parallel import broadcast_run, row_buffer
from .registry import Operator, OperatorProperty, OpTest, register, shape_assign
from .req import OpReq, assign

_NULL, _ADD = OpReq.NULL, OpReq.ADD  # quicker than OpReq.X (req.py)

__all__ = ["GradNeeds", "Env", "identity_op", "simple_op", "unbroadcast"]


class GradNeeds(Enum):
    """What a gradient reads besides ``out_grad`` (the seed's UnaryGradFunctionT0/T1/T2)."""

    OUT_GRAD = 0
    OUTPUT = 1
    INPUT = 2


class Env:
    """MXNet's EnvArguments: ``scalar`` (scalar ops), ``param`` (parsed kwargs) and
    ``resource`` (requested resources, in request order), plus ``is_train``."""

    __slots__ = ("scalar", "param", "resource", "is_train")

    def __init__(self, param: Any, resource: Sequence[Any] = (), is_train: bool = False) -> None:
        self.param = param
        # (most operators have no parameters: a getattr that misses costs seven times more)
        self.scalar = None if param is None else getattr(param, "scalar", None)
        self.resource = resource
        self.is_train = is_train


def unbroadcast(xp: Any, grad: Any, shape: Shape) -> Any:
    """Sum ``grad`` over the axes along which an input of ``shape`` was broadcast."""
    if grad.shape == shape:
        return grad
    lead = grad.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and grad.shape[lead + i] != 1
    )
    out = grad.sum(axis=axes, keepdims=True) if axes else grad
    return out.reshape(shape)


class _SimpleOperator(Operator):
    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        r = req[0]
        if r == _NULL:
            return
        out = out_data[0]
        env = Env(self.prop.param, op_ctx.requested, op_ctx.is_train)
        dst = None if r == _ADD else out
        if len(in_data) == 2 and in_data[0].shape != in_data[1].shape:
            # operands broadcast along rows: a buffer of one row (parallel.row_buffer)
            with row_buffer(broadcast_run(out.shape, [a.shape for a in in_data])):
                value = self.prop.fwd(self.xp, *in_data, env, dst)
        else:
            value = self.prop.fwd(self.xp, *in_data, env, dst)
        assign(out, r, value)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        prop, xp = self.prop, self.xp
        env = Env(prop.param, op_ctx.requested, op_ctx.is_train)
        needs = prop.grad_needs
        if needs is GradNeeds.OUT_GRAD:
            grads = prop.grad(xp, out_grad[0], env)
        elif needs is GradNeeds.OUTPUT:
            grads = prop.grad(xp, out_grad[0], out_data[0], env)
        else:
            grads = prop.grad(xp, out_grad[0], *in_data, env)
        if prop.arity == 1:
            grads = (grads,)
        for i, g in enumerate(grads):
            if req[i] != _NULL and g is not None:
                assign(in_grad[i], req[i], unbroadcast(xp, g, in_grad[i].shape))


class _SimpleProp(OperatorProperty):
    """Base of the property classes that :func:`simple_op` builds."""

    arity = 1
    arg_names: tuple[str, ...] = ("data",)
    fwd: Callable[..., Any]
    grad: Callable[..., Any] | None = None
    grad_needs = GradNeeds.OUT_GRAD
    fwd_inplace = False
    grad_inplace = False
    shape_fn: Callable[..., Shape] | None = None
    dtype_fn: Callable[..., Any] | None = None
    resources: tuple[Any, ...] = ()
    train_dependent = False

    def __init__(self, param: Any = None, attrs: dict[str, str] | None = None) -> None:
        super().__init__(param, attrs)
        self._has_resources = bool(self.resources)

    def list_arguments(self) -> list[str]:
        return list(self.arg_names)

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        if len(in_shape) != len(self.arg_names):
            raise MXNetError(
                f"{self.op_name}: expected {len(self.arg_names)} inputs "
                f"({', '.join(self.arg_names)}), got {len(in_shape)}."
            )
        if self.shape_fn is None:
            return super().infer_shape(in_shape, out_shape)
        # a 0 dim is unknown, except under NumPy shape semantics, where it is empty
        if not all(s is not None and (0 not in s or is_np_shape()) for s in in_shape):
            return None
        out = self.shape_fn(*in_shape, self.param)
        return list(in_shape), [out], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        if self.dtype_fn is None:
            return super().infer_type(in_type, out_type)
        # an unknown input dtype comes as None: Cast's output dtype is its parameter anyway
        out = self.dtype_fn(*in_type, self.param)
        if out is None:
            return None
        return list(in_type), [np.dtype(out)], []

    def forward_resource(self, in_shape: list) -> list:
        return list(self.resources)

    def backward_resource(self, in_shape: list) -> list:
        return list(self.resources)

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list) -> list:
        if self.grad_needs is GradNeeds.OUT_GRAD:
            return [out_grad[0]]
        if self.grad_needs is GradNeeds.OUTPUT:
            return [out_grad[0], out_data[0]]
        return [out_grad[0], *in_data]

    def forward_inplace_option(self, in_data: list, out_data: list) -> list:
        return [(in_data[0], out_data[0])] if self.fwd_inplace else []

    def backward_inplace_option(
        self, out_grad: list, in_data: list, out_data: list, in_grad: list
    ) -> list:
        return [(out_grad[0], in_grad[0])] if self.grad_inplace else []

    def is_train_dependent(self) -> bool:
        return self.train_dependent

    def create_operator(self, ctx: Context) -> Operator:
        return _SimpleOperator(self, ctx.xp)


def _same_shape_binary(prop: OperatorProperty, lhs: Shape | None, rhs: Shape | None):
    try:
        return shape_assign(prop, "input", "rhs", rhs, lhs)
    except ShapeError:
        raise ShapeError(
            f"{prop.where()}: operands must have the same shape, got lhs {lhs} and rhs {rhs} "
            f"(use the broadcast_* operators to broadcast)."
        ) from None


class _BinaryProp(_SimpleProp):
    arity = 2
    arg_names = ("lhs", "rhs")

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        if self.shape_fn is not None:
            return super().infer_shape(in_shape, out_shape)
        lhs, rhs = in_shape
        out = out_shape[0] if out_shape else None
        shape = _same_shape_binary(self, lhs, rhs)
        shape = _same_shape_binary(self, shape, out)
        if shape is None:
            return None
        return [shape, shape], [shape], []


def simple_op(
    name: str,
    *,
    forward: Callable[..., Any],
    gradient: Callable[..., Any] | None = None,
    grad_needs: GradNeeds = GradNeeds.OUT_GRAD,
    arity: int = 1,
    arg_names: Sequence[str] | None = None,
    shape: Callable[..., Shape] | None = None,
    dtype: Callable[..., Any] | None = None,
    forward_inplace: bool = False,
    gradient_inplace: bool = False,
    param_class: Any = None,
    resources: Sequence[Any] = (),
    train_dependent: bool = False,
    grad_flow: str = "backward",
    sparse_form: Any = None,
    grad_stypes: Callable[..., list[str]] | None = None,
    facts: dict[str, Any] | None = None,
    aliases: Sequence[str] = (),
    test: OpTest | None = None,
    doc: str = "",
) -> type[OperatorProperty]:
    """Build and register a unary (``arity=1``) or binary (``arity=2``) operator.

    Parameters
    ----------
    forward : callable
        ``forward(xp, *inputs, env, out) -> array``; see the module note.
    gradient : callable, optional
        By ``grad_needs``: ``(xp, out_grad, env)``, ``(xp, out_grad, out_value, env)`` or
        ``(xp, out_grad, *inputs, env)``; returns the input gradient (a pair for binary
        operators; an entry may be None for an input without gradient). Gradients of
        broadcast inputs are summed back to the input's shape.
    shape, dtype : callable, optional
        ``shape(*in_shapes, param) -> out_shape``; ``dtype(*in_dtypes, param) -> out_dtype``,
        where an input dtype not known yet is None and the function returns None when it
        cannot tell the output dtype without it. By default all inputs and the output share
        one shape and one dtype.
    param_class : Param subclass, optional
        The keyword arguments (MXNet's ``set_enable_kwargs``); a class with a ``scalar`` field
        gives ``env.scalar`` (``set_enable_scalar``).
    resources : list of ResourceRequest
        Resources the forward and gradient receive in ``env.resource``.
    grad_flow : {"backward", "zeros", "none"}
        :attr:`OperatorProperty.grad_flow`: "zeros" for an operator whose inputs' gradients
        are zero by definition (comparisons), "none" for one that stops gradients.
    sparse_form : SparseForm, optional
        :attr:`OperatorProperty.sparse_form`, e.g. ``operator.sparse.forms.KEEP_ZERO``.
    grad_stypes : callable, optional
        ``grad_stypes(prop, in_stypes) -> stypes``: :meth:`OperatorProperty.grad_stypes`.
    facts : dict, optional
        Any other of :class:`OperatorProperty`'s declared facts, by attribute name
        (``{"passes_sparse_grad": True}``).
    """
    base: type[_SimpleProp] = _BinaryProp if arity == 2 else _SimpleProp
    body: dict[str, Any] = {
        "__doc__": doc,
        "param_class": param_class,
        "fwd": staticmethod(forward),
        "grad": staticmethod(gradient) if gradient is not None else None,
        "grad_needs": grad_needs,
        "fwd_inplace": forward_inplace,
        "grad_inplace": gradient_inplace,
        "shape_fn": staticmethod(shape) if shape is not None else None,
        "dtype_fn": staticmethod(dtype) if dtype is not None else None,
        "resources": tuple(resources),
        "train_dependent": train_dependent,
        "grad_flow": grad_flow,
        "sparse_form": sparse_form,
        "test": test,
    }
    if arg_names is not None:
        body["arg_names"] = tuple(arg_names)
    if grad_stypes is not None:
        body["grad_stypes"] = grad_stypes
    for key, value in (facts or {}).items():
        if not hasattr(OperatorProperty, key) or callable(getattr(OperatorProperty, key)):
            raise TypeError(f"simple_op({name!r}): {key!r} is not a fact of OperatorProperty.")
        body[key] = value
    cls = type(f"{name}_prop", (base,), body)
    return register(name, aliases)(cls)


def _input(xp: Any, x: Any, env: Any, out: Any) -> Any:
    return x


def _out_grad(xp: Any, g: Any, env: Any) -> Any:
    return g


def identity_op(
    name: str, gradient: Callable[..., Any] = _out_grad, **kwargs: Any
) -> type[OperatorProperty]:
    """Register ``name`` as a SimpleOp whose output is its input, written in place where the
    planner allows, with ``gradient`` (by default ``out_grad`` itself) in place too; ``kwargs``
    as :func:`simple_op`'s."""
    return simple_op(
        name,
        forward=_input,
        gradient=gradient,
        forward_inplace=True,
        gradient_inplace=True,
        **kwargs,
    )
