"""Errors, settings and type aliases shared by every layer of mxlite.

Every ``MXNET_*`` environment variable is read here and nowhere else, under MXNet's own names,
so that a bad value fails once, naming the variable and what it holds.
"""

from __future__ import annotations

import ctypes
import os
import re
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

import ml_dtypes
import numpy as np

__all__ = [
    "MXNetError",
    "ShapeError",
    "DTypeError",
    "ParamError",
    "NotImplementedForSymbol",
    "NotInMxliteError",
    "absent_names",
    "NotSupportedForSparseNDArray",
    "error_types",
    "register_error",
    "classproperty",
    "with_metaclass",
    "build_param_doc",
    "add_fileline_to_docstring",
    "ThreadScopeMeta",
    "Shape",
    "DTypeLike",
    "ContextLike",
    "env_int",
    "env_bool",
    "env_str",
    "string_types",
    "numeric_types",
    "integer_types",
]

Shape = tuple[int, ...]
DTypeLike = str | type | np.dtype
ContextLike = Any  # a Context, or a (device_type, device_id) that Context() accepts

string_types = (str,)
numeric_types = (float, int, np.generic)
integer_types = (int, np.integer)


class MXNetError(RuntimeError):
    """The error mxlite raises, as MXNet raised ``mxnet.base.MXNetError``.

    It is a ``RuntimeError`` (as in MXNet), so ``except mx.base.MXNetError`` code keeps working.
    """


class ShapeError(MXNetError, ValueError):
    """An argument has a shape the operator or function cannot take."""


class DTypeError(MXNetError, TypeError):
    """An argument has a dtype the operator or function cannot take."""


class ParamError(MXNetError, ValueError):
    """A keyword argument of an operator is unknown, missing or has a bad value."""


class NotInMxliteError(MXNetError, AttributeError):
    """A part of MXNet's API that mxlite does not implement yet. An AttributeError too, so that
    ``hasattr`` and tools that probe attributes see it as missing."""


# Why a name of MXNet's package is absent here: NotInMxliteError says so when it is used
NO_C_LIBRARY = "mxlite has no C library (libmxnet.so): its handles and ctypes helpers do not exist"
NEEDS_CUDA = "it compiles CUDA kernels at run time (NVRTC), which mxlite does not do"
COMPILED_LIBRARY = (
    "it loads compiled C++ libraries (operator plug-ins, TVM, Torch), which mxlite cannot run"
)
NOT_YET = "not yet built: issue 30"
NO_BACKWARD_OPS = (
    "it is one of MXNet's separate backward operators; mxlite computes an operator's gradient "
    "inside the operator"
)
NUMPY_ISSUES = "part of MXNet's NumPy interface, built under the mx.np issues"


def absent_names(
    module: str, reasons: dict[str, str], moved: Sequence[str] = (), home: str = ""
) -> Callable[[str], Any]:
    """A module ``__getattr__`` for the names of MXNet's module ``module`` ("mxnet.base") that
    mxlite's module lacks: each name in ``reasons`` raises NotInMxliteError naming it and its
    reason; each in ``moved`` is read from the mxlite module ``home`` where it is defined
    (imported on first use: it sits above); any other is a plain AttributeError."""

    def __getattr__(name: str) -> Any:
        if name in moved:
            import importlib

            return getattr(importlib.import_module(home), name)
        reason = reasons.get(name)
        if reason is None:
            raise AttributeError(f"module {module.replace('mxnet', 'mxlite', 1)!r} has no "
                                 f"attribute {name!r}")  # fmt: skip
        raise NotInMxliteError(f"{module}.{name} is not in mxlite: {reason}.")

    return __getattr__


class NotImplementedForSymbol(MXNetError):
    """A Symbol was used where only an NDArray works (as in MXNet)."""

    def __init__(self, function: Any, alias: str | None, *args: Any) -> None:
        super().__init__()
        self.function = getattr(function, "__name__", str(function))
        self.alias = alias
        self.args = tuple(str(type(a)) for a in args)

    def __str__(self) -> str:
        msg = f"Function {self.function}"
        if self.alias:
            msg += f" (namely operator '{self.alias}')"
        if self.args:
            msg += " with arguments (" + ", ".join(self.args) + ")"
        return msg + self._tail

    _tail = " is not implemented for Symbol and only available in NDArray."


class NotSupportedForSparseNDArray(NotImplementedForSymbol):
    """A sparse array was used where only a dense NDArray works (as in MXNet)."""

    _tail = " is not supported for SparseNDArray and only available in NDArray."


# MXNet's prefix of its NumPy operators' registered names (``_np_sum``)
_NP_OP_PREFIX = "_np_"

# error classes by name, as MXNet's FFI error handler looks them up (``register_error``)
error_types: dict[str, type] = {}


def register_error(func_name: Any = None, cls: type | None = None) -> Any:
    """Register an error class under ``func_name`` (default: the class name) in
    ``error_types``; usable as ``@register_error`` or ``@register_error("Name")``."""
    if isinstance(func_name, type):
        error_types[func_name.__name__] = func_name
        return func_name

    def deco(klass: type) -> type:
        error_types[func_name if func_name is not None else klass.__name__] = klass
        return klass

    return deco if cls is None else deco(cls)


class _ClassProperty:
    def __init__(self, getter: Any) -> None:
        self.getter = getter

    def __get__(self, obj: Any, klass: type | None = None) -> Any:
        return self.getter.__get__(obj, klass if klass is not None else type(obj))()


def classproperty(func: Any) -> Any:
    """A read-only property of the class (``Klass.name``), as MXNet's ``classproperty``."""
    return _ClassProperty(func if isinstance(func, (classmethod, staticmethod)) else
                          classmethod(func))  # fmt: skip


def with_metaclass(meta: type, *bases: type) -> type:
    """A base class that makes subclasses with metaclass ``meta`` and bases ``bases``."""

    class _Meta(type):
        def __new__(cls, name: str, _bases: tuple, namespace: dict) -> Any:
            return meta(name, bases, namespace)

        @classmethod
        def __prepare__(cls, name: str, _bases: tuple, **kwargs: Any) -> Any:
            return meta.__prepare__(name, bases)

    return type.__new__(_Meta, "_temporary", (), {})


def build_param_doc(
    arg_names: Sequence[str],
    arg_types: Sequence[str],
    arg_descs: Sequence[str],
    remove_dup: bool = True,
) -> str:
    """A docstring's Parameters section from the names, types and descriptions of arguments;
    ``num_args`` is left out, as are repeated names when ``remove_dup``."""
    seen: set[str] = set()
    lines = ["Parameters", "----------"]
    for key, kind, desc in zip(arg_names, arg_types, arg_descs):
        if key == "num_args" or (remove_dup and key in seen):
            continue
        seen.add(key)
        lines.append(f"{key} : {kind}")
        if desc:
            lines.append("    " + desc)
    return "\n".join(lines) + "\n"


def fill_doc(**parts: str) -> Callable[[Any], Any]:
    """A decorator that writes documentation MXNet repeats, written once, into a function's or a
    class's docstring: a line that is only ``{name}`` becomes ``parts[name]``, each of its lines
    indented as the placeholder is (so one part serves functions and methods alike; write it
    unindented). Under ``python -OO`` (no docstrings) it does nothing."""

    def line(m: re.Match) -> str:
        return textwrap.indent(parts[m.group(2)], m.group(1))

    def fill(obj: Any) -> Any:
        if obj.__doc__:
            obj.__doc__ = re.sub(r"^([ \t]*)\{(\w+)\}$", line, obj.__doc__, flags=re.MULTILINE)
        return obj

    return fill


def op_doc_builder(doc_base: type, kind: str, tail: str, var_args_note: bool) -> Callable[..., str]:
    """The ``_build_doc`` of ``ndarray_doc`` (``kind`` 'NDArray') and ``symbol_doc`` ('Symbol'):
    it writes an operator function's docstring from its description, its Parameters section,
    ``tail`` (the front end's own parameter and the Returns section) and the examples of the
    ``<func_name>Doc`` subclass of ``doc_base``, if any; with ``var_args_note``, a function
    taking a variable number of inputs says so after its description."""

    def build_doc(
        func_name: str,
        desc: str,
        arg_names: Sequence[str],
        arg_types: Sequence[str],
        arg_desc: Sequence[str],
        key_var_num_args: str | None = None,
        ret_type: str | None = None,
    ) -> str:
        if key_var_num_args and var_args_note:
            desc += "\nThis function support variable length of positional input."
        param_str = build_param_doc(arg_names, arg_types, arg_desc)
        doc_str = f"{desc}\n\n{param_str}\n{tail}"
        extra = [
            c.__doc__ or "" for c in doc_base.__subclasses__() if c.__name__ == f"{func_name}Doc"
        ]
        doc_str += re.sub("    ", "", "\n" + "\n".join(extra))
        return re.sub("NDArray-or-Symbol", kind, doc_str)

    return build_doc


def add_fileline_to_docstring(module: Any, incursive: bool = True) -> None:
    """Append ``From:file:line`` to the docstring of each function and class of ``module``
    (a module or its name); with ``incursive``, to the methods of its classes too."""
    import inspect
    import sys

    if isinstance(module, str):
        module = sys.modules[module]
    for obj in list(vars(module).values()):
        targets = [obj]
        if inspect.isclass(obj) and incursive:
            targets += [m for m in vars(obj).values() if inspect.isfunction(m)]
        for target in targets:
            if not (inspect.isfunction(target) or inspect.isclass(target)):
                continue
            if target.__doc__ is None or "From:" in target.__doc__:
                continue
            try:
                fname = inspect.getsourcefile(target)
                line = inspect.getsourcelines(target)[-1]
            except (OSError, TypeError):
                continue
            if fname is not None:
                target.__doc__ = (target.__doc__ or "") + f"\n\nFrom:{fname}:{line}"


def env_str(name: str, default: str, choices: Sequence[str] | None = None) -> str:
    """Read the setting ``name``; with ``choices``, reject any other value."""
    value = os.environ.get(name, default)
    if choices is not None and value not in choices:
        raise MXNetError(f"{name} must be one of {', '.join(choices)}, got {value!r}.")
    return value


def env_int(name: str, default: int, minimum: int | None = None) -> int:
    """Read the integer setting ``name``, at least ``minimum`` when given."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise MXNetError(f"{name} must be an integer, got {raw!r}.") from None
    if minimum is not None and value < minimum:
        raise MXNetError(f"{name} must be >= {minimum}, got {raw!r}.")
    return value


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def env_bool(name: str, default: bool) -> bool:
    """Read the boolean setting ``name`` (1/0, true/false, yes/no, on/off)."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    low = raw.strip().lower()
    if low in _TRUE:
        return True
    if low in _FALSE:
        return False
    raise MXNetError(f"{name} must be a boolean (1/0, true/false), got {raw!r}.")


# MXNet's dtype flags (mshadow's TypeFlag), as written in saved NDArray files and passed to ops.
# Keys are NumPy scalar types, looked up as ``DTYPE_NP_TO_MX[np.dtype(x).type]`` the way
# MXNet's python/mxnet/ndarray/ndarray.py does, and also native np.dtype objects, so that
# ``DTYPE_NP_TO_MX[np.dtype(x)]`` works too (also for np.longlong, which is not np.int64 on Linux
# but has an equal dtype). ``None`` maps to -1 ("not given").
# Flags 8-11 exist in mshadow but MXNet 1.9.1 cannot compute on or load them; we keep them so
# arrays of those types still round-trip through mxlite's own files.
_MX_FLAGS: dict[Any, int] = {
    np.float32: 0,
    np.float64: 1,
    np.float16: 2,
    np.uint8: 3,
    np.int32: 4,
    np.int8: 5,
    np.int64: 6,
    np.bool_: 7,
    np.int16: 8,
    np.uint16: 9,
    np.uint32: 10,
    np.uint64: 11,
    ml_dtypes.bfloat16: 12,
}

# bfloat16 (flag 12) has two faces. Arrays hold it as ml_dtypes' NumPy dtype (``BFLOAT16``),
# which computes and casts with round-to-nearest-even. MXNet's Python front end shows it as the
# record dtype ``[('bfloat16', '<u2')]`` (``MX_BFLOAT16``): what ``NDArray.dtype``,
# ``Symbol.infer_type`` and ``asnumpy()`` give, and what users pass as ``dtype=``.
# ``storage_dtype`` maps what users pass to what arrays hold, ``public_dtype`` back.
BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
MX_BFLOAT16 = np.dtype([("bfloat16", np.uint16)])

DTYPE_NP_TO_MX: dict[Any, int] = {
    None: -1,
    **_MX_FLAGS,
    **{np.dtype(t): flag for t, flag in _MX_FLAGS.items()},
    MX_BFLOAT16: 12,
}

# MXNet's table: the dtype its front end shows for each flag (MX_BFLOAT16 for 12)
DTYPE_MX_TO_NP: dict[int, Any] = {
    -1: None,
    **{flag: t for t, flag in _MX_FLAGS.items()},
    12: MX_BFLOAT16,
}


def storage_dtype(dtype: Any) -> np.dtype:
    """The NumPy dtype arrays hold for a dtype a user gives (``'float32'``, ``np.int8``, and
    for bfloat16 MXNet's record dtype, the name ``'bfloat16'`` or ml_dtypes' type)."""
    dt = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
    return BFLOAT16 if dt.names is not None and dt == MX_BFLOAT16 else dt


def public_dtype(dtype: np.dtype) -> Any:
    """What MXNet's front end shows for arrays holding ``dtype``: its scalar type
    (``numpy.float32``), or MXNet's record dtype for bfloat16."""
    t = dtype.type
    return MX_BFLOAT16 if t is ml_dtypes.bfloat16 else t


def public_array(data: np.ndarray) -> np.ndarray:
    """``data`` as MXNet's ``asnumpy()`` gives it: bfloat16 as records of its raw bits."""
    return data.view(MX_BFLOAT16) if data.dtype == BFLOAT16 else data


# ---- names MXNet's Python front end exports from mxnet.base, which user code and MXNet's own
# tests import --------------------------------------------------------------------------------

mx_real_t = np.float32  # MXNet's default real type
mx_uint = int  # a C uint in MXNet; only used for counts and sizes from Python
mx_float = ctypes.c_float
mx_float_p = ctypes.POINTER(mx_float)
# MXNet's C handles. mxlite has none of its own but an NDArray's (an int, as callbacks receive
# it; ``NDArray(handle)`` takes it back, see mxlite.ndarray.ndarray.handle_of); the types stay
# importable for code that names them.
NDArrayHandle = FunctionHandle = OpHandle = CachedOpHandle = SymbolHandle = ctypes.c_void_p
ExecutorHandle = DataIterCreatorHandle = DataIterHandle = KVStoreHandle = ctypes.c_void_p
RecordIOHandle = RtcHandle = CudaModuleHandle = CudaKernelHandle = ctypes.c_void_p
ProfileHandle = DLPackHandle = ctypes.c_void_p


class _NoCLibrary:
    """``mxnet.base._LIB`` where there is no libmxnet.so: importing it works (libraries do so at
    module level), calling any of its functions raises NotInMxliteError naming it."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise NotInMxliteError(f"mxnet.base._LIB.{name} is not in mxlite: {NO_C_LIBRARY}.")

    def __repr__(self) -> str:
        return "<mxlite: no C library>"


_LIB = _NoCLibrary()


def check_call(ret: int) -> None:
    """Raise MXNetError if a C API call returned non-zero. mxlite's ``_LIB`` raises before
    returning, so only a caller's own non-zero code gets here."""
    if ret != 0:
        raise MXNetError(f"check_call: a C API call returned {ret}; {NO_C_LIBRARY}.")


def c_str(string: str) -> ctypes.c_char_p:
    """``string`` as a ctypes ``char *`` (UTF-8)."""
    return ctypes.c_char_p(string.encode("utf-8"))


def c_str_array(strings: Sequence[str]) -> Any:
    """``strings`` as a ctypes ``const char **`` (UTF-8)."""
    arr = (ctypes.c_char_p * len(strings))()
    arr[:] = [s.encode("utf-8") for s in strings]
    return arr


def c_array(ctype: Any, values: Sequence[Any]) -> Any:
    """A ctypes array of ``ctype`` holding a copy of ``values``."""
    out = (ctype * len(values))()
    out[:] = values
    return out


def c_array_buf(ctype: Any, buf: Any) -> Any:
    """A ctypes array of ``ctype`` over the writable buffer ``buf`` (no copy)."""
    return (ctype * len(buf)).from_buffer(buf)


def ctypes2buffer(cptr: Any, length: int) -> bytearray:
    """A copy of ``length`` bytes at the ctypes ``char`` pointer ``cptr``."""
    if not isinstance(cptr, ctypes.POINTER(ctypes.c_char)):
        raise TypeError(f"ctypes2buffer: cptr must be a POINTER(c_char), got {type(cptr).__name__}")
    res = bytearray(length)
    rptr = (ctypes.c_char * length).from_buffer(res)
    if not ctypes.memmove(rptr, cptr, length):
        raise RuntimeError("ctypes2buffer: memmove failed")
    return res


def ctypes2numpy_shared(cptr: Any, shape: Sequence[int]) -> np.ndarray:
    """A float32 NumPy array of ``shape`` sharing the memory at the ``mx_float`` pointer
    ``cptr``."""
    if not isinstance(cptr, ctypes.POINTER(mx_float)):
        raise RuntimeError("ctypes2numpy_shared: expected a float pointer")
    size = int(np.prod(shape, dtype=np.int64))
    dbuffer = (mx_float * size).from_address(ctypes.addressof(cptr.contents))
    return np.frombuffer(dbuffer, dtype=np.float32).reshape(shape)


def py_str(x: bytes | str) -> str:
    """Decode bytes from MXNet's C API (here: any bytes) as UTF-8; strings pass through."""
    return x.decode("utf-8") if isinstance(x, bytes) else x


def _as_list(obj: Any) -> list:
    """``obj`` as a list: lists and tuples as they are, anything else in a one-item list."""
    if isinstance(obj, (list, tuple)):
        return list(obj)
    return [obj]


def flatten_nested(
    args: Any, leaf_format: Callable[[Any], int | None], bad_item: Callable[[Any], Exception]
) -> tuple[list, Any]:
    """The leaves of nested lists/tuples ``args`` in order, and the format that
    :func:`regroup_nested` rebuilds the nesting from (MXNet's ``_flatten``).

    ``leaf_format(x)`` is a leaf's format (0 one item, n > 0 an item of n outputs, -1 None) or
    None when ``x`` is no leaf; ``bad_item(x)`` is the error for what is neither leaf nor list.
    """
    fmt = leaf_format(args)
    if fmt is not None:
        return [args], fmt
    if not isinstance(args, (list, tuple)):
        raise bad_item(args)
    flat: list = []
    fmts: list = []
    for a in args:
        leaves, sub = flatten_nested(a, leaf_format, bad_item)
        flat.extend(leaves)
        fmts.append(sub)
    return flat, fmts


def regroup_nested(args: list, fmt: Any, error: type[Exception] = ParamError) -> tuple[Any, list]:
    """Rebuild from the flat ``args`` the nesting :func:`flatten_nested` recorded in ``fmt``;
    returns it and the items left over (MXNet's ``_regroup``)."""
    if isinstance(fmt, int):
        if fmt < -1:
            raise error(f"Unsupported encoded format {fmt}.")
        if fmt == 0:
            return args[0], args[1:]
        if fmt == -1:
            if args[0] is not None:
                raise error(
                    "We do not support passing types that are not None when the initial "
                    "HybridBlock has received NoneType and has been hybridized. Received "
                    f"arg = {args[0]}, fmt = {fmt}."
                )
            return None, args[1:]
        return args[:fmt], args[fmt:]
    if not isinstance(args, (list, tuple)):
        raise error(
            "When hybridized, the output of HybridBlock must be (nested) list of Symbol "
            f"or NDArray, but got {args} of type {type(args)}"
        )
    ret = []
    for f in fmt:
        res, args = regroup_nested(args, f, error)
        ret.append(res)
    return ret, args


def data_dir_default() -> str:
    """Where MXNet keeps downloaded data by default: ~/.mxnet (%APPDATA%/mxnet on Windows)."""
    import platform

    if platform.system() == "Windows":
        return os.path.join(os.environ.get("APPDATA", ""), "mxnet")
    return os.path.join(os.path.expanduser("~"), ".mxnet")


def data_dir() -> str:
    """The data directory: ``MXNET_HOME`` if set, else :func:`data_dir_default`."""
    return os.getenv("MXNET_HOME", data_dir_default())


class ThreadScopeMeta(type):
    """Metaclass of the per-thread scopes (``AttrScope``, ``NameManager``): as in MXNet 1.9.1,
    ``Cls.current`` is the calling thread's scope (a default one until set) and
    ``Cls.current = scope`` sets it. A class keeps the value in its ``_current``
    (a ``threading.local``) and makes the default with ``_default_scope()``."""

    @property
    def current(cls) -> Any:
        holder = cls._current  # type: ignore[attr-defined]
        value = getattr(holder, "value", None)
        if value is None:
            value = holder.value = cls._default_scope()  # type: ignore[attr-defined]
        return value

    @current.setter
    def current(cls, value: Any) -> None:
        cls._current.value = value  # type: ignore[attr-defined]


__getattr__ = absent_names(
    "mxnet.base",
    {n: NO_C_LIBRARY for n in (
        "c_handle_array", "MXCallbackList", "c2pyerror", "get_last_ffi_error")},
)  # fmt: skip


def add_members(namespace: dict[str, Any], where: str, owner: str, members: dict[str, Any]) -> None:
    """Add ``members`` to the module namespace ``namespace`` (``globals()`` of the module called
    ``where``, as users name it: ``mx.nd``), for ``owner``, a module above it: what each lower
    layer's ``provide()`` does. A name already there is an error, so two modules cannot silently
    replace each other's."""
    for name, value in members.items():
        if name in namespace:
            raise ParamError(f"{where}.{name}: exists already; {owner} cannot add it.")
        namespace[name] = value


def extend_class(cls: type, added_by: dict[str, str], owner: str, members: dict[str, Any]) -> None:
    """Give the class ``cls`` the ``members`` that ``owner``, a module above it, implements:
    what each lower layer's ``extend()`` does. ``added_by`` (kept beside ``cls``) records which
    module added each name; a name another module already added is an error, so two modules
    cannot silently replace each other's methods."""
    for name, value in members.items():
        prev = added_by.get(name)
        if prev is not None and prev != owner:
            raise MXNetError(f"{cls.__name__}.{name}: added by {prev}, and again by {owner}.")
        added_by[name] = owner
        setattr(cls, name, value)
