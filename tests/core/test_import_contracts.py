"""The import contracts in pyproject.toml ([tool.importlinter], checked by `lint-imports` in .ci/run) name
their modules one by one: a new top-level module or package must be placed in them, or it would go unchecked."""

from __future__ import annotations

import tomllib
from pathlib import Path

import ragcov_tui

PACKAGE = Path(ragcov_tui.__file__).parent
PYPROJECT = PACKAGE.parent / "pyproject.toml"


def contracts() -> dict[str, dict]:
    config = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]
    return {c["id"]: c for c in config["contracts"]}


def top_level_modules() -> set[str]:
    """Every ``ragcov_tui.X``: the package's modules (but ``__init__``) and its subpackages."""
    modules = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    packages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    return {f"ragcov_tui.{name}" for name in modules | packages}


def layer_modules() -> set[str]:
    return {m.strip() for layer in contracts()["layers"]["layers"] for m in layer.replace(":", "|").split("|")}


def test_every_top_level_module_is_in_a_layer_or_shared() -> None:
    """A package or module sits in the layers, or among the shared modules that import none of them."""
    shared = set(contracts()["shared-imports-nothing-above"]["source_modules"])
    assert top_level_modules() - layer_modules() == shared
    assert shared & layer_modules() == set()


def test_shared_modules_may_not_import_any_layer() -> None:
    assert set(contracts()["shared-imports-nothing-above"]["forbidden_modules"]) == layer_modules()


def test_core_contract_names_everything_but_the_front_ends() -> None:
    core = contracts()["core-no-terminal"]
    front_ends = {"ragcov_tui.cli", "ragcov_tui.tui", "ragcov_tui.__main__"}
    assert set(core["source_modules"]) == top_level_modules() - front_ends
    assert front_ends | {"textual", "rich", "plotext", "textual_plotext"} == set(core["forbidden_modules"])
