"""The pool of one device (:class:`Pool`): size classes, reserve, statistics, and the
:class:`Handle` of a block; ``mxlite.storage`` keeps one per device (see its design note).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base import MXNetError
from ..context import Context

__all__ = ["POOL_TYPES", "ALIGNMENT", "Handle", "Pool", "StorageStats"]

POOL_TYPES = ("Naive", "Round", "Unpooled")
ALIGNMENT = 64  # bytes; a cache line, and the widest SIMD load (AVX-512)

_NAIVE, _ROUND, _UNPOOLED = 0, 1, 2
# MXNet checks cutoffs against 2 ** 34 (16 GiB), the largest class its table holds.
_LOG2_MAX_MEM = 34
# Reading the system's available memory costs tens of microseconds, more than a small miss.
# It is read for every miss of at least _MEMINFO_ALWAYS_BYTES (whose page faults cost more),
# and otherwise every _MEMINFO_REFRESH_MISSES misses; in between the pool subtracts its own
# new blocks from the last reading.
_MEMINFO_ALWAYS_BYTES = 1 << 20
_MEMINFO_REFRESH_MISSES = 64

# Bound on the request -> size class cache: plenty for a model's distinct array sizes.
_SIZE_CACHE_ENTRIES = 4096

MemInfo = Callable[[], tuple[int | None, int | None]]


@dataclass(frozen=True)
class StorageStats:
    """A snapshot of one pool. Byte counts are of whole blocks (rounded sizes)."""

    in_use: int = 0  # bytes in blocks owned by handles (frees pushed to the engine included)
    pooled: int = 0  # bytes in idle blocks kept for reuse
    peak: int = 0  # the most bytes the pool has held at once (in use plus pooled)
    num_in_use: int = 0  # blocks owned by handles (zero-byte handles included)
    num_pooled: int = 0  # idle blocks
    misses: int = 0  # allocations that got new memory from the system
    released: int = 0  # blocks given back to the system


class Handle:
    """Memory from :func:`alloc`: ``buffer`` (1-D uint8, exactly ``nbytes`` long), ``nbytes``,
    ``ctx``. Pass it to :func:`free` or :func:`free_after` once, when done. Do not change
    ``buffer`` in place (its shape, dtype or flags): make views of it."""

    __slots__ = ("buffer", "nbytes", "ctx", "_pool", "_box", "_cls")

    def __init__(
        self, buffer: Any, nbytes: int, ctx: Context, pool: Pool, box: list[Any], cls: tuple
    ) -> None:
        self.buffer = buffer
        self.nbytes = nbytes
        self.ctx = ctx
        self._pool = pool
        # [the whole block], emptied by the free: list.pop() is atomic, so of two threads
        # freeing the same handle exactly one gets the block and the other an IndexError.
        self._box = box
        self._cls = cls  # (size class in bytes, that class's idle stack in the pool)

    def __repr__(self) -> str:
        state = "live" if self._box else "freed"
        return f"<storage.Handle {self.nbytes} bytes on {self.ctx} {state}>"


def _aligned_empty(nbytes: int) -> np.ndarray:
    raw = np.empty(nbytes + ALIGNMENT, dtype=np.uint8)
    offset = -raw.ctypes.data % ALIGNMENT
    return raw[offset : offset + nbytes]


_EMPTY = _aligned_empty(0)  # the buffer of every zero-byte CPU handle; never written
_MISS = (None, None)


def _system_meminfo() -> tuple[int | None, int | None]:
    """(available, total) bytes of physical memory; None where the platform does not say."""
    total = avail = None
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        pass
    try:
        # MemAvailable counts reclaimable page cache; sysconf's AVPHYS_PAGES does not.
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        try:
            avail = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
        except (AttributeError, ValueError, OSError):
            pass
    return avail, total


def _gpu_meminfo(device_id: int) -> MemInfo:
    def meminfo() -> tuple[int | None, int | None]:
        cupy = Context("gpu", device_id).xp
        with cupy.cuda.Device(device_id):
            free_b, total_b = cupy.cuda.runtime.memGetInfo()
        return int(free_b), int(total_b)

    return meminfo


class Pool:
    """The memory pool of one device.

    Parameters
    ----------
    ctx : Context
        The device; blocks come from NumPy on CPU contexts and from CUDA (through CuPy) on GPU.
    pool_type : {'Naive', 'Round', 'Unpooled'}, default 'Naive'
        How sizes are rounded and whether freed blocks are kept (see the module note).
    page_size : int, default 4096
        Smallest size class; a power of two for 'Round'; at least 32.
    large_alloc_round_size : int, default 2097152
        'Naive' rounds sizes above this up to a multiple of it.
    round_linear_cutoff : int, default 24
        'Round' uses powers of two up to ``2 ** round_linear_cutoff``, multiples of it above.
    reserve : int, default 5
        Percent of the device's memory kept away from the pool.
    meminfo : callable, optional
        Returns (available, total) bytes of the device; the system's by default.
    max_idle_block : int, optional
        A freed block larger than this is given back to the system instead of kept idle; by
        default every size is kept.
    """

    def __init__(
        self,
        ctx: Context,
        pool_type: str = "Naive",
        *,
        page_size: int = 4096,
        large_alloc_round_size: int = 2097152,
        round_linear_cutoff: int = 24,
        reserve: int = 5,
        meminfo: MemInfo | None = None,
        max_idle_block: int | None = None,
    ) -> None:
        if pool_type not in POOL_TYPES:
            raise MXNetError(
                f"storage.Pool: argument 'pool_type' must be one of {', '.join(POOL_TYPES)}, "
                f"got {pool_type!r}."
            )
        _check_settings(pool_type, page_size, large_alloc_round_size, round_linear_cutoff, reserve)
        self.ctx = ctx
        self.pool_type = pool_type
        self._kind = POOL_TYPES.index(pool_type)
        self._page = page_size
        self._large = large_alloc_round_size
        self._cutoff = round_linear_cutoff
        self._is_gpu = ctx.device_typeid == 2
        if meminfo is None:
            meminfo = _gpu_meminfo(ctx.device_id) if self._is_gpu else _system_meminfo
        self._meminfo = meminfo
        avail, total = meminfo() if self._kind != _UNPOOLED else (None, None)
        self._reserve_bytes = total * reserve // 100 if total is not None else 0
        if self._kind == _UNPOOLED:
            self._limit = -1  # nothing is ever pooled
        elif total is None:
            self._limit = sys.maxsize
        else:
            self._limit = total - self._reserve_bytes
        self._max_idle = sys.maxsize if max_idle_block is None else int(max_idle_block)
        self._avail = avail  # estimate of the system's available bytes; None if unknown
        self._misses_since_meminfo = 0
        # The hot path (a hit, and a free that pools) takes no lock: it pops from and appends
        # to a class's idle stack, and CPython's list.pop()/append() are atomic (each idle
        # block goes to exactly one thread). _lock serialises everything else: misses, the
        # writes to _stacks and _classes, releases, stats, and the counters below, which
        # change only on those paths. Nothing blocks or calls user code while holding it.
        # Re-entrant because a miss allocates, allocating may run the garbage collector, and
        # a collected NDArray frees its block (with the naive engine, inline) on this thread.
        self._lock = threading.RLock()
        self._stacks: dict[int, list[Any]] = {}  # size class -> idle (block, buffer) pairs
        self._classes: dict[int, tuple[int, list[Any]]] = {}  # request -> (size, its stack)
        self._held = 0  # bytes of every block this pool holds: in use plus idle
        self._held_blocks = 0
        self._peak = 0  # highest _held
        self._misses = 0
        self._released = 0

    def __repr__(self) -> str:
        return f"<storage.Pool {self.pool_type} on {self.ctx}>"

    def size_class(self, nbytes: int) -> int:
        """Return the block size that a request of ``nbytes`` gets."""
        if nbytes <= 0:
            return 0
        if self._kind == _NAIVE:
            size = -(-nbytes // self._page) * self._page
            if size > self._large:
                size = -(-size // self._large) * self._large
            return size
        if self._kind == _ROUND:
            if nbytes <= 1 << self._cutoff:
                return max(1 << (nbytes - 1).bit_length(), self._page)
            return (((nbytes - 1) >> self._cutoff) + 1) << self._cutoff
        return nbytes

    def alloc(self, nbytes: int, ctx: Context) -> Handle:
        """Return a :class:`Handle` of ``nbytes`` on this pool's device (see :func:`alloc`)."""
        # Every operator output comes through here, so a request size seen before costs one
        # dict lookup: _classes maps it to its (size class, idle stack), and holds valid
        # sizes only.
        cls = self._classes.get(nbytes) if type(nbytes) is int else None
        if cls is None:
            nbytes = _check_nbytes(nbytes)
            cls = self._classes.get(nbytes) or self._class_for(nbytes)
        stack = cls[1]
        try:
            # The idle entry keeps the last buffer cut from the block: when the request size
            # repeats (the common case) no new view is made.
            block, buf = stack.pop() if stack else _MISS
        except IndexError:  # another thread took the last block between the test and pop
            block = None
        if block is None:
            block = self._miss(cls[0], nbytes)
            buf = block[:nbytes]
        elif len(buf) != nbytes:
            buf = block[:nbytes]
        return Handle(buf, nbytes, ctx, self, [block], cls)

    def free(self, handle: Handle) -> None:
        """Give ``handle``'s block back at once (see :func:`free`)."""
        try:
            block = handle._box.pop()
        except IndexError:
            raise MXNetError(f"storage.free: {handle!r} was already freed (double free).") from None
        cls = handle._cls
        if self._held <= self._limit and cls[0] <= self._max_idle:  # _give_back's common case
            cls[1].append((block, handle.buffer))
        else:
            self._give_back(block, handle.buffer, handle._cls)

    def release_all(self) -> None:
        """Give every idle block back to the system."""
        with self._lock:
            self._release_idle_locked()

    def stats(self) -> StorageStats:
        """Return a snapshot of this pool's counters."""
        with self._lock:
            pooled = num_pooled = 0
            for size, stack in list(self._stacks.items()):
                n = len(stack)
                pooled += n * size
                num_pooled += n
            return StorageStats(
                in_use=self._held - pooled,
                pooled=pooled,
                peak=self._peak,
                num_in_use=self._held_blocks - num_pooled,
                num_pooled=num_pooled,
                misses=self._misses,
                released=self._released,
            )

    # ---- used by free_after and by the methods above --------------------------------------

    def _class_for(self, nbytes: int) -> tuple[int, list[Any]]:
        size = self.size_class(nbytes)
        with self._lock:
            stack = self._stacks.get(size)
            if stack is None:
                stack = self._stacks[size] = []
            cls = (size, stack)
            if len(self._classes) < _SIZE_CACHE_ENTRIES:
                self._classes[nbytes] = cls
        return cls

    def _take(self, handle: Handle) -> Any:
        """Mark ``handle`` freed and return its block (still in use until given back)."""
        try:
            return handle._box.pop()
        except IndexError:
            raise MXNetError(
                f"storage.free_after: {handle!r} was already freed (double free)."
            ) from None

    def _give_back(self, block: Any, buf: Any, cls: tuple[int, list[Any]]) -> None:
        # _held changes under _lock only; reading it here unlocked can be stale by one
        # concurrent miss or release, which only moves the reserve limit by one block.
        if self._held <= self._limit and cls[0] <= self._max_idle:
            cls[1].append((block, buf))
            return
        # Over the reserve limit (always, for Unpooled) or above the largest size kept: drop
        # the block, and NumPy (or CUDA) frees the memory with its last reference.
        with self._lock:
            self._drop_locked(cls[0])

    def _drop_locked(self, size: int) -> None:
        self._held -= size
        self._held_blocks -= 1
        self._released += 1
        if self._avail is not None:
            self._avail += size

    def _release_idle_locked(self) -> None:
        for size, stack in self._stacks.items():
            while True:
                try:
                    stack.pop()  # one at a time: a concurrent free may append meanwhile
                except IndexError:
                    break
                self._drop_locked(size)

    def _miss(self, size: int, nbytes: int) -> Any:
        with self._lock:
            self._misses += 1
            if self._kind != _UNPOOLED and self._reserve_bytes:
                self._check_reserve_locked(size)
            try:
                block = self._new_block(size)
            except MemoryError:
                pass
            except Exception as exc:  # CuPy's OutOfMemoryError is not a MemoryError
                if type(exc).__name__ != "OutOfMemoryError":
                    raise
            else:
                return self._account_new_locked(block, size)
            self._release_idle_locked()  # retry once, as MXNet does after fragmentation
            try:
                block = self._new_block(size)
            except Exception as exc:
                raise MXNetError(
                    f"storage.alloc: out of memory on {self.ctx} allocating {nbytes} bytes "
                    f"(block of {size}); the pool holds {self._held} bytes."
                ) from exc
            return self._account_new_locked(block, size)

    def _check_reserve_locked(self, size: int) -> None:
        # MXNet's rule: if the new block would eat into the reserve, release the idle blocks
        # first.
        self._misses_since_meminfo += 1
        avail = self._avail
        if (
            avail is None
            or size >= _MEMINFO_ALWAYS_BYTES
            or avail - size < self._reserve_bytes
            or self._misses_since_meminfo >= _MEMINFO_REFRESH_MISSES
        ):
            avail = self._meminfo()[0]
            self._misses_since_meminfo = 0
        if avail is not None and avail - size < self._reserve_bytes:
            self._release_idle_locked()
            avail = self._meminfo()[0]
        self._avail = None if avail is None else avail - size

    def _account_new_locked(self, block: Any, size: int) -> Any:
        held = self._held + size
        self._held = held
        self._held_blocks += 1
        if held > self._peak:
            self._peak = held
        return block

    def _new_block(self, size: int) -> Any:
        if not self._is_gpu:
            return _aligned_empty(size) if size else _EMPTY
        cupy = self.ctx.xp
        if not size:
            return cupy.empty((0,), dtype=cupy.uint8)
        with cupy.cuda.Device(self.ctx.device_id):
            # Straight from cudaMalloc (256-byte aligned), not through CuPy's own pool, so
            # that this pool is the only cache and release_all really returns the memory.
            mem = cupy.cuda.Memory(size)
            return cupy.ndarray((size,), cupy.uint8, cupy.cuda.MemoryPointer(mem, 0))


def _check_nbytes(nbytes: Any) -> int:
    if isinstance(nbytes, (int, np.integer)) and not isinstance(nbytes, bool) and nbytes >= 0:
        return int(nbytes)  # a NumPy integer becomes an int, so it finds its cached class
    raise MXNetError(f"storage.alloc: argument 'nbytes' must be an int >= 0, got {nbytes!r}.")


def _check_settings(
    pool_type: str, page_size: int, large_round: int, cutoff: int, reserve: int, prefix: str = ""
) -> None:
    def bad(name: str, want: str, got: Any) -> MXNetError:
        where = f"MXNET_{prefix}_{name}" if prefix else f"storage.Pool: argument '{name.lower()}'"
        return MXNetError(f"{where} must be {want}, got {got!r}.")

    page_name = "MEM_POOL_PAGE_SIZE" if prefix else "page_size"
    if page_size < 32:
        raise bad(page_name, "at least 32", page_size)
    if large_round <= 0:
        name = "MEM_LARGE_ALLOC_ROUND_SIZE" if prefix else "large_alloc_round_size"
        raise bad(name, "> 0", large_round)
    if not 0 <= reserve <= 100:
        raise bad("MEM_POOL_RESERVE" if prefix else "reserve", "a percentage in 0..100", reserve)
    if pool_type == "Round":
        if page_size & (page_size - 1):
            raise bad(page_name, "a power of 2 with the Round pool", page_size)
        log_page = page_size.bit_length() - 1
        if not max(20, log_page) <= cutoff <= _LOG2_MAX_MEM:
            name = "MEM_POOL_ROUND_LINEAR_CUTOFF" if prefix else "round_linear_cutoff"
            low = max(20, log_page)
            raise bad(name, f"in {low}..{_LOG2_MAX_MEM} (and >= log2 of the page size)", cutoff)
