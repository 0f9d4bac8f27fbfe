"""``np.insert`` and ``np.delete`` as operators (MXNet 1.9.1's np_insert_op_scalar.cc,
np_insert_op_slice.cc, np_insert_op_tensor.cc and np_delete_op.cc): ``_npi_insert_scalar``,
``_npi_insert_slice``, ``_npi_insert_tensor`` and ``_npi_delete``.

Where they go is a parameter (``int_ind``; ``start``/``stop``/``step``) or an integer index
array ``obj`` (an input); the inserted values are a parameter (``val``) or an input
(``values``). The result keeps ``arr``'s dtype (inserted values are cast to it) and, with
``axis`` None, is 1-D (``arr`` flattened). As in MXNet, ``_npi_delete`` with an index array
(of any number type, truncated) ignores indices outside ``[0, N)``, so its output size is
known only when it runs; and neither operator has a gradient (MXNet registers none).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import DTypeError, Shape
from ..param import Param, field
from ..registry import OpTest, register
from .matrix import _NpArrayOp


def _host(a: Any) -> np.ndarray:
    """``a`` as a NumPy array (a CuPy array is copied to the host)."""
    return a if isinstance(a, np.ndarray) else a.get()


def _flat(a: Any, axis: int | None) -> tuple[Any, int]:
    """NumPy's convention: with ``axis`` None the array is flattened and the axis is 0."""
    return (a.reshape(-1), 0) if axis is None else (a, axis)


def _where(prop: Any) -> Any:
    """The ``obj`` NumPy is given for the parameters: an int, or a slice."""
    p = prop.param
    if p.int_ind is not None:
        return p.int_ind
    return slice(p.start, p.stop, p.step)


def _check_axis(prop: Any, axis: int | None, ndim: int) -> None:
    if axis is not None and not -max(ndim, 1) <= axis < max(ndim, 1):
        raise prop.fail(f"argument 'axis' {axis} is out of bounds for an array of {ndim} "
                        "dimensions.")  # fmt: skip


# ---- insert -----------------------------------------------------------------------------------


class NumpyInsertParam(Param):
    val: float | None = field(
        default=None, typename="double or None", doc="A scalar to insert (given no values input)."
    )
    start: int | None = field(default=None, doc="The start of the slice of positions.")
    stop: int | None = field(default=None, doc="The stop of the slice of positions.")
    step: int | None = field(default=None, doc="The step of the slice of positions.")
    int_ind: int | None = field(default=None, doc="The one position to insert before.")
    axis: int | None = field(default=None, doc="The axis; None inserts into the flattened arr.")


class _NpInsert(_NpArrayOp):
    """Shared by the three insert operators: ``arr``, then ``values`` unless ``val`` is given,
    then (the tensor form) ``obj``."""

    param_class = NumpyInsertParam
    differentiable = False
    uses_obj = False  # the positions come as an index array input

    def list_arguments(self) -> list[str]:
        names = ["arr"] if self.param.val is not None else ["arr", "values"]
        return [*names, "obj"] if self.uses_obj else names

    def _numpy_insert(self, arr: Any, values: Any, obj: Any) -> np.ndarray:
        axis = self.param.axis
        _check_axis(self, axis, arr.ndim)
        try:
            return np.insert(arr, obj, values, axis=axis)
        except (IndexError, ValueError) as exc:
            raise self.fail(str(exc)) from None

    def _parts(self, ins: list) -> tuple[Any, Any, Any]:
        arr = ins[0]
        values = np.asarray(self.param.val) if self.param.val is not None else ins[1]
        obj = ins[-1] if self.uses_obj else _where(self)
        return arr, values.astype(arr.dtype, copy=False), obj

    def out_shapes(self, *shapes: Shape) -> list[Shape]:
        arr = np.zeros(shapes[0], np.int8)
        values = np.zeros(shapes[1], np.int8) if self.param.val is None else np.int8(0)
        if self.uses_obj:
            obj = np.zeros(shapes[-1], np.int64)  # the positions do not change the shape
        else:
            obj = _where(self)
        return [self._numpy_insert(arr, values, obj).shape]

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None:
            return None
        if self.uses_obj and in_type[-1] is not None and np.dtype(in_type[-1]).kind not in "iu":
            raise DTypeError(f"{self.where()}: argument 'obj' must hold integers, got "
                             f"{np.dtype(in_type[-1])}.")  # fmt: skip
        types = [t if t is not None else in_type[0] for t in in_type]  # values: arr's dtype
        if self.uses_obj and in_type[-1] is None:
            types[-1] = np.dtype(np.int64)
        return types, [in_type[0]], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        arr, values, obj = self._parts([_host(a) for a in ins])
        return [xp.asarray(self._numpy_insert(arr, values, obj))]


@register("_npi_insert_scalar")
class NpInsertScalarProp(_NpInsert):
    """Insert values before one position (``np.insert(arr, int, values)``)."""

    test = OpTest(shapes={"arr": (3, 2), "values": (2,)}, params={"int_ind": 1, "axis": 0},
                  grad=False)  # fmt: skip


@register("_npi_insert_slice")
class NpInsertSliceProp(_NpInsert):
    """Insert values before the positions of a slice (``np.insert(arr, slice, values)``)."""

    test = OpTest(shapes={"arr": (3, 2), "values": (3, 1)},
                  params={"start": 0, "stop": 2, "step": 1, "axis": 1}, grad=False)  # fmt: skip


@register("_npi_insert_tensor")
class NpInsertTensorProp(_NpInsert):
    """Insert values before the positions of an integer array (``np.insert(arr, obj,
    values)``)."""

    uses_obj = True
    test = OpTest(shapes={"arr": (3, 2), "values": (1,), "obj": (2,)}, params={"axis": 1},
                  dtypes=("int64",), low=0.0, high=2.0, grad=False)  # fmt: skip


# ---- delete -----------------------------------------------------------------------------------


class NumpyDeleteParam(Param):
    start: int | None = field(default=None, doc="The start of the slice to delete.")
    stop: int | None = field(default=None, doc="The stop of the slice to delete.")
    step: int | None = field(default=None, doc="The step of the slice to delete.")
    int_ind: int | None = field(default=None, doc="The one position to delete.")
    axis: int | None = field(default=None, doc="The axis; None deletes from the flattened arr.")


@register("_npi_delete")
class NpDeleteProp(_NpArrayOp):
    """``arr`` without the sub-arrays at an index, a slice or an index array ``obj`` along
    ``axis`` (``np.delete``); indices of ``obj`` outside ``[0, N)`` are ignored."""

    param_class = NumpyDeleteParam
    differentiable = False
    test = OpTest(shapes={"arr": (3, 4)}, params={"int_ind": 1, "axis": 1}, grad=False)

    @property
    def dynamic_shape(self) -> bool:  # type: ignore[override]
        return self._uses_obj()

    def _uses_obj(self) -> bool:
        return self.param.int_ind is None and self.param.step is None

    def list_arguments(self) -> list[str]:
        return ["arr", "obj"] if self._uses_obj() else ["arr"]

    def _delete(self, arr: Any, obj: Any) -> np.ndarray:
        _check_axis(self, self.param.axis, arr.ndim)
        a, axis = _flat(arr, self.param.axis)
        n = a.shape[axis]
        if isinstance(obj, int) and not -n <= obj < n:
            raise self.fail(f"index {obj} is out of bounds for axis {axis} with size {n}.")
        if isinstance(obj, np.ndarray):  # as in MXNet, any number type, truncated
            obj = obj.reshape(-1).astype(np.int64)
            obj = obj[(obj >= 0) & (obj < n)]
        return np.delete(a, obj, axis=axis)

    def out_shapes(self, *shapes: Shape) -> list[Shape]:
        if self._uses_obj():
            _check_axis(self, self.param.axis, len(shapes[0]))
            if self.param.axis is None:
                return [(0,)]
            axis = self.param.axis % len(shapes[0])
            return [tuple(0 if i == axis else d for i, d in enumerate(shapes[0]))]
        return [self._delete(np.zeros(shapes[0], np.int8), _where(self)).shape]

    def dynamic_output_shapes(self, in_data: list[Any]) -> list[Shape]:
        return [self._delete(np.zeros(in_data[0].shape, np.int8), _host(in_data[1])).shape]

    def infer_type(self, in_type: list, out_type: list | None = None):
        if in_type[0] is None:
            return None
        obj = (
            [in_type[1] if in_type[1] is not None else np.dtype(np.int64)]
            if len(in_type) > 1
            else []
        )
        return [in_type[0], *obj], [in_type[0]], []

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        arr = _host(ins[0])
        obj = _host(ins[1]) if self._uses_obj() else _where(self)
        return [xp.asarray(self._delete(arr, obj))]
