"""Which operators AMP runs in which precision, for float16 and bfloat16 (MXNet's data)."""

from . import symbol_bf16, symbol_fp16

__all__ = ["symbol_fp16", "symbol_bf16"]
