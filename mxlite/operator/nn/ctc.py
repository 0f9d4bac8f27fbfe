"""Connectionist Temporal Classification loss: ``CTCLoss`` (``ctc_loss``, ``_contrib_CTCLoss``,
``_contrib_ctc_loss``).

Design note
-----------
Inputs follow MXNet: ``data`` (T, N, C) unnormalised activations, ``label`` (N, L) class
indices, then optionally ``data_lengths`` and ``label_lengths`` (N,). Without
``label_lengths`` a label ends at its first padding value: 0 when ``blank_label='first'``
(blank is class 0) and -1 when ``'last'`` (blank is class C-1).

Forward computes, like MXNet's bundled warp-ctc, both the loss ``-log p(label | data)`` and
its gradient with respect to the activations (a second, hidden output); backward only scales
that stored gradient by the head gradient of each sequence. The recursion is the standard
alpha-beta one in log space over the label extended with blanks (S = 2U+1 states), vectorised
over the batch: one loop over time for alpha and one for beta, every sequence masked by its own
data and label length. The gradient is ``softmax(data) - gamma`` with ``gamma`` the state
occupancies summed per class (a batched matrix product with the one-hot of the extended label).
As warp-ctc does, a label that cannot fit (length plus repeats above the data length) gives a
loss and gradient of 0, and time steps beyond a sequence's length get a zero gradient.
The arithmetic runs in float64 and is rounded to the data dtype.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import DTypeError, ShapeError
from ...context import Context
from ..param import Param, field
from ..registry import OpContext, Operator, OperatorProperty, register
from ..req import OpReq, assign
from .loss_output import _zero_label_grad

__all__ = ["CTCLossParam", "ctc_loss_and_grad"]


class CTCLossParam(Param):
    use_data_lengths: bool = field(
        default=False,
        doc="Whether the data lenghts are decided by `data_lengths`. If false, the lengths are "
        "equal to the max sequence length.",
    )
    use_label_lengths: bool = field(
        default=False,
        doc="Whether the label lenghts are decided by `label_lengths`, or derived from "
        "`padding_mask`. If false, the lengths are derived from the first occurrence of the "
        "value of `padding_mask`. The value of `padding_mask` is ``0`` when first CTC label is "
        "reserved for blank, and ``-1`` when last label is reserved for blank. See "
        "`blank_label`.",
    )
    blank_label: str = field(
        default="first",
        choices=("first", "last"),
        doc='Set the label that is reserved for blank label.If "first", 0-th label is '
        "reserved, and label values for tokens in the vocabulary are between ``1`` and "
        '``alphabet_size-1``, and the padding mask is ``-1``. If "last", last label value '
        "``alphabet_size-1`` is reserved for blank label instead, and label values for tokens "
        "in the vocabulary are between ``0`` and ``alphabet_size-2``, and the padding mask is "
        "``0``.",
    )


def _lse3(xp: Any, a: Any, b: Any, c: Any) -> Any:
    m = xp.maximum(xp.maximum(a, b), c)
    safe = xp.where(xp.isfinite(m), m, 0)
    with np.errstate(divide="ignore"):
        return safe + xp.log(xp.exp(a - safe) + xp.exp(b - safe) + xp.exp(c - safe))


def _shift(xp: Any, a: Any, k: int) -> Any:
    """Shift the state axis (last) by ``k`` (right for k > 0), filling with -inf."""
    out = xp.full_like(a, -xp.inf)
    if k > 0:
        out[..., k:] = a[..., :-k]
    else:
        out[..., :k] = a[..., -k:]
    return out


def ctc_loss_and_grad(
    xp: Any, data: Any, labels: Any, data_len: Any, label_len: Any, blank: int
) -> tuple[Any, Any]:
    """Loss (N,) and gradient (T, N, C) of CTC in float64; ``labels`` (N, L) int, lengths int."""
    T, N, C = data.shape
    x = data.astype(np.float64)
    logp = x - xp.max(x, axis=2, keepdims=True)
    logp -= xp.log(xp.sum(xp.exp(logp), axis=2, keepdims=True))
    U = int(label_len.max()) if N else 0
    S = 2 * U + 1
    n_idx = xp.arange(N)
    s_idx = xp.arange(S)
    # the extended label: blanks at even states, the label at odd ones
    ext = xp.full((N, S), blank, dtype=np.int64)
    if U:
        lab = labels[:, :U].astype(np.int64)
        ext[:, 1::2] = xp.where(xp.arange(U)[None, :] < label_len[:, None], lab, blank)
    n_states = 2 * label_len + 1
    valid = s_idx[None, :] < n_states[:, None]
    prev2 = xp.concatenate([xp.full((N, 2), blank, dtype=np.int64), ext[:, :-2]], axis=1)[:, :S]
    skip = (ext != blank) & (ext != prev2) & (s_idx[None, :] >= 2)
    skip_next = xp.zeros_like(skip)
    skip_next[:, :-2] = skip[:, 2:]
    emit = logp[:, n_idx[:, None], ext]  # (T, N, S)
    emit = xp.where(valid[None], emit, -xp.inf)
    neg = -xp.inf

    alpha = xp.full((T, N, S), neg)
    if T:
        alpha[0, :, :2] = emit[0, :, :2]
    for t in range(1, T):
        a = alpha[t - 1]
        a2 = xp.where(skip, _shift(xp, a, 2), neg)
        alpha[t] = _lse3(xp, a, _shift(xp, a, 1), a2) + emit[t]
    last = xp.clip(data_len - 1, 0, max(T - 1, 0))
    a_last = alpha[last, n_idx] if T else xp.full((N, S), neg)
    end = xp.take_along_axis(a_last, (n_states - 1)[:, None], axis=1)[:, 0]
    end2 = xp.take_along_axis(a_last, xp.maximum(n_states - 2, 0)[:, None], axis=1)[:, 0]
    end2 = xp.where(n_states >= 2, end2, neg)
    loglik = xp.logaddexp(end, end2)

    beta = xp.full((T, N, S), neg)
    tail = (s_idx[None, :] == (n_states - 1)[:, None]) | (s_idx[None, :] == (n_states - 2)[:, None])
    b = xp.full((N, S), neg)
    for t in range(T - 1, -1, -1):
        b2 = xp.where(skip_next, _shift(xp, b, -2), neg)
        rec = _lse3(xp, b, _shift(xp, b, -1), b2) + emit[t]
        start = xp.where(tail, emit[t], neg)
        b = xp.where(
            (t == data_len - 1)[:, None], start, xp.where((t < data_len - 1)[:, None], rec, neg)
        )
        beta[t] = b

    # repeats: consecutive equal labels need a blank between them
    if U:
        lab_ext = ext[:, 1::2]
        same = (lab_ext[:, 1:] == lab_ext[:, :-1]) & (xp.arange(1, U)[None, :] < label_len[:, None])
        repeats = xp.sum(same, axis=1)
    else:
        repeats = xp.zeros(N, dtype=np.int64)
    feasible = (label_len + repeats <= data_len) & xp.isfinite(loglik)

    with np.errstate(invalid="ignore", over="ignore"):
        occ = alpha + beta - xp.where(feasible, loglik, 0)[None, :, None] - emit
        occ = xp.where(xp.isfinite(occ), xp.exp(occ), 0.0)  # (T, N, S)
    onehot = (ext[:, :, None] == xp.arange(C)[None, None, :]).astype(np.float64)  # (N, S, C)
    gamma = xp.matmul(occ.transpose(1, 0, 2), onehot).transpose(1, 0, 2)  # (T, N, C)
    grad = xp.exp(logp) - gamma
    in_time = xp.arange(T)[:, None] < data_len[None, :]
    keep = in_time & feasible[None, :]
    grad = xp.where(keep[:, :, None], grad, 0.0)
    loss = xp.where(feasible, -loglik, 0.0)
    return loss, grad


@register("CTCLoss", aliases=("ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"))
class CTCLossProp(OperatorProperty):
    """CTC loss per sequence; the gradient is computed in forward and kept as hidden output."""

    lists_output_names = True

    lists_input_names = True

    param_class = CTCLossParam

    def list_arguments(self) -> list[str]:
        names = ["data", "label"]
        if self.param.use_data_lengths:
            names.append("data_lengths")
        if self.param.use_label_lengths:
            names.append("label_lengths")
        return names

    def list_outputs(self) -> list[str]:
        return ["output0", "output1"]

    def num_visible_outputs(self) -> int:
        return 1

    def infer_shape(self, in_shape: list, out_shape: list | None = None):
        names = self.list_arguments()
        if len(in_shape) != len(names):
            raise ShapeError(
                f"CTCLoss: expected {len(names)} inputs ({', '.join(names)}); got {len(in_shape)}."
            )
        dshape, lshape = in_shape[0], in_shape[1]
        if dshape is None or lshape is None:
            return None
        if len(dshape) != 3:
            raise ShapeError(f"CTCLoss: input 'data' must be 3-D (T, N, C); got {dshape}.")
        if len(lshape) != 2:
            raise ShapeError(f"CTCLoss: input 'label' must be 2-D (N, L); got {lshape}.")
        if dshape[1] != lshape[0]:
            raise ShapeError(
                f"CTCLoss: the batch sizes of 'data' {dshape} and 'label' {lshape} differ."
            )
        ins = [dshape, lshape]
        for name, s in zip(names[2:], in_shape[2:]):
            want = (dshape[1],)
            if s is not None and tuple(s) != want:
                raise ShapeError(f"CTCLoss: input {name!r} must have shape {want}; got {s}.")
            ins.append(want)
        if dshape[0] < lshape[1]:
            raise ShapeError(
                f"CTCLoss: the label length {lshape[1]} cannot exceed the sequence length "
                f"{dshape[0]} of 'data'."
            )
        return ins, [(dshape[1],), dshape], []

    def infer_type(self, in_type: list, out_type: list | None = None):
        dt = in_type[0]
        if dt is None:
            return None
        if not np.issubdtype(dt, np.floating):
            raise DTypeError(
                f"CTCLoss: argument 'data' must have a floating-point dtype; got "
                f"{np.dtype(dt).name}."
            )
        return list(in_type), [dt, dt], []

    def declare_backward_dependency(self, out_grad, in_data, out_data) -> list[int]:
        return [out_grad[0], out_data[1]]

    def create_operator(self, ctx: Context) -> Operator:
        return _CTCLossOp(self, ctx.xp)


class _CTCLossOp(Operator):
    def forward(self, op_ctx: OpContext, in_data, req, out_data, aux) -> None:
        xp, p = self.xp, self.prop.param
        data, labels = in_data[0], in_data[1]
        T, N, C = data.shape
        blank = 0 if p.blank_label == "first" else C - 1
        lab = (
            labels.astype(np.int64)
            if labels.dtype.kind != "f"
            else xp.trunc(labels).astype(np.int64)
        )
        pos = 2
        if p.use_data_lengths:
            data_len = in_data[pos].astype(np.int64).reshape(N)
            pos += 1
        else:
            data_len = xp.full(N, T, dtype=np.int64)
        if p.use_label_lengths:
            label_len = in_data[pos].astype(np.int64).reshape(N)
        else:
            pad = lab == (0 if p.blank_label == "first" else -1)
            has = pad.any(axis=1)
            label_len = xp.where(has, xp.argmax(pad, axis=1), lab.shape[1]).astype(np.int64)
        label_len = xp.clip(label_len, 0, lab.shape[1])
        loss, grad = ctc_loss_and_grad(xp, data, lab, data_len, label_len, blank)
        assign(out_data[0], req[0], loss.astype(out_data[0].dtype))
        if len(req) > 1 and req[1] != OpReq.NULL:
            assign(out_data[1], req[1], grad.astype(out_data[1].dtype))

    def backward(self, op_ctx: OpContext, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        _zero_label_grad(in_grad, req)
        if req[0] == OpReq.NULL:
            return
        g = out_grad[0].reshape(1, -1, 1) * out_data[1]
        assign(in_grad[0], req[0], g.astype(in_grad[0].dtype, copy=False))
