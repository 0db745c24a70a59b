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


def test_core_contract_names_every_top_level_module_as_core_or_front_end() -> None:
    core = contracts()["core-no-terminal"]
    named = set(core["source_modules"]) | set(core["forbidden_modules"])
    assert top_level_modules() - named == set()


def test_core_contract_forbids_every_front_end_and_terminal_library() -> None:
    forbidden = set(contracts()["core-no-terminal"]["forbidden_modules"])
    front_ends = {m for m in top_level_modules() if m.split(".")[1].startswith("cli")}
    assert front_ends | {"ragcov_tui.tui", "ragcov_tui.__main__"} <= forbidden
    assert {"textual", "rich", "plotext", "textual_plotext"} <= forbidden


def test_every_package_has_a_layer() -> None:
    """Each subpackage sits in the infrastructure layers, the domain, the services or the app."""
    by_id = contracts()
    infrastructure = {m.strip() for layer in by_id["infrastructure-layers"]["layers"] for m in layer.split("|")}
    assert infrastructure == set(by_id["infrastructure-below-domain"]["source_modules"])
    domain = set(by_id["domain-below-services"]["source_modules"])
    packages = {f"ragcov_tui.{p.parent.name}" for p in PACKAGE.glob("*/__init__.py")}
    assert packages == infrastructure | domain | {"ragcov_tui.services", "ragcov_tui.tui"}
    assert {"ragcov_tui.services", "ragcov_tui.tui"} <= set(by_id["domain-below-services"]["forbidden_modules"])
