"""Normalisation operators: BatchNorm, LayerNorm, InstanceNorm and GroupNorm, as in MXNet 1.9.1
(L2Normalization and LRN, which normalise by a norm rather than by statistics, are in
``local_norm.py``).

Design note
-----------
Each operator computes per-group statistics over some axes, normalises, then scales and
shifts. The statistics are extra outputs, hidden unless ``output_mean_var`` is set, and
backward reads them instead of recomputing. Facts from MXNet 1.9.1 kept here:

* BatchNorm's third output is the inverse standard deviation 1 / sqrt(var + eps), not the
  variance. In training (and not ``use_global_stats``) the statistics come from the batch
  (biased variance); otherwise from ``moving_mean`` / ``moving_var``. The moving averages
  ``m = m * momentum + batch * (1 - momentum)`` (biased variance) are updated by *backward*
  in training, not by forward: a forward-only pass leaves them unchanged, as on MXNet's CPU.
  ``fix_gamma`` uses gamma = 1, gives gamma a zero gradient and, as MXNet's kernels do,
  writes ones into the gamma input itself when the forward writes the mean output (MXNet's
  graph executor skips that output where nothing reads it: inference-only graphs; mxlite's
  executor always writes it). For float16 data, gamma, beta, the moving statistics and the
  mean/invstd outputs are float32.
* LayerNorm and GroupNorm output mean and std = sqrt(var + eps); InstanceNorm outputs mean
  and var. GroupNorm's gamma and beta have one entry per group, as in 1.9.1.

Statistics accumulate in float32 for float16 data. Everything is vectorised over the batch.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import DTypeError, ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import Operator, OperatorProperty, dtype_assign, register, shape_assign
from ..req import OpReq, assign
from ..sparse.forms_tensor import BATCHNORM
from . import _batch_norm as bn
from . import _layer_norm
from .activation import check_float

__all__ = [
    "BatchNormParam",
    "LayerNormParam",
    "InstanceNormParam",
    "GroupNormParam",
]


def _only_float32(prop: OperatorProperty, dtype: Any) -> None:
    # MXNet 1.9.1 runs InstanceNorm and LRN on float32 only (mshadow's default type)
    if dtype is not None and np.dtype(dtype) != np.float32:
        raise DTypeError(
            f"{prop.where()}: argument 'data' has dtype {np.dtype(dtype).name}; "
            f"{prop.op_name} accepts float32 only."
        )


def _acc(dtype: Any) -> np.dtype:
    return np.dtype(np.float32) if np.dtype(dtype) == np.float16 else np.dtype(dtype)


def _put(out: Any, req: OpReq, value: Any) -> None:
    if req != OpReq.NULL:
        assign(out, req, value)


def _norm_axis(prop: OperatorProperty, axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise ShapeError(
            f"{prop.where()}: argument 'axis' is {axis}; expected an axis of data with "
            f"{ndim} dimensions."
        )
    return axis % ndim


def _fill_params(prop: OperatorProperty, in_shape: list, shape: tuple) -> list:
    """data, then every other argument (gamma, beta) of ``shape``."""
    names = prop.list_arguments()
    return [in_shape[0]] + [
        shape_assign(prop, "argument", names[i], in_shape[i], shape)
        for i in range(1, len(in_shape))
    ]


def _float_type(prop: OperatorProperty, in_type: list, out_type: Any, n_out: int, acc: bool):
    """Arguments after data (gamma, beta) and aux states have data's dtype, or float32 for
    float16 data when ``acc``; outputs: data's dtype, then the statistics in that same dtype."""
    dtype = in_type[0]
    if dtype is None and out_type:
        dtype = out_type[0]
    if dtype is None:
        return None
    check_float(prop, "data", dtype)
    dtype = np.dtype(dtype)
    pdt = _acc(dtype) if acc else dtype
    names = prop.list_arguments()
    ins = [dtype] + [dtype_assign(prop, names[i], in_type[i], pdt) for i in range(1, len(in_type))]
    n_aux = len(prop.list_auxiliary_states())
    return ins, [dtype] + [pdt] * (n_out - 1), [pdt] * n_aux


# ---------------------------------------------------------------------------------------------
# BatchNorm


class BatchNormParam(Param):
    eps: float = field(
        default=0.0010000000474974513,
        typename="double",
        doc="Epsilon to prevent div 0. Must be no less than CUDNN_BN_MIN_EPSILON defined in "
        "cudnn.h when using cudnn (usually 1e-5)",
    )
    momentum: float = field(default=0.9, doc="Momentum for moving average")
    fix_gamma: bool = field(default=True, doc="Fix gamma while training")
    use_global_stats: bool = field(
        default=False,
        doc="Whether use global moving statistics instead of local batch-norm. This will force "
        "change batch-norm into a scale shift operator.",
    )
    output_mean_var: bool = field(default=False, doc="Output the mean and inverse std ")
    axis: int = field(default=1, doc="Specify which shape axis the channel is specified")
    cudnn_off: bool = field(default=False, doc="Do not select CUDNN operator, if available")
    min_calib_range: float | None = field(
        default=None,
        doc="The minimum scalar value in the form of float32 obtained through calibration. "
        "Used only by quantized batch norm.",
    )
    max_calib_range: float | None = field(
        default=None,
        doc="The maximum scalar value in the form of float32 obtained through calibration. "
        "Used only by quantized batch norm.",
    )


def _bcast(v: Any, ndim: int, axis: int) -> Any:
    shape = [1] * ndim
    shape[axis] = -1
    return v.reshape(shape)


class _BatchNormOp(Operator):
    def __init__(self, param: BatchNormParam, xp: Any) -> None:
        self.p = param
        self.xp = xp

    def _global_stats(self, aux: list, acc: np.dtype) -> tuple[Any, Any, Any]:
        """mean, variance and 1 / sqrt(var + eps) from the moving statistics."""
        wide = _wide(self.xp, acc)
        mean, var = aux[0].astype(wide), aux[1].astype(wide)
        return mean, var, 1 / self.xp.sqrt(var + wide.type(self.p.eps))

    def forward(self, op_ctx, in_data, req, out_data, aux):
        xp, p = self.xp, self.p
        x, gamma, beta = in_data
        axis = p.axis % x.ndim
        acc = out_data[1].dtype
        if op_ctx.is_train and not p.use_global_stats:
            mean, var = bn.moments(xp, x, axis, acc)
            invstd = _invstd(xp, var, p.eps)
        else:
            mean, var, invstd = self._global_stats(aux, acc)
        if req[0] != OpReq.NULL:
            scale = invstd if p.fix_gamma else invstd * gamma.astype(invstd.dtype)
            bn.affine(xp, x, axis, scale, beta.astype(invstd.dtype), mean, out_data[0],
                      req[0] == OpReq.ADD, acc)  # fmt: skip
        _put(out_data[1], req[1], mean.astype(acc, copy=False))
        _put(out_data[2], req[2], invstd.astype(acc, copy=False))
        if p.fix_gamma and req[1] in (OpReq.WRITE, OpReq.INPLACE):
            # both of MXNet's kernels do this (into an input), so a fixed gamma reads 1 after
            # training and weight decay or momentum acts on 1, whatever it held
            gamma[...] = 1

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux):
        xp, p = self.xp, self.p
        x, gamma, g = in_data[0], in_data[1], out_grad[0]
        axis = p.axis % x.ndim
        acc = out_data[1].dtype
        wide = _wide(xp, acc)
        train = op_ctx.is_train and not p.use_global_stats
        if train:
            mean, invstd = out_data[1].astype(wide), out_data[2].astype(wide)
            var = _var(xp, invstd, p.eps)
            mom = acc.type(np.float32(p.momentum))  # a C float in MXNet, even for float64 data
            batch_var = _var(xp, out_data[2], p.eps)
            aux[0][...] = aux[0] * mom + out_data[1] * (1 - mom)
            aux[1][...] = aux[1] * mom + batch_var * (1 - mom)
        else:
            mean, var, invstd = self._global_stats(aux, acc)
        w = invstd.dtype.type(1) if p.fix_gamma else gamma.astype(invstd.dtype)
        need_dotp = train or (req[1] != OpReq.NULL and not p.fix_gamma)
        if need_dotp or req[2] != OpReq.NULL:
            sum_g, dotp = bn.grad_sums(xp, x, g, axis, mean, var, acc)
        if req[0] != OpReq.NULL:
            a = invstd * w
            b = k = None
            if train:
                n = x.size // max(x.shape[axis], 1)
                b, k = invstd * invstd * dotp / n, sum_g / n
            bn.data_grad(xp, x, g, axis, a, b, mean, k, in_grad[0], req[0] == OpReq.ADD, acc)
        if req[1] != OpReq.NULL:
            assign(in_grad[1], req[1], 0 if p.fix_gamma else (dotp * invstd).astype(acc))
        if req[2] != OpReq.NULL:
            assign(in_grad[2], req[2], sum_g.astype(acc))


def _invstd(xp: Any, var: Any, eps: float) -> Any:
    """1 / sqrt(var + eps); 0 where both are 0."""
    if eps != 0:  # (np.errstate costs more than the rest of a small BatchNorm's arithmetic)
        return 1 / xp.sqrt(var + var.dtype.type(eps))
    with np.errstate(divide="ignore"):
        return xp.where(var == 0, var.dtype.type(0), 1 / xp.sqrt(var))


def _var(xp: Any, invstd: Any, eps: float) -> Any:
    """The variance that gave ``invstd`` (infinite where it is 0)."""
    if eps != 0:
        return 1 / (invstd * invstd) - invstd.dtype.type(eps)
    with np.errstate(divide="ignore"):
        return 1 / (invstd * invstd)


def _wide(xp: Any, acc: np.dtype) -> np.dtype:
    """dtype of BatchNorm's per-channel arithmetic: float64 with NumPy (a few values per
    channel), else the accumulation dtype."""
    return np.dtype(np.float64) if bn.is_numpy(xp) else acc


@register("BatchNorm", aliases=("_npx_batch_norm",))
class BatchNormProp(OperatorProperty):
    """Batch normalisation over every axis but ``axis``, with moving statistics as
    auxiliary states (updated in training; see the module note)."""

    lists_output_names = True

    plot_kind = "norm"

    input_var_init = {3: '["zero", {}]', 4: '["one", {}]'}  # moving mean, moving var
    quantized_name = "_contrib_quantized_batch_norm"

    lists_input_names = True
    sparse_form = BATCHNORM  # no sparse kernel; refuses fix_gamma on sparse inputs

    param_class = BatchNormParam

    def avoid_quantize_input(self, index: int, granularity: str) -> bool:
        """Fact for quantization: gamma, beta and the moving statistics stay float."""
        return index != 0

    def list_arguments(self) -> list[str]:
        return ["data", "gamma", "beta"]

    def list_outputs(self) -> list[str]:
        return ["output", "mean", "var"]

    def list_auxiliary_states(self) -> list[str]:
        return ["moving_mean", "moving_var"]

    def num_visible_outputs(self) -> int:
        return 3 if self.param.output_mean_var else 1

    def infer_shape(self, in_shape, out_shape=None):
        self.check_num_inputs(in_shape)
        data = in_shape[0]
        if data is None:
            return None
        c = data[_norm_axis(self, self.param.axis, len(data))]
        return _fill_params(self, in_shape, (c,)), [data, (c,), (c,)], [(c,), (c,)]

    def infer_type(self, in_type, out_type=None):
        return _float_type(self, in_type, out_type, 3, acc=True)

    def is_train_dependent(self) -> bool:
        return True

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        return [out_grad[0], in_data[0], in_data[1], out_data[1], out_data[2]]

    def forward_inplace_option(self, in_data, out_data):
        # The statistics are taken before the output is written. MXNet declares no in-place
        # pair; the planner only uses it where nothing reads the input afterwards (inference,
        # since the backward reads it), which saves the memory its fused Convolution+BatchNorm
        # saves there.
        return [(in_data[0], out_data[0])]

    def inference_channel_affine(self, ndim: int) -> int | None:
        """Fact for inference passes (``executor/fuse.py``): the axis along which this
        operator's first output, in an inference forward (moving statistics), is a per-channel
        affine map of its data (:meth:`inference_affine`); None when it is not one."""
        if self.param.output_mean_var:
            return None
        return self.param.axis % ndim

    def inference_affine(self, xp: Any, gamma: Any, beta: Any, mean: Any, var: Any):
        """``(scale, shift)`` with ``out = data * scale + shift`` per channel in an inference
        forward, in float32 the way the forward computes them."""
        invstd = 1 / xp.sqrt(var + var.dtype.type(self.param.eps))
        scale = invstd if self.param.fix_gamma else invstd * gamma.astype(invstd.dtype)
        return scale, beta.astype(invstd.dtype) - mean * scale

    def create_operator(self, ctx: Context) -> Operator:
        return _BatchNormOp(self.param, ctx.xp)


# ---------------------------------------------------------------------------------------------
# LayerNorm, InstanceNorm, GroupNorm: normalise over a set of axes, one (gamma, beta) per
# channel (per group for GroupNorm).


class BatchNormVariantProp(OperatorProperty):
    """An operator that runs BatchNorm (``self.bn``, made from :meth:`bn_kwargs`) and changes
    its outputs: BatchNorm's arguments, auxiliary states and visible outputs."""

    # the sweep's case: a batch of 3 with 2 channels of length 4
    test_shapes = {
        "data": (3, 2, 4),
        "gamma": (2,),
        "beta": (2,),
        "moving_mean": (2,),
        "moving_var": (2,),
    }  # fmt: skip

    def __init__(self, param: Any = None, attrs: dict[str, str] | None = None) -> None:
        self.bn = BatchNormProp.get_prop(self.bn_kwargs(param))
        super().__init__(param, attrs)

    def bn_kwargs(self, param: Any) -> dict[str, Any]:
        """BatchNorm's keyword arguments for this operator's ``param``."""
        raise NotImplementedError

    def list_arguments(self) -> list[str]:
        return self.bn.list_arguments()

    def list_auxiliary_states(self) -> list[str]:
        return self.bn.list_auxiliary_states()

    def num_visible_outputs(self) -> int:
        return self.bn.num_visible_outputs()


def _moments(xp: Any, x: Any, red: tuple[int, ...], eps: float, acc: Any = None):
    acc = _acc(x.dtype) if acc is None else acc
    mean = x.mean(axis=red, dtype=acc, keepdims=True)
    centered = x - mean.astype(x.dtype, copy=False)
    var = xp.square(centered, dtype=acc).mean(axis=red, keepdims=True)
    return mean, var, centered


def _norm_backward(
    xp: Any, g: Any, xhat: Any, dxhat: Any, red: tuple, inv: Any, acc: Any = None
) -> Any:
    """dL/dx of xhat = (x - mean) * inv over axes ``red``, given dL/dxhat."""
    m1 = dxhat.mean(axis=red, keepdims=True, dtype=acc)
    m2 = (dxhat * xhat).mean(axis=red, keepdims=True, dtype=acc)
    if acc is not None:
        m1, m2 = m1.astype(xhat.dtype), m2.astype(xhat.dtype)
    return (dxhat - m1 - xhat * m2) * inv


def _acc64(dtype: Any) -> np.dtype:
    # LayerNorm sums thousands of rows: NumPy adds along a non-contiguous axis one row at a
    # time, so float32 sums drift by ~1e-4 where MXNet's are exact to ~1e-6; float64 sums
    return np.dtype(np.float32) if np.dtype(dtype) == np.float16 else np.dtype(np.float64)


class LayerNormParam(Param):
    axis: int = field(
        default=-1,
        doc="The axis to perform layer normalization. Usually, this should be be axis of the "
        "channel dimension. Negative values means indexing from right to left.",
    )
    eps: float = field(default=1e-5, doc="An `epsilon` parameter to prevent division by 0.")
    output_mean_var: bool = field(
        default=False, doc="Output the mean and std calculated along the given axis."
    )


class _LayerNormOp(Operator):
    def __init__(self, param: LayerNormParam, xp: Any) -> None:
        self.p = param
        self.xp = xp

    def forward(self, op_ctx, in_data, req, out_data, aux):
        xp, x = self.xp, in_data[0]
        axis = self.p.axis % x.ndim
        if _layer_norm.applies(xp, x, axis):
            dst = None if req[0] == OpReq.ADD else out_data[0]
            y, mean, std = _layer_norm.forward(x, in_data[1], in_data[2], self.p.eps, dst)
            _put(out_data[0], req[0], y)
            _put(out_data[1], req[1], mean.reshape(out_data[1].shape))
            _put(out_data[2], req[2], std.reshape(out_data[2].shape))
            return
        mean, var, centered = _moments(xp, x, (axis,), self.p.eps, _acc64(x.dtype))
        std = xp.sqrt(var + var.dtype.type(self.p.eps))
        _put(out_data[1], req[1], mean)
        _put(out_data[2], req[2], std)
        gamma = _bcast(in_data[1], x.ndim, axis)
        beta = _bcast(in_data[2], x.ndim, axis)
        _put(out_data[0], req[0], centered / std.astype(x.dtype) * gamma + beta)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux):
        xp, x, g = self.xp, in_data[0], out_grad[0]
        axis = self.p.axis % x.ndim
        mean, std = out_data[1], out_data[2]
        if _layer_norm.applies(xp, x, axis) and g.dtype == x.dtype and g.flags.c_contiguous:
            grads = _layer_norm.backward(x, g, in_data[1], mean, std, req[0] != OpReq.NULL)
            for i, grad in enumerate(grads):
                _put(in_grad[i], req[i], grad)
            return
        inv = (1 / std).astype(x.dtype)
        xhat = (x - mean.astype(x.dtype)) * inv
        red = tuple(i for i in range(x.ndim) if i != axis)
        acc = _acc64(x.dtype)
        _put(in_grad[1], req[1], (g * xhat).sum(axis=red, dtype=acc))
        _put(in_grad[2], req[2], g.sum(axis=red, dtype=acc))
        if req[0] != OpReq.NULL:
            dxhat = g * _bcast(in_data[1], x.ndim, axis)
            assign(in_grad[0], req[0], _norm_backward(xp, g, xhat, dxhat, (axis,), inv, acc))


class _NormPropBase(OperatorProperty):
    """What LayerNorm, InstanceNorm and GroupNorm share: data, gamma and beta in; the output,
    mean and a spread out (the last two visible with ``output_mean_var``)."""

    lists_output_names = True
    lists_input_names = True

    def list_arguments(self) -> list[str]:
        return ["data", "gamma", "beta"]

    def list_outputs(self) -> list[str]:
        return ["output", "mean", "std"]

    def num_visible_outputs(self) -> int:
        return 3 if getattr(self.param, "output_mean_var", False) else 1

    def infer_type(self, in_type, out_type=None):
        return _float_type(self, in_type, out_type, 3, acc=False)

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        return [out_grad[0], in_data[0], in_data[1], out_data[1], out_data[2]]


@register("LayerNorm", aliases=("_npx_layer_norm",))
class LayerNormProp(_NormPropBase):
    """Layer normalisation along ``axis``: (x - mean) / sqrt(var + eps) * gamma + beta."""

    bfloat16_kernel = False  # MXNet 1.9.1 refuses bfloat16 here (operator/bfloat16.py)

    param_class = LayerNormParam

    def infer_shape(self, in_shape, out_shape=None):
        self.check_num_inputs(in_shape)
        data = in_shape[0]
        if data is None:
            return None
        axis = _norm_axis(self, self.param.axis, len(data))
        moments = data[:axis] + (1,) + data[axis + 1 :]
        return _fill_params(self, in_shape, (data[axis],)), [data, moments, moments], []

    def create_operator(self, ctx: Context) -> Operator:
        return _LayerNormOp(self.param, ctx.xp)


class InstanceNormParam(Param):
    eps: float = field(default=1e-3, doc="An `epsilon` parameter to prevent division by 0.")


class GroupNormParam(Param):
    num_groups: int = field(default=1, low=1, doc="Total number of groups.")
    eps: float = field(default=1e-5, doc="An `epsilon` parameter to prevent division by 0.")
    output_mean_var: bool = field(
        default=False, doc="Output the mean and std calculated along the given axis."
    )


class _GroupedNormOp(Operator):
    """InstanceNorm (groups = channels, outputs var) and GroupNorm (outputs std)."""

    def __init__(self, param: Any, xp: Any, instance: bool) -> None:
        self.p = param
        self.xp = xp
        self.instance = instance

    def _groups(self, x: Any) -> int:
        return x.shape[1] if self.instance else self.p.num_groups

    @staticmethod
    def _affine(v: Any) -> Any:
        # one entry per group (per channel for InstanceNorm), on the (n, groups, -1) view
        return v.reshape(1, -1, 1)

    def forward(self, op_ctx, in_data, req, out_data, aux):
        xp, x = self.xp, in_data[0]
        n, gr = x.shape[0], self._groups(x)
        xg = x.reshape(n, gr, -1)
        mean, var, centered = _moments(xp, xg, (2,), self.p.eps)
        denom = xp.sqrt(var + var.dtype.type(self.p.eps))
        _put(out_data[1], req[1], mean.reshape(out_data[1].shape))
        _put(out_data[2], req[2], (var if self.instance else denom).reshape(out_data[2].shape))
        y = centered / denom.astype(x.dtype) * self._affine(in_data[1])
        y += self._affine(in_data[2])
        _put(out_data[0], req[0], y.reshape(x.shape))

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux):
        xp, x = self.xp, in_data[0]
        n, gr = x.shape[0], self._groups(x)
        xg = x.reshape(n, gr, -1)
        g = out_grad[0].reshape(n, gr, -1)
        mean = out_data[1].reshape(n, gr, 1)
        stat = out_data[2].reshape(n, gr, 1)
        eps = stat.dtype.type(self.p.eps)
        inv = (1 / (xp.sqrt(stat + eps) if self.instance else stat)).astype(x.dtype)
        xhat = (xg - mean.astype(x.dtype)) * inv
        _put(in_grad[1], req[1], (g * xhat).sum(axis=(0, 2)))
        _put(in_grad[2], req[2], g.sum(axis=(0, 2)))
        if req[0] != OpReq.NULL:
            dxhat = g * self._affine(in_data[1])
            dx = _norm_backward(xp, g, xhat, dxhat, (2,), inv)
            assign(in_grad[0], req[0], dx.reshape(x.shape))


class _GroupedNormProp(_NormPropBase):
    """InstanceNorm and GroupNorm: (batch, channel, spatial...) data whose channels form groups,
    with one mean, spread, gamma and beta per group (per sample for the statistics)."""

    instance = False  # InstanceNorm: one group per channel

    def groups(self, data: tuple) -> int:
        """The number of groups for this (at least 3-D) data shape."""
        raise NotImplementedError

    def infer_shape(self, in_shape, out_shape=None):
        self.check_num_inputs(in_shape)
        data = in_shape[0]
        if data is None:
            return None
        if len(data) < 3:
            raise ShapeError(
                f"{self.where()}: argument 'data' has shape {tuple(data)}; expected at least 3 "
                f"dimensions (batch, channel, spatial...)."
            )
        g = self.groups(data)
        stats = (data[0], g)
        return _fill_params(self, in_shape, (g,)), [data, stats, stats], []

    def create_operator(self, ctx: Context) -> Operator:
        return _GroupedNormOp(self.param, ctx.xp, instance=self.instance)


@register("InstanceNorm")
class InstanceNormProp(_GroupedNormProp):
    """Instance normalisation: each (sample, channel) over its spatial axes."""

    param_class = InstanceNormParam
    instance = True

    def list_outputs(self) -> list[str]:
        return ["output", "mean", "var"]

    def groups(self, data: tuple) -> int:
        return data[1]

    def infer_type(self, in_type, out_type=None):
        _only_float32(self, in_type[0] if in_type else None)
        return super().infer_type(in_type, out_type)


@register("GroupNorm")
class GroupNormProp(_GroupedNormProp):
    """Group normalisation: channels split into ``num_groups`` groups, each normalised with
    its spatial axes; gamma and beta have one entry per group (MXNet 1.9.1)."""

    param_class = GroupNormParam

    def groups(self, data: tuple) -> int:
        g = self.param.num_groups
        if data[1] % g:
            raise ShapeError(
                f"{self.where()}: argument 'num_groups' is {g}; it must divide the {data[1]} "
                f"channels of data {tuple(data)}."
            )
        return g
