"""``mx.contrib.amp.amp``: not implemented in mxlite yet; any use raises a clear error."""

from __future__ import annotations

from ...base import NOT_YET, absent_names

__getattr__ = absent_names(
    "mxnet.contrib.amp.amp",
    dict.fromkeys(
        ("bfloat16", "convert_bucketing_module", "convert_hybrid_block", "convert_model",
         "convert_symbol", "init", "init_trainer", "list_conditional_fp32_ops", "list_fp32_ops",
         "list_loss_output_functions", "list_lp16_fp32_ops", "list_lp16_ops",
         "list_lp16_use_fp32_params", "list_widest_type_cast", "scale_loss", "unscale"),
        NOT_YET + " (automatic mixed precision, AMP)",
    ),
)  # fmt: skip
