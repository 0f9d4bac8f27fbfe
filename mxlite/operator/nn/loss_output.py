"""Loss and output layers: ``SoftmaxOutput`` (``Softmax``), ``softmax_cross_entropy``,
``LinearRegressionOutput``, ``LogisticRegressionOutput``, ``MAERegressionOutput``,
``SVMOutput``, ``MakeLoss`` and ``make_loss``.

Design note
-----------
Output layers compute a prediction in forward and, in backward, the gradient of their implied
loss: they ignore the head gradient (all but ``softmax_cross_entropy`` do), so
``y.backward()`` on them trains a network. Labels get a zero gradient
(``softmax_cross_entropy`` refuses a label gradient, as MXNet does).

MXNet 1.9.1's arithmetic is kept where it is surprising:

- labels are class indices read with C's truncation (``int(2.7) == 2``); an index outside the
  classes matches none of them, and ``ignore_label`` is compared after the same truncation;
- ``SoftmaxOutput(out_grad=True)`` multiplies the gradient by the softmax *output*, not by the
  head gradient: MXNet 1.9.1's NNVM backward hands the output to the legacy kernel in the head
  gradient's place, so the head gradient is never read;
- ``SoftmaxOutput``: a label of the data's shape is a probability target (no normalisation);
  ``multi_output`` divides by the spatial size unless ``normalization='valid'``, and ignores
  ``smooth_alpha``; ``'valid'`` counts labels different from ``ignore_label`` even when
  ``use_ignore`` is False;
- regression outputs scale by ``grad_scale / (label.size / label.shape[0])``; the MAE sign of 0
  is -1;
- ``MakeLoss(normalization='batch')`` divides by the product of all but the last dimension
  (MXNet's 2-D flattening), ``'valid'`` by the count of elements above ``valid_thresh``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import DTypeError, MXNetError, ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import OpContext, Operator, OperatorProperty, register, shape_assign
from ..req import OpReq, assign
from ..sparse.forms import KEEP_ZERO
from .softmax import softmax_axis

__all__ = [
    "SoftmaxOutputParam",
    "RegressionOutputParam",
    "SVMOutputParam",
    "MakeLossParam",
]


class SoftmaxOutputParam(Param):
    grad_scale: float = field(default=1.0, doc="Scales the gradient by a float factor.")
    ignore_label: float = field(
        default=-1.0,
        doc="The instances whose `labels` == `ignore_label` will be ignored during backward, "
        "if `use_ignore` is set to ``true``).",
    )
    multi_output: bool = field(
        default=False,
        doc="If set to ``true``, the softmax function will be computed along axis ``1``. This "
        "is applied when the shape of input array differs from the shape of label array.",
    )
    use_ignore: bool = field(
        default=False,
        doc="If set to ``true``, the `ignore_label` value will not contribute to the backward "
        "gradient.",
    )
    preserve_shape: bool = field(
        default=False,
        doc="If set to ``true``, the softmax function will be computed along the last axis "
        "(``-1``).",
    )
    normalization: str = field(
        default="null", choices=("null", "batch", "valid"), doc="Normalizes the gradient."
    )
    out_grad: bool = field(
        default=False, doc="Multiplies gradient with output gradient element-wise."
    )
    smooth_alpha: float = field(
        default=0.0,
        low=0.0,
        high=1.0,
        doc="Constant for computing a label smoothed version of cross-entropyfor the backwards "
        "pass.  This constant gets subtracted from theone-hot encoding of the gold label and "
        "distributed uniformly toall other labels.",
    )


class RegressionOutputParam(Param):
    grad_scale: float = field(default=1.0, doc="Scale the gradient by a float factor")


class SVMOutputParam(Param):
    margin: float = field(
        default=1.0,
        doc="The loss function penalizes outputs that lie outside this margin. Default margin "
        "is 1.",
    )
    regularization_coefficient: float = field(
        default=1.0,
        doc="Regularization parameter for the SVM. This balances the tradeoff between "
        "coefficient size and error.",
    )
    use_linear: bool = field(
        default=False,
        doc="Whether to use L1-SVM objective. L2-SVM objective is used by default.",
    )


class MakeLossParam(Param):
    grad_scale: float = field(
        default=1.0, doc="Gradient scale as a supplement to unary and binary operators"
    )
    valid_thresh: float = field(
        default=0.0,
        doc="clip each element in the array to 0 when it is less than ``valid_thresh``. This "
        "is used when ``normalization`` is set to ``'valid'``.",
    )
    normalization: str = field(
        default="null",
        choices=("null", "batch", "valid"),
        doc="If this is set to null, the output gradient will not be normalized. If this is "
        "set to batch, the output gradient will be divided by the batch size. If this is set "
        "to valid, the output gradient will be divided by the number of valid input elements.",
    )


def _class_index(xp: Any, label: Any) -> Any:
    """Labels as C casts them to int: truncation toward zero."""
    if np.issubdtype(label.dtype, np.integer):
        return label.astype(np.int64, copy=False)
    return xp.trunc(label).astype(np.int64)


def _check_float(op: str, dtype: Any) -> None:
    if dtype is not None and not np.issubdtype(dtype, np.floating):
        raise DTypeError(
            f"{op}: argument 'data' must have a floating-point dtype; got {np.dtype(dtype).name}."
        )


def _zero_label_grad(in_grad: list, req: list) -> None:
    for i in range(1, len(in_grad)):
        if req[i] != OpReq.NULL and in_grad[i] is not None:
            assign(in_grad[i], req[i], 0)


class _IdentityOp(Operator):
    """An output layer whose forward is the identity (SVMOutput, MakeLoss): only its backward,
    the gradient of its loss, computes."""

    def forward(self, op_ctx: OpContext, in_data, req, out_data, aux) -> None:
        assign(out_data[0], req[0], in_data[0])


class _LabelledProp(OperatorProperty):
    """data + label in, one output; dtype shared; backward reads label and output."""

    def list_arguments(self) -> list[str]:
        return ["data", "label"]

    def _check_arity(self, in_shape: list) -> None:
        if len(in_shape) != 2:
            raise ShapeError(
                f"{self.op_name}: expected 2 inputs (data, label); got {len(in_shape)}."
            )

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        self._check_arity(in_shape)
        dshape, lshape = in_shape
        if dshape is None:
            return None
        return [dshape, self.label_shape(dshape, lshape)], [dshape], []

    def label_shape(self, dshape: tuple, lshape: tuple | None) -> tuple:
        """The label's shape for ``dshape`` data: ``lshape`` checked, or filled in if None."""
        raise NotImplementedError

    def infer_type(self, in_type: list, out_type: list | None = None):
        res = super().infer_type(in_type, out_type)
        if res is not None:
            _check_float(self.op_name, res[0][0])
        return res

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list[int]:
        return [in_data[1], out_data[0]]

    def forward_inplace_option(self, in_data, out_data) -> list[tuple]:
        return [(in_data[0], out_data[0])]

    def backward_inplace_option(self, out_grad, in_data, out_data, in_grad) -> list[tuple]:
        return [(out_data[0], in_grad[0])]


# ---- SoftmaxOutput ----------------------------------------------------------------------------


@register("SoftmaxOutput", aliases=("Softmax",))
class SoftmaxOutputProp(_LabelledProp):
    """Softmax in forward; cross-entropy gradient ``(out - onehot(label))`` in backward."""

    lists_output_names = True

    lists_input_names = True

    param_class = SoftmaxOutputParam

    def label_shape(self, dshape: tuple, lshape: tuple | None) -> tuple:
        if lshape != dshape:
            if self.param.multi_output:
                if len(dshape) < 2:
                    raise ShapeError(
                        f"SoftmaxOutput: input 'data' needs at least 2 dimensions with "
                        f"multi_output=True; got shape {dshape}."
                    )
                n = dshape[0]
                rest = int(np.prod(dshape[2:], dtype=np.int64))
                allowed = [(n, rest), (n, *dshape[2:]), (n, 1, *dshape[2:])]
                if lshape is None:
                    lshape = allowed[0]
                elif lshape not in allowed:
                    raise ShapeError(
                        f"SoftmaxOutput: input 'label' has shape {lshape}; expected "
                        f"{allowed[0]} or {allowed[1]} with multi_output=True."
                    )
            else:
                lshape = shape_assign(self, "input", "label", lshape, tuple(dshape[:-1]))
        return lshape

    def create_operator(self, ctx: Context) -> Operator:
        return _SoftmaxOutputOp(self, ctx.xp)


class _SoftmaxOutputOp(Operator):
    def _view(self, shape: tuple) -> tuple:
        """The shape the softmax is taken on, with the class axis last (2-D) or at 1 (3-D)."""
        p = self.prop.param
        n = shape[0]
        size = int(np.prod(shape, dtype=np.int64))
        if p.multi_output:
            k = shape[1]
            return (n, k, size // max(n * k, 1))
        if p.preserve_shape:
            return (size // max(shape[-1], 1), shape[-1])
        return (n, size // max(n, 1))

    def forward(self, op_ctx: OpContext, in_data, req, out_data, aux) -> None:
        x = in_data[0]
        view = self._view(x.shape)
        axis = 1 if self.prop.param.multi_output else -1
        y = softmax_axis(self.xp, x.reshape(view), axis) if x.size else x
        assign(out_data[0], req[0], y.reshape(x.shape).astype(x.dtype, copy=False))

    def backward(self, op_ctx: OpContext, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        _zero_label_grad(in_grad, req)
        if req[0] == OpReq.NULL:
            return
        xp, p = self.xp, self.prop.param
        out, label = out_data[0], in_data[1]
        dt = out.dtype.type
        if out.shape == label.shape:  # probabilities as the target
            grad = (out - label) * dt(p.grad_scale)
            if p.out_grad:
                grad = grad * out  # sic: MXNet passes the output as the head gradient
            assign(in_grad[0], req[0], grad)
            return
        view = self._view(out.shape)
        out_v = out.reshape(view)
        ignore = int(p.ignore_label)
        if p.multi_output:
            n, k, rest = view
            idx = _class_index(xp, label).reshape(n, 1, rest)
            hit = xp.arange(k).reshape(1, k, 1) == idx
            grad = out_v - hit.astype(out.dtype)
            if p.use_ignore:
                grad = xp.where(idx == ignore, dt(0), grad)
            valid = self._count(xp, idx, ignore, label.size, n)
            scale = p.grad_scale / (1 if p.normalization == "valid" else rest) / valid
        else:
            rows, k = view
            if label.size != rows:
                raise ShapeError(
                    f"SoftmaxOutput: input 'label' has {label.size} elements; expected {rows} "
                    f"(one class index per softmax row of {tuple(out.shape)})."
                )
            idx = _class_index(xp, label).reshape(rows, 1)
            hit = xp.arange(k).reshape(1, k) == idx
            if p.smooth_alpha == 0.0:
                grad = out_v - hit.astype(out.dtype)
            else:
                off = dt(p.smooth_alpha / (k - 1)) if k > 1 else dt(np.inf)
                grad = out_v - xp.where(hit, dt(1.0 - p.smooth_alpha), off)
            if p.use_ignore:
                grad = xp.where(idx == ignore, dt(0), grad)
            scale = p.grad_scale / self._count(xp, idx, ignore, label.size, label.size)
        grad = grad * dt(scale)
        if p.out_grad:
            grad = grad * out_v  # sic: MXNet passes the output as the head gradient
        assign(in_grad[0], req[0], grad.reshape(out.shape))

    def _count(self, xp: Any, idx: Any, ignore: int, total: int, batch: int) -> int:
        norm = self.prop.param.normalization
        if norm == "batch":
            return batch
        if norm == "valid":
            return max(total - int(xp.count_nonzero(idx == ignore)), 1)
        return 1


# ---- softmax_cross_entropy --------------------------------------------------------------------


@register("softmax_cross_entropy")
class SoftmaxCrossEntropyProp(_LabelledProp):
    """Summed cross-entropy of softmax(data) with integer class labels; output shape (1,)."""

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        self._check_arity(in_shape)
        dshape, lshape = in_shape
        if dshape is None or lshape is None:
            return None
        if len(dshape) != 2:
            raise ShapeError(f"softmax_cross_entropy: input 'data' must be 2-D; got {dshape}.")
        if len(lshape) != 1 or lshape[0] != dshape[0]:
            raise ShapeError(
                f"softmax_cross_entropy: input 'label' must be 1-D of length {dshape[0]}; "
                f"got {lshape}."
            )
        return [dshape, lshape], [(1,)], []

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list[int]:
        return [out_grad[0], in_data[0], in_data[1]]

    def forward_inplace_option(self, in_data, out_data) -> list[tuple]:
        return []

    def backward_inplace_option(self, out_grad, in_data, out_data, in_grad) -> list[tuple]:
        return []

    def create_operator(self, ctx: Context) -> Operator:
        return _SoftmaxCrossEntropyOp(self, ctx.xp)


class _SoftmaxCrossEntropyOp(Operator):
    def _prob_and_index(self, x: Any, label: Any) -> tuple[Any, Any]:
        idx = _class_index(self.xp, label)
        if idx.size and (int(idx.min()) < 0 or int(idx.max()) >= x.shape[1]):
            raise MXNetError(
                f"softmax_cross_entropy: input 'label' holds class indices outside "
                f"[0, {x.shape[1]})."
            )
        return softmax_axis(self.xp, x, 1), idx

    def forward(self, op_ctx: OpContext, in_data, req, out_data, aux) -> None:
        xp = self.xp
        prob, idx = self._prob_and_index(in_data[0], in_data[1])
        picked = xp.take_along_axis(prob, idx.reshape(-1, 1), axis=1)
        loss = -xp.sum(xp.log(xp.maximum(picked, picked.dtype.type(1e-8))))
        assign(out_data[0], req[0], loss.astype(out_data[0].dtype).reshape(1))

    def backward(self, op_ctx: OpContext, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        if len(req) > 1 and req[1] != OpReq.NULL:
            raise MXNetError(
                "softmax_cross_entropy: cannot take the gradient with respect to 'label'."
            )
        if req[0] == OpReq.NULL:
            return
        xp = self.xp
        prob, idx = self._prob_and_index(in_data[0], in_data[1])
        hit = xp.arange(prob.shape[1]).reshape(1, -1) == idx.reshape(-1, 1)
        grad = (prob - hit) * out_grad[0].reshape(())
        assign(in_grad[0], req[0], grad.astype(in_grad[0].dtype, copy=False))


# ---- regression outputs -----------------------------------------------------------------------


class _RegressionProp(_LabelledProp):
    param_class = RegressionOutputParam

    def label_shape(self, dshape: tuple, lshape: tuple | None) -> tuple:
        if lshape is None:
            lshape = (dshape[0],) if len(dshape) == 2 and dshape[1] == 1 else dshape
        elif (
            not lshape
            or lshape[0] != dshape[0]
            or int(np.prod(lshape, dtype=np.int64)) != int(np.prod(dshape, dtype=np.int64))
        ):
            raise ShapeError(
                f"{self.op_name}: input 'label' has shape {lshape}; it must have the batch size "
                f"and number of elements of 'data' {dshape}."
            )
        return lshape

    def create_operator(self, ctx: Context) -> Operator:
        return _RegressionOp(self, ctx.xp)


class _RegressionOp(Operator):
    def forward(self, op_ctx: OpContext, in_data, req, out_data, aux) -> None:
        x = in_data[0]
        if type(self.prop) is LogisticRegressionOutputProp:
            x = 1 / (1 + self.xp.exp(-x))
        assign(out_data[0], req[0], x)

    def backward(self, op_ctx: OpContext, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        _zero_label_grad(in_grad, req)
        if req[0] == OpReq.NULL:
            return
        out, label = out_data[0], in_data[1]
        diff = out - label.reshape(out.shape)
        if type(self.prop) is MAERegressionOutputProp:
            diff = self.xp.where(diff > 0, 1, -1).astype(out.dtype)
        num = label.size // label.shape[0] if label.size else 1
        assign(in_grad[0], req[0], diff * out.dtype.type(self.prop.param.grad_scale / num))


@register("LinearRegressionOutput")
class LinearRegressionOutputProp(_RegressionProp):
    """Identity in forward; squared-loss gradient ``(out - label)`` in backward."""


@register("LogisticRegressionOutput")
class LogisticRegressionOutputProp(_RegressionProp):
    """Sigmoid in forward; logistic-loss gradient ``(out - label)`` in backward."""


@register("MAERegressionOutput")
class MAERegressionOutputProp(_RegressionProp):
    """Identity in forward; absolute-loss gradient ``sign(out - label)`` in backward."""


# ---- SVMOutput --------------------------------------------------------------------------------


@register("SVMOutput")
class SVMOutputProp(_LabelledProp):
    """Identity in forward; L2-SVM (or L1 with ``use_linear``) hinge gradient in backward."""

    lists_output_names = True

    lists_input_names = True

    param_class = SVMOutputParam

    def label_shape(self, dshape: tuple, lshape: tuple | None) -> tuple:
        return shape_assign(self, "input", "label", lshape, tuple(dshape[:-1]))

    def create_operator(self, ctx: Context) -> Operator:
        return _SVMOutputOp(self, ctx.xp)


class _SVMOutputOp(_IdentityOp):
    def backward(self, op_ctx: OpContext, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        _zero_label_grad(in_grad, req)
        if req[0] == OpReq.NULL:
            return
        xp, p = self.xp, self.prop.param
        out = out_data[0]
        dt = out.dtype.type
        k = out.shape[-1] if out.ndim else 1
        src = out.reshape(-1, k)
        hit = xp.arange(k).reshape(1, k) == _class_index(xp, in_data[1]).reshape(-1, 1)
        margin, reg = dt(p.margin), dt(p.regularization_coefficient)
        if p.use_linear:
            own = -(margin > src).astype(out.dtype) * reg
            other = (margin > -src).astype(out.dtype) * reg
        else:
            own = xp.where(margin > src, 2 * (margin - src), dt(0)) * -reg
            other = xp.where(margin > -src, -2 * (margin + src), dt(0)) * -reg
        assign(in_grad[0], req[0], xp.where(hit, own, other).reshape(out.shape))


# ---- MakeLoss, make_loss ----------------------------------------------------------------------


@register("MakeLoss")
class MakeLossProp(OperatorProperty):
    """Identity in forward; a constant gradient ``grad_scale`` (normalised) in backward."""

    lists_output_names = True

    lists_input_names = True

    param_class = MakeLossParam

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list[int]:
        return [in_data[0]] if self.param.normalization == "valid" else []

    def forward_inplace_option(self, in_data, out_data) -> list[tuple]:
        return [(in_data[0], out_data[0])]

    def create_operator(self, ctx: Context) -> Operator:
        return _MakeLossOp(self, ctx.xp)


class _MakeLossOp(_IdentityOp):
    def backward(self, op_ctx: OpContext, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        if req[0] == OpReq.NULL:
            return
        p, g = self.prop.param, in_grad[0]
        if p is None:  # make_loss: ones
            assign(g, req[0], g.dtype.type(1))
            return
        scale = p.grad_scale
        if p.normalization == "valid":
            count = int(self.xp.count_nonzero(in_data[0] > in_data[0].dtype.type(p.valid_thresh)))
            scale = scale / max(count, 1)
        elif p.normalization == "batch":
            rows = int(np.prod(g.shape[:-1], dtype=np.int64)) if g.ndim else 1
            scale = scale / rows
        assign(g, req[0], g.dtype.type(scale))


@register("make_loss")
class MakeLossSimpleProp(OperatorProperty):
    """Identity in forward; a gradient of ones in backward (the head gradient is ignored)."""

    sparse_form = KEEP_ZERO

    def list_outputs(self) -> list[str]:
        return ["loss"]

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list[int]:
        return []

    def forward_inplace_option(self, in_data, out_data) -> list[tuple]:
        return [(in_data[0], out_data[0])]

    def create_operator(self, ctx: Context) -> Operator:
        return _MakeLossOp(self, ctx.xp)
