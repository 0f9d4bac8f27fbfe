"""What a symbol says of itself, asked the same way of MXNet 1.9.1 and of mxlite (``mx`` is
either): tools/golden/cases/symbol.py records MXNet's, tests/symbol/test_json.py compares
mxlite's."""

from __future__ import annotations

from typing import Any


def built(mx: Any, snippet: str) -> tuple[Any, dict]:
    """Run a construction snippet (it builds ``net`` from ``mx`` and sets ``shapes``, the input
    shapes) with names counted from 0: ``net`` and ``shapes``."""
    env = {"mx": mx}
    with mx.name.NameManager():
        exec(snippet, env)  # noqa: S102 (the golden table's snippets)
    return env["net"], env["shapes"]


def summary(net: Any, shapes: dict) -> dict:
    """The JSON of ``net``, its argument / output / auxiliary / input names, internals and
    attributes, and the shapes inferred from ``shapes``."""
    arg, out, aux = net.infer_shape(**shapes)
    return {"json": net.tojson(), "arguments": net.list_arguments(), "outputs": net.list_outputs(),
            "aux": net.list_auxiliary_states(), "inputs": net.list_inputs(),
            "internals": net.get_internals().list_outputs(), "attr_dict": net.attr_dict(),
            "shapes": shapes, "arg_shapes": arg, "out_shapes": out, "aux_shapes": aux}  # fmt: skip
