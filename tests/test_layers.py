"""The package's import graph: one-way layers and no circles (docs/architecture.md).

Read from the source with ``ast`` (no import side effects). Module-level imports only: an import
inside a function would hide a circle, so those are counted too, and must be none.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "browser_ctx"

#: Layers from the bottom up; a module may import its own layer and the ones listed before it.
LAYERS = ("base", "core", "browser", "server", "front")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "base"  # browser_ctx/__init__.py: the version and the public errors and settings
    top = parts[1]
    if top in ("settings", "_errors"):
        return "base"
    if top in ("core", "browser", "server"):
        return top
    if top in ("files",):
        return "browser"  # the output policy: used by browser (downloads) and server (filename=)
    return "front"  # cli, __main__, demo, _http


def _imports(path: Path, module: str) -> tuple[set[str], list[int]]:
    """Return (package modules imported at module level, line numbers of imports inside functions)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    nested: list[int] = []

    def target(node: ast.ImportFrom) -> str:
        if node.level == 0:
            return node.module or ""
        base = package.split(".")
        base = base[: len(base) - node.level + 1]
        return ".".join(base + ([node.module] if node.module else []))

    def visit(node: ast.AST, in_function: bool, in_type_checking: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, True, in_type_checking)
            elif isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                visit(child, in_function, True)
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                names = ([a.name for a in child.names] if isinstance(child, ast.Import)
                         else [target(child)] + [f"{target(child)}.{a.name}" for a in child.names])
                ours = [n for n in names if n == "browser_ctx" or n.startswith("browser_ctx.")]
                if in_function and ours:
                    nested.append(child.lineno)
                if not in_type_checking:
                    found.update(ours)
            else:
                visit(child, in_function, in_type_checking)

    visit(tree, False, False)
    return found, nested


def _graph() -> tuple[dict[str, set[str]], dict[str, list[int]]]:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    nested: dict[str, list[int]] = {}
    for name, path in files.items():
        imported, inner = _imports(path, name)
        graph[name] = {m for m in imported if m in files and m != name}
        if inner:
            nested[name] = inner
    return graph, nested


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def dfs(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := dfs(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := dfs(node)):
            return found
    return None


def test_no_import_circle() -> None:
    graph, _ = _graph()
    assert len(graph) > 30  # the walk really found the package
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


def test_layers_import_downwards_only() -> None:
    graph, _ = _graph()
    wrong = []
    for module, imported in graph.items():
        if module.endswith("__init__") or module == "browser_ctx":
            continue
        mine = LAYERS.index(_layer(module))
        wrong += [f"{module} -> {m}" for m in imported if LAYERS.index(_layer(m)) > mine]
    assert not wrong, wrong


def test_no_function_local_imports_of_our_modules() -> None:
    _, nested = _graph()
    assert not nested, nested


@pytest.mark.parametrize("needle", ["except ImportError"])
def test_no_import_guards_for_our_own_modules(needle: str) -> None:
    hits = [f"{p.relative_to(PACKAGE.parent)}:{i}" for p in PACKAGE.rglob("*.py")
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if needle in line]
    assert not hits, hits
