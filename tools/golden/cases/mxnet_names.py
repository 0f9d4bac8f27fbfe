"""The module-level names of MXNet 1.9.1's Python package (tests/test_mxnet_names.py): one case
per module, its ``names``; case ``values`` holds MXNet's ``version`` and the private data tables
libraries read, whole (``model_sha1``: the model store's SHA-1s).

Every module under ``mxnet`` that imports on this CPU is walked, except the NumPy-style
namespaces (``mxnet.numpy``, ``mxnet.numpy_extension``, ``ndarray.numpy``, ``symbol.numpy``,
their ``numpy_extension`` twins: other golden files cover them), private modules (a path part
starting with ``_``) and the ``gen_*`` files MXNet writes operator stubs into (their functions
are the ``mx.nd``/``mx.sym`` namespaces). A module's names are what code outside MXNet reads
from it:

- a package's public names (``mx.gluon.nn.Dense``), including its submodules;
- in a plain module, the public names it defines (a class or function whose ``__module__`` is
  that module, a constant not taken from ``mxnet.base``/``mxnet.util``), its own submodules,
  and the re-exports in :data:`REEXPORTS`;
- the private names libraries are known to read (:data:`PRIVATE`).

Names bound to modules or callables from outside MXNet (``os``, ``np``, ``namedtuple``) are left
out, as are names only imported for the module's own use (``gluon.block.is_np_array``).
The ``sparse`` namespaces also get every generated operator function (``mx.nd.sparse.abs``).
"""

import importlib
import pkgutil
import sys
import types
import warnings
from typing import Any

from core import Golden

FILE = "tests/golden/mxnet_names.npz"

SKIP = ("mxnet.numpy", "mxnet.numpy_extension", "mxnet.ndarray.numpy",
        "mxnet.ndarray.numpy_extension", "mxnet.symbol.numpy", "mxnet.symbol.numpy_extension",
        "mxnet.numpy_op_signature")  # fmt: skip

# imported names that libraries read from a module other than the one defining them
REEXPORTS = {
    "mxnet.metric": ["ndarray"],
    "mxnet.gluon.data.dataloader": ["ForkingPickler"],
    "mxnet.gluon.model_zoo.model_store": ["apache_repo_url"],
}

PRIVATE = {
    "mxnet.gluon.model_zoo.model_store": ["_model_sha1", "_url_format"],
    "mxnet.base": ["_LIB", "_NP_OP_PREFIX", "_as_list"],
    "mxnet.ndarray.ndarray": [
        "_STORAGE_TYPE_STR_TO_ID",
        "_STORAGE_TYPE_ID_TO_STR",
        "_GRAD_REQ_MAP",
    ],
    "mxnet.ndarray.sparse": ["_ndarray_cls"],
    "mxnet.context": ["_current"],
    "mxnet.gluon.block": ["_flatten", "_regroup"],
    "mxnet.gluon.utils": ["_get_repo_url", "_get_repo_file_url"],
    "mxnet.symbol": ["_internal"],
    "mxnet.ndarray": ["_internal"],
}


def _skipped(name: str) -> bool:
    parts = name.split(".")
    return (any(name == s or name.startswith(s + ".") for s in SKIP)
            or any(p.startswith("_") for p in parts[1:]) or parts[-1].startswith("gen_")
            or parts[-1] == "setup")  # fmt: skip


def _modules(mxnet: Any) -> dict[str, types.ModuleType]:
    found = {"mxnet": mxnet}
    for info in pkgutil.walk_packages(mxnet.__path__, "mxnet.", onerror=lambda n: None):
        if _skipped(info.name):
            continue
        try:
            found[info.name] = importlib.import_module(info.name)
        except BaseException as err:  # noqa: BLE001  (libmxnet.so itself, optional deps)
            print(f"skipped {info.name}: {type(err).__name__}", file=sys.stderr)
    return found


def _names(name: str, module: types.ModuleType, shared: list[int]) -> list[str]:
    is_pkg = hasattr(module, "__path__")
    out = {n for n in (*REEXPORTS.get(name, ()), *PRIVATE.get(name, ())) if hasattr(module, n)}
    for key, value in vars(module).items():
        if key.startswith(("_", "gen_")):  # gen_op & co.: the files of generated stubs
            continue
        if isinstance(value, types.ModuleType):
            inner = value.__name__ != "mxnet" and value.__name__.startswith("mxnet")
            if value.__name__.startswith(name + ".") or (is_pkg and inner):
                out.add(key)
            continue
        origin = getattr(value, "__module__", None)
        if isinstance(value, type) or callable(value):
            ours = isinstance(origin, str) and origin.startswith("mxnet")
            if ours and (is_pkg or origin == name):
                out.add(key)
        elif name == "mxnet.base" or id(value) not in shared:
            out.add(key)
    return sorted(out)


def record(golden: Golden) -> None:
    warnings.simplefilter("ignore")
    import mxnet

    mods = _modules(mxnet)
    shared = [id(v) for m in (mxnet.base, mxnet.util) for v in vars(m).values()]
    table = {name: _names(name, mod, shared) for name, mod in sorted(mods.items())}
    for ns in ("mxnet.ndarray.sparse", "mxnet.symbol.sparse"):
        ops = {k for k in dir(mods[ns]) if not k.startswith("_") and callable(getattr(mods[ns], k))}
        table[ns] = sorted(set(table[ns]) | ops)
    for name, names in table.items():
        if names:
            golden.put(name, {"names": names})
    store = mods["mxnet.gluon.model_zoo.model_store"]
    golden.put("values", {"version": mxnet.__version__, "model_sha1": store._model_sha1})
