"""MXNet's deprecated Python operators, ``PythonOp``, ``NumpyOp`` and ``NDArrayOp``.

MXNet ran them through two C++ operators (``_Native``, ``_NDArray``) calling back into
Python. Here each instance becomes a custom operator (``mx.operator.CustomOp``) registered
under a name of its own, so they run on the same path as ``mx.sym.Custom``: a ``NumpyOp``
sees NumPy copies of its arrays (its outputs and input gradients are copied back), an
``NDArrayOp`` the NDArrays themselves. New code should write a ``CustomOp``.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

from ..ndarray import array
from ..operator.custom import CustomOp, CustomOpProp, register
from .compose import create
from .symbol import Symbol

__all__ = ["PythonOp", "NumpyOp", "NDArrayOp"]

_COUNTER = itertools.count()


class PythonOp:
    """Base class for operators implemented in Python (deprecated: use CustomOp).

    Parameters
    ----------
    need_top_grad : bool
        the default need_top_grad() function returns this value.
    """

    def __init__(self, need_top_grad: bool = True) -> None:
        self.info_ = None
        self.need_top_grad_ = need_top_grad
        warnings.warn("PythonOp has been deprecated. Please use CustomOp", stacklevel=2)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.get_symbol(*args, **kwargs)

    def get_symbol(self, *args: Any, **kwargs: Any) -> Any:
        """Create a symbol from this operator; input symbols and ``name=`` as for any op."""
        raise NotImplementedError("Must override this")

    def forward(self, in_data: list, out_data: list) -> None:
        """Forward interface: write ``out_data`` from ``in_data``."""
        out_data[0][:] = in_data[0]

    def backward(self, out_grad: list, in_data: list, out_data: list, in_grad: list) -> None:
        """Backward interface: write ``in_grad``."""
        in_grad[0][:] = 1.0

    def infer_shape(self, in_shape: list) -> tuple[list, list]:
        """Argument shapes (possibly completed) and output shapes from argument shapes."""
        return in_shape, [in_shape[0]]

    def list_outputs(self) -> list[str]:
        return ["output"]

    def list_arguments(self) -> list[str]:
        return ["data"]

    def need_top_grad(self) -> bool:
        """Whether the backward reads the gradient of the outputs."""
        return self.need_top_grad_

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list) -> list:
        deps = list(out_grad) if self.need_top_grad() else []
        return deps + list(in_data) + list(out_data)

    def _symbol(self, as_numpy: bool, args: tuple, kwargs: dict) -> Any:
        op_type = f"_{type(self).__name__}_{next(_COUNTER)}"
        register(op_type)(_adapter(self, as_numpy))
        return Symbol(create("Custom", "Custom", args, {**kwargs, "op_type": op_type}))


class _DeprecatedPythonOp(PythonOp):
    """NumpyOp and NDArrayOp: a PythonOp whose ``get_symbol`` runs it as a Custom operator on
    NumPy arrays (``_as_numpy``) or on NDArrays; creating one warns, as in MXNet."""

    _as_numpy: bool

    def __init__(self, need_top_grad: bool = True) -> None:
        super().__init__(need_top_grad)
        kind = "NumpyOp" if self._as_numpy else "NDArrayOp"
        warnings.warn(f"{kind} has been deprecated. Please use CustomOp", stacklevel=2)

    def get_symbol(self, *args: Any, **kwargs: Any) -> Any:
        return self._symbol(self._as_numpy, args, kwargs)


class NumpyOp(_DeprecatedPythonOp):
    """Base class for operators whose forward and backward compute on NumPy arrays."""

    _as_numpy = True


class NDArrayOp(_DeprecatedPythonOp):
    """Base class for operators whose forward and backward compute on NDArrays."""

    _as_numpy = False


def _adapter(pyop: PythonOp, as_numpy: bool) -> type[CustomOpProp]:
    """A CustomOpProp class that runs ``pyop``."""

    class _Op(CustomOp):
        def _call(self, fn: Any, req: list, outs: list, *inputs: list) -> None:
            if not as_numpy:
                fn(*inputs, outs)
                return
            bufs = [o.asnumpy() for o in outs]
            fn(*[[a.asnumpy() for a in group] for group in inputs], bufs)
            for o, r, b in zip(outs, req, bufs):
                self.assign(o, r, array(b, ctx=o.context, dtype=o.dtype))

        def forward(self, is_train, req, in_data, out_data, aux) -> None:
            self._call(pyop.forward, req, out_data, in_data)

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux) -> None:
            self._call(pyop.backward, req, in_grad, out_grad, in_data, out_data)

    class _Prop(CustomOpProp):
        def __init__(self) -> None:
            super().__init__(need_top_grad=pyop.need_top_grad())

        def list_arguments(self) -> list[str]:
            return pyop.list_arguments()

        def list_outputs(self) -> list[str]:
            return pyop.list_outputs()

        def infer_shape(self, in_shape: list) -> tuple:
            return pyop.infer_shape(in_shape)

        def declare_backward_dependency(self, out_grad, in_data, out_data) -> list:
            return pyop.declare_backward_dependency(out_grad, in_data, out_data)

        def create_operator(self, ctx, in_shapes, in_dtypes) -> CustomOp:
            return _Op()

    return _Prop
