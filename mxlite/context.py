"""Device contexts: where arrays live and where engine functions run.

A :class:`Context` is a (device type, device id) pair. ``with ctx:`` makes it the default for
the current thread, as in MXNet. This is the only module that chooses the array library
(``xp``): NumPy for CPU contexts, CuPy (imported lazily, on first use) for GPU contexts.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from .base import MXNetError

__all__ = ["Context", "cpu", "gpu", "cpu_pinned", "num_gpus", "current_context", "gpu_memory_info"]


class _ContextMeta(type):
    # MXNet exposes the thread's default as the class-level property ``Context.default_ctx``.
    @property
    def default_ctx(cls) -> Context:
        return current_context()

    @default_ctx.setter
    def default_ctx(cls, value: Context) -> None:
        Context._default.value = value


class Context(metaclass=_ContextMeta):
    """A device context: ``Context('cpu', 0)``, ``Context('gpu', 1)``, or a copy of a Context.

    Parameters
    ----------
    device_type : {'cpu', 'gpu', 'cpu_pinned', 'cpu_shared'} or Context
        The kind of device.
    device_id : int, default 0
        The device number (ignored when ``device_type`` is a Context).
    """

    devtype2str = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
    devstr2type = {"cpu": 1, "gpu": 2, "cpu_pinned": 3, "cpu_shared": 5}
    _default = threading.local()

    __slots__ = ("device_typeid", "device_id", "_old_ctx", "_hash")

    def __init__(self, device_type: Context | str, device_id: int = 0) -> None:
        if isinstance(device_type, Context):
            self.device_typeid = device_type.device_typeid
            self.device_id = device_type.device_id
        else:
            typeid = Context.devstr2type.get(device_type)
            if typeid is None:
                raise MXNetError(
                    f"Context: argument 'device_type' must be one of "
                    f"{', '.join(Context.devstr2type)}, got {device_type!r}."
                )
            if not isinstance(device_id, (int, np.integer)) or device_id < 0:
                raise MXNetError(
                    f"Context: argument 'device_id' must be an int >= 0, got {device_id!r}."
                )
            self.device_typeid = typeid
            self.device_id = int(device_id)
        self._old_ctx: Context | None = None
        # contexts key the engine's and operators' caches on every call: hash once
        self._hash = hash((self.device_typeid, self.device_id))

    @property
    def device_type(self) -> str:
        """The device type as a string: 'cpu', 'gpu', 'cpu_pinned' or 'cpu_shared'."""
        return Context.devtype2str[self.device_typeid]

    @property
    def xp(self) -> ModuleType:
        """The array library that computes on this device (numpy, or cupy for GPUs)."""
        if self.device_typeid == 2:
            return _cupy()
        return np

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: Any) -> bool:
        return other is self or (
            isinstance(other, Context)
            and self.device_typeid == other.device_typeid
            and self.device_id == other.device_id
        )

    def __str__(self) -> str:
        return f"{self.device_type}({self.device_id})"

    __repr__ = __str__

    def __enter__(self) -> Context:
        self._old_ctx = current_context()
        Context._default.value = self
        return self

    def __exit__(self, *exc: Any) -> None:
        Context._default.value = self._old_ctx

    def __reduce__(self) -> tuple[Any, ...]:
        return (Context, (self.device_type, self.device_id))

    def __setstate__(self, state: dict[str, Any]) -> None:
        # MXNet pickles a Context as its __dict__ (device_typeid, device_id, _old_ctx)
        self.__init__(Context.devtype2str[state["device_typeid"]], state["device_id"])

    def empty_cache(self) -> None:
        """Return this device's pooled memory to the system (``mx.context.Context.empty_cache``)."""
        for release in _EMPTY_CACHE_HOOKS:
            release(self)


# What ``Context.empty_cache`` runs, each called with the context. Context sits below storage in
# the layering and knows nothing of it: the storage module registers its release here.
_EMPTY_CACHE_HOOKS: list[Callable[[Context], None]] = []


def on_empty_cache(hook: Callable[[Context], None]) -> None:
    """Have ``Context.empty_cache()`` call ``hook(ctx)`` (used by the storage allocator)."""
    _EMPTY_CACHE_HOOKS.append(hook)


_CPU0 = Context("cpu", 0)


def cpu(device_id: int = 0) -> Context:
    """Return a CPU context. ``device_id`` is kept for API compatibility; all CPUs are one."""
    return Context("cpu", device_id)


def cpu_pinned(device_id: int = 0) -> Context:
    """Return a CPU context for page-locked memory (plain CPU memory here)."""
    return Context("cpu_pinned", device_id)


def gpu(device_id: int = 0) -> Context:
    """Return a GPU context. Arrays on it need CuPy (the ``gpu`` extra)."""
    return Context("gpu", device_id)


def current_context() -> Context:
    """Return the default context of this thread: the innermost ``with ctx:``, else ``cpu(0)``."""
    return getattr(Context._default, "value", None) or _CPU0


_cupy_module: ModuleType | None = None


def _cupy() -> ModuleType:
    global _cupy_module
    if _cupy_module is None:
        try:
            import cupy  # noqa: PLC0415  (optional extra, imported only here)
        except ImportError:
            raise MXNetError(
                "GPU contexts need CuPy: install mxlite with the 'gpu' extra "
                "(pip install 'mxlite[gpu]') on a machine with a CUDA GPU."
            ) from None
        _cupy_module = cupy
    return _cupy_module


def num_gpus() -> int:
    """Return the number of GPUs that CuPy can see; 0 without CuPy or without a GPU."""
    try:
        cupy = _cupy()
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # no CuPy, no driver, or no device: all mean "no GPU" to callers
        return 0


def gpu_memory_info(device_id: int = 0) -> tuple[int, int]:
    """Return (free, total) bytes of GPU ``device_id``."""
    if device_id >= num_gpus():
        raise MXNetError(f"gpu_memory_info: argument 'device_id' is {device_id}; no such GPU.")
    cupy = _cupy()
    with cupy.cuda.Device(device_id):
        free, total = cupy.cuda.runtime.memGetInfo()
    return int(free), int(total)


def get_gpu_count() -> int:
    """``mx.util.get_gpu_count``: the number of GPUs mxlite can use (``num_gpus``)."""
    return num_gpus()


def get_gpu_memory(gpu_dev_id: int) -> tuple[int, int]:
    """(free, total) bytes of memory of GPU ``gpu_dev_id``."""
    return gpu_memory_info(gpu_dev_id)


def get_cuda_compute_capability(ctx: Any) -> int:
    """The CUDA compute capability of GPU context ``ctx`` (70 for ``sm_70``)."""
    if getattr(ctx, "device_type", None) != "gpu":
        raise ValueError(
            f"Expecting a gpu context to get cuda compute capability, while received ctx {ctx}"
        )
    return int(_cupy().cuda.Device(ctx.device_id).compute_capability)
