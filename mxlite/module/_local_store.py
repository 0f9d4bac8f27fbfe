"""The parameter store of a Module bound on several devices (MXNet's local KVStore).

Design note
-----------
MXNet 1.9.1's Module, bound on more than one device with kvstore ``'local'`` (the default) or
``'device'``, creates a KVStore (``model._create_kvstore``). Unless ``MXNET_UPDATE_ON_KVSTORE``
is 0, or a parameter of a ``'local'`` store has more than 16M elements, it also hands the
store the optimizer ("update on kvstore"): each ``update`` sums a parameter's gradients over
the devices, updates the store's own copy of the weight once, keyed by the parameter's
*name*, and copies the result to every device. The updater then keeps one state per name,
and that is what ``save_optimizer_states`` writes, so MXNet's ``.states`` files of such
modules load here and ours load there. Without update on kvstore, the store only sums the
gradients and the Module updates each device's copy itself (``index * num_device + device``).

:class:`LocalStore` is that store, with the KVStore method names Module calls (``init``,
``broadcast``, ``pushpull``, ``set_optimizer``, ``save_optimizer_states``,
``load_optimizer_states``). It keeps ``name -> NDArray`` (the stored weights; on the CPU for
``'local'``, on the first device for ``'device'``) and the updater; no lock, since every
array operation is an engine operation ordered by its arrays' vars.

Example::

    store, on_store = create_store("local", 2, arg_params)    # LocalStore('local'), True
    store.set_optimizer(optimizer)
    store.broadcast("fc_weight", arg_params["fc_weight"], out=weights_per_device)
    store.pushpull("fc_weight", grads_per_device, out=weights_per_device)   # one update
"""

from __future__ import annotations

import math
from typing import Any

from .. import optimizer as opt
from ..base import MXNetError, env_bool
from ..context import Context, cpu
from ..ndarray import NDArray
from .base_module import _atomic_write

__all__ = ["LocalStore", "create_store"]

# The store types a Module on one machine accepts, as MXNet's kvstore.create does.
STORE_TYPES = ("local", "device", "local_update_cpu", "local_allreduce_cpu", "nccl")

# MXNet's model._create_kvstore: a 'local' store does not update when some parameter has more
# elements than this (updating such a weight once on the CPU costs more than on every device).
_BIG_PARAM = 1024 * 1024 * 16


class LocalStore:
    """Sums gradients over devices and, with an optimizer set, updates the parameters once.

    Parameters
    ----------
    kind : str
        The store type, one of ``STORE_TYPES``; ``'local'`` stores on the CPU.
    """

    def __init__(self, kind: str) -> None:
        self.type = kind
        self._updater: opt.Updater | None = None
        self._store: dict[str, NDArray] = {}

    def _home(self, device: Context) -> Context:
        """Where a key's weight is kept: on the CPU, or for 'device' on the first device."""
        return device if self.type in ("device", "nccl") else cpu()

    def set_optimizer(self, optimizer: opt.Optimizer) -> None:
        """Update the stored weights with ``optimizer`` on every ``pushpull``."""
        self._updater = opt.get_updater(optimizer)

    def init(self, name: str, value: NDArray) -> None:
        """Store a copy of ``value`` under ``name``."""
        self._store[name] = value.copyto(self._home(value.context))

    def broadcast(self, name: str, value: NDArray, out: list[NDArray]) -> None:
        """Store a copy of ``value`` under ``name`` and copy it into every array of ``out``."""
        self._store[name] = value.copyto(self._home(out[0].context))
        for dst in out:
            self._store[name].copyto(dst)

    def pushpull(self, name: str, grads: list[NDArray], out: list[NDArray] | None = None) -> None:
        """Sum ``grads`` (one per device). With an optimizer, update the stored weight with the
        sum and copy it into ``out``; without one, copy the sum into ``out`` (or ``grads``)."""
        if name not in self._store:
            raise MXNetError(f"LocalStore.pushpull: key {name!r} has not been initialized.")
        home = self._store[name].context
        total = grads[0].copyto(home)
        for g in grads[1:]:
            total += g.as_in_context(home)
        if self._updater is None:
            result = total
        else:
            self._updater(name, total, self._store[name])
            result = self._store[name]
        for dst in grads if out is None else out:
            result.copyto(dst)

    def save_optimizer_states(self, fname: str, dump_optimizer: bool = False) -> None:
        """Write the updater's states (and the optimizer, with ``dump_optimizer``) to ``fname``."""
        data = self._checked_updater("save_optimizer_states").get_states(dump_optimizer)
        _atomic_write(fname, data)

    def load_optimizer_states(self, fname: str) -> None:
        """Load the updater's states from ``fname`` (written here or by MXNet 1.9.1)."""
        updater = self._checked_updater("load_optimizer_states")
        with open(fname, "rb") as f:
            updater.set_states(f.read())

    def _checked_updater(self, method: str) -> opt.Updater:
        if self._updater is None:
            raise MXNetError(f"LocalStore.{method}: no optimizer is set; call set_optimizer first.")
        return self._updater


def create_store(
    kvstore: Any, num_device: int, arg_params: dict[str, NDArray]
) -> tuple[LocalStore | None, bool]:
    """The store for a Module on ``num_device`` devices, and whether it updates the parameters
    (MXNet's ``model._create_kvstore``): none for one device or ``kvstore=None``."""
    if kvstore is not None and not isinstance(kvstore, str):
        raise MXNetError(
            "init_optimizer: argument 'kvstore' must be a store type or None; KVStore objects "
            f"are not supported yet, got {type(kvstore).__name__}."
        )
    if isinstance(kvstore, str) and "dist" in kvstore:
        raise MXNetError(
            f"init_optimizer: kvstore {kvstore!r} needs mxlite.kvstore, which is not "
            "available; use 'local', 'device' or None."
        )
    if isinstance(kvstore, str) and kvstore not in STORE_TYPES:
        raise MXNetError(
            f"init_optimizer: unknown kvstore {kvstore!r}; expected one of {STORE_TYPES}."
        )
    if kvstore is None or num_device == 1:
        return None, False
    update_on_store = env_bool("MXNET_UPDATE_ON_KVSTORE", True)
    if kvstore == "local" and arg_params:
        if max(math.prod(p.shape) for p in arg_params.values()) > _BIG_PARAM:
            update_on_store = False
    return LocalStore(kvstore), update_on_store
