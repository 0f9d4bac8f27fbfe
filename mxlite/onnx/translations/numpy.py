"""MXNet's NumPy-interface operators (``_np_*``, ``_npi_*``, ``_npx_*`` registered in
``mxlite/operator/numpy/``): not exported yet. MXNet 1.9.1's exporter has no translations for
them either; the names are taken from the registry by prefix, so a new one is covered."""

from ...operator import registry
from ...operator.registry import register_onnx

_NP_OWN = sorted(
    {
        c.op_name
        for c in registry.all_ops().values()
        if c.op_name.startswith(("_np_", "_npi_", "_npx_")) and c.onnx_translation() is None
    }
)
if _NP_OWN:
    register_onnx(
        *_NP_OWN,
        why_not="MXNet 1.9.1's ONNX exporter has no translation for the NumPy-interface "
        "operators, and mxlite has none yet.",
    )
