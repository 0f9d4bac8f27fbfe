"""Boolean-mask assignment (MXNet 1.9.1's np_boolean_mask_assign.cc):
``_npi_boolean_mask_assign_scalar`` and ``_npi_boolean_mask_assign_tensor``, what
``a[mask] = value`` runs in MXNet. The output is ``data`` with the positions that ``mask``
selects (its axes lined up from ``start_axis``) set to ``value``; it is meant to be computed in
place (``out=data``). As in MXNet the gradient of every input is zero.
"""

from __future__ import annotations

from typing import Any

from ...base import Shape
from ..param import Param, field
from ..registry import OpTest, register
from .matrix import _NpArrayOp


class BooleanMaskAssignScalarParam(Param):
    value: float = field(doc="The value given to the masked positions.")
    start_axis: int = field(default=0, doc="The axis of data that the mask's first axis meets.")


class BooleanMaskAssignTensorParam(Param):
    start_axis: int = field(default=0, doc="The axis of data that the mask's first axis meets.")


class _BooleanMaskAssign(_NpArrayOp):
    inplace = True  # the output is data's buffer (out=data)

    def _check(self, dshape: Shape, mshape: Shape) -> int:
        start = self.param.start_axis
        if start < 0 or start + len(mshape) > len(dshape):
            raise self.fail(f"argument 'start_axis' {start} and mask shape {tuple(mshape)} do "
                            f"not fit data shape {tuple(dshape)}.")  # fmt: skip
        for i, m in enumerate(mshape):
            if dshape[start + i] != m:
                raise self.fail(
                    f"boolean index did not match indexed array along dimension {start + i}; "
                    f"dimension is {dshape[start + i]} but corresponding boolean dimension is {m}."
                )
        return start

    def infer_type(self, in_type: list, out_type: list | None = None):
        data = in_type[0] if in_type[0] is not None else (out_type or [None])[0]
        if data is None or in_type[1] is None:
            return None
        rest = [data] * (len(in_type) - 2)  # a tensor value takes data's dtype, as in MXNet
        return [data, in_type[1], *rest], [data], []

    def _index(self, xp: Any, mask: Any) -> tuple:
        return (slice(None),) * self.param.start_axis + (mask.astype(bool),)

    def gradient(self, xp: Any, ograds: list, ins: list, in_shapes: list) -> list:
        return [xp.zeros(s, ograds[0].dtype) for s in in_shapes]


@register("_npi_boolean_mask_assign_scalar")
class NpBooleanMaskAssignScalarProp(_BooleanMaskAssign):
    """``data`` with the positions ``mask`` selects set to the scalar ``value``."""

    param_class = BooleanMaskAssignScalarParam
    test = OpTest(shapes={"data": (2, 3), "mask": (2,)}, params={"value": 2.0}, grad=False)

    def list_arguments(self) -> list[str]:
        return ["data", "mask"]

    def out_shapes(self, data: Shape, mask: Shape) -> list[Shape]:
        self._check(data, mask)
        return [tuple(data)]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        res = ins[0].copy()
        res[self._index(xp, ins[1])] = self.param.value
        return [res]


@register("_npi_boolean_mask_assign_tensor")
class NpBooleanMaskAssignTensorProp(_BooleanMaskAssign):
    """``data`` with the positions ``mask`` selects set from ``value`` (one entry per selected
    position, or broadcast to them)."""

    param_class = BooleanMaskAssignTensorParam
    test = OpTest(shapes={"data": (2, 3), "mask": (2,), "value": (3,)}, grad=False)

    def list_arguments(self) -> list[str]:
        return ["data", "mask", "value"]

    def out_shapes(self, data: Shape, mask: Shape, value: Shape) -> list[Shape]:
        start = self._check(data, mask)
        if len(mask) == len(data):
            if len(value) > 1:
                raise self.fail(f"boolean array indexing assignment requires a 0 or "
                                f"1-dimensional value, got shape {tuple(value)}.")  # fmt: skip
            return [tuple(data)]
        # value broadcasts to the selection's shape data[:start] + (count,) + trailing axes,
        # whose count is known only at run time
        trailing = tuple(data[start + len(mask) :])
        known = tuple(data[:start]) + (-1,) + trailing
        fits = len(value) <= len(known) and all(
            v == 1 or k in (-1, v) for v, k in zip(reversed(value), reversed(known))
        )
        if not fits:
            raise self.fail(
                f"value of shape {tuple(value)} cannot fill the masked positions of data "
                f"{tuple(data)} (mask {tuple(mask)} from axis {start})."
            )
        return [tuple(data)]

    def compute(self, xp: Any, ins: list, outs: list) -> list:
        res = ins[0].copy()
        res[self._index(xp, ins[1])] = ins[2]
        return [res]
