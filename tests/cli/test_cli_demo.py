"""``ragcov demo`` without a terminal analyses and evaluates sample_data/ offline, prints the report, exits 0."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import SAMPLE, run_cli

pytestmark = pytest.mark.slow


def test_demo_prints_the_report_without_a_terminal(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert run_cli("demo", "--quiet", "--db", str(tmp_path / "demo.db"), "--data", str(SAMPLE)) == 0
    out = capsys.readouterr().out
    assert "Coverage" in out and "Gaps" in out
    assert "1,722 queries (55 distinct)" in out and "tests nobody asks:" in out  # sample_data/traffic.jsonl
    assert "Retrieval" in out and "Generation" in out
    assert "heuristic" in out  # offline generation scores say what they are
    assert "nan" not in out.lower().split()


def test_demo_without_sample_data_is_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert run_cli("demo", "--quiet", "--db", str(tmp_path / "d.db"), "--data", str(tmp_path)) == 2
    assert "demo data not found" in capsys.readouterr().err
