"""The native KVStore (MXNet's ``KVStoreLocal`` and, over MPI, ``KVStoreDist``).

Design note
-----------
The store keeps one NDArray per key (``_store``): on the CPU for ``local`` and ``dist_sync``,
on the device of the first initial value for ``device`` and ``dist_device_sync``. Every
method only checks its arguments on the calling thread and pushes engine functions on the
arrays' vars, so a push or pull returns at once and overlaps with the computation that
follows; reading an output waits for it as for any NDArray.

``push`` sums the values given for a key (one per device) in one engine function, into a
merge buffer per key. Without an updater that sum becomes the stored value; with one the
updater gets ``(key, merged, stored)``. A single value is its own sum and is not copied: it
becomes the stored value, or the updater's gradient (MXNet does the same, so writing a pushed
array before the next push changes what a pull returns, there as here). ``pull`` copies the
stored value into each output. For the ``dist`` types a transport from
``dist.py`` joins in: ``dist_sync`` sums the merged value over all workers (MPI all-reduce,
small keys of one call in one message) before the update, so every worker applies the same
update to the same weights; ``dist_async`` sends the merged value to the server ranks that
own the key and pulls the servers' latest value.

``dist_sync`` sums a value pushed alone in place (one all-reduce, no copy): MXNet's worker
uses the pushed array as the key's communication buffer and pulls into it, so there as here
it holds the sum after a push and a pull (here already after the push). Without an updater
it then is the stored value, as on one machine; before such an array is written for another
key (pushed or pulled into) that key gets a copy (``_release_pushed``). An array pushed for
two keys of one call goes through merge buffers.

With 2-bit gradient compression (``device`` and ``dist`` types only, as in MXNet) each
device's value (``device``) or each worker's merged value (``dist``) goes through
``compression.TwoBitCompression`` with its own residual before it is summed.

Example::

    kv = mx.kv.create('local')
    kv.init(3, mx.nd.zeros((2, 3)))
    kv.push(3, [mx.nd.ones((2, 3), ctx) for ctx in ctxs])   # stored = len(ctxs)
    kv.pull(3, out=outs)
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from .. import optimizer as opt
from .. import profiler
from ..base import MXNetError, fill_doc
from ..context import cpu
from ..fileio import atomic_write
from ..ndarray import NDArray, add_n
from ..ndarray import zeros as nd_zeros
from .base import Key, KVStoreBase, group_pairs, set_native_store
from .comm import compress_sum, sum_into
from .compression import TwoBitCompression, parse_params

__all__ = ["KVStore"]

# MXNet 1.9.1 builds a local store for any name without 'dist' and takes the names below; a
# name with 'device' keeps the stored values on the devices.
LOCAL_TYPES = (
    "local",
    "local_update_cpu",
    "local_allreduce_cpu",
    "local_allreduce_device",
    "device",
)
DIST_TYPES = (
    "dist",
    "dist_sync",
    "dist_async",
    "dist_device_sync",
    "dist_sync_device",
    "dist_async_device",
)


# The key and value parameters as push and pushpull document them
_KEYS_VALUES_DOC = fill_doc(
    keys_values="""key : str, int, or sequence of str or int
    Keys.
value : NDArray, list of NDArray, or list of list of NDArray
    Values corresponding to the keys."""
)


class KVStore(KVStoreBase):
    """A key-value store for synchronization of values, over multiple devices (and, for the
    ``dist`` types, over the workers of an MPI job).

    Parameters
    ----------
    name : str
        The store type: 'local', 'device', 'dist_sync', 'dist_device_sync', 'dist_async' (or
        another of MXNet's names for them).
    """

    def __init__(self, name: str = "local") -> None:
        if name not in LOCAL_TYPES + DIST_TYPES:
            raise MXNetError(
                f"kvstore.create: unknown KVStore type {name!r}; expected one of "
                f"{', '.join(LOCAL_TYPES + DIST_TYPES)} or a registered KVStoreBase class."
            )
        self._type = name
        self._on_device = "device" in name
        self._store: dict[Key, NDArray] = {}
        self._merged: dict[Key, NDArray] = {}
        self._pushed_keys: dict[Any, Key] = {}  # dist_sync: chunk of a stored pushed array -> key
        self._home: dict[Key, Any] = {}  # the context each key's values are kept on
        self._key_type: type | None = None
        self._updater: Any = None
        self._compression: TwoBitCompression | None = None
        self._residuals: dict[tuple[Key, int], np.ndarray] = {}
        self._dist: Any = None
        if "dist" in name:
            from .dist import connect

            self._dist = connect(asynchronous="async" in name)
        profiler.set_kvstore_handle(self)

    # ---- checks ---------------------------------------------------------------------------

    def _where(self, method: str) -> str:
        return f"KVStore({self._type!r}).{method}"

    def _pairs(self, method: str, key: Any, value: Any, name: str) -> list[tuple[Key, list]]:
        pairs = group_pairs(self._where(method), key, value, name)
        kind = type(pairs[0][0]) if pairs else None
        if self._key_type is None:
            self._key_type = kind
        elif kind is not None and kind is not self._key_type:
            raise MXNetError(
                f"{self._where(method)}: Mixed key types are not allowed: this store uses "
                f"{self._key_type.__name__} keys, got {kind.__name__} key {pairs[0][0]!r}."
            )
        return pairs

    def _stored(self, method: str, key: Key, arrays: list[NDArray], name: str) -> NDArray:
        stored = self._store.get(key)
        if stored is None:
            raise MXNetError(
                f"{self._where(method)}: key {key!r} has not been inited; call init (or "
                "broadcast) with it first."
            )
        for i, a in enumerate(arrays):
            if a.shape != stored.shape:
                raise MXNetError(
                    f"{self._where(method)}: argument '{name}' {i} for key {key!r} has shape "
                    f"{a.shape}; the stored value has shape {stored.shape}."
                )
            if np.dtype(a.dtype) != np.dtype(stored.dtype):
                raise MXNetError(
                    f"{self._where(method)}: argument '{name}' {i} for key {key!r} has dtype "
                    f"{np.dtype(a.dtype).name}; the stored value has dtype "
                    f"{np.dtype(stored.dtype).name}."
                )
        return stored

    # ---- the data path --------------------------------------------------------------------

    def init(self, key: Any, value: Any) -> None:
        """Initializes a single or a sequence of key-value pairs into the store.

        For each key, one must `init` it before calling `push` or `pull`. When multiple
        workers invoke `init` for the same key, only the value supplied by worker with rank
        `0` is used.

        Parameters
        ----------
        key : str, int, or sequence of str or int
            The keys.
        value : NDArray or sequence of NDArray
            Values corresponding to the keys.
        """
        pairs = self._pairs("init", key, value, "value")
        for k, _vals in pairs:
            if k in self._store:
                raise MXNetError(
                    f"{self._where('init')}: duplicate init of key {k!r}. Please double check "
                    "if you called kv.init or kv.broadcast with this key multiple times."
                )
        for k, vals in pairs:
            home = self._home[k] = vals[0].context if self._on_device else cpu()
            first = vals[0] if vals[0].stype == "default" else vals[0].tostype("default")
            self._store[k] = first.copyto(home)
        if self._dist is not None:
            self._dist.init([(k, self._store[k]) for k, _ in pairs])

    @_KEYS_VALUES_DOC
    def push(self, key: Any, value: Any, priority: int = 0) -> None:
        """Pushes a single or a sequence of key-value pairs into the store.

        The values of a key (one per device) are summed; without an updater the sum replaces
        the stored value, with one the updater gets ``(key, sum, stored)``. Returns at once.

        Parameters
        ----------
        {keys_values}
        priority : int, optional
            The priority of the push operation.
        """
        pairs = self._pairs("push", key, value, "value")
        dist = self._dist
        # row_sparse gradients stay row_sparse for a local updater, so that the optimizer's
        # lazy_update touches only their rows, as in MXNet
        keep_rsp = self._updater is not None and dist is None and self._compression is None
        todo = []
        for k, vals in pairs:
            if not (keep_rsp and all(v.stype == "row_sparse" for v in vals)):
                # other sparse values are summed as dense ones (MXNet's storage fallback)
                vals = [v if v.stype == "default" else v.tostype("default") for v in vals]
            todo.append((k, self._stored("push", k, vals, "value"), vals))
        direct = self._updater is None and (dist is None or not dist.asynchronous)
        in_place = self._reduced_in_place(todo)
        # (key, the sum of this process's values, where that sum is read from)
        merged: list[tuple[Key, NDArray, NDArray]] = []
        for i, (k, stored, vals) in enumerate(todo):
            if vals[0].stype == "row_sparse":  # summed keeping the union of the rows
                total = vals[0]
                if len(vals) > 1:
                    total = add_n(*[v.as_in_context(stored.context) for v in vals])
                merged.append((k, total, total))
                continue
            if len(vals) == 1 and dist is None and self._compression is None:
                # One value is its own sum: without an updater it becomes the stored value,
                # with one it is the updater's gradient (MXNet avoids this copy too, so a
                # value written after its push changes the store there as here).
                if direct:
                    self._store[k] = vals[0]
                    todo[i] = (k, vals[0], vals)
                merged.append((k, vals[0], vals[0]))
                continue
            if i in in_place:
                # dist_sync: the workers' sum is made in the pushed array itself (MXNet's
                # worker uses it as the key's communication buffer and pulls into it) and,
                # without an updater, that array becomes the stored value, as above.
                val = vals[0]
                self._release_pushed(val, k if direct else None)
                if direct:
                    self._keep(k, val, pushed=True)
                    todo[i] = (k, val, vals)
                merged.append((k, val, val))
                continue
            if direct:
                # The sum replaces the stored value: it goes to the key's merge buffer, which
                # becomes the stored value (the old one may be a pushed array, see above).
                buf = self._merge_buffer(k, stored)
                self._keep(k, buf)
                todo[i] = (k, buf, vals)
            else:
                buf = self._merge_buffer(k, stored)
            if len(vals) == 1 and dist is not None:
                merged.append((k, buf, vals[0]))  # the transport reads the value itself
            elif self._compression is not None and dist is None:
                res = [self._residual(k, i, v) for i, v in enumerate(vals)]
                compress_sum(self._compression, vals, res, buf)
                merged.append((k, buf, buf))
            else:
                sum_into(vals, buf, priority)
                merged.append((k, buf, buf))
        if dist is not None:
            residuals = None
            if self._compression is not None:
                residuals = [self._residual(k, 0, buf) for k, buf, _ in merged]
            dist.push(merged, self._compression, residuals, priority)
            if dist.asynchronous:
                return
        if self._updater is not None:
            for (k, buf, _src), (_, stored, _vals) in zip(merged, todo):
                self._updater(k, buf, stored)

    def pull(
        self, key: Any, out: Any = None, priority: int = 0, ignore_sparse: bool = True
    ) -> None:
        """Pulls a single value or a sequence of values from the store.

        Each output gets a copy of the latest stored value of its key. Returns at once;
        reading `out` waits for the pull.

        Parameters
        ----------
        key : str, int, or sequence of str or int
            Keys.
        out: NDArray or list of NDArray or list of list of NDArray
            Values corresponding to the keys.
        priority : int, optional
            The priority of the pull operation.
        ignore_sparse: bool, optional, default True
            Whether to ignore sparse arrays in the request.
        """
        if out is None:
            raise MXNetError(f"{self._where('pull')}: argument 'out' is required.")
        pairs = self._pairs("pull", key, out, "out")
        todo = []
        for k, outs in pairs:
            if ignore_sparse:
                outs = [o for o in outs if o.stype == "default"]
            todo.append((k, self._stored("pull", k, outs, "out"), outs))
        if self._dist is not None and self._dist.asynchronous:
            self._dist.pull([(k, stored) for k, stored, _ in todo], priority)
        for k, _stored, outs in todo:
            for o in outs:
                if self._pushed_keys:  # an output may be another key's stored pushed array
                    self._release_pushed(o, k)
                self._store[k].copyto(o)

    @_KEYS_VALUES_DOC
    def pushpull(self, key: Any, value: Any, out: Any = None, priority: int = 0) -> None:
        """Performs push and pull a single value or a sequence of values from the store.

        `value` is pushed for summation with the specified keys, and the updated values are
        pulled to `out`; if `out` is not specified the pulled values are written to `value`.

        Parameters
        ----------
        {keys_values}
        out: NDArray or list of NDArray or list of list of NDArray, optional
            Outputs corresponding to the keys.
        priority : int, optional
            The priority of the operation.
        """
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority)

    def broadcast(self, key: Any, value: Any, out: Any, priority: int = 0) -> None:
        """Broadcast the `value` NDArray at rank 0 to all ranks, and store the result in `out`.

        The key is initialized with `value` (so a key can be broadcast once), then pulled.

        Parameters
        ----------
        key : str, or int
            The key.
        value : NDArray, list of NDArray, or list of list of NDArray
            Values corresponding to the keys.
        out: NDArray or list of NDArray or list of list of NDArray
            Outputs corresponding to the keys.
        priority : int, optional
            The priority of the operation.
        """
        self.init(key, value)
        self.pull(key, out, priority)

    def row_sparse_pull(
        self, key: Any, out: Any = None, priority: int = 0, row_ids: Any = None
    ) -> None:
        """Pulls a single RowSparseNDArray value or a sequence of RowSparseNDArray values
        from the store with specified row_ids.

        Parameters
        ----------
        key : str, int, or sequence of str or int
            Keys.
        out: RowSparseNDArray or list of RowSparseNDArray or list of list of RowSparseNDArray
            Values corresponding to the keys. The stype is expected to be row_sparse.
        priority : int, optional
            The priority of the pull operation.
        row_ids : NDArray or list of NDArray
            The row_ids for which to pull for each value.
        """
        where = self._where("row_sparse_pull")
        if out is None or row_ids is None:
            raise MXNetError(f"{where}: arguments 'out' and 'row_ids' are required.")
        pairs = self._pairs("row_sparse_pull", key, out, "out")
        for k, outs in pairs:
            for o in outs:
                if o.stype != "row_sparse":
                    raise MXNetError(
                        f"{where}: Expected row_sparse storage type for row_sparse_pull values "
                        f"of key {k!r}, but detected storage type {o.stype}."
                    )
            self._stored("row_sparse_pull", k, outs, "out")
        from .. import ndarray as nd_pkg

        sparse = getattr(nd_pkg, "sparse", None)
        if sparse is None or not hasattr(sparse, "row_sparse_array"):
            raise MXNetError(f"{where}: row_sparse arrays are not available in mxlite yet.")
        ids = [row_ids] if isinstance(row_ids, NDArray) else list(row_ids)
        flat_ids = [i for entry in ids for i in (entry if isinstance(entry, list) else [entry])]
        flat_outs = [(k, o) for k, outs in pairs for o in outs]
        if len(flat_ids) == 1:
            flat_ids = flat_ids * len(flat_outs)
        if len(flat_ids) != len(flat_outs):
            raise MXNetError(
                f"{where}: the number of row_ids ({len(flat_ids)}) doesn't match the number of "
                f"values ({len(flat_outs)})."
            )
        if self._dist is not None and self._dist.asynchronous:
            self._dist.pull([(k, self._store[k]) for k, _ in pairs], priority)
        for (k, o), rid in zip(flat_outs, flat_ids):
            dense = self._store[k].asnumpy()
            rows = np.unique(rid.asnumpy().astype(np.int64).reshape(-1))
            rsp = sparse.row_sparse_array(
                (dense[rows], rows), shape=dense.shape, ctx=o.context, dtype=dense.dtype
            )
            rsp.copyto(o)

    def _reduced_in_place(self, todo: list) -> set[int]:
        """The entries of a ``dist_sync`` push whose one value is summed over the workers in
        place: a writable CPU array that no other value of the call shares memory with."""
        dist = self._dist
        if dist is None or dist.asynchronous or self._compression is not None:
            return set()
        uses = Counter(id(v._chunk) for _k, _stored, vals in todo for v in vals)
        return {
            i
            for i, (_k, _stored, vals) in enumerate(todo)
            if len(vals) == 1 and uses[id(vals[0]._chunk)] == 1 and _writable_host(vals[0])
        }

    def _keep(self, key: Key, value: NDArray, pushed: bool = False) -> None:
        """Make ``value`` the stored value of ``key``; ``pushed``: it is an array pushed to a
        ``dist_sync`` store, which later pushes of that array in place must not change."""
        old = self._store.get(key)
        if old is not None and self._pushed_keys.get(old._chunk) == key:
            del self._pushed_keys[old._chunk]
        self._store[key] = value
        if pushed:
            self._pushed_keys[value._chunk] = key

    def _release_pushed(self, value: NDArray, keep: Key | None) -> None:
        """Before ``value`` is written (summed in place, or pulled into): a key other than
        ``keep`` whose stored value is that pushed array gets a copy of it instead."""
        other = self._pushed_keys.get(value._chunk)
        if other is not None and other != keep:
            self._keep(other, self._store[other].copy())

    def _merge_buffer(self, key: Key, stored: NDArray) -> NDArray:
        buf = self._merged.get(key)
        if buf is None:
            buf = self._merged[key] = nd_zeros(stored.shape, self._home[key], stored.dtype)
        return buf

    def _residual(self, key: Key, index: int, like: NDArray) -> np.ndarray:
        res = self._residuals.get((key, index))
        if res is None:
            res = self._residuals[(key, index)] = np.zeros(like.shape, np.float32)
        return res

    # ---- updater, optimizer and compression -----------------------------------------------

    def set_gradient_compression(self, compression_params: dict) -> None:
        """Specifies type of low-bit quantization for gradient compression and additional
        arguments depending on the type of compression being used.

        2bit Gradient Compression takes a positive float `threshold` (default 0.5): each
        value, plus the residual kept from earlier pushes, is sent as `threshold`,
        `-threshold` or 0, and the difference stays in the residual.

        Parameters
        ----------
        compression_params : dict
            A dictionary specifying the type and parameters for gradient compression, such as
            ``{'type': '2bit', 'threshold': 0.5}``.
        """
        where = self._where("set_gradient_compression")
        if "device" not in self._type and "dist" not in self._type:
            raise MXNetError(
                f"{where}: Gradient compression is not supported for this type of kvstore; "
                "use 'device' or a 'dist_*' type."
            )
        self._compression = parse_params(where, compression_params)
        self._residuals.clear()
        if self._dist is not None:
            self._dist.set_compression(compression_params)

    def set_optimizer(self, optimizer: Any) -> None:
        """Registers an optimizer with the kvstore.

        On one machine, and for ``dist_sync`` (where every worker holds the summed values),
        the store updates its values with the optimizer at each push; for ``dist_async`` the
        optimizer is pickled and sent to the servers, and the call returns after all servers
        have it.

        Parameters
        ----------
        optimizer : Optimizer
            The new optimizer for the store
        """
        if not isinstance(optimizer, opt.Optimizer):
            raise MXNetError(
                f"{self._where('set_optimizer')}: argument 'optimizer' must be an "
                f"mx.optimizer.Optimizer, got {type(optimizer).__name__}."
            )
        if self._dist is not None and self._dist.asynchronous:
            self._dist.set_optimizer(optimizer)
            return
        self._set_updater(opt.get_updater(optimizer))

    def _set_updater(self, updater: Any) -> None:
        """Sets a push updater into the store: ``updater(key, merged, stored)`` updates
        ``stored`` in place. This changes the local store only; across machines use
        `set_optimizer`.

        Parameters
        ----------
        updater : function
            The updater function.
        """
        if not callable(updater):
            raise MXNetError(
                f"{self._where('_set_updater')}: argument 'updater' must be callable, got "
                f"{type(updater).__name__}."
            )
        self._updater = updater

    set_updater = _set_updater

    def is_capable(self, capability: str) -> bool:  # documented on KVStoreBase
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return True
        raise ValueError(f"Unknown capability: {capability}")

    def save_optimizer_states(self, fname: str, dump_optimizer: bool = False) -> None:
        # documented on KVStoreBase; the file is in MXNet 1.9.1's format
        updater = self._local_updater("save_optimizer_states")
        data = updater.get_states(dump_optimizer)
        with atomic_write(fname, "wb", self._where("save_optimizer_states")) as f:
            f.write(data)

    def load_optimizer_states(self, fname: str) -> None:
        """Loads the optimizer (updater) state from the file (written here or by MXNet 1.9.1).

        Parameters
        ----------
        fname : str
            Path to input states file.
        """
        updater = self._local_updater("load_optimizer_states")
        try:
            with open(fname, "rb") as f:
                data = f.read()
        except OSError as exc:
            raise MXNetError(
                f"{self._where('load_optimizer_states')}: cannot read {fname!r}: {exc}"
            ) from exc
        updater.set_states(data)

    def _local_updater(self, method: str) -> Any:
        if self._updater is None:
            why = (
                "the servers hold the optimizer of a dist_async store"
                if self._dist is not None and self._dist.asynchronous
                else "no optimizer is set; call set_optimizer first"
            )
            raise MXNetError(f"{self._where(method)}: Cannot {method.split('_')[0]} states: {why}.")
        if not hasattr(self._updater, "get_states"):
            raise MXNetError(
                f"{self._where(method)}: the updater set with _set_updater has no states to "
                "save or load; use set_optimizer."
            )
        return self._updater

    # ---- the job --------------------------------------------------------------------------

    @property
    def type(self) -> str:
        """The type of this kvstore."""
        return self._type

    @property
    def rank(self) -> int:
        """The rank of this worker node, in [0, num_workers)."""
        return 0 if self._dist is None else self._dist.rank

    @property
    def num_workers(self) -> int:
        """The number of worker nodes."""
        return 1 if self._dist is None else self._dist.num_workers

    def _barrier(self) -> None:
        """Invokes global barrier among all worker nodes (it returns once every worker has
        called it and every earlier push and pull of this worker has been sent)."""
        if self._dist is not None:
            self._dist.barrier()

    barrier = _barrier

    def num_dead_node(self, node_id: int = 0, timeout: int = 60) -> int:
        """The number of dead nodes of group ``node_id``: always 0, since the MPI job ends as
        soon as one of its processes dies."""
        return 0

    def _send_command_to_servers(self, head: int, body: str) -> None:
        """Sends a command to all server nodes (``dist_async``); the servers of this MPI
        design need none of MXNet's commands, so they acknowledge and ignore it.

        Parameters
        ----------
        head : int
            the head of the command.
        body : str
            the body of the command.
        """
        if self._dist is not None and self._dist.asynchronous:
            self._dist.command(int(head), str(body))


def _writable_host(a: NDArray) -> bool:
    return a.writable and isinstance(a._data, np.ndarray) and a._data.flags.writeable


set_native_store(KVStore)
