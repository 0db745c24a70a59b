"""`.ci/run` installs once and runs the README's test command: its install line and its test line, joined
with `` && ``, are the README quick start's second command verbatim (issue #29 §6: it used to create the
venv and install twice)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _readme_test_command() -> str:
    block = re.search(r"## Quick start\n\n```bash\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    assert block, "README.md has no Quick start code block"
    commands = block.group(1).strip().splitlines()
    assert len(commands) == 2, "the quick start is exactly two commands"
    return commands[1]


def _ci_commands() -> list[str]:
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    return [
        line for line in lines if line.strip() and not line.startswith("#") and not line.startswith(("set ", "cd "))
    ]


def test_ci_installs_once_then_runs_the_readme_test_command() -> None:
    commands = _ci_commands()
    installs = [c for c in commands if "pip install" in c]
    assert len(installs) == 1, f".ci/run installs {len(installs)} times"
    assert sum("python3 -m venv" in c for c in commands) == 1
    assert commands[0] == installs[0], "the install comes before the gates"
    assert commands[-1].startswith(".venv/bin/python -m pytest")
    assert f"{installs[0]} && {commands[-1]}" == _readme_test_command()


def test_ci_runs_every_gate_between_install_and_tests() -> None:
    gates = _ci_commands()[1:-1]
    assert any(g.startswith(".venv/bin/lint-imports") for g in gates)
    assert any(g.startswith(".venv/bin/ruff check") for g in gates)
    assert any(g.startswith(".venv/bin/ruff format --check") for g in gates)
    assert any(g.startswith(".venv/bin/mypy") for g in gates)
