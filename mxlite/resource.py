"""The resource manager: each device's random generator and temporary workspace.

Design note
-----------
Operators ask for resources by kind (:class:`ResourceRequest`) and get them through
``op_ctx.requested``; this module hands them out, as MXNet's ``ResourceManager`` does.

* ``RANDOM``: one :class:`Resource` per device, wrapping the device's generator (a NumPy
  ``Generator`` on PCG64 for CPUs, a CuPy generator for GPUs). Every CPU context shares the
  one CPU generator, as in MXNet.
* ``TEMP_SPACE``: ``MXNET_CPU_TEMP_COPY`` (default 4) copies for the CPUs and
  ``MXNET_GPU_TEMP_COPY`` (default 1) per GPU, handed out round-robin, so that up to that
  many operators can use temp space at once. Each copy owns one buffer from
  :mod:`mxlite.storage` that grows to the largest size asked for and is then reused.

Every resource has an engine ``var``. A function that uses a resource lists that var in its
``mutate_vars``: functions sharing a generator or a workspace then run one at a time and in
push order, which is what makes both safe without locks and random streams reproducible.

Seeding. The generators start as if ``seed(0)`` had been called. ``seed(s)`` reseeds every
device with a stream derived from ``(s, device type, device id)``, so devices differ;
``seed(s, ctx)`` reseeds one device from ``(s, device type)``, so that ``gpu(0)`` and
``gpu(1)`` seeded that way draw the same numbers (MXNet's rule). Seeds are taken modulo 2**32,
as MXNet's C API does. The reseed itself is an engine function that mutates the generator's
var, so it lands between the draws pushed before it and those pushed after.

Example::

    rnd = resource.request(mx.cpu(), ResourceRequest.RANDOM)
    out = np.empty(3)
    eng.push_sync(lambda rctx: out.__setitem__(slice(None), rnd.get_random().random(3)),
                  mx.cpu(), [], [rnd.var])
"""

from __future__ import annotations

import enum
import itertools
import threading
from typing import Any

import numpy as np

from . import engine as _engine
from . import storage
from .base import DTypeError, MXNetError, ParamError, ShapeError, env_int, integer_types
from .context import Context

__all__ = ["ResourceRequest", "Resource", "request", "seed"]


class ResourceRequest(enum.IntEnum):
    """The kinds of resource an operator may request (MXNet's ``ResourceRequest::Type``)."""

    RANDOM = 0
    TEMP_SPACE = 1
    kRandom = 0  # MXNet's names, as aliases
    kTempSpace = 1


class Resource:
    """A resource handed to an operator: ``req``, ``ctx`` and the engine ``var`` that every
    function using it must list in ``mutate_vars``."""

    __slots__ = ("req", "ctx", "var", "_owner", "_handle")

    def __init__(self, req: ResourceRequest, ctx: Context, var: Any, owner: Any) -> None:
        self.req = req
        self.ctx = ctx
        self.var = var
        var.takes_failures = False  # a failed user must not poison the resource for all others
        self._owner = owner  # the device's _DeviceResources, which holds the generator
        self._handle: storage.Handle | None = None  # TEMP_SPACE: the workspace

    def __repr__(self) -> str:
        return f"<Resource {self.req.name} on {self.ctx}>"

    def get_random(self) -> Any:
        """Return the device's random generator (``numpy.random.Generator`` on CPUs).

        Draw from it only inside an engine function that lists ``var`` in ``mutate_vars``.
        """
        if self.req is not ResourceRequest.RANDOM:
            raise MXNetError(
                f"Resource.get_random: this resource was requested as {self.req.name}; "
                "request ResourceRequest.RANDOM."
            )
        return self._owner.generator

    def get_space(self, shape: Any, dtype: Any = np.float32) -> Any:
        """Return an array of ``shape`` and ``dtype`` on a reusable buffer (contents undefined).

        The buffer grows when a larger space is asked for; the array is valid only inside the
        engine function that asked (which lists ``var`` in ``mutate_vars``).

        Parameters
        ----------
        shape : int or tuple of int
            Shape of the space.
        dtype : str or numpy.dtype, default 'float32'
            Element type.
        """
        if self.req is not ResourceRequest.TEMP_SPACE:
            raise MXNetError(
                f"Resource.get_space: this resource was requested as {self.req.name}; "
                "request ResourceRequest.TEMP_SPACE."
            )
        shape = _check_shape(shape)
        try:
            dt = np.dtype(dtype)
        except TypeError:
            raise DTypeError(
                f"Resource.get_space: argument 'dtype' must be a dtype, got {dtype!r}."
            ) from None
        nbytes = dt.itemsize
        for d in shape:
            nbytes *= d
        handle = self._handle
        if handle is None or handle.nbytes < nbytes:
            # Only functions that mutate self.var touch the space, and they run one at a
            # time: the old buffer is free to go back to the pool now.
            if handle is not None:
                storage.free(handle)
                self._handle = None
            handle = self._handle = storage.alloc(nbytes, self.ctx)
        return handle.buffer[:nbytes].view(dt).reshape(shape)


def _check_shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, integer_types):
        shape = (shape,)
    try:
        dims = tuple(shape)
    except TypeError:
        dims = None
    if dims is None or not all(isinstance(d, integer_types) and d >= 0 for d in dims):
        raise ShapeError(
            f"Resource.get_space: argument 'shape' must be a tuple of ints >= 0, got {shape!r}."
        )
    return tuple(int(d) for d in dims)


def _seed_sequence(seed_state: int, ctx: Context, per_device: bool) -> np.random.SeedSequence:
    # The same (seed, device) always gives the same stream; the spawn key keeps the devices'
    # streams apart (with per_device False, every device of a type gets the same one).
    key = (ctx.device_typeid, ctx.device_id) if per_device else (ctx.device_typeid,)
    return np.random.SeedSequence(seed_state & 0xFFFFFFFF, spawn_key=key)


class _DeviceResources:
    """The resources of one device (all CPU contexts share one)."""

    def __init__(self, ctx: Context, seed_state: int) -> None:
        eng = _engine.get()
        self.ctx = ctx
        self.generator = self._make_generator(_seed_sequence(seed_state, ctx, True))
        self.random = Resource(ResourceRequest.RANDOM, ctx, eng.new_var("random"), self)
        gpu = ctx.device_typeid == 2
        ncopy = env_int(f"MXNET_{'GPU' if gpu else 'CPU'}_TEMP_COPY", 1 if gpu else 4, 1)
        self.temp = [
            Resource(ResourceRequest.TEMP_SPACE, ctx, eng.new_var(f"temp_space{i}"), self)
            for i in range(ncopy)
        ]
        self._turn = itertools.count()  # next() is atomic: round-robin without a lock

    def _make_generator(self, seq: np.random.SeedSequence) -> Any:
        if self.ctx.device_typeid != 2:
            return np.random.Generator(np.random.PCG64(seq))
        cupy = self.ctx.xp
        with cupy.cuda.Device(self.ctx.device_id):
            return cupy.random.default_rng(int(seq.generate_state(1, np.uint64)[0]))

    def next_temp(self) -> Resource:
        return self.temp[next(self._turn) % len(self.temp)]

    def push_seed(self, seq: np.random.SeedSequence) -> None:
        def reseed(rctx: Any) -> None:
            if self.ctx.device_typeid != 2:
                # In place, so a generator object fetched earlier follows the new seed too.
                self.generator.bit_generator.state = np.random.PCG64(seq).state
            else:
                self.generator = self._make_generator(seq)

        _engine.get().push_sync(
            reseed, self.ctx, (), (self.random.var,), name="ResourceRandomSetSeed"
        )


_devices: dict[Any, _DeviceResources] = {}
_global_seed = 0
# _devices_lock guards _devices and _global_seed: creating a device's resources and seeding
# all devices must not interleave, or a device created meanwhile would miss the new seed.
_devices_lock = threading.Lock()


def _device_key(ctx: Context) -> Any:
    return ("gpu", ctx.device_id) if ctx.device_typeid == 2 else "cpu"


def _resources(ctx: Context) -> _DeviceResources:
    key = _device_key(ctx)
    res = _devices.get(key)
    if res is None:
        with _devices_lock:
            res = _devices.get(key)
            if res is None:
                dev = Context("gpu", ctx.device_id) if key != "cpu" else Context("cpu", 0)
                res = _devices[key] = _DeviceResources(dev, _global_seed)
    return res


def request(ctx: Context, req: ResourceRequest | int) -> Resource:
    """Return a resource of kind ``req`` on ``ctx`` (MXNet's ``ResourceManager::Request``).

    Parameters
    ----------
    ctx : Context
        The device.
    req : ResourceRequest
        ``ResourceRequest.RANDOM`` gives the device's one generator; ``TEMP_SPACE`` gives the
        next of the device's temp-space copies, round-robin.
    """
    if not isinstance(ctx, Context):
        raise MXNetError(f"resource.request: argument 'ctx' must be a Context, got {ctx!r}.")
    try:
        req = ResourceRequest(req)
    except ValueError:
        raise ParamError(
            "resource.request: argument 'req' must be ResourceRequest.RANDOM or "
            f"ResourceRequest.TEMP_SPACE, got {req!r}."
        ) from None
    res = _resources(ctx)
    return res.random if req is ResourceRequest.RANDOM else res.next_temp()


def seed(seed_state: int, ctx: Context | str = "all") -> None:
    """Reseed the random generators of every device (``ctx='all'``) or of one device.

    See :func:`mxlite.random.seed`. The reseed is pushed to the engine, ordered after the draws
    already pushed and before those pushed later.
    """
    global _global_seed
    if ctx == "all":
        with _devices_lock:
            _global_seed = int(seed_state) & 0xFFFFFFFF
            targets = list(_devices.values())
        for res in targets:
            res.push_seed(_seed_sequence(seed_state, res.ctx, True))
    else:
        res = _resources(ctx)
        res.push_seed(_seed_sequence(seed_state, res.ctx, False))


def _reset() -> None:
    """Forget every device's resources and the global seed, so that the next request reads the
    settings again and starts from seed 0 (for tests). Resources handed out stay usable."""
    global _global_seed
    with _devices_lock:
        _devices.clear()
        _global_seed = 0
