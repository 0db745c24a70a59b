"""``ragcov demo`` without a terminal analyses and evaluates sample_data/ offline, prints the report, exits 0;
it works on a copy beside the database (issue #22 §2), and finds the shipped sample from any folder (§6)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragcov_tui.services import triage
from ragcov_tui.store import open_db
from ragcov_tui.store.queries import gap_rows
from ragcov_tui.store.sessions import list_sessions
from tests.cli.conftest import REPO, SAMPLE, run_cli

pytestmark = pytest.mark.slow


def test_demo_prints_the_report_without_a_terminal(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert run_cli("demo", "--quiet", "--db", str(tmp_path / "demo.db"), "--data", str(SAMPLE)) == 0
    out = capsys.readouterr().out
    assert "Coverage" in out and "Gaps" in out
    assert "1,722 queries (55 distinct)" in out and "tests nobody asks:" in out  # sample_data/traffic.jsonl
    assert "Retrieval" in out and "Generation" in out
    assert "heuristic" in out  # offline generation scores say what they are
    assert "nan" not in out.lower().split()
    assert "--html coverage.html (or press H in the app)" in out  # how to get the page (issue #28)


def test_demo_without_sample_data_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert run_cli("demo", "--quiet", "--db", str(tmp_path / "d.db"), "--data", str(tmp_path)) == 2
    assert "demo data not found" in capsys.readouterr().err


def _tree(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_accepting_a_suggestion_after_the_demo_edits_its_copy_never_the_sample(tmp_path: Path) -> None:
    """Accepting in ``ragcov demo`` used to append to the tracked sample_data/questions.jsonl and leave
    sample_data/.ragcov-backups/ behind."""
    before = _tree(SAMPLE)
    assert run_cli("demo", "--quiet", "--no-tui", "--db", str(tmp_path / "demo.db"), "--data", str(SAMPLE)) == 0
    copy = tmp_path / "demo" / "sample_data"
    db = open_db(tmp_path / "demo.db")
    sessions = list_sessions(db)
    assert {s["questions_path"] for s in sessions} == {str(copy / "questions.jsonl")}
    [analysis] = [s for s in sessions if s["kind"] == "analysis"]
    suggestion = next(
        s
        for g in gap_rows(db, analysis["id"], str(copy / "questions.jsonl"))
        for s in g["suggestions"]
        if s.status == "open"
    )
    triage.accept_suggestion(db, analysis["id"], suggestion.id)
    assert suggestion.text in (copy / "questions.jsonl").read_text()
    assert _tree(SAMPLE) == before  # no byte changed, no backup folder added


def test_demo_finds_the_shipped_sample_from_any_folder(tmp_path: Path) -> None:
    """It said "demo data not found" anywhere but the repository root."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "ragcov_tui", "demo", "--quiet", "--no-tui"],
        cwd=elsewhere,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        text=True,
        capture_output=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "Coverage" in done.stdout and (elsewhere / ".ragcov" / "demo" / "sample_data" / "questions.jsonl").is_file()
