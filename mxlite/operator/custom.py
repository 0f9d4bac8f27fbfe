"""Python custom operators: ``CustomOp``, ``CustomOpProp``, ``register`` and the ``Custom``
registry entry behind ``mx.nd.Custom`` / ``mx.sym.Custom``, as in MXNet 1.9.1.

A custom operator's Python ``forward``/``backward`` works on NDArrays and usually pushes more
operators itself. It therefore runs on the *calling* thread, when the operator is invoked
(``runs_on_caller``): the operators it pushes are then ordered with everything the program
pushes before and after, exactly as if the user had written them inline. (MXNet ran them on a
dedicated thread and had to fence the results; here no fence is needed.) Errors raised by the
user's code surface at the call; any that is not already an ``MXNetError`` is re-raised as
one naming the op_type and the callback (MXNet turns every exception in a custom operator's
callbacks into an ``MXNetError``), with the original chained as its cause.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

import numpy as np

from ..base import MXNetError
from ..context import Context
from .modes import STATE
from .param import Param, field
from .registry import DefaultSignature, OperatorProperty
from .registry import register as register_op

__all__ = ["CustomOp", "CustomOpProp", "register", "get_registered"]

_CUSTOM: dict[str, type[CustomOpProp]] = {}


def _profiled(op_type: str) -> Any:
    """The profiler's scope for a custom operator's Python code (``<op_type>::pure_python``, and
    the operators it launches as ``<op_type>::<name>``), as MXNet 1.9.1 profiles them."""
    from ..profiler.custom_op import custom_op_scope

    return custom_op_scope(op_type)


@contextlib.contextmanager
def _not_recording() -> Iterator[None]:
    """A custom operator's forward and backward run with autograd recording off, as in MXNet:
    the operator is recorded as one node, not the calls inside it."""
    prev = STATE[0]
    STATE[0] = False
    try:
        yield
    finally:
        STATE[0] = prev


class CustomOp:
    """Base class of a custom operator's computation; override ``forward`` and ``backward``."""

    def __init__(self) -> None:
        pass

    def forward(
        self, is_train: bool, req: list[str], in_data: list, out_data: list, aux: list
    ) -> None:
        """Compute ``out_data`` from ``in_data``; write through :meth:`assign` honouring req."""
        raise NotImplementedError

    def backward(
        self,
        req: list[str],
        out_grad: list,
        in_data: list,
        out_data: list,
        in_grad: list,
        aux: list,
    ) -> None:
        """Compute ``in_grad``; write through :meth:`assign` honouring req."""
        raise NotImplementedError

    def assign(self, dst: Any, req: str, src: Any) -> None:
        """Write ``src`` into ``dst`` as ``req`` says: 'null', 'write', 'inplace' or 'add'."""
        if req == "null":
            return
        if req in ("write", "inplace"):
            dst[:] = src
        elif req == "add":
            dst[:] += src
        else:
            raise MXNetError(
                f"CustomOp.assign: argument 'req' must be 'null', 'write', "
                f"'inplace' or 'add', got {req!r}."
            )


class CustomOpProp(DefaultSignature):
    """Base class of a custom operator's description (MXNet's ``CustomOpProp``).

    Parameters
    ----------
    need_top_grad : bool, default True
        Whether backward needs the gradient of the outputs (False for loss layers).
    """

    def __init__(self, need_top_grad: bool = True) -> None:
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape: list) -> tuple:
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()

    def infer_type(self, in_type: list) -> tuple:
        return (
            in_type,
            [in_type[0]] * len(self.list_outputs()),
            [in_type[0]] * len(self.list_auxiliary_states()),
        )

    def infer_storage_type(self, in_stype: list) -> tuple:
        return (
            in_stype,
            ["default"] * len(self.list_outputs()),
            ["default"] * len(self.list_auxiliary_states()),
        )

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list) -> list:
        deps = list(out_grad) if self.need_top_grad_ else []
        return deps + list(in_data) + list(out_data)

    def create_operator(self, ctx: Context, in_shapes: list, in_dtypes: list) -> CustomOp:
        return CustomOp()


def register(reg_name: str) -> Callable[[type[CustomOpProp]], type[CustomOpProp]]:
    """Register a CustomOpProp subclass as ``op_type=reg_name`` (``@mx.operator.register``)."""
    if not isinstance(reg_name, str) or not reg_name:
        raise MXNetError(
            f"register: argument 'reg_name' must be a non-empty str, got {reg_name!r}."
        )

    def deco(prop_cls: type[CustomOpProp]) -> type[CustomOpProp]:
        if not (isinstance(prop_cls, type) and issubclass(prop_cls, CustomOpProp)):
            raise MXNetError(
                f"register({reg_name!r}): expected a CustomOpProp subclass, got {prop_cls!r}."
            )
        _CUSTOM[reg_name] = prop_cls  # re-registering replaces, as MXNet users rely on
        # get_prop caches CustomProp instances per kwargs, each holding an instance of the
        # user's class: drop them so that the next call is built from the new class.
        CustomProp.__dict__.get("_prop_cache", {}).clear()
        return prop_cls

    return deco


def get_registered(op_type: str) -> type[CustomOpProp]:
    cls = _CUSTOM.get(op_type)
    if cls is None:
        raise MXNetError(
            f"Custom: op_type {op_type!r} is not registered; decorate its "
            "CustomOpProp with @mx.operator.register(name)."
        )
    return cls


class CustomParam(Param):
    allow_unknown: ClassVar[bool] = True
    op_type: str = field(doc="Name of the custom operator, as registered.")


_REQ_NAMES = ("null", "write", "inplace", "add")


@register_op("Custom")
class CustomProp(OperatorProperty):
    """Apply a custom operator implemented in Python (see ``mx.operator.CustomOp``)."""

    stateful = True

    @classmethod
    def plot_label(cls, name: str, attrs: dict[str, str]) -> str:
        return attrs.get("op_type", name)

    lists_input_names = True

    param_class = CustomParam
    runs_on_caller = True

    def __init__(self, param: Any = None, attrs: dict[str, str] | None = None) -> None:
        kwargs = {k: str(v) for k, v in param.extra.items()}  # MXNet passes every value as str
        self.user = get_registered(param.op_type)(**kwargs)
        self._ops: dict[tuple, CustomOp] = {}
        super().__init__(param, attrs)

    def list_arguments(self) -> list[str]:
        return list(self.user.list_arguments())

    def list_outputs(self) -> list[str]:
        return list(self.user.list_outputs())

    def list_auxiliary_states(self) -> list[str]:
        return list(self.user.list_auxiliary_states())

    @contextlib.contextmanager
    def _user_code(self, callback: str) -> Iterator[None]:
        """Run a callback of the user's CustomOp/CustomOpProp; its errors become MXNetError."""
        try:
            yield
        except MXNetError:
            raise
        except Exception as exc:
            raise MXNetError(
                f"Custom(op_type={self.param.op_type!r}): {callback} raised "
                f"{type(exc).__name__}: {exc}"
            ) from exc

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        if any(s is None for s in in_shape):
            return None
        with self._user_code("CustomOpProp.infer_shape"):
            res = self.user.infer_shape([list(s) for s in in_shape])
        ins, outs = res[0], res[1]
        aux = res[2] if len(res) > 2 else []
        return ([tuple(s) for s in ins], [tuple(s) for s in outs], [tuple(s) for s in aux])

    def infer_type(self, in_type: list, out_type: list | None = None):
        if any(t is None for t in in_type):
            return None
        with self._user_code("CustomOpProp.infer_type"):
            res = self.user.infer_type([np.dtype(t).type for t in in_type])
        aux = res[2] if len(res) > 2 else []
        return (
            [np.dtype(t) for t in res[0]],
            [np.dtype(t) for t in res[1]],
            [np.dtype(t) for t in aux],
        )

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list) -> list:
        return list(self.user.declare_backward_dependency(out_grad, in_data, out_data))

    def user_operator(self, ctx: Context, shapes: list, dtypes: list) -> CustomOp:
        key = (ctx, tuple(map(tuple, shapes)), tuple(np.dtype(t) for t in dtypes))
        op = self._ops.get(key)
        if op is None:
            with self._user_code("CustomOpProp.create_operator"):
                op = self.user.create_operator(
                    ctx, [list(s) for s in shapes], [np.dtype(t).type for t in dtypes]
                )
            self._ops[key] = op
        return op

    def forward_ndarray(
        self, is_train: bool, req: list[int], in_data: list, out_data: list, aux: list
    ) -> None:
        """Run the user's forward on NDArrays, on the calling thread."""
        op = self.user_operator(
            in_data[0].context if in_data else out_data[0].context,
            [x.shape for x in in_data],
            [x.dtype for x in in_data],
        )
        scope = _profiled(self.param.op_type)
        with self._user_code("CustomOp.forward"), _not_recording(), scope:
            op.forward(
                is_train=is_train,
                req=[_REQ_NAMES[r] for r in req],
                in_data=in_data,
                out_data=out_data,
                aux=aux,
            )

    def backward_ndarray(
        self,
        req: list[int],
        out_grad: list,
        in_data: list,
        out_data: list,
        in_grad: list,
        aux: list,
    ) -> None:
        """Run the user's backward on NDArrays, on the calling thread."""
        op = self.user_operator(
            in_data[0].context if in_data else out_data[0].context,
            [x.shape for x in in_data],
            [x.dtype for x in in_data],
        )
        scope = _profiled("_backward_" + self.param.op_type)
        with self._user_code("CustomOp.backward"), _not_recording(), scope:
            op.backward(
                req=[_REQ_NAMES[r] for r in req],
                out_grad=out_grad,
                in_data=in_data,
                out_data=out_data,
                in_grad=in_grad,
                aux=aux,
            )
