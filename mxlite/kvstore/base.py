"""The KVStore interface (MXNet's ``KVStoreBase``), its registry, ``create`` and ``TestStore``.

Design note
-----------
``KVStoreBase.register`` files a class under its lower-cased name; ``create(name)`` looks the
registry up first and otherwise builds the native store of ``kvstore.py`` (``local``,
``device``) or, for the ``dist_*`` types, the same store over MPI (``dist.py``). The helpers
at the bottom turn the ``key``/``value`` arguments every method takes (an int or str key with
one array or a list of arrays, or a list of keys with one array or one list per key) into
``(key, [arrays])`` pairs, checking them at the call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..base import MXNetError
from ..ndarray import NDArray
from ..registry import Registry

__all__ = ["KVStoreBase", "TestStore", "create"]

Key = int | str


class KVStoreBase:
    """An abstract key-value store interface for data parallel training."""

    OPTIMIZER = "optimizer"
    kv_registry: dict[str, type]  # MXNet's name for the registry's classes (set below)

    def broadcast(self, key: Any, value: Any, out: Any, priority: int = 0) -> None:
        """Broadcast the `value` NDArray at rank 0 to all ranks, and store the result in `out`.

        Parameters
        ----------
        key : str or int
            The key.
        value : NDArray
            The value corresponding to the key to broadcast.
        out : NDArray, or list of NDArray
            Values corresponding to the key to store the result.
        priority : int, optional
            The priority of the operation.
        """
        raise NotImplementedError()

    def pushpull(self, key: Any, value: Any, out: Any = None, priority: int = 0) -> None:
        """Performs push and pull a single value or a sequence of values from the store.

        `value` is pushed for summation with the specified keys, and the results are pulled
        to `out`. If `out` is not specified the pulled values are written to `value`.

        Parameters
        ----------
        key : str or int
            The key.
        value : NDArray, or list of NDArray
            Values corresponding to the keys.
        out: NDArray, or list of NDArray
            Values corresponding to the key.
        priority : int, optional
            The priority of the operation.
        """
        raise NotImplementedError()

    def set_optimizer(self, optimizer: Any) -> None:
        """Registers an optimizer with the kvstore.

        Parameters
        ----------
        optimizer : Optimizer
            The new optimizer for the store
        """
        raise NotImplementedError()

    def is_capable(self, capability: str) -> bool:
        """Queries if the KVStore type supports certain capability, such as optimizer algorithm,
        gradient compression, sparsity, etc.

        Parameters
        ----------
        capability: str
            The capability to query

        Returns
        -------
        result : bool
            Whether the capability is supported or not.
        """
        raise NotImplementedError()

    def save_optimizer_states(self, fname: str, dump_optimizer: bool = False) -> None:
        """Saves the optimizer (updater) state to a file.

        Parameters
        ----------
        fname : str
            Path to the output states file.
        dump_optimizer : bool, default False
            Whether to also save the optimizer itself.
        """
        raise NotImplementedError()

    def load_optimizer_states(self, fname: str) -> None:
        """Loads the optimizer (updater) state from the file.

        Parameters
        ----------
        fname : str
            Path to input states file.
        """
        raise NotImplementedError()

    @property
    def type(self) -> str:
        """The type of this kvstore backend."""
        raise NotImplementedError()

    @property
    def rank(self) -> int:
        """The rank of this worker node, in [0, num_workers)."""
        raise NotImplementedError()

    @property
    def num_workers(self) -> int:
        """The number of worker nodes."""
        raise NotImplementedError()

    @staticmethod
    def register(klass: type) -> type:
        """Registers a new KVStore; ``mx.kv.create(klass.__name__.lower())`` then builds one.

        Examples
        --------
        >>> @mx.kvstore.KVStoreBase.register
        ... class MyKVStore(mx.kvstore.KVStoreBase):
        ...     pass
        >>> kv = mx.kv.create('MyKVStore')
        """
        return _REGISTRY.register(klass)


_REGISTRY = Registry(KVStoreBase, "kvstore", "mx.kv")
KVStoreBase.kv_registry = _REGISTRY.classes


@KVStoreBase.register
class TestStore(KVStoreBase):
    """A key-value store for testing: sums on one machine, no optimizer."""

    def broadcast(self, key: Any, value: Any, out: Any, priority: int = 0) -> None:
        for o in out if isinstance(out, list) else [out]:
            o[:] = value

    def pushpull(self, key: Any, value: Any, out: Any = None, priority: int = 0) -> None:
        if isinstance(value, NDArray):
            if out is not None:
                for o in out if isinstance(out, list) else [out]:
                    o[:] = value
            return
        ctx = value[0].context
        total = value[0].as_in_context(ctx).copy()
        for v in value[1:]:
            total += v.as_in_context(ctx)
        for o in value if out is None else (out if isinstance(out, list) else [out]):
            o[:] = total

    @staticmethod
    def is_capable(capability: str) -> bool:
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return False
        raise ValueError(f"Unknown capability: {capability}")

    @property
    def type(self) -> str:
        return "teststore"

    @property
    def rank(self) -> int:
        return 0

    @property
    def num_workers(self) -> int:
        return 1


# The class of the native store types, set by kvstore.py when it is imported (it imports this
# module, so this module does not import it).
_native_store: list[type] = []


def set_native_store(klass: type) -> None:
    """Make ``create`` build ``klass(name)`` for the names no registered class has."""
    _native_store[:] = [klass]


# The store types of MXNet 1.9.1 that run elsewhere, and what to use here instead.
_NOT_HERE = {
    "nccl": "NCCL all-reduce needs MXNet's CUDA build; use 'device' on one machine or "
    "'dist_device_sync' across machines (MPI)",
    "horovod": "Horovod's MXNet binding needs MXNet itself; use 'dist_sync' (MPI all-reduce, "
    "started with python -m mxlite.launch or mpiexec)",
    "byteps": "BytePS needs MXNet itself; use 'dist_sync'",
}


def create(name: str = "local") -> KVStoreBase:
    """Creates a new KVStore.

    ``local`` sums the gradients and updates the weights on the CPU; ``device`` does so on
    the device of the values (the first one). ``dist_sync`` behaves like ``local`` over all
    the workers of a job: with ``n`` workers and batch size ``b`` each it is ``local`` with
    batch size ``n * b``. ``dist_device_sync`` is to ``dist_sync`` what ``device`` is to
    ``local``. ``dist_async`` sends pushes to server processes which update at once.

    Parameters
    ----------
    name : {'local', 'device', 'dist_sync', 'dist_device_sync', 'dist_async'}
        The type of KVStore (or the lower-cased name of a registered class).

    Returns
    -------
    kv : KVStoreBase
        The created KVStore.
    """
    if not isinstance(name, str):
        raise TypeError("name must be a string")
    name = name.lower()
    if name in KVStoreBase.kv_registry:
        return KVStoreBase.kv_registry[name]()
    if name in _NOT_HERE:
        raise MXNetError(
            f"kvstore.create: type {name!r} is not available in mxlite: {_NOT_HERE[name]}."
        )
    return _native_store[0](name)


# ---- the key/value arguments ------------------------------------------------------------------


def _check_key(where: str, key: Any) -> None:
    if isinstance(key, bool) or not isinstance(key, (int, str)):
        raise MXNetError(f"{where}: keys must be int or str, got {type(key).__name__} {key!r}.")


def _arrays(where: str, name: str, key: Key, value: Any) -> list[NDArray]:
    if isinstance(value, NDArray):
        return [value]
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, NDArray) for v in value):
        return list(value)
    raise MXNetError(
        f"{where}: argument '{name}' for key {key!r} must be an NDArray or a non-empty list of "
        f"NDArrays, got {type(value).__name__}."
    )


def group_pairs(where: str, key: Any, value: Any, name: str = "value") -> list[tuple[Key, list]]:
    """``(key, [arrays])`` per distinct key, in first-seen order; arrays of a key given twice
    are joined (MXNet's GroupKVPairs)."""
    if isinstance(key, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(key):
            got = len(value) if isinstance(value, (list, tuple)) else type(value).__name__
            raise MXNetError(
                f"{where}: argument '{name}' must be a list with one entry per key "
                f"({len(key)} keys), got {got}."
            )
        keys: Sequence[Any] = key
        values: Sequence[Any] = value
    else:
        keys, values = [key], [value]
    grouped: dict[Key, list] = {}
    kinds = set()
    for k, v in zip(keys, values):
        _check_key(where, k)
        kinds.add(type(k))
        grouped.setdefault(k, []).extend(_arrays(where, name, k, v))
    if len(kinds) > 1:
        raise MXNetError(f"{where}: inconsistent types of keys detected: {list(keys)!r}.")
    return list(grouped.items())
