"""No two modules of the package import each other, directly or around a loop — counting the imports
inside functions and under ``TYPE_CHECKING`` too, since a lazy import that hides a cycle is still a
cycle (the layer contracts in pyproject.toml see packages, not the modules inside one).

An import of a package itself (``from ragcov_tui.store import schema``) is not an edge: a package's
``__init__`` re-exporting its own modules is how packages work.
"""

from __future__ import annotations

import ast
from pathlib import Path

import ragcov_tui

PACKAGE = Path(ragcov_tui.__file__).parent


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_graph() -> dict[str, set[str]]:
    """Module → the modules of the package it imports anywhere in its body (packages left out)."""
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = {name for name, p in paths.items() if p.name != "__init__.py"}
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name in modules:
        for node in ast.walk(ast.parse(paths[name].read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                targets = {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
            elif isinstance(node, ast.Import):
                targets = {a.name for a in node.names}
            else:
                continue
            graph[name] |= (targets & modules) - {name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
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


def test_no_module_imports_one_that_imports_it_back() -> None:
    assert cycles(module_graph()) == []


def test_the_check_finds_a_cycle_through_a_lazy_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_graph_sees_imports_inside_functions() -> None:
    graph = module_graph()
    assert "ragcov_tui.services.analysis_job" in graph["ragcov_tui.cli.commands"]  # imported inside cmd_analyze
    assert "ragcov_tui.cli.commands" in graph["ragcov_tui.cli.main"]  # imported inside _run, after argparse
