"""bfloat16 at the operator layer: float16's type rules, float32 kernels, results rounded.

Design note
-----------
MXNet 1.9.1 runs bfloat16 on the CPU: its oneDNN kernels (Convolution, FullyConnected,
BatchNorm, Pooling, Activation, elemwise_add, concat, ...) compute in float32 and round the
result to bfloat16, and its other kernels go through mshadow's ``bf16_t``, which converts each
element to float32 and back around every operation. mxlite does the first for every operator,
in one place instead of in each kernel:

* Type inference. An operator's rule sees bfloat16 as float16 (:func:`infer_type`): both are
  16-bit floats that MXNet's rules treat alike (a float16 or bfloat16 BatchNorm keeps float32
  parameters; an input of another float dtype is an error), so the rule float16 has is the one
  bfloat16 has, and every float16 in the result means bfloat16. The inputs may not mix the
  two. Operators whose rule names bfloat16 itself (``amp_cast``, ``amp_multicast``, ``Cast``:
  ``OperatorProperty.keeps_bfloat16``) see it as it is.
* Compute. Where an array of a call is bfloat16, the operator runs through
  :class:`Float32Kernel`: its bfloat16 inputs (and auxiliary states) are widened to float32,
  its kernel writes float32 scratch outputs, and those are rounded to bfloat16 (ml_dtypes'
  cast: round to nearest even, as oneDNN rounds) into the real outputs. Kernels never see
  bfloat16. ``keeps_bfloat16`` operators compute on it as it is (their kernels are casts).

Where MXNet's kernels refuse bfloat16 (Dropout, UpSampling, LayerNorm, L2Normalization, Pad,
dot, batch_dot: ``OperatorProperty.bfloat16_kernel`` is False), a call raises as there.

The results are within one bfloat16 rounding of MXNet's: its mshadow kernels truncate where
this rounds, and its bfloat16 reductions round partial sums where this sums in float32.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..base import BFLOAT16, DTypeError, MXNetError
from .req import OpReq

__all__ = ["Float32Kernel", "float32_kernel", "has_bfloat16", "infer_type"]

_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_FLOAT16_WORD = re.compile(r"\bfloat16\b")


def has_bfloat16(dtypes: Sequence[Any]) -> bool:
    """Whether any of ``dtypes`` (np.dtype or None) is bfloat16."""
    return BFLOAT16 in dtypes  # None == BFLOAT16 is False


def _as_f16(types: Sequence[Any]) -> list[Any]:
    return [_F16 if t is not None and t == BFLOAT16 else t for t in types]


def _as_bf16(types: Sequence[Any]) -> list[Any]:
    return [BFLOAT16 if t is not None and np.dtype(t) == _F16 else t for t in types]


def infer_type(prop: Any, in_type: list[Any], out_type: list[Any] | None = None) -> Any:
    """``prop.infer_type(in_type, out_type)`` where bfloat16 may appear among the dtypes: the
    rule runs with float16 in its place (see the module note)."""
    outs = list(out_type) if out_type is not None else None
    if prop.keeps_bfloat16 or not (has_bfloat16(in_type) or (outs and has_bfloat16(outs))):
        return prop.infer_type(in_type, out_type)
    given = [t for t in (*in_type, *(outs or ())) if t is not None]
    if any(np.dtype(t) == _F16 for t in given):
        names = prop.list_arguments()
        raise DTypeError(
            f"{prop.where()}: its inputs mix bfloat16 and float16 (arguments {names} have "
            f"dtypes {[None if t is None else np.dtype(t).name for t in in_type]}); cast them "
            "to one dtype."
        )
    try:
        res = prop.infer_type(_as_f16(in_type), None if outs is None else _as_f16(outs))
    except MXNetError as exc:  # the rule spoke of float16: it meant bfloat16
        raise type(exc)(_FLOAT16_WORD.sub("bfloat16", str(exc))) from exc
    if res is None:
        return None
    return tuple(_as_bf16(part) for part in res)


def _widen(x: Any) -> Any:
    return x.astype(_F32) if x is not None and x.dtype == BFLOAT16 else x


def _scratch(out: Any, req: OpReq) -> Any:
    if out is None or out.dtype != BFLOAT16:
        return out
    return out.astype(_F32) if req == OpReq.ADD else np.empty(out.shape, _F32)


def _requests(req: Sequence[OpReq], scratch: list[Any], real: list[Any]) -> list[OpReq]:
    """A scratch array shares memory with no input: an in-place request there is a write."""
    return [
        OpReq.WRITE if r == OpReq.INPLACE and s is not o else r
        for r, s, o in zip(req, scratch, real)
    ]


def _round_into(real: list[Any], scratch: list[Any], req: Sequence[OpReq] | None) -> None:
    for i, (r, s) in enumerate(zip(real, scratch)):
        if s is not r and (req is None or req[i] != OpReq.NULL):
            r[...] = s  # float32 -> bfloat16, rounded to nearest even


def float32_kernel(prop: Any, inner: Any, mutates: Sequence[int]) -> Float32Kernel:
    """``prop``'s operator ``inner`` on bfloat16 arrays; a DTypeError where MXNet 1.9.1 has no
    bfloat16 kernel for it (``prop.bfloat16_kernel`` is False)."""
    if not prop.bfloat16_kernel:
        raise DTypeError(
            f"{prop.where()}: MXNet 1.9.1 has no bfloat16 kernel for this operator; cast its "
            "inputs to float32 first (amp_cast(x, dtype='float32'))."
        )
    return Float32Kernel(inner, mutates)


class Float32Kernel:
    """``inner`` (an ``Operator``) computing on float32 in place of bfloat16: bfloat16 inputs,
    auxiliary states and mutated inputs (the indices ``mutates``) are widened to float32,
    bfloat16 outputs get float32 scratch arrays, and the results (auxiliary states and mutated
    inputs included) are rounded back to bfloat16. An ``Operator`` itself by its methods (this
    module sits below registry.py, which picks it in ``OperatorProperty.operator_for``)."""

    def __init__(self, inner: Any, mutates: Sequence[int] = ()) -> None:
        self.inner = inner
        self.mutates = tuple(mutates)

    def _write_back(self, real_in: list[Any], wide_in: list[Any]) -> None:
        for i in self.mutates:
            _round_into([real_in[i]], [wide_in[i]], None)

    def forward(self, op_ctx: Any, in_data: list, req: list, out_data: list, aux: list) -> None:
        ins = [_widen(x) for x in in_data]
        aux32 = [_widen(a) for a in aux]
        outs = [_scratch(o, r) for o, r in zip(out_data, req)]
        self.inner.forward(op_ctx, ins, _requests(req, outs, out_data), outs, aux32)
        _round_into(out_data, outs, req)
        _round_into(aux, aux32, None)
        self._write_back(in_data, ins)

    def backward(self, op_ctx, out_grad, in_data, out_data, req, in_grad, aux) -> None:
        og = [_widen(g) for g in out_grad]
        ind = [_widen(x) for x in in_data]
        outd = [_widen(y) for y in out_data]
        aux32 = [_widen(a) for a in aux]
        grads = [_scratch(g, r) for g, r in zip(in_grad, req)]
        self.inner.backward(op_ctx, og, ind, outd, _requests(req, grads, in_grad), grads, aux32)
        _round_into(in_grad, grads, req)
        _round_into(aux, aux32, None)
