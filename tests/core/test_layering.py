"""The core is a library with no terminal in it: only tui/ and the CLI modules may import textual
or rich, and no core module calls print()."""

from __future__ import annotations

import ast
from pathlib import Path

import ragcov_tui

PACKAGE = Path(ragcov_tui.__file__).parent
TERMINAL_LIBS = {"textual", "textual_plotext", "plotext", "rich"}


def is_front_end(path: Path) -> bool:
    """The app (``tui/``), the command line (``cli/``) and ``__main__.py``."""
    parts = path.relative_to(PACKAGE).parts
    return parts[0] in ("tui", "cli", "__main__.py")


def core_modules() -> list[Path]:
    return [p for p in PACKAGE.rglob("*.py") if not is_front_end(p)]


def imported_roots(tree: ast.AST) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_core_never_imports_a_terminal_library() -> None:
    offenders = {
        str(p.relative_to(PACKAGE)): sorted(imported_roots(ast.parse(p.read_text())) & TERMINAL_LIBS)
        for p in core_modules()
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_core_never_prints() -> None:
    printing = [
        f"{p.relative_to(PACKAGE)}:{node.lineno}"
        for p in core_modules()
        for node in ast.walk(ast.parse(p.read_text()))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print"
    ]
    assert printing == []


def test_layering_check_sees_the_core() -> None:
    names = {p.name for p in core_modules()}
    assert {"errors.py", "config.py", "analysis_job.py"} <= names
