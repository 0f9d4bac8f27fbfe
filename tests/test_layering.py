"""The package's layering, read from the source with ``ast`` (nothing is imported or run).

``docs/architecture.md`` lists the layers in its ```` ```layers ```` block; this test fails when
a module imports one of a higher layer, when modules import each other in a circle, when a
top-level module or package is missing from the table, or when the package root holds a
private helper module.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "mxlite"
DOC = ROOT / "docs" / "architecture.md"


def _layers() -> dict[str, int]:
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"```layers\n(.*?)```", text, re.S)
    assert block is not None, "docs/architecture.md has no ```layers block"
    layers: dict[str, int] = {}
    for line in block.group(1).splitlines():
        words = line.split()
        if len(words) >= 3 and words[0] == "layer":
            for unit in words[2:]:
                layers[unit] = int(words[1])
    return layers


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                skipped.update(id(n) for n in ast.walk(child))
    return skipped


def _imports() -> dict[str, set[str]]:
    """module -> the mxlite modules it imports (lazy imports in functions included)."""
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        is_pkg = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = _type_checking_nodes(tree)
        deps: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name.split(".")[0] == "mxlite")
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_pkg else name.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                if target.split(".")[0] != "mxlite":
                    continue
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    deps.add(sub if sub in files else target)
        graph[name] = {d for d in deps if d in files and d != name}
    return graph


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "mxlite"


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


GRAPH = _imports()
LAYERS = _layers()


def test_every_top_level_module_has_a_layer() -> None:
    units = {_unit(m) for m in GRAPH}
    missing = sorted(units - set(LAYERS))
    assert missing == [], f"add these to the layers block of docs/architecture.md: {missing}"


def test_no_import_circles() -> None:
    assert _cycles(GRAPH) == []


def test_imports_never_point_up() -> None:
    upward = sorted(
        f"{src} (layer {LAYERS[_unit(src)]}) imports {dst} (layer {LAYERS[_unit(dst)]})"
        for src, deps in GRAPH.items()
        for dst in deps
        if _unit(src) in LAYERS and _unit(dst) in LAYERS and LAYERS[_unit(dst)] > LAYERS[_unit(src)]
    )
    assert upward == []


def test_the_engine_imports_only_the_context() -> None:
    engine_deps = {
        _unit(dst) for src, deps in GRAPH.items() if _unit(src) == "engine" for dst in deps
    }
    assert engine_deps - {"engine"} <= {"base", "context"}


def test_no_private_helper_modules_at_the_package_root() -> None:
    private = sorted(p.name for p in PACKAGE.glob("_*.py") if p.name != "__init__.py")
    assert private == []


@pytest.mark.parametrize(
    ("graph", "expected"),
    [
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
        ({"a": {"b"}, "b": {"a"}, "c": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, [["a", "b", "c"]]),
    ],
)
def test_the_circle_finder_finds_circles(graph: dict[str, set[str]], expected: list) -> None:
    assert _cycles(graph) == expected
