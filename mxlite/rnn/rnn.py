"""Checkpoints of models built from RNN cells.

A fused cell's weights are one flat vector; checkpoints store them unpacked (one array per gate,
named as a step cell names them), so a checkpoint saved from a fused model loads into an
unfused one and back. ``save_rnn_checkpoint`` unpacks before saving and ``load_rnn_checkpoint``
packs after loading; the files are ordinary ``prefix-symbol.json`` / ``prefix-NNNN.params``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from ..callback import _every_period
from ..model import _checkpoint_doc, load_checkpoint, save_checkpoint
from ._base import BaseRNNCell

__all__ = ["do_rnn_checkpoint", "load_rnn_checkpoint", "rnn_unroll", "save_rnn_checkpoint"]


_CELLS = _checkpoint_doc(
    cells="""cells : mxnet.rnn.RNNCell or list of RNNCells
    The RNN cells used by this symbol."""
)


def _as_list(cells: Any) -> list:
    return [cells] if isinstance(cells, BaseRNNCell) else list(cells)


def rnn_unroll(
    cell: BaseRNNCell,
    length: int,
    inputs: Any = None,
    begin_state: list | None = None,
    input_prefix: str = "",
    layout: str = "NTC",
) -> tuple[Any, list]:
    """Deprecated. Please use cell.unroll instead"""
    warnings.warn("rnn_unroll is deprecated. Please call cell.unroll directly.", stacklevel=2)
    # input_prefix belonged to an older unroll and has no effect
    return cell.unroll(length=length, inputs=inputs, begin_state=begin_state, layout=layout)


@_CELLS
def save_rnn_checkpoint(
    cells: Any, prefix: str, epoch: int, symbol: Any, arg_params: dict, aux_params: dict
) -> None:
    """Save checkpoint for model using RNN cells.
    Unpacks weight before saving.

    Parameters
    ----------
    {cells}
    prefix : str
        Prefix of model name.
    epoch : int
        The epoch number of the model.
    symbol : Symbol
        The input symbol
    {arg_aux}

    {saved}
    """
    for cell in _as_list(cells):
        arg_params = cell.unpack_weights(arg_params)
    save_checkpoint(prefix, epoch, symbol, arg_params, aux_params)


@_CELLS
def load_rnn_checkpoint(cells: Any, prefix: str, epoch: int) -> tuple[Any, dict, dict]:
    """Load model checkpoint from file.
    Pack weights after loading.

    Parameters
    ----------
    {cells}
    {prefix_epoch}

    {loaded}
    """
    sym, arg, aux = load_checkpoint(prefix, epoch)
    for cell in _as_list(cells):
        arg = cell.pack_weights(arg)
    return sym, arg, aux


@_CELLS
def do_rnn_checkpoint(cells: Any, prefix: str, period: int = 1) -> Callable[..., None]:
    """Make a callback to checkpoint Module to prefix every epoch.
    unpacks weights used by cells before saving.

    Parameters
    ----------
    {cells}
    prefix : str
        The file prefix to checkpoint to
    period : int
        How many epochs to wait before checkpointing. Default is 1.

    Returns
    -------
    callback : function
        The callback function that can be passed as iter_end_callback to fit.
    """

    def save(epoch: int, sym: Any, arg: Any, aux: Any) -> None:
        save_rnn_checkpoint(cells, prefix, epoch, sym, arg, aux)

    return _every_period(period, save)
