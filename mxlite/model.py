"""Model checkpoints (``mx.model``): ``prefix-symbol.json`` plus ``prefix-%04d.params``.

The parameters file is an ``mx.nd.save`` dict whose keys are ``arg:<name>`` and
``aux:<name>``, exactly as MXNet 1.9.1 writes and reads them, so checkpoints move both ways.
``BatchEndParam`` is the argument of batch-end callbacks (``mx.callback``).
"""

from __future__ import annotations

import logging
from collections import namedtuple
from typing import Any

from . import ndarray as nd
from . import symbol as sym
from .base import MXNetError
from .context import cpu

# The tuple's type name is MXNet's ('BatchEndParams'), which shows in reprs.
BatchEndParam = namedtuple("BatchEndParams", ["epoch", "nbatch", "eval_metric", "locals"])

__all__ = ["BatchEndParam", "save_checkpoint", "load_checkpoint", "load_params"]


def save_checkpoint(
    prefix: str,
    epoch: int,
    symbol: Any,
    arg_params: dict[str, Any],
    aux_params: dict[str, Any],
    remove_amp_cast: bool = True,
) -> None:
    """Checkpoint the model data into file.

    Parameters
    ----------
    prefix : str
        Prefix of model name.
    epoch : int
        The epoch number of the model.
    symbol : Symbol
        The input Symbol (not saved when None).
    arg_params : dict of str to NDArray
        Model parameter, dict of name to NDArray of net's weights.
    aux_params : dict of str to NDArray
        Model parameter, dict of name to NDArray of net's auxiliary states.
    remove_amp_cast : bool, optional
        Whether to remove the amp_cast and amp_multicast operators, before saving the model.

    Notes
    -----
    - ``prefix-symbol.json`` will be saved for symbol.
    - ``prefix-epoch.params`` will be saved for parameters.
    """
    if symbol is not None:
        symbol.save(f"{prefix}-symbol.json", remove_amp_cast=remove_amp_cast)
    save_dict = {f"arg:{k}": v.as_in_context(cpu()) for k, v in arg_params.items()}
    save_dict.update({f"aux:{k}": v.as_in_context(cpu()) for k, v in aux_params.items()})
    param_name = f"{prefix}-{int(epoch):04d}.params"
    nd.save(param_name, save_dict)
    logging.info('Saved checkpoint to "%s"', param_name)


def load_params(prefix: str, epoch: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Load the parameters of a checkpoint.

    Parameters
    ----------
    prefix : str
        Prefix of model name.
    epoch : int
        Epoch number of model we would like to load.

    Returns
    -------
    arg_params : dict of str to NDArray
        Model parameter, dict of name to NDArray of net's weights.
    aux_params : dict of str to NDArray
        Model parameter, dict of name to NDArray of net's auxiliary states.
    """
    fname = f"{prefix}-{int(epoch):04d}.params"
    save_dict = nd.load(fname)
    if not isinstance(save_dict, dict):
        raise MXNetError(
            f"load_params: {fname!r} must hold a dict of 'arg:'/'aux:' arrays, got a list."
        )
    arg_params: dict[str, Any] = {}
    aux_params: dict[str, Any] = {}
    for key, value in save_dict.items():
        kind, _, name = key.partition(":")
        if kind == "arg":
            arg_params[name] = value
        elif kind == "aux":
            aux_params[name] = value
    return arg_params, aux_params


def load_checkpoint(prefix: str, epoch: int) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """Load model checkpoint from file.

    Parameters
    ----------
    prefix : str
        Prefix of model name.
    epoch : int
        Epoch number of model we would like to load.

    Returns
    -------
    symbol : Symbol
        The symbol configuration of computation network.
    arg_params : dict of str to NDArray
        Model parameter, dict of name to NDArray of net's weights.
    aux_params : dict of str to NDArray
        Model parameter, dict of name to NDArray of net's auxiliary states.

    Notes
    -----
    - Symbol will be loaded from ``prefix-symbol.json``.
    - Parameters will be loaded from ``prefix-epoch.params``.
    """
    symbol = sym.load(f"{prefix}-symbol.json")
    arg_params, aux_params = load_params(prefix, epoch)
    return symbol, arg_params, aux_params
