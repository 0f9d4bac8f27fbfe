"""``mx.contrib.amp`` (automatic mixed precision) is not implemented in mxlite yet.

Importing it works, so that scripts which import it for one path still load; any use raises
a clear error.
"""

from ...base import NOT_YET as _NOT_YET
from ...base import absent_names as _absent_names
from . import amp as amp

__all__ = ["amp"]

_AMP = _NOT_YET + " (automatic mixed precision, AMP)"


# MXNet's names here that mxlite lacks, and why (tests/test_mxnet_names.py)
__getattr__ = _absent_names(
    "mxnet.contrib.amp",
    {
        "convert_hybrid_block": _AMP,
        "convert_model": _AMP,
        "convert_symbol": _AMP,
        "init": _AMP,
        "init_trainer": _AMP,
        "list_conditional_fp32_ops": _AMP,
        "list_fp32_ops": _AMP,
        "list_loss_output_functions": _AMP,
        "list_lp16_fp32_ops": _AMP,
        "list_lp16_ops": _AMP,
        "list_lp16_use_fp32_params": _AMP,
        "list_widest_type_cast": _AMP,
        "lists": _AMP,
        "loss_scaler": _AMP,
        "scale_loss": _AMP,
        "unscale": _AMP,
    },
)
