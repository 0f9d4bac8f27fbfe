"""Who owns what, read from the source with ``ast`` (as ``test_layering.py`` reads imports).

Two house rules (``docs/architecture.md``, "Facts about an operator live in its operator"):

- No module assigns members onto a class or module that another file of mxlite defines (no
  ``NDArray.x = ...``, ``setattr(Symbol, ...)``, ``other_module.name = ...``). A lower layer
  offers one place where the layers above add what they implement: ``ndarray.ndarray.extend``
  and ``symbol.symbol.extend`` for the classes, ``mxlite.ndarray.provide`` and
  ``mxlite.operator.provide`` for the namespaces.
- No module outside ``mxlite/operator/`` (and the ONNX translations) names registered
  operators in a table or a comparison (``op_name == "dot"``, ``{"BatchNorm": ...}``,
  ``"Pad Crop".split()``): what the rest of the system needs to know about an operator is
  declared on its ``OperatorProperty`` and asked for there.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path
from types import ModuleType
from typing import Any

import mxlite  # noqa: F401  (registers every operator; resolves imported names)
from mxlite.operator import registry

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "mxlite"

# Files whose remaining installs and operator names belong to work in progress elsewhere
# (issue 29, part 5: the nd and sym front ends generated from one description). There,
# symbol/register.py's _FLUENT list becomes registry.fluent_methods() and the generated
# functions are placed in their modules; until then they may not grow.
PENDING = {"mxlite/ndarray/register.py", "mxlite/symbol/register.py"}
PENDING_INSTALLS_AT_MOST = 12
PENDING_NAMES_AT_MOST = 0
# The one front-end generator: it places functions into the namespaces its callers own and hand
# it (mx.nd, mx.sym and their submodules, populated from their own __init__).
GENERATOR = "mxlite/operator/front_end.py"
# setattr onto things that are not mxlite's classes or modules: instances (parameters, a
# user's class being decorated) and numpy's removed aliases under the `import mxnet` shim.
SETATTR_ON_OTHERS = {
    ("mxlite/gluon/parameter_dict.py", "param"),
    ("mxlite/gluon/parameter_dict.py", "p"),
    ("mxlite/gluon/hybrid_block.py", "p"),
    ("mxlite/gluon/rnn/rnn_layer.py", "self"),
    ("mxlite/util.py", "func"),
    ("mxlite/run/__init__.py", "np"),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(path: Path, tree: ast.AST) -> dict[str, tuple[str, str | None]]:
    """Local name -> (module, attribute or None) for every mxlite import in ``tree``."""
    name = _module_name(path)
    is_pkg = path.name == "__init__.py"
    out: dict[str, tuple[str, str | None]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "mxlite":
                    out[a.asname or a.name.split(".")[0]] = (
                        a.name if a.asname else "mxlite",
                        None,
                    )
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_pkg else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] == "mxlite":
                for a in node.names:
                    out[a.asname or a.name] = (target, a.name)
    return out


def _resolve(ref: tuple[str, str | None]) -> object:
    module, attr = ref
    try:
        obj = importlib.import_module(module)
        if attr is not None:
            obj = getattr(obj, attr, None)
            if obj is None:
                obj = importlib.import_module(f"{module}.{attr}")
    except ImportError:
        return None
    return obj


def _defined_elsewhere(obj: object, path: Path) -> bool:
    """Whether ``obj`` is an mxlite class or module whose source is not ``path``."""
    if isinstance(obj, ModuleType):
        origin = getattr(obj, "__file__", None)
    elif isinstance(obj, type):
        try:
            origin = inspect.getsourcefile(obj)
        except TypeError:
            return False
    else:
        return False
    if origin is None or PACKAGE not in Path(origin).resolve().parents:
        return False
    return Path(origin).resolve() != path.resolve()


def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node


def installs() -> list[str]:
    """Every assignment or setattr onto an mxlite class or module of another file."""
    found: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imported = _imported(path, tree)

        def elsewhere(expr: ast.expr, path: Path = path, imported: dict = imported) -> bool:
            root = _root(expr)
            return (
                isinstance(root, ast.Name)
                and root.id in imported
                and _defined_elsewhere(_resolve(imported[root.id]), path)
            )

        for node in ast.walk(tree):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            for t in targets:
                if _sets_a_property(t, imported):
                    continue  # an API of the class (Context.default_ctx = ctx), not a member
                if isinstance(t, (ast.Attribute, ast.Subscript)) and elsewhere(t):
                    found.append(f"{rel}:{node.lineno}: {ast.unparse(t)} = ...")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("setattr", "delattr")
                and node.args
            ):
                first = node.args[0]
                who = ast.unparse(first)
                if rel != GENERATOR and (
                    elsewhere(first)
                    or (
                        isinstance(first, ast.Name)
                        and first.id not in imported
                        and (rel, who) not in SETATTR_ON_OTHERS
                        and not _defined_here(tree, who)
                    )
                ):
                    found.append(f"{rel}:{node.lineno}: {node.func.id}({who}, ...)")
    return found


def _sets_a_property(target: ast.expr, imported: dict) -> bool:
    """Whether ``target`` is ``Class.attr`` where ``attr`` is a property of the class's
    metaclass: assigning it calls the class's own setter."""
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)):
        return False
    if target.value.id not in imported:
        return False
    obj = _resolve(imported[target.value.id])
    return isinstance(obj, type) and isinstance(getattr(type(obj), target.attr, None), property)


def _defined_here(tree: ast.AST, name: str) -> bool:
    """Whether ``name`` is a class defined at the top of this module (its own to extend)."""
    return any(isinstance(n, ast.ClassDef) and n.name == name for n in tree.body)


def _split(found: list[str]) -> tuple[list[str], list[str]]:
    pending = [f for f in found if f.split(":")[0] in PENDING]
    return [f for f in found if f.split(":")[0] not in PENDING], pending


def test_no_module_installs_members_on_another_files_classes_or_modules() -> None:
    left, pending = _split(installs())
    assert len(left) <= 3, "\n".join(left)
    assert len(pending) <= PENDING_INSTALLS_AT_MOST, "\n".join(pending)


# ---- operator names outside the operators ------------------------------------------------

# Where operators are defined (and translated), so names are their own business.
OPERATOR_HOMES = ("mxlite/operator/", "mxlite/onnx/")
# Lists of official NumPy's function names (MXNet's __array_function__/__array_ufunc__
# dispatch lists), which share many words with MXNet's legacy operators but name none of them.
NUMPY_NAME_LISTS = ("mxlite/numpy/dispatch.py",)
# MXNet's AMP operator lists (mx.contrib.amp.lists.symbol_fp16/bf16): public data users read and
# override, kept as MXNet keeps them; the rewrite that reads them names no operator of its own.
AMP_LISTS = ("mxlite/contrib/amp/lists/",)


def _names_in(node: ast.expr, names: Any) -> list[str]:
    """Registered operator names a table or comparison operand spells out."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if node.value in names else []
    if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
        return [n for e in node.elts for n in _names_in(e, names)]
    if isinstance(node, ast.Dict):  # keyed by operator, or mapping to operators
        return [n for e in [*node.keys, *node.values] if e is not None for n in _names_in(e, names)]
    if (  # "a b c".split()
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "split"
        and isinstance(node.func.value, ast.Constant)
        and isinstance(node.func.value.value, str)
    ):
        return [w for w in node.func.value.value.split() if w in names]
    if (  # frozenset({...}), set([...]), dict.fromkeys(...): tables too (other calls are not)
        isinstance(node, ast.Call)
        and ast.unparse(node.func) in ("frozenset", "set", "tuple", "list", "dict", "dict.fromkeys")
        and node.args
    ):
        return [n for a in node.args for n in _names_in(a, names)]
    return []


def operator_names_outside_operators() -> list[str]:
    """``file:line: name`` for each registered operator name spelled in a table (a set, list,
    tuple or dict literal, or a split string, bound to a name at module level or in a
    class) or in a comparison (``==``, ``!=``, ``in``, ``not in``) on an operator's name
    (``op``, ``op_name``, ``name``)."""
    names = set(registry._REGISTRY)
    found: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(OPERATOR_HOMES + AMP_LISTS) or rel in NUMPY_NAME_LISTS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            spelled: list[str] = []
            if isinstance(node, ast.Compare) and any(_is_op_name(e) for e in _operands(node)):
                for e in _operands(node):
                    spelled += _names_in(e, names)
            elif isinstance(node, (ast.For, ast.comprehension)):
                spelled += _tables(node.iter, names)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                    continue  # a module's exports are its functions, whatever they run
                spelled += _tables(node.value, names)
            where = node.iter if isinstance(node, ast.comprehension) else node
            line = getattr(where, "lineno", 0)
            found += [f"{rel}:{line}: {n}" for n in spelled]
    return found


def _operands(node: ast.Compare) -> list[ast.expr]:
    return [node.left, *node.comparators]


def _is_op_name(expr: ast.expr) -> bool:
    """Whether ``expr`` reads like an operator's name: ``op``, ``x.op``, ``prop.op_name``,
    ``node.op.op_name``, ``name``, ``op_type``, ..."""
    text = ast.unparse(expr).split(".")[-1].split("[")[0]
    return text in {"op", "op_name", "name", "op_type", "opname", "oname", "reg_name"}


def _tables(value: ast.expr, names: set[str]) -> list[str]:
    """Operator names in a table: a set of operators, or another collection of at least two,
    which are most of its words (a list of parameter suffixes with "min" and "max" is not)."""
    spelled = _names_in(value, names)
    words = _names_in(value, _AnyWord())
    is_set = isinstance(value, ast.Set) or (
        isinstance(value, ast.Call) and ast.unparse(value.func) in ("frozenset", "set")
    )
    enough = len(spelled) >= (1 if is_set else 2)  # a set is for membership tests
    return spelled if enough and 2 * len(spelled) > len(words) else []


class _AnyWord:
    """A set that holds every string (counts all words where _names_in counts operators)."""

    def __contains__(self, item: object) -> bool:
        return isinstance(item, str)


def test_operator_names_stay_in_the_operators() -> None:
    left, pending = _split(operator_names_outside_operators())
    assert len(left) <= 10, "\n".join(left)
    assert len(pending) <= PENDING_NAMES_AT_MOST, "\n".join(pending)


def test_the_checkers_find_what_they_look_for() -> None:
    names = set(registry.all_ops())
    table = ast.parse('T = frozenset("dot Embedding take".split())').body[0]
    assert _tables(table.value, names) == ["dot", "Embedding", "take"]
    suffixes = ast.parse('S = ("weight", "bias", "min", "max", "gamma", "beta")').body[0]
    assert _tables(suffixes.value, names) == []  # words that happen to be operators
    compare = ast.parse('prop.op_name == "dot"').body[0].value
    assert _is_op_name(compare.left) and _names_in(compare.comparators[0], names) == ["dot"]
    assert not _is_op_name(ast.parse("act_type").body[0].value)
