"""Run existing MXNet code on mxlite: ``import mxnet`` resolves to mxlite, by opting in.

Three ways, each explicit (nothing happens by accident, and a real ``mxnet`` installed beside
mxlite is never shadowed otherwise):

* ``python -m mxlite.run script.py args...`` (or ``-m package.module args...``) runs the script
  with the alias on, in its process and in every Python process it starts: the environment gets
  ``MXLITE_AS_MXNET=1`` and a folder on ``PYTHONPATH`` whose ``mxnet`` package turns the alias
  on when a child (a ``DataLoader`` worker, ``multiprocessing``, ``subprocess``) imports it;
* ``MXLITE_AS_MXNET=1`` in the environment: the start-up hook installed with the package
  (``mxlite-as-mxnet.pth``) turns the alias on in every Python process of that environment;
* ``mxlite.as_mxnet()`` in code, before the first ``import mxnet``.

Under the alias there is one module object per module: ``mxnet.gluon is mxlite.gluon``,
``mxnet.base.MXNetError is mxlite.base.MXNetError``. A meta-path finder answers every
``import mxnet.X.Y`` with the module ``mxlite.X.Y`` itself.

``--numpy-aliases`` (or ``MXLITE_NUMPY_ALIASES=1``) also restores NumPy's aliases that NumPy
1.24 removed (``np.int``, ``np.float``, ``np.bool``, ``np.object``, ...) and the binary mode of
``np.fromstring`` that NumPy 2.3 removed, in that process only, for code written before them;
off by default, with one warning naming what it did.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import runpy
import sys
import types
import warnings
from collections.abc import Sequence

from .pickles import use_mxnet_names

__all__ = ["as_mxnet", "numpy_aliases", "main"]

_ALIAS = "mxnet"
_TARGET = "mxlite"
# The folder put on PYTHONPATH for child processes: its mxnet/__init__.py calls as_mxnet().
SHIM_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shim")


class _Loader(importlib.abc.Loader):
    """Hands back the mxlite module itself for an ``mxnet.*`` name."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = importlib.import_module(self.target)
        self.spec = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        # the import machinery set the alias's spec on the module: give it back its own
        if self.spec is not None:
            module.__spec__ = self.spec


class _Finder(importlib.abc.MetaPathFinder):
    """Answers ``import mxnet.X.Y`` with ``mxlite.X.Y`` (the same module object)."""

    def find_spec(self, fullname: str, path: object = None, target: object = None):
        if not fullname.startswith(_ALIAS + "."):
            return None
        real = _TARGET + fullname[len(_ALIAS) :]
        module = sys.modules.get(real)
        if module is None:
            try:
                spec = importlib.util.find_spec(real)
            except (ImportError, ValueError):
                return None
            if spec is None:
                return None
            is_pkg = spec.submodule_search_locations is not None
        else:
            is_pkg = hasattr(module, "__path__")
        return importlib.util.spec_from_loader(fullname, _Loader(real), is_package=is_pkg)


def as_mxnet() -> types.ModuleType:
    """Make ``import mxnet`` (and every ``mxnet.X.Y``) give mxlite's modules in this process.

    Call it before the first ``import mxnet``. Returns the mxlite package.
    """
    current = sys.modules.get(_ALIAS)
    root = importlib.import_module(_TARGET)
    if current is not None and current is not root and not _is_shim(current):
        raise ImportError(
            "mxlite.as_mxnet: a module named 'mxnet' is imported already "
            f"({getattr(current, '__file__', current)!r}); call as_mxnet() before importing it."
        )
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
    use_mxnet_names()
    for name, module in list(sys.modules.items()):
        if module is not None and (name == _TARGET or name.startswith(_TARGET + ".")):
            sys.modules.setdefault(_ALIAS + name[len(_TARGET) :], module)
    sys.modules[_ALIAS] = root
    return root


def _is_shim(module: types.ModuleType) -> bool:
    return os.path.dirname(os.path.dirname(getattr(module, "__file__", "") or "")) == SHIM_DIR


_NUMPY_ALIASES = {
    "bool": bool,
    "int": int,
    "float": float,
    "complex": complex,
    "object": object,
    "str": str,
    "long": int,
    "unicode": str,
}


def _restore_binary_fromstring(np: types.ModuleType) -> bool:
    """NumPy 2.3 removed ``np.fromstring(bytes)`` without ``sep`` (MXNet's MNIST examples use
    it): route that form to a copy of ``np.frombuffer``, leave the text form to NumPy."""
    try:
        np.fromstring(b"\0", dtype=np.uint8)
        return False
    except ValueError:
        pass
    text_fromstring = np.fromstring

    def fromstring(string, dtype=float, count=-1, *, sep="", like=None):  # noqa: ANN001, ANN202
        if sep == "" and like is None:
            return np.frombuffer(string, dtype=dtype, count=count).copy()
        return text_fromstring(string, dtype=dtype, count=count, sep=sep, like=like)

    np.fromstring = fromstring
    return True


def numpy_aliases() -> list[str]:
    """Put back the NumPy aliases removed in NumPy 1.24 (``np.int`` and the like) and the binary
    mode of ``np.fromstring`` in this process; returns the names restored (none where NumPy
    still has them)."""
    import numpy as np

    restored = [name for name in _NUMPY_ALIASES if name not in np.__dict__]
    for name in restored:
        setattr(np, name, _NUMPY_ALIASES[name])
    if "NaN" not in np.__dict__:
        np.NaN = np.nan  # type: ignore[attr-defined]
        restored.append("NaN")
    if _restore_binary_fromstring(np):
        restored.append("fromstring (binary mode)")
    if restored:
        warnings.warn(
            "mxlite.run: restored NumPy's removed aliases for old code: "
            + ", ".join(f"np.{n}" for n in restored),
            stacklevel=2,
        )
    return restored


def _child_environment(numpy: bool) -> None:
    """Let every Python process this one starts have the alias too."""
    os.environ["MXLITE_AS_MXNET"] = "1"
    if numpy:
        os.environ["MXLITE_NUMPY_ALIASES"] = "1"
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if SHIM_DIR not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([SHIM_DIR, *paths])
    if SHIM_DIR not in sys.path:  # multiprocessing's spawn hands its children this sys.path
        sys.path.insert(0, SHIM_DIR)


_USAGE = "usage: python -m mxlite.run [--numpy-aliases] (script.py | -m module) [args...]"


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m mxlite.run [--numpy-aliases] script.py args...`` (or ``-m module args``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    numpy = os.environ.get("MXLITE_NUMPY_ALIASES") == "1"
    if args and args[0] == "--numpy-aliases":
        numpy = True
        args.pop(0)
    if not args or args[0] in ("-h", "--help") or (args[0] == "-m" and len(args) < 2):
        print(_USAGE, file=sys.stderr)
        raise SystemExit(0 if args and args[0] in ("-h", "--help") else 2)
    _child_environment(numpy)
    as_mxnet()
    if numpy:
        numpy_aliases()
    if args[0] == "-m":
        sys.argv = [args[1], *args[2:]]
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = list(args)
        sys.path.insert(0, os.path.dirname(os.path.abspath(args[0])))
        runpy.run_path(args[0], run_name="__main__")


def startup_hook() -> None:
    """What the installed ``.pth`` file runs at start-up: nothing unless MXLITE_AS_MXNET=1."""
    if os.environ.get("MXLITE_AS_MXNET") != "1":
        return
    as_mxnet()
    if os.environ.get("MXLITE_NUMPY_ALIASES") == "1":
        numpy_aliases()
