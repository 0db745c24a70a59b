"""The worked example (examples/) as CI runs it: the project suite runs ``pytest examples/`` in a
subprocess, against the fake judge its conftest starts on 127.0.0.1 (issue #30 §1)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_the_worked_example_runs_and_its_one_failing_assertion_names_its_questions(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RAGCOV_", "OPENAI_", "PYTEST_"))}
    env["PYTHONPATH"] = str(REPO)
    # --runxfail: the expected failures run as plain tests, so their messages are in the output
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "examples",
            "-q",
            "-p",
            "no:cacheprovider",
            "--runxfail",
            "--ragcov-db",
            str(tmp_path / "ragcov.db"),
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    failed = re.findall(r"^FAILED (\S+)", out, flags=re.M)
    assert failed == ["examples/test_retrieval.py::test_ndcg_target_for_the_next_release"], out
    assert re.fullmatch(r"1 failed, 33 passed in .*", out.strip().splitlines()[-1]), out
    # the aggregate assertion's message: the value, then each question below the target with what it retrieved
    assert re.search(r"ndcg@5: mean 0\.\d{4} < required 0\.95 over 28 of 28 questions; \d+ below 0\.95:", out), out
    assert re.search(
        r"q006  ndcg@5=0\.\d{4}  'How many items can I request per page[^']*'  retrieved: \S+\.md#", out
    ), out
    assert (tmp_path / "ragcov.db").is_file()  # the runs went to --ragcov-db, not into the repository


def test_importing_the_plugin_loads_nothing_heavy() -> None:
    """pytest loads the plugin in every run once ragcov is installed (entry point pytest11): it must
    cost nothing there. Its modules import pytest and the standard library only."""
    code = (
        "import sys; import ragcov_tui.pytest_plugin.plugin; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'numpy', 'sklearn', 'scipy', 'sqlite_utils', "
        "'openai', 'httpx', 'rich', 'textual', 'onnxruntime', 'tokenizers'} or (m.startswith('ragcov_tui.') and "
        "not m.startswith(('ragcov_tui.pytest_plugin', 'ragcov_tui.shared.safe_text')))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_the_entry_point_names_the_plugin_module() -> None:
    import tomllib

    points = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["entry-points"]["pytest11"]
    assert list(points.items()) == [("ragcov_tui.pytest_plugin.plugin", "ragcov_tui.pytest_plugin.plugin")]
    import ragcov_tui.pytest_plugin.plugin as plugin

    assert hasattr(plugin, "ragcov_eval") and hasattr(plugin, "pytest_addoption")
