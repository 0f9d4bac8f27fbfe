"""The distributed KVStore types on MPI (mpi4py): ``dist_sync``/``dist_device_sync`` by
all-reduce among the workers, ``dist_async`` by server ranks that own shards of the keys.

Design note
-----------
An MPI job started by ``python -m mxlite.launch -n N [-s S]`` (or ``mpiexec``) has ``N``
worker ranks (0..N-1) and ``S`` server ranks after them (``MXLITE_NUM_SERVERS=S``, set by
the launcher). :class:`Comm` is this process's place in the job: the world, the workers'
communicator, and one thread that makes every MPI call of the process.

Collectives must be called in the same order on every rank, while the engine runs ready
functions in whatever order they become ready. So each communication is queued on the MPI
thread when the Python call that asks for it is made (the same order on every rank of an
SPMD program) and pushed to the engine as an async function on the arrays' vars; when the
engine runs that function the job is marked ready, and the MPI thread takes the jobs in
queue order, waits for each to be ready, runs it and completes the engine function. A push
thus overlaps with the computation after it, and a later read of its output waits for it.

``dist_sync``: every worker sums its local values, the workers all-reduce the sum (keys of
one call that are small are joined into one message per dtype), and every worker applies the
same update to the same weights, so each holds what a server would. ``dist_async``: a key
lives on one server (``crc32(key) % S``), or, from ``MXNET_KVSTORE_BIGARRAY_BOUND`` elements
on, in ``S`` contiguous slices, one per server; a push is sent to the owners, which apply it
at once (``server.py``), and a pull asks them for their latest value.

An uncaught exception on any rank (in the main thread or any other) prints the rank and the
error and calls ``MPI_Abort``, which ends every rank of the job with a nonzero status: a
failing worker never leaves the others waiting in a collective.
"""

from __future__ import annotations

import atexit
import queue
import sys
import threading
import traceback
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from ..base import MXNetError, env_int
from ..engine import get as _engine
from ..ndarray import NDArray

__all__ = ["Comm", "comm", "connect"]

TAG_REQUEST = 17
TAG_REPLY = 18
# Keys of one push up to this many bytes go into one all-reduce message per dtype.
BUCKET_BYTES = 1 << 20
# The dtypes every MPI has a reduction type for; others are reduced as float64.
_MPI_DTYPES = {np.dtype(t) for t in ("float32", "float64", "int32", "int64", "int8", "uint8")}


def _mpi() -> Any:
    try:
        from mpi4py import MPI
    except ImportError as exc:
        raise MXNetError(
            "kvstore: the dist_* types need mpi4py and an MPI library; install them with "
            "pip install mxlite[dist]"
        ) from exc
    return MPI


class _Job:
    __slots__ = ("fn", "ready", "on_complete", "done", "error", "result", "input_error")

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn
        # held until the engine grants the job's arrays (a lock costs less than an Event)
        self.ready = threading.Lock()
        self.ready.acquire()
        self.on_complete: Any = None
        self.done: threading.Event | None = None
        self.error: BaseException | None = None
        self.result: Any = None
        self.input_error: BaseException | None = None


def _install_abort_hooks(rank: int, world: Any) -> None:
    """Make an uncaught exception on this rank end the whole job (see the module note)."""

    def abort(exc_type: type, exc: BaseException, tb: Any, where: str) -> None:
        text = "".join(traceback.format_exception(exc_type, exc, tb))
        sys.stderr.write(
            f"{text}mxlite.kvstore: rank {rank} failed{where}: {exc_type.__name__}: {exc}; "
            "aborting the MPI job\n"
        )
        sys.stderr.flush()
        world.Abort(1)

    def main_hook(exc_type: type, exc: BaseException, tb: Any) -> None:
        abort(exc_type, exc, tb, "")

    def thread_hook(args: Any) -> None:
        if args.exc_type is SystemExit:
            return
        where = f" in thread {args.thread.name if args.thread else '?'}"
        abort(args.exc_type, args.exc_value, args.exc_traceback, where)

    sys.excepthook = main_hook
    threading.excepthook = thread_hook


class Comm:
    """This process's place in the MPI job, and the thread that makes its MPI calls."""

    def __init__(self) -> None:
        MPI = _mpi()
        self.MPI = MPI
        self.world = MPI.COMM_WORLD
        size, rank = self.world.Get_size(), self.world.Get_rank()
        self.num_servers = env_int("MXLITE_NUM_SERVERS", 0, minimum=0)
        if self.num_servers >= size:
            raise MXNetError(
                f"kvstore: MXLITE_NUM_SERVERS={self.num_servers} leaves no worker among the "
                f"{size} ranks of this job."
            )
        self.num_workers = size - self.num_servers
        self.is_server = rank >= self.num_workers
        self.world_rank = rank
        self.rank = rank - self.num_workers if self.is_server else rank
        self.workers = self.world.Split(1 if self.is_server else 0, rank)
        _install_abort_hooks(rank, self.world)
        # Jobs in the order their Python calls were made; only the MPI thread takes them.
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        if not self.is_server:
            self._thread = threading.Thread(target=self._loop, name="mxlite-mpi", daemon=True)
            self._thread.start()
            atexit.register(self._finish)

    def _loop(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            job.ready.acquire()
            try:
                job.result = job.fn()
            except BaseException as exc:  # reported to the waiter or the engine
                job.error = exc
            error = job.error
            if error is None and job.input_error is not None:
                why = f"kvstore: an input of this communication failed: {job.input_error}"
                error = MXNetError(why)
                error.__cause__ = job.input_error
            if job.on_complete is not None:
                job.on_complete(error) if error is not None else job.on_complete()
            else:
                job.done.set()

    def submit(
        self,
        fn: Callable[[], Any],
        ctx: Any,
        const: list,
        mutate: list,
        priority: int = 0,
        name: str = "KVStoreDist",
    ) -> None:
        """Queue ``fn`` now; run it on the MPI thread once the engine has the vars ready."""
        job = _Job(fn)

        def start(rctx: Any, on_complete: Any) -> None:
            job.input_error = _failure_of(const, mutate)
            job.on_complete = on_complete
            job.ready.release()

        engine = _engine()
        opr = engine.new_operator(start, const, mutate, name, inline=True)
        # Runs even when an input failed: the other ranks wait for this rank's part of the
        # collective, so the job goes ahead (on whatever the arrays hold) and then reports
        # the input's failure on what it writes, instead of leaving the MPI thread stuck.
        opr.no_skip = True
        engine.push(opr, ctx, priority)
        # Queued after the push (still in call order): when the arrays were free, the start
        # has run on this thread already and the MPI thread finds the job ready.
        self._queue.put(job)

    def call(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` on the MPI thread after every job queued before it; return its result."""
        job = _Job(fn)
        job.done = threading.Event()
        job.ready.release()
        self._queue.put(job)
        job.done.wait()
        if job.error is not None:
            raise job.error
        return job.result

    def server_rank(self, index: int) -> int:
        return self.num_workers + index

    def _finish(self) -> None:
        """At exit: let pending pushes and pulls finish, tell the servers, stop the thread."""
        try:
            _engine().wait_for_all()
        except Exception:  # already reported where it was raised
            pass
        if self.num_servers:
            self.call(
                lambda: [
                    self.world.send(("stop", None, 0, None), self.server_rank(s), TAG_REQUEST)
                    for s in range(self.num_servers)
                ]
            )
        self._queue.put(None)


def _failure_of(const: list, mutate: list) -> BaseException | None:
    """The exception an earlier engine function left on one of these vars, if any."""
    for v in (*const, *mutate):
        failure = v.failure
        if failure is not None and not failure.cleared:
            return failure.exc
    return None


_comm: Comm | None = None
_comm_lock = threading.Lock()  # guards the creation of _comm


def comm() -> Comm:
    """The process's :class:`Comm`, created (and MPI initialized) on first use."""
    global _comm
    with _comm_lock:
        if _comm is None:
            _comm = Comm()
        return _comm


def connect(asynchronous: bool) -> _SyncTransport | _AsyncTransport:
    """The transport of a new ``dist_*`` store."""
    c = comm()
    if asynchronous:
        if c.num_servers == 0:
            raise MXNetError(
                "kvstore.create: 'dist_async' needs server ranks; start the job with "
                "python -m mxlite.launch -n N -s S script.py (S >= 1)."
            )
        return _AsyncTransport(c)
    return _SyncTransport(c)


# ---- moving data between NDArrays and MPI buffers ---------------------------------------------


def _host(a: NDArray) -> np.ndarray:
    data = a._data
    return data if isinstance(data, np.ndarray) else data.get()


def _store_host(a: NDArray, host: np.ndarray) -> None:
    data = a._data
    if data is host:
        return
    if isinstance(data, np.ndarray):
        np.copyto(data, host.reshape(data.shape), casting="unsafe")
    else:
        data[...] = a.context.xp.asarray(host.reshape(data.shape))


def _vars(arrays: list[NDArray]) -> list:
    return list({id(a._chunk.var): a._chunk.var for a in arrays}.values())


class _Transport:
    """What both transports share: the communicator, this worker's rank and the number of
    workers, and the barrier among the workers."""

    def __init__(self, c: Comm) -> None:
        self.c = c
        self.rank = c.rank
        self.num_workers = c.num_workers

    def barrier(self) -> None:
        self.c.call(self.c.workers.Barrier)


class _SyncTransport(_Transport):
    """``dist_sync``: all-reduce among the workers; each worker keeps every value."""

    asynchronous = False

    def init(self, pairs: list[tuple[Any, NDArray]]) -> None:
        arrays = [a for _, a in pairs]
        workers = self.c.workers

        def run() -> None:
            for a in arrays:
                host = _host(a)
                workers.Bcast(host, root=0)
                _store_host(a, host)

        self.c.submit(run, arrays[0].context, [], _vars(arrays), 0, "KVStoreDistInit")

    def push(self, merged: list, compression: Any, residuals: Any, priority: int) -> None:
        """Sum each ``(key, dst, src)``'s ``src`` over the workers into ``dst``."""
        dsts = [d for _, d, _ in merged]
        srcs = [s for _, _, s in merged]
        workers, MPI = self.c.workers, self.c.MPI

        def run() -> None:
            dst_hosts = [_host(a) for a in dsts]
            src_hosts = [h if s is d else _host(s) for s, d, h in zip(srcs, dsts, dst_hosts)]
            if compression is not None:
                _allgather_compressed(workers, compression, src_hosts, dst_hosts, residuals)
            else:
                _allreduce(workers, MPI, src_hosts, dst_hosts)
            for a, h in zip(dsts, dst_hosts):
                _store_host(a, h)

        writes = _vars(dsts)
        reads = [v for v in _vars(srcs) if v not in writes]
        self.c.submit(run, dsts[0].context, reads, writes, priority, "KVStoreDistPush")

    def set_compression(self, params: dict) -> None:
        """Compression runs on each worker's merged value (``push``); nothing to send."""


def _allreduce(workers: Any, MPI: Any, srcs: list[np.ndarray], dsts: list[np.ndarray]) -> None:
    """``dsts[i] = sum over the workers of srcs[i]``; small arrays joined per dtype."""
    buckets: dict[np.dtype, list[int]] = {}
    for i, d in enumerate(dsts):
        if d.nbytes <= BUCKET_BYTES:
            buckets.setdefault(d.dtype, []).append(i)
        else:
            _reduce_one(workers, MPI, srcs[i], d)
    for dtype, idx in buckets.items():
        if len(idx) == 1:
            _reduce_one(workers, MPI, srcs[idx[0]], dsts[idx[0]])
            continue
        flat = np.concatenate([srcs[i].reshape(-1) for i in idx])
        red = flat if dtype in _MPI_DTYPES else flat.astype(np.float64)
        workers.Allreduce(MPI.IN_PLACE, red, op=MPI.SUM)
        start = 0
        for i in idx:
            n = dsts[i].size
            np.copyto(dsts[i].reshape(-1), red[start : start + n], casting="unsafe")
            start += n


def _reduce_one(workers: Any, MPI: Any, src: np.ndarray, dst: np.ndarray) -> None:
    direct = dst.dtype in _MPI_DTYPES and dst.flags.c_contiguous and src.flags.c_contiguous
    if direct and src is dst:
        workers.Allreduce(MPI.IN_PLACE, dst, op=MPI.SUM)
    elif direct and not np.may_share_memory(src, dst):
        workers.Allreduce(src, dst, op=MPI.SUM)
    elif direct:  # MPI refuses overlapping send and receive buffers
        np.copyto(dst, src.reshape(dst.shape))
        workers.Allreduce(MPI.IN_PLACE, dst, op=MPI.SUM)
    else:
        red = np.ascontiguousarray(src, dtype=np.float64)
        workers.Allreduce(MPI.IN_PLACE, red, op=MPI.SUM)
        np.copyto(dst, red.reshape(dst.shape), casting="unsafe")


def _allgather_compressed(
    workers: Any,
    comp: Any,
    srcs: list[np.ndarray],
    dsts: list[np.ndarray],
    residuals: list[np.ndarray],
) -> None:
    """Each worker sends its values 2-bit packed; every worker sums what all of them sent."""
    size = workers.Get_size()
    for s, d, res in zip(srcs, dsts, residuals):
        packed = comp.quantize(s, res)
        gathered = np.empty((size, packed.size), np.float32)
        workers.Allgather(packed, gathered)
        total = np.zeros(d.size, np.float32)
        for row in gathered:
            total += comp.dequantize(row, d.size)
        np.copyto(d, total.reshape(d.shape), casting="unsafe")


class _AsyncTransport(_Transport):
    """``dist_async``: servers own the keys (whole or in slices) and update them at once."""

    asynchronous = True

    def __init__(self, c: Comm) -> None:
        super().__init__(c)
        self.bound = env_int("MXNET_KVSTORE_BIGARRAY_BOUND", 1000 * 1000, minimum=1)
        self.compression: Any = None
        self._residuals: dict[Any, np.ndarray] = {}

    def parts(self, key: Any, size: int) -> list[tuple[int, int, int]]:
        """``(server rank, start, stop)`` of each slice of a key of ``size`` elements."""
        s = self.c.num_servers
        if s > 1 and size >= self.bound:
            cuts = np.linspace(0, size, s + 1).astype(int)
            return [(self.c.server_rank(i), int(cuts[i]), int(cuts[i + 1])) for i in range(s)]
        owner = zlib.crc32(repr(key).encode()) % s
        return [(self.c.server_rank(owner), 0, size)]

    def _send_all(self, op: str, pairs: list) -> None:
        """Send every slice, then wait for each server's answer (a push is done when the
        server has applied it, as in MXNet)."""
        world, dests = self.c.world, []
        for key, host in pairs:
            flat = host.reshape(-1)
            for part, (dest, lo, hi) in enumerate(self.parts(key, flat.size)):
                world.send((op, key, part, flat[lo:hi]), dest, TAG_REQUEST)
                dests.append(dest)
        _check_replies([world.recv(source=d, tag=TAG_REPLY) for d in dests])

    def init(self, pairs: list[tuple[Any, NDArray]]) -> None:
        if self.rank == 0:
            arrays = [a for _, a in pairs]

            def run() -> None:
                self._send_all("init", [(k, _host(a)) for k, a in pairs])

            self.c.submit(run, arrays[0].context, _vars(arrays), [], 0, "KVStoreDistInit")
        self.barrier()

    def push(self, merged: list, compression: Any, residuals: Any, priority: int) -> None:
        """Send each ``(key, _, src)``'s ``src`` to the servers that own the key."""
        srcs = [s for _, _, s in merged]
        keys = [k for k, _, _ in merged]

        def run() -> None:
            hosts = [_host(a) for a in srcs]
            if compression is not None:
                hosts = [compression.apply(h, r) for h, r in zip(hosts, residuals)]
            self._send_all("push", list(zip(keys, hosts)))

        self.c.submit(run, srcs[0].context, _vars(srcs), [], priority, "KVStoreDistPush")

    def pull(self, pairs: list[tuple[Any, NDArray]], priority: int) -> None:
        arrays = [a for _, a in pairs]
        world = self.c.world

        def run() -> None:
            for key, a in pairs:
                host = _host(a).reshape(-1)
                parts = self.parts(key, host.size)
                for part, (dest, _lo, _hi) in enumerate(parts):
                    world.send(("pull", key, part, None), dest, TAG_REQUEST)
                for dest, lo, hi in parts:
                    got = world.recv(source=dest, tag=TAG_REPLY)
                    _check_replies([got])
                    host[lo:hi] = got
                _store_host(a, host)

        self.c.submit(run, arrays[0].context, [], _vars(arrays), priority, "KVStoreDistPull")

    def _to_servers(self, op: str, body: Any) -> None:
        """Rank 0 sends ``(op, body)`` to every server and waits for each; then a barrier."""
        if self.rank == 0:
            world = self.c.world

            def run() -> None:
                replies = []
                for s in range(self.c.num_servers):
                    world.send((op, None, 0, body), self.c.server_rank(s), TAG_REQUEST)
                    replies.append(world.recv(source=self.c.server_rank(s), tag=TAG_REPLY))
                _check_replies(replies)

            self.c.call(run)
        self.barrier()

    def set_optimizer(self, optimizer: Any) -> None:
        from .. import optimizer as opt

        self._to_servers("optimizer", opt.get_updater(optimizer).get_states(dump_optimizer=True))

    def command(self, head: int, body: str) -> None:
        self._to_servers("command", (head, body))

    def set_compression(self, params: dict) -> None:
        """Workers compress before sending (``push``); the servers get plain values."""


def _check_replies(replies: list) -> None:
    for r in replies:
        if isinstance(r, BaseException):
            raise MXNetError(f"kvstore server: {r}") from r
