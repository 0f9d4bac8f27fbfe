"""AMP's two target dtypes and MXNet's operator lists for each (``amp.list_*``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...base import BFLOAT16, MX_BFLOAT16, MXNetError
from . import lists

__all__ = [
    "bfloat16", "list_lp16_ops", "list_fp32_ops", "list_lp16_fp32_ops",
    "list_conditional_fp32_ops", "list_widest_type_cast", "list_loss_output_functions",
    "list_lp16_use_fp32_params",
]  # fmt: skip

# MXNet's Python name for bfloat16 (a 16-bit record); arrays hold ml_dtypes' bfloat16
bfloat16 = MX_BFLOAT16

_F16 = np.dtype(np.float16)


def _lists_of(target_dtype: Any, func: str) -> Any:
    if _is_fp16(target_dtype):
        return lists.symbol_fp16
    if _is_bf16(target_dtype):
        return lists.symbol_bf16
    raise MXNetError(
        f"amp.{func}: argument 'target_dtype' must be float16 or bfloat16, got {target_dtype!r}."
    )


def _is_fp16(dtype: Any) -> bool:
    return (
        isinstance(dtype, str)
        and dtype == "float16"
        or (not isinstance(dtype, str) and dtype is not None and _dtype_or_none(dtype) == _F16)
    )


def _is_bf16(dtype: Any) -> bool:
    return (isinstance(dtype, str) and dtype == "bfloat16") or (
        not isinstance(dtype, str) and _dtype_or_none(dtype) in (bfloat16, BFLOAT16)
    )


def _dtype_or_none(dtype: Any) -> np.dtype | None:
    try:
        return np.dtype(dtype)
    except TypeError:
        return None


def list_lp16_ops(target_dtype: Any) -> list[str]:
    """The default list of operators AMP runs in the low precision ``target_dtype``."""
    mod = _lists_of(target_dtype, "list_lp16_ops")
    return mod.FP16_FUNCS if mod is lists.symbol_fp16 else mod.BF16_FUNCS


def list_fp32_ops(target_dtype: Any) -> list[str]:
    """The default list of operators AMP runs in float32."""
    return _lists_of(target_dtype, "list_fp32_ops").FP32_FUNCS


def list_lp16_fp32_ops(target_dtype: Any) -> list[str]:
    """The default list of operators that run in both the low precision and float32."""
    mod = _lists_of(target_dtype, "list_lp16_fp32_ops")
    return mod.FP16_FP32_FUNCS if mod is lists.symbol_fp16 else mod.BF16_FP32_FUNCS


def list_conditional_fp32_ops(target_dtype: Any) -> list[tuple[str, str, list[str]]]:
    """The operators AMP runs in float32 for some values of a parameter:
    ``(operator, parameter, values)``."""
    return _lists_of(target_dtype, "list_conditional_fp32_ops").CONDITIONAL_FP32_FUNCS


def list_widest_type_cast(target_dtype: Any) -> list[str]:
    """The operators AMP runs in the widest dtype among their inputs."""
    return _lists_of(target_dtype, "list_widest_type_cast").WIDEST_TYPE_CASTS


def list_loss_output_functions(target_dtype: Any) -> list[str]:
    """The loss output operators whose gradient AMP's loss scale multiplies."""
    return _lists_of(target_dtype, "list_loss_output_functions").LOSS_OUTPUT_FUNCTIONS


def list_lp16_use_fp32_params(target_dtype: Any) -> dict[str, list[str]] | None:
    """The inputs that stay float32 when an operator runs in the low precision (None for
    float16)."""
    mod = _lists_of(target_dtype, "list_lp16_use_fp32_params")
    return None if mod is lists.symbol_fp16 else mod.BF16_USE_FP32_PARAMS
