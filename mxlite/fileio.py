"""Files from elsewhere, and files we write: the two pieces every reader and writer shares.

**Atomic writes.** :func:`atomic_write` opens a temporary file in the target's folder; when the
``with`` block ends normally the data is flushed, fsynced and the file renamed over the target
(then the folder is fsynced, where the platform allows). When the block raises, or the process
dies first, the temporary is removed (or left under a dot-name) and the target is untouched, so
no save ever leaves half a file under the real name.

**Restricted unpickling.** :func:`restricted_loads` unpickles bytes that came from a file or a
user (optimizer states, pickled NDArrays) admitting only globals on an allow-list: builtin
containers and scalars, NumPy's arrays, dtypes and scalars (with the reconstructor functions
NumPy pickles them through, and the codec call protocol 2 writes bytes with), and the classes
that mxlite's modules register with :func:`allow` (NDArray, optimizers, learning-rate
schedulers; ``mxlite.run.pickles`` adds every class MXNet pickles: symbols, contexts, data
batches, Gluon parameters and blocks), under mxlite's module paths and MXNet's. Any other
global raises ``pickle.UnpicklingError`` naming ``module.name`` before it is looked up, so
nothing a file names is imported or called. The list is filled by the modules that own the
classes, because they sit above this one (it imports only ``base``).

Example::

    >>> import pickle
    >>> restricted_loads(pickle.dumps({"a": (1, 2.5, "x")}), "example")
    {'a': (1, 2.5, 'x')}
    >>> restricted_loads(pickle.dumps(print), "example")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    _pickle.UnpicklingError: example: refusing to unpickle builtins.print: ...
"""

from __future__ import annotations

import _compat_pickle
import builtins
import codecs
import collections
import contextlib
import copyreg
import importlib
import io
import os
import pickle
import pickletools
import secrets
from collections.abc import Callable, Iterator
from typing import IO, Any

from .base import MXNetError

__all__ = ["atomic_write", "allow", "allow_resolver", "extract_tar", "restricted_loads"]


def extract_tar(archive: str, root: str) -> None:
    """Extract the tar archive ``archive`` (any compression) into ``root``, refusing members
    that would land outside it, links out of it and special files (tarfile's ``data`` filter,
    Python >= 3.10.12 / 3.11.4; older ones extract as they are)."""
    import tarfile

    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(root, filter="data")
        else:
            tar.extractall(root)  # noqa: S202  (no filter before 3.10.12)


# ---- atomic writes --------------------------------------------------------------------------


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike, mode: str = "wb", where: str = "save") -> Iterator[IO]:
    """Write ``path`` through a temporary file renamed over it when the block succeeds.

    Parameters
    ----------
    path : str or PathLike
        The file to write.
    mode : str, default 'wb'
        'wb' for bytes, 'w' for text (UTF-8).
    where : str, default 'save'
        The caller's name for error messages ("Module.save_optimizer_states").
    """
    if mode not in ("wb", "w"):
        raise MXNetError(f"atomic_write: mode must be 'wb' or 'w', got {mode!r}.")
    if not isinstance(path, (str, os.PathLike)):
        raise MXNetError(
            f"{where}: argument 'fname' must be a str path, got {type(path).__name__}."
        )
    target = os.path.abspath(os.fspath(path))
    folder, base = os.path.split(target)
    tmp = os.path.join(folder, f".{base}.{secrets.token_hex(8)}.tmp")
    try:
        # 0o666 so that the umask decides the final mode, as for a file opened plainly.
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    except OSError as exc:
        raise MXNetError(f"{where}: cannot write file {os.fspath(path)!r}: {exc.strerror}") from exc
    try:
        with os.fdopen(fd, mode) if mode == "wb" else os.fdopen(fd, mode, encoding="utf-8") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise MXNetError(f"{where}: cannot write file {os.fspath(path)!r}: {exc}") from exc
        raise
    _fsync_dir(folder)


def _fsync_dir(folder: str) -> None:
    # Makes the rename itself durable; not possible on every platform, so best effort.
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ---- restricted unpickling ------------------------------------------------------------------

_BUILTINS = frozenset(
    "dict list tuple set frozenset int float complex bool str bytes bytearray slice range "
    "object".split()
)
# NumPy pickles arrays and scalars through these functions; they only rebuild NumPy objects.
_NUMPY = {
    ("numpy", "ndarray"),
    ("numpy", "dtype"),
    ("numpy.core.multiarray", "_reconstruct"),
    ("numpy.core.multiarray", "scalar"),
    ("numpy._core.multiarray", "_reconstruct"),
    ("numpy._core.multiarray", "scalar"),
    ("numpy.core.numeric", "_frombuffer"),  # protocol 5
    ("numpy._core.numeric", "_frombuffer"),
}
# module.name -> object, filled by allow(); resolvers answer for open-ended families.
_ALLOWED: dict[tuple[str, str], Any] = {}
_RESOLVERS: list[Callable[[str, str], Any]] = []


def allow(obj: type, *aliases: str) -> type:
    """Admit class ``obj`` when a pickle names it as ``<its module>.<its name>`` or as any of
    the dotted ``aliases`` (MXNet's names, say ``'mxnet.lr_scheduler.FactorScheduler'``)."""
    if not isinstance(obj, type):
        raise MXNetError(f"fileio.allow: only classes may be admitted, got {obj!r}.")
    _ALLOWED[(obj.__module__, obj.__qualname__)] = obj
    for alias in aliases:
        module, _, name = alias.rpartition(".")
        _ALLOWED[(module, name)] = obj
    return obj


def allow_resolver(resolver: Callable[[str, str], Any]) -> None:
    """Consult ``resolver(module, name)`` for globals not on the list; it returns the class to
    admit, or None. (The optimizer registry answers for every registered optimizer.)"""
    _RESOLVERS.append(resolver)


def _resolve(module: str, name: str) -> Any:
    if module == "builtins" and name in _BUILTINS:
        return getattr(builtins, name)
    if (module, name) == ("collections", "OrderedDict"):
        return collections.OrderedDict
    if (module, name) in _NUMPY:
        return getattr(importlib.import_module(module), name)
    if module == "numpy" and _is_numpy_scalar_type(name):  # a dtype given as its type
        return getattr(importlib.import_module("numpy"), name)
    if (module, name) == ("copyreg", "_reconstructor"):  # protocol 0/1 objects; checks classes
        return copyreg._reconstructor  # type: ignore[attr-defined]
    if (module, name) == ("_codecs", "encode"):  # protocol 2 writes bytes as encode(str, latin1)
        return codecs.encode
    hit = _ALLOWED.get((module, name))
    if hit is not None:
        return hit
    for resolver in _RESOLVERS:
        hit = resolver(module, name)
        if isinstance(hit, type):
            return hit
    return None


def _is_numpy_scalar_type(name: str) -> bool:
    import numpy

    found = getattr(numpy, name, None) if not name.startswith("_") else None
    return isinstance(found, type) and issubclass(found, numpy.generic)


class _Restricted(pickle.Unpickler):
    def __init__(self, data: bytes, what: str) -> None:
        super().__init__(io.BytesIO(data))
        self._what = what

    def find_class(self, module: str, name: str) -> Any:
        # Python 2 names (protocol 2 writes __builtin__), mapped as pickle's fix_imports does
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        found = _resolve(module, name)
        if found is None:
            raise pickle.UnpicklingError(
                f"{self._what}: refusing to unpickle {module}.{name}: only NDArrays, NumPy "
                "arrays, builtin values and the MXNet classes that MXNet pickles (optimizers, "
                "learning-rate schedulers, symbols, Gluon parameters and blocks, ...) may be "
                "in such a file."
            )
        return found


def restricted_loads(data: bytes | bytearray | memoryview, what: str) -> Any:
    """Unpickle ``data`` admitting only the allow-listed globals (see the module note).

    Parameters
    ----------
    data : bytes
        The pickle.
    what : str
        The caller, named in errors ("Updater.set_states").
    """
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise MXNetError(f"{what}: expected the pickled bytes, got {type(data).__name__}.")
    data = bytes(data)
    _check_sizes(data, what)
    return _Restricted(data, what).load()


def _check_sizes(data: bytes, what: str) -> None:
    """Walk the opcodes in pure Python first: a length an opcode claims is checked against the
    bytes that are there before anything is allocated for it (the C unpickler would try)."""
    try:
        for op, arg, pos in pickletools.genops(data):
            # memo indices and frame lengths size what the C unpickler allocates: a memo can
            # never hold more entries, nor a frame more bytes, than the pickle has bytes
            if op.name in _SIZED and isinstance(arg, int) and not 0 <= arg <= len(data):
                raise pickle.UnpicklingError(
                    f"{what}: damaged pickle: {op.name} at offset {pos} claims {arg}, more than "
                    f"the {len(data)} bytes there are."
                )
    except pickle.UnpicklingError:
        raise
    except Exception as exc:  # genops raises ValueError (and a few others) on damaged data
        raise pickle.UnpicklingError(f"{what}: damaged pickle ({exc}).") from None


_SIZED = frozenset({"PUT", "BINPUT", "LONG_BINPUT", "GET", "BINGET", "LONG_BINGET", "FRAME"})
