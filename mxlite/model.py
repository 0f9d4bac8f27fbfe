"""Model checkpoints (``mx.model``): ``prefix-symbol.json`` plus ``prefix-%04d.params``.

The parameters file is an ``mx.nd.save`` dict whose keys are ``arg:<name>`` and
``aux:<name>``, exactly as MXNet 1.9.1 writes and reads them, so checkpoints move both ways.
``BatchEndParam`` is the argument of batch-end callbacks (``mx.callback``).

The ``_create_kvstore``, ``_initialize_kvstore``, ``_update_params_on_kvstore`` and
``_update_params`` helpers are MXNet 1.9.1's: Module (and code written against MXNet's
``mx.model``) picks its KVStore, decides whether the store updates the weights and runs each
update step through them.
"""

from __future__ import annotations

import logging
import math
from collections import namedtuple
from typing import Any

from . import kvstore as kvs
from . import ndarray as nd
from . import symbol as sym
from .base import MXNetError, env_bool, fill_doc
from .base import absent_names as _absent_names
from .context import cpu

# The tuple's type name is MXNet's ('BatchEndParams'), which shows in reprs.
BatchEndParam = namedtuple("BatchEndParams", ["epoch", "nbatch", "eval_metric", "locals"])

__all__ = ["BatchEndParam", "save_checkpoint", "load_checkpoint", "load_params"]

# The parts of the checkpoint functions' documentation that MXNet repeats in them and in
# mx.rnn's, written once; ``_checkpoint_doc`` fills them into a docstring's ``{...}``.
_DOC_PARTS = {
    "prefix_epoch": """prefix : str
    Prefix of model name.
epoch : int
    Epoch number of model we would like to load.""",
    "arg_aux": """arg_params : dict of str to NDArray
    Model parameter, dict of name to NDArray of net's weights.
aux_params : dict of str to NDArray
    Model parameter, dict of name to NDArray of net's auxiliary states.""",
    "saved": """Notes
-----
- ``prefix-symbol.json`` will be saved for symbol.
- ``prefix-epoch.params`` will be saved for parameters.""",
}
_DOC_PARTS["loaded"] = f"""Returns
-------
symbol : Symbol
    The symbol configuration of computation network.
{_DOC_PARTS["arg_aux"]}

Notes
-----
- Symbol will be loaded from ``prefix-symbol.json``.
- Parameters will be loaded from ``prefix-epoch.params``."""


def _checkpoint_doc(**more: str) -> Any:
    """A decorator that fills the shared parts, and ``more``, into a function's docstring."""
    return fill_doc(**_DOC_PARTS, **more)


@_checkpoint_doc()
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
    {arg_aux}
    remove_amp_cast : bool, optional
        Whether to remove the amp_cast and amp_multicast operators, before saving the model.

    {saved}
    """
    if symbol is not None:
        symbol.save(f"{prefix}-symbol.json", remove_amp_cast=remove_amp_cast)
    save_dict = {f"arg:{k}": v.as_in_context(cpu()) for k, v in arg_params.items()}
    save_dict.update({f"aux:{k}": v.as_in_context(cpu()) for k, v in aux_params.items()})
    param_name = f"{prefix}-{int(epoch):04d}.params"
    nd.save(param_name, save_dict)
    logging.info('Saved checkpoint to "%s"', param_name)


@_checkpoint_doc()
def load_params(prefix: str, epoch: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Load the parameters of a checkpoint.

    Parameters
    ----------
    {prefix_epoch}

    Returns
    -------
    {arg_aux}
    """
    return _load_params_file(f"{prefix}-{int(epoch):04d}.params")


def _load_params_file(fname: str, strict: bool = False) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``arg:``/``aux:`` arrays of a parameter file, as two dicts by name; other keys are
    skipped, or with ``strict`` an error."""
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
        elif strict:
            raise MXNetError(f"load_params: invalid param file {fname!r} (key {key!r}).")
    return arg_params, aux_params


@_checkpoint_doc()
def load_checkpoint(prefix: str, epoch: int) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """Load model checkpoint from file.

    Parameters
    ----------
    {prefix_epoch}

    {loaded}
    """
    symbol = sym.load(f"{prefix}-symbol.json")
    arg_params, aux_params = load_params(prefix, epoch)
    return symbol, arg_params, aux_params


# ---- KVStore helpers of Module ----------------------------------------------------------------

# A 'local' store does not update the weights when a parameter has more elements than this:
# updating such a weight once on the CPU costs more than on every device.
_BIG_PARAM = 1024 * 1024 * 16


def _create_sparse_kvstore(kvstore: Any) -> tuple[Any, bool]:
    """Create a kvstore for row_sparse parameters: always updates on the store.

    Parameters
    ----------
    kvstore : KVStore or str
        The kvstore.
    """
    if isinstance(kvstore, kvs.KVStoreBase):
        kv = kvstore
    elif isinstance(kvstore, str):
        kv = kvs.create(kvstore)
    else:
        raise TypeError(
            f"Cannot create '{kvstore}' KVStore with row_sparse parameters. "
            "The type must be KVStore or str."
        )
    if not kv.is_capable(kvs.KVStoreBase.OPTIMIZER):
        raise MXNetError(
            "KVStore with sparse weight requires optimizer support; use a native store type "
            "such as 'local', 'device' or 'dist_sync' instead."
        )
    return kv, True


def _create_kvstore(kvstore: Any, num_device: int, arg_params: dict[str, Any]) -> tuple[Any, bool]:
    """Create the kvstore of a model on ``num_device`` devices, and whether it updates the
    weights: none for ``kvstore=None`` or for one device with a non-dist type; no update on a
    'local' store with a parameter over 16M elements, nor with ``MXNET_UPDATE_ON_KVSTORE=0``.

    Parameters
    ----------
    kvstore : KVStore or str
        The kvstore.
    num_device : int
        The number of devices
    arg_params : dict of str to `NDArray`.
        Model parameter, dict of name to `NDArray` of net's weights.
    """
    update_on_kvstore = env_bool("MXNET_UPDATE_ON_KVSTORE", True)
    if kvstore is None:
        kv = None
    elif isinstance(kvstore, kvs.KVStoreBase):
        kv = kvstore
    elif isinstance(kvstore, str):
        if num_device == 1 and "dist" not in kvstore:
            kv = None
        else:
            kv = kvs.create(kvstore)
            if kvstore == "local" and arg_params:
                if max(math.prod(p.shape) for p in arg_params.values()) > _BIG_PARAM:
                    update_on_kvstore = False
    else:
        raise TypeError(
            "_create_kvstore: argument 'kvstore' must be a KVStore, str or None, got "
            f"{type(kvstore).__name__}."
        )
    if kv is None:
        update_on_kvstore = False
    else:
        update_on_kvstore &= kv.is_capable(kvs.KVStoreBase.OPTIMIZER)
    return kv, update_on_kvstore


def _initialize_kvstore(
    kvstore: Any,
    param_arrays: list,
    arg_params: dict[str, Any],
    param_names: list[str],
    update_on_kvstore: bool,
) -> None:
    """Initialize the kvstore with each parameter (and, when the store updates, copy its value
    to every device)."""
    for idx, param_on_devs in enumerate(param_arrays):
        name = param_names[idx]
        if not update_on_kvstore or arg_params[name].stype != "default":
            kvstore.init(name, arg_params[name])
        else:
            kvstore.broadcast(name, arg_params[name], out=param_on_devs)


def _update_params_on_kvstore(
    param_arrays: list, grad_arrays: list, kvstore: Any, param_names: list[str]
) -> None:
    """Push each parameter's gradients to the kvstore, which updates it, and pull it back."""
    for index, (arg_list, grad_list) in enumerate(zip(param_arrays, grad_arrays)):
        if grad_list[0] is None:
            continue
        name = param_names[index]
        if grad_list[0].stype == "default" and arg_list[0].stype == "default":
            kvstore.pushpull(name, grad_list, out=arg_list, priority=-index)
        else:
            kvstore.push(name, grad_list, priority=-index)
            kvstore.pull(name, out=arg_list, priority=-index)


def _update_params(
    param_arrays: list,
    grad_arrays: list,
    updater: Any,
    num_device: int,
    kvstore: Any = None,
    param_names: list[str] | None = None,
) -> None:
    """Sum the gradients through the kvstore (if any), then update every device's copy of
    each parameter with ``updater``, keyed ``index * num_device + device``."""
    updates: list[list] = [[] for _ in range(num_device)]
    for index, (arg_list, grad_list) in enumerate(zip(param_arrays, grad_arrays)):
        if grad_list[0] is None:
            continue
        if kvstore:
            name = param_names[index]
            if grad_list[0].stype == "default" and arg_list[0].stype == "default":
                kvstore.pushpull(name, grad_list, priority=-index)
            else:
                kvstore.push(name, grad_list, priority=-index)
                kvstore.pull(name, out=grad_list, priority=-index)
        for k, (w, g) in enumerate(zip(arg_list, grad_list)):
            updates[k].append((index * num_device + k, g, w))
    for dev_updates in updates:
        if dev_updates:
            idx, grads, weights = zip(*dev_updates)
            updater(list(idx), list(grads), list(weights))


# MXNet's names here that mxlite lacks, and why (tests/test_mxnet_names.py)
# FeedForward needs mx.callback, which imports this module: it lives in mxlite/feedforward.py
__getattr__ = _absent_names("mxnet.model", {}, moved=("FeedForward",), home="mxlite.feedforward")
