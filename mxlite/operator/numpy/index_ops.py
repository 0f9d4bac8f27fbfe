"""Index-valued and checking operators of MXNet 1.9.1's NumPy interface: ``_npi_unique``
(np_unique_op.cc), ``_npx_nonzero`` (np_nonzero_op.cc), ``_npi_diag_indices_from``
(np_matrix_op.cc), ``_npx_constraint_check`` (np_constraint_check.cc), and the two that MXNet
runs through official NumPy (numpy_op_fallback.py), ``_npi_unravel_index_fallback`` and
``_npi_resize_fallback``.

Indices are int64, as in MXNet. ``unique`` and ``nonzero`` have output sizes that depend on
the values (``dynamic_shape``). Those MXNet gives zero gradients (``MakeZeroGradNodes``) have
``grad_flow = "zeros"``; the two fallbacks have none.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...base import DTypeError, Shape
from ..param import Param, field
from ..registry import OpTest, register
from .insert_delete import _host
from .matrix import _NpArrayOp

_INT64 = np.dtype(np.int64)


# ---- unique -----------------------------------------------------------------------------------


class NumpyUniqueParam(Param):
    return_index: bool = field(default=False, doc="Also return the indices of the first "
                               "occurrences of the unique values.")  # fmt: skip
    return_inverse: bool = field(default=False, doc="Also return the indices that rebuild the "
                                 "input from the unique values.")  # fmt: skip
    return_counts: bool = field(default=False, doc="Also return how often each unique value "
                                "occurs.")  # fmt: skip
    axis: int | None = field(default=None, doc="The axis to take unique sub-arrays along; "
                             "None flattens the input.")  # fmt: skip


@register("_npi_unique")
class NpUniqueProp(_NpArrayOp):
    """The sorted unique elements (or sub-arrays along ``axis``) of an array, and optionally
    the first indices, the inverse indices and the counts (``np.unique``). The inverse indices
    have the shape the installed NumPy gives them: 1-D under NumPy 1.x (and in MXNet 1.9.1),
    the input's shape under NumPy 2 when ``axis`` is None."""

    param_class = NumpyUniqueParam
    dynamic_shape = True
    grad_flow = "zeros"
    # its output sizes depend on the values, so there is no earlier output to add to
    test = OpTest(shapes={"data": (5,)}, params={"return_counts": True}, low=0.0, high=3.0,
                  dtypes=("int32",), grad=False, accumulates=False)  # fmt: skip

    def list_arguments(self) -> list[str]:
        return ["data"]

    def list_outputs(self) -> list[str]:
        p = self.param
        n = 1 + p.return_index + p.return_inverse + p.return_counts
        return ["output"] if n == 1 else [f"output{i}" for i in range(n)]  # MXNet's names

    def _unique(self, data: np.ndarray) -> list[np.ndarray]:
        p, ndim = self.param, data.ndim
        if p.axis is not None and not -max(ndim, 1) <= p.axis < max(ndim, 1):
            raise self.fail(f"argument 'axis' {p.axis} is out of bounds for {ndim} dimensions.")
        res = np.unique(data, return_index=p.return_index, return_inverse=p.return_inverse,
                        return_counts=p.return_counts, axis=p.axis)  # fmt: skip
        res = list(res) if isinstance(res, tuple) else [res]
        return [res[0], *(r.astype(np.int64) for r in res[1:])]

    def out_shapes(self, data: Shape) -> list[Shape]:
        axis = self.param.axis
        first: Shape = (0,)
        if axis is not None and data:
            first = tuple(0 if i == axis % len(data) else d for i, d in enumerate(data))
        return [first] + [(0,)] * (len(self.list_outputs()) - 1)

    def dynamic_output_shapes(self, in_data: list[Any]) -> list[Shape]:
        return [r.shape for r in self._unique(_host(in_data[0]))]

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None:
            return None
        return list(in_type), [in_type[0]] + [_INT64] * (len(self.list_outputs()) - 1), []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        return [xp.asarray(r) for r in self._unique(_host(ins[0]))]


# ---- nonzero ----------------------------------------------------------------------------------


@register("_npx_nonzero")
class NpxNonzeroProp(_NpArrayOp):
    """The indices of the non-zero elements as one int64 array of shape (count, ndim) (the
    transpose of ``np.nonzero``); a zero-dim input counts as 1-D."""

    dynamic_shape = True
    grad_flow = "zeros"
    np_signature = "(a)"
    test = OpTest(shapes={"x": (2, 3)}, grad=False, accumulates=False)

    def list_arguments(self) -> list[str]:
        return ["x"]

    def out_shapes(self, x: Shape) -> list[Shape]:
        return [(0, max(len(x), 1))]

    def dynamic_output_shapes(self, in_data: list[Any]) -> list[Shape]:
        x = in_data[0]
        return [(int(np.count_nonzero(_host(x))), max(x.ndim, 1))]

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None:
            return None
        return list(in_type), [_INT64], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        x = ins[0].reshape(-1) if ins[0].ndim == 0 else ins[0]
        return [xp.argwhere(x).astype(np.int64).reshape(outs[0].shape)]


# ---- diag_indices_from ------------------------------------------------------------------------


@register("_npi_diag_indices_from")
class NpDiagIndicesFromProp(_NpArrayOp):
    """The indices of the main diagonal of an array whose dimensions are all equal, as one
    int64 array of shape (ndim, n) (``np.diag_indices_from`` gives its rows)."""

    grad_flow = "zeros"
    test = OpTest(shapes={"data": (3, 3)}, grad=False)

    def list_arguments(self) -> list[str]:
        return ["data"]

    def out_shapes(self, data: Shape) -> list[Shape]:
        if len(data) < 2:
            raise self.fail(f"input must be at least 2-d, got shape {tuple(data)}.")
        if len(set(data)) != 1:
            raise self.fail(f"all dimensions of the input must be of equal length, got shape "
                            f"{tuple(data)}.")  # fmt: skip
        return [(len(data), data[0])]

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None:
            return None
        return list(in_type), [_INT64], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        ndim, n = outs[0].shape
        return [xp.broadcast_to(xp.arange(n, dtype=np.int64), (ndim, n))]


# ---- constraint_check -------------------------------------------------------------------------


class ConstraintCheckParam(Param):
    msg: str = field(default="Constraint violated.",
                     doc="Error message raised when the constraint is violated.")  # fmt: skip


@register("_npx_constraint_check")
class NpxConstraintCheckProp(_NpArrayOp):
    """A zero-dim ``True`` when every element of the boolean input is true; otherwise the
    operator fails with ``ValueError(msg)`` (raised where its output is read)."""

    param_class = ConstraintCheckParam
    grad_flow = "zeros"
    np_signature = "(x, msg)"
    test = OpTest(shapes={"input": (2, 3)}, dtypes=("bool",), low=1.0, high=2.0, grad=False)

    def list_arguments(self) -> list[str]:
        return ["input"]

    def out_shapes(self, x: Shape) -> list[Shape]:
        return [()]

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None:
            return None
        if np.dtype(in_type[0]) != np.bool_:
            raise DTypeError(f"{self.where()}: argument 'input' must be a bool array, got "
                             f"{np.dtype(in_type[0])}.")  # fmt: skip
        return list(in_type), [np.dtype(np.bool_)], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        if not bool(ins[0].all()):
            raise ValueError(self.param.msg)
        return [xp.asarray(True)]


# ---- the two NumPy fallbacks ------------------------------------------------------------------


class UnravelIndexParam(Param):
    shape: Shape = field(doc="The shape of the array the flat indices index into.")


@register("_npi_unravel_index_fallback")
class NpUnravelIndexProp(_NpArrayOp):
    """Flat indices as coordinate arrays into an array of ``shape``, stacked into one array of
    shape (len(shape), *indices.shape) in the indices' dtype (``np.unravel_index``, C order).
    MXNet writes it into graphs as ``Custom(op_type='unravel_index_fallback')``."""

    param_class = UnravelIndexParam
    differentiable = False
    test = OpTest(shapes={"indices": (2, 3)}, params={"shape": (3, 4)}, dtypes=("int32",),
                  low=0.0, high=11.0, grad=False)  # fmt: skip

    def list_arguments(self) -> list[str]:
        return ["indices"]

    def out_shapes(self, indices: Shape) -> list[Shape]:
        return [(len(self.param.shape), *indices)]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        x = _host(ins[0])
        if x.dtype.kind not in "iu":
            raise ValueError(f"{self.op_name}: argument 'indices' must hold integers, got "
                             f"{x.dtype}.")  # fmt: skip
        return [xp.asarray(np.stack(np.unravel_index(x, self.param.shape)).reshape(outs[0].shape))]


class ResizeParam(Param):
    new_shape: Shape = field(doc="The shape of the resized array.")


@register("_npi_resize_fallback")
class NpResizeProp(_NpArrayOp):
    """The array's elements, repeated in C order as often as needed, in ``new_shape``
    (``np.resize``; zeros for an empty input). MXNet writes it into graphs as
    ``Custom(op_type='resize_fallback')``."""

    param_class = ResizeParam
    differentiable = False
    test = OpTest(shapes={"a": (2, 3)}, params={"new_shape": (4, 2)}, grad=False)

    def list_arguments(self) -> list[str]:
        return ["a"]

    def out_shapes(self, a: Shape) -> list[Shape]:
        if any(d < 0 for d in self.param.new_shape):
            raise self.fail(f"argument 'new_shape' {self.param.new_shape} must be >= 0.")
        return [tuple(self.param.new_shape)]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        a, shape = ins[0], outs[0].shape
        if a.size == 0 or math.prod(shape) == 0:
            return [xp.zeros(shape, a.dtype)]
        return [xp.asarray(np.resize(_host(a), shape))]  # NumPy's, as MXNet's fallback
