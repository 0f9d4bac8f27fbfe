"""Pooled memory per device: the storage allocator under every NDArray chunk.

Design note
-----------
Policy. Each device has one :class:`Pool` (all CPU contexts share one, as in MXNet, where a CPU
context's real device id is 0; each GPU id has its own). A request of ``nbytes`` is rounded up
to a *size class*; a free block of that class is reused (a *hit*), otherwise a new block is
allocated (a *miss*). The rounding is MXNet's, chosen per device by ``MXNET_<DEV>_MEM_POOL_TYPE``
(``<DEV>`` is ``CPU``, ``CPU_PINNED`` or ``GPU``):

* ``Naive`` (default): round up to a multiple of ``MXNET_<DEV>_MEM_POOL_PAGE_SIZE`` (4096), and
  sizes above ``MXNET_<DEV>_MEM_LARGE_ALLOC_ROUND_SIZE`` (2 MiB) to a multiple of that; blocks
  are reused only for requests of the same rounded size.
* ``Round``: round up to a power of two (at least the page size) up to
  ``2 ** MXNET_<DEV>_MEM_POOL_ROUND_LINEAR_CUTOFF`` (2 ** 24 = 16 MiB), and above that to a
  multiple of ``2 ** cutoff``; fewer classes, so variable-size workloads hit more often.
* ``Unpooled``: exact sizes, and every free gives the memory back.

``MXNET_USE_NAIVE_STORAGE_MANAGERS=1`` makes every device ``Unpooled``. MXNet 1.9.1 pooled only
GPU memory; the CPU and CPU_PINNED settings are the ones MXNet 2.x added, with its defaults.
``cpu_shared`` memory is never pooled.

Kernel temporaries. The arrays an operator makes inside its computation (im2col blocks, partial
sums) are NumPy's own, not the pool's. By default glibc returns every freed block above 128 KiB
to the system, and the next kernel pays page faults to get it back (about a tenth of a ResNet
step). So when a pooled CPU pool starts, mxlite asks glibc (``mallopt``) to keep blocks up to
1 GiB in its heap, as MXNet's pool keeps its blocks; ``Unpooled`` leaves malloc alone.

Large CPU blocks. A pooled CPU pool keeps idle only blocks up to ``CPU_MAX_IDLE_BLOCK``
(64 MiB); a larger one goes back to malloc when freed. An idle block serves only requests of its
own size class, so a few large ones (a hybridized block's buffers for another input shape, a
gradient freed before ``asnumpy``) would sit beside the NumPy arrays allocated next and push
the process's peak above MXNet 1.9.1's, whose CPU memory is not pooled at all. Given back to
a heap that glibc keeps, the memory stays mapped: the next large allocation, the pool's or
NumPy's, reuses it without page faults, and touching such a block costs far more than the
allocation.

Reserve. ``MXNET_<DEV>_MEM_POOL_RESERVE`` (percent, default 5) is the share of the device's
physical memory kept away from the pool, enforced in two places:

* on free, a block is pooled only while the pool's footprint (bytes in use plus idle bytes)
  stays within ``(100 - reserve)%`` of physical memory; past that, the block is released;
* on a miss, as MXNet does, when the system's available memory minus the new block would fall
  below ``reserve%`` of physical memory, every idle block is released first; and if the
  allocation still fails for lack of memory, the idle blocks are released and it is tried once
  more.

State, per pool: ``_stacks`` maps a size class to a stack of idle (block, buffer) pairs;
``_classes`` caches request size -> (size class, its stack); counters of the bytes and blocks
the pool holds (in use plus idle), their peak, misses and releases; a cached estimate of the
system's available memory. Locking: a hit and a free that pools touch only one stack, with
``list.pop``/``list.append``, which are atomic, and take no lock (this keeps an alloc+free pair
far below a microsecond); ``Pool._lock`` serialises everything else (misses, releases, stats,
the counters, new size classes). Bytes in use are derived: held minus idle.

Invariants: a block is either idle in exactly one stack or owned by exactly one
:class:`Handle` (or by a free pushed to the engine and not yet run); a handle is freed at most
once: its block sits in a one-element list that the free pops, so of two racing frees exactly
one wins and the other raises. Every CPU buffer's data pointer is 64-byte aligned (a cache
line, enough for every NumPy dtype and for SIMD loads); GPU blocks come 256-byte aligned.

Reuse and the engine. :func:`free` returns the block at once, so call it only when nothing will
touch the buffer again. :func:`free_after` pushes the free to the engine as a delete on a var,
so the block comes back only after every engine function that uses the var has run.

Organisation: ``pool.py`` holds :class:`Pool` (size classes, reserve, stats) and
:class:`Handle`; this module the process-wide pools, one per device, behind the module
functions (``alloc``, ``free``, ``free_after``, ``stats``, ``release_all``).

Example::

    h = storage.alloc(1024, mx.cpu())       # h.buffer: 1024 uint8, 64-byte aligned
    h.buffer[:] = 0
    storage.free_after(h, var)              # reusable once every op on `var` has run
    storage.stats(mx.cpu()).in_use          # 4096 (Naive rounds up to the page size)
"""

from __future__ import annotations

import ctypes
import sys
import threading
from typing import Any

from .. import engine as _engine
from ..base import MXNetError, env_bool, env_int, env_str
from ..context import Context, on_empty_cache
from .pool import ALIGNMENT as ALIGNMENT
from .pool import POOL_TYPES as POOL_TYPES
from .pool import Handle as Handle
from .pool import Pool as Pool
from .pool import StorageStats as StorageStats
from .pool import _check_settings

__all__ = [
    "POOL_TYPES",
    "Handle",
    "Pool",
    "StorageStats",
    "alloc",
    "free",
    "free_after",
    "stats",
    "release_all",
]

# ---- the process-wide pools -----------------------------------------------------------------

_pools: dict[Any, Pool] = {}
# _pools_lock guards the creation of pools in _pools; lookups read the dict without it.
_pools_lock = threading.Lock()
_PREFIX = {1: "CPU", 2: "GPU", 3: "CPU_PINNED"}
CPU_MAX_IDLE_BLOCK = 64 << 20  # see "Large CPU blocks" above


def _key(ctx: Context) -> Any:
    t = ctx.device_typeid
    return t if t != 2 else (2, ctx.device_id)


def _pool_for(ctx: Any) -> Pool:
    if not isinstance(ctx, Context):
        raise MXNetError(f"storage: argument 'ctx' must be a Context, got {ctx!r}.")
    key = _key(ctx)
    with _pools_lock:
        pool = _pools.get(key)
        if pool is None:
            pool = _pools[key] = _pool_from_settings(ctx)
        return pool


_heap_kept = False


def _keep_freed_heap() -> None:
    """Ask glibc's malloc to serve and keep blocks up to 1 GiB in its heap (once; elsewhere
    a no-op)."""
    global _heap_kept
    if _heap_kept or not sys.platform.startswith("linux"):
        return
    _heap_kept = True
    try:
        libc = ctypes.CDLL("libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return
    m_trim_threshold, m_mmap_threshold = -1, -3
    if not mallopt(m_mmap_threshold, 1 << 30):  # older glibc caps the threshold at 32 MiB
        mallopt(m_mmap_threshold, 1 << 25)
    mallopt(m_trim_threshold, (1 << 31) - 1)


def _pool_from_settings(ctx: Context) -> Pool:
    prefix = _PREFIX.get(ctx.device_typeid)
    base_ctx = Context("gpu", ctx.device_id) if prefix == "GPU" else Context(ctx.device_type, 0)
    if prefix is None:  # cpu_shared
        return Pool(base_ctx, "Unpooled")
    pool_type = env_str(f"MXNET_{prefix}_MEM_POOL_TYPE", "Naive", POOL_TYPES)
    if env_bool("MXNET_USE_NAIVE_STORAGE_MANAGERS", False):
        pool_type = "Unpooled"
    page = env_int(f"MXNET_{prefix}_MEM_POOL_PAGE_SIZE", 4096)
    large = env_int(f"MXNET_{prefix}_MEM_LARGE_ALLOC_ROUND_SIZE", 2097152)
    cutoff = env_int(f"MXNET_{prefix}_MEM_POOL_ROUND_LINEAR_CUTOFF", 24)
    reserve = env_int(f"MXNET_{prefix}_MEM_POOL_RESERVE", 5)
    _check_settings(pool_type, page, large, cutoff, reserve, prefix)
    if prefix == "CPU" and pool_type != "Unpooled":
        _keep_freed_heap()
    return Pool(
        base_ctx,
        pool_type,
        page_size=page,
        large_alloc_round_size=large,
        round_linear_cutoff=cutoff,
        reserve=reserve,
        max_idle_block=CPU_MAX_IDLE_BLOCK if prefix == "CPU" else None,
    )


def alloc(nbytes: int, ctx: Context) -> Handle:
    """Allocate ``nbytes`` bytes on ``ctx`` from its pool.

    Parameters
    ----------
    nbytes : int
        Size in bytes, >= 0.
    ctx : Context
        The device.

    Returns
    -------
    Handle
        ``handle.buffer`` is a 1-D uint8 array (NumPy, or CuPy on a GPU) of exactly ``nbytes``
        bytes whose data pointer is 64-byte aligned; its contents are undefined.
    """
    try:
        t = ctx.device_typeid
    except AttributeError:
        raise MXNetError(f"storage.alloc: argument 'ctx' must be a Context, got {ctx!r}.") from None
    pool = _pools.get(t if t != 2 else (2, ctx.device_id))
    if pool is None:
        pool = _pool_for(ctx)
    return pool.alloc(nbytes, ctx)


def free(handle: Handle) -> None:
    """Give ``handle``'s memory back to its pool now. Thread-safe.

    Only when nothing, including a pending engine function, will touch the buffer again; else
    use :func:`free_after`. Freeing a handle twice raises :class:`MXNetError`.
    """
    if type(handle) is not Handle:
        raise MXNetError(
            f"storage.free: argument 'handle' must be a storage.Handle, got {handle!r}."
        )
    handle._pool.free(handle)


def free_after(handle: Handle, var: Any) -> None:
    """Free ``handle`` once the engine has run every function pushed so far that uses ``var``.

    The free is pushed as a delete on ``var`` (``engine.get().push_delete``), so ``var`` is
    dead afterwards. The handle counts as freed at once: a second free raises.
    """
    if type(handle) is not Handle:
        raise MXNetError(
            f"storage.free_after: argument 'handle' must be a storage.Handle, got {handle!r}."
        )
    pool = handle._pool
    block = pool._take(handle)
    buf, cls = handle.buffer, handle._cls

    def give_back(rctx: Any) -> None:
        pool._give_back(block, buf, cls)

    try:
        _engine.get().push_delete(give_back, handle.ctx, var)
    except BaseException:
        handle._box.append(block)  # the free did not happen: the handle is live again
        raise


def stats(ctx: Context) -> StorageStats:
    """Return the statistics of ``ctx``'s pool (all zero before its first allocation)."""
    if not isinstance(ctx, Context):
        raise MXNetError(f"storage.stats: argument 'ctx' must be a Context, got {ctx!r}.")
    pool = _pools.get(_key(ctx))
    return pool.stats() if pool is not None else StorageStats()


def release_all(ctx: Context | None = None) -> None:
    """Give the idle pooled memory of ``ctx`` (of every device when None) back to the system.

    Memory in use is untouched; ``Context.empty_cache()`` calls this.
    """
    if ctx is None:
        pools = list(_pools.values())
    elif isinstance(ctx, Context):
        pool = _pools.get(_key(ctx))
        pools = [pool] if pool is not None else []
    else:
        raise MXNetError(f"storage.release_all: argument 'ctx' must be a Context, got {ctx!r}.")
    for pool in pools:
        pool.release_all()


on_empty_cache(release_all)


def _reset() -> None:
    """Forget every pool, so that the next allocation reads the settings again (for tests).

    Live handles keep their pools; their frees go there.
    """
    with _pools_lock:
        for pool in _pools.values():
            pool.release_all()
        _pools.clear()
