"""Fixtures for the end-to-end CLI tests: one analysis of sample_data/ shared by the module."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcov_tui.cli.main import main

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_data"
CORPUS = SAMPLE / "corpus"
QUESTIONS = SAMPLE / "questions.jsonl"


def run_cli(*argv: str) -> int:
    """Run ``ragcov`` in-process (quiet) and return its exit code."""
    return main([*argv])


@pytest.fixture(autouse=True)
def no_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """The printed reports are as a pipe gets them, whatever ``COLUMNS`` the shell running the tests exports."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture(scope="session")
def manifest() -> dict:
    return json.loads((SAMPLE / "manifest.json").read_text())


@pytest.fixture(scope="session")
def sample_analysis(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path]:
    """``ragcov analyze`` on sample_data with the offline defaults; returns (report, db path)."""
    tmp = tmp_path_factory.mktemp("analysis")
    db, out = tmp / "ragcov.db", tmp / "report.json"
    code = run_cli(
        "analyze",
        "--quiet",
        "--db",
        str(db),
        "--corpus",
        str(CORPUS),
        "--questions",
        str(QUESTIONS),
        "--json",
        str(out),
        "--markdown",
        str(tmp / "report.md"),
    )
    assert code == 0
    return json.loads(out.read_text()), db
