"""Crop (legacy): cut a 4-D (batch, channel, y, x) input to a height and width.

The target size is ``h_w`` with one input, or the second input's height and width with two
(``crop_like``). The corner is ``offset`` unless ``center_crop`` puts it at
``((H - h) // 2, (W - w) // 2)``. The gradient places ``out_grad`` in the cropped window and
zeros elsewhere; the reference input gets a zero gradient.
"""

from __future__ import annotations

import numpy as np

from ...base import DTypeError, ParamError, ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, OpTest, register
from ..req import OpReq, assign

__all__: list[str] = []


class CropParam(Param):
    num_args: int = field(
        low=1,
        high=2,
        doc="Number of inputs for crop, if equals one, then we will use the h_w "
        "for crop height and width, else if equals two, then we will use the height and width "
        "of the second input symbol, we name crop_like here",
    )
    offset: tuple[int, ...] = field(default=(0, 0), doc="crop offset coordinate: (y, x)")
    h_w: tuple[int, ...] = field(default=(0, 0), doc="crop height and width: (h, w)")
    center_crop: bool = field(
        default=False,
        doc="If set to true, then it will use be the center_crop,or it will crop using the "
        "shape of crop_like",
    )


@register("Crop")
class CropProp(OperatorProperty):
    """Crop the input's last two axes to ``h_w`` or to the second input's size."""

    lists_output_names = True

    lists_input_names = True

    param_class = CropParam
    key_var_num_args = "num_args"
    # float32 only, as in MXNet, so the float64 finite differences cannot run it
    test = OpTest(
        shapes={"arg0": (2, 3, 5, 5)},
        params={"num_args": 1, "h_w": (3, 2)},
        dtypes=("float32",),
        grad=False,
    )

    def _fail(self, why: str) -> ShapeError:
        return ShapeError(f"{self.where()}: {why}")

    def list_arguments(self) -> list[str]:
        return [f"arg{i}" for i in range(self.param.num_args)]

    def window(self, dshape: tuple, like: tuple | None) -> tuple[int, int, int, int]:
        """(top, left, height, width) of the crop."""
        p = self.param
        if len(dshape) != 4:
            raise self._fail(f"input 'arg0' must be 4-D (batch, channel, y, x), got {dshape}.")
        if like is not None:
            if len(like) < 2:
                raise self._fail(f"input 'arg1' needs at least 2 dims, got shape {like}.")
            h, w = like[-2], like[-1]
        else:
            if len(p.h_w) != 2 or not (1 <= p.h_w[0] <= dshape[2] and 1 <= p.h_w[1] <= dshape[3]):
                raise ParamError(
                    f"{self.where()}: argument 'h_w' must be (h, w) within the input's "
                    f"{dshape[2:]}, got {p.h_w}."
                )
            h, w = p.h_w
        if h > dshape[2] or w > dshape[3]:
            raise self._fail(f"crop size ({h}, {w}) exceeds the input shape {dshape}.")
        if p.center_crop:
            return (dshape[2] - h) // 2, (dshape[3] - w) // 2, h, w
        if len(p.offset) != 2 or not (
            0 <= p.offset[0] <= dshape[2] - h and 0 <= p.offset[1] <= dshape[3] - w
        ):
            raise ParamError(
                f"{self.where()}: argument 'offset' {p.offset} must lie within the residual "
                f"space ({dshape[2] - h}, {dshape[3] - w}) of input {dshape} cropped to ({h}, {w})."
            )
        return p.offset[0], p.offset[1], h, w

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        n = self.param.num_args
        if len(in_shape) != n:
            raise self._fail(f"argument 'num_args' is {n} but {len(in_shape)} inputs came.")
        if any(s is None or 0 in s for s in in_shape):
            return None
        dshape = tuple(in_shape[0])
        _, _, h, w = self.window(dshape, tuple(in_shape[1]) if n == 2 else None)
        return [tuple(s) for s in in_shape], [(dshape[0], dshape[1], h, w)], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        for i, t in enumerate(in_type):
            if t is not None and np.dtype(t) != np.float32:
                raise DTypeError(
                    f"{self.where()}: input 'arg{i}' has dtype {np.dtype(t).name}; Crop accepts "
                    "float32 only, as in MXNet."
                )
        f32 = np.dtype(np.float32)
        return [f32] * len(in_type), [f32], []

    def declare_backward_dependency(self, out_grad: list, in_data: list, out_data: list):
        return list(out_grad)

    def create_operator(self, ctx: Context) -> Operator:
        return _CropOp(self)


class _CropOp(Operator):
    def _key(self, dshape: tuple, out_shape: tuple) -> tuple:
        top, left, h, w = self.prop.window(dshape, out_shape)
        return (Ellipsis, slice(top, top + h), slice(left, left + w))

    def forward(self, op_ctx, in_data, req, out_data, aux) -> None:
        x, out = in_data[0], out_data[0]
        assign(out, req[0], x[self._key(x.shape, out.shape)])

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        for k in range(1, len(in_grad)):
            if req[k] in (OpReq.WRITE, OpReq.INPLACE):
                in_grad[k][...] = 0
        gin, dy = in_grad[0], out_grad[0]
        if req[0] == OpReq.NULL:
            return
        if req[0] != OpReq.ADD:
            gin[...] = 0
        key = self._key(gin.shape, dy.shape)
        gin[key] += dy
