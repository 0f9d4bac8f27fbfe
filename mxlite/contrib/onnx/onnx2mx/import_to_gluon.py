"""``import_to_gluon``: an ONNX model as a Gluon ``SymbolBlock`` (MXNet's old module path;
``mx.contrib.onnx.import_to_gluon`` adds MXNet's deprecation advice)."""

from __future__ import annotations

from typing import Any

from .... import gluon, onnx, symbol

__all__ = ["import_to_gluon"]


def import_to_gluon(model_file: str, ctx: Any) -> Any:
    """Imports the ONNX model file as a Gluon ``SymbolBlock``.

    Parameters
    ----------
    model_file : str
        ONNX model file name
    ctx : Context or list of Context
        Loads the model into one or many context(s).

    Returns
    -------
    sym_block : :class:`~mxlite.gluon.SymbolBlock`
        A SymbolBlock object representing the given model file.
    """
    sym, arg_params, aux_params = onnx.import_model(model_file)
    known = {**arg_params, **aux_params}
    inputs = [symbol.var(n) for n in sym.list_inputs() if n not in known]
    net = gluon.SymbolBlock(sym, inputs)
    net.collect_params().load_dict(known, ctx=ctx)
    return net
