"""Output that is no terminal is not wrapped (issue #22 §3): a log keeps each line whole, so no test
depends on the length of the path it prints; ``COLUMNS``, when set, is the width."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.cli.conftest import SAMPLE, run_cli

pytestmark = pytest.mark.slow


@pytest.fixture()
def deep_sample(tmp_path: Path) -> Path:
    """sample_data/ copied under a folder name of 100 characters (a CI runner's checkout path)."""
    return Path(shutil.copytree(SAMPLE, tmp_path / ("a" * 100) / "sample_data"))


def _analyze(sample: Path, db: Path) -> int:
    return run_cli(
        "analyze",
        "--quiet",
        "--db",
        str(db),
        "--embedder",
        "hash",
        "--corpus",
        str(sample / "corpus"),
        "--questions",
        str(sample / "questions.jsonl"),
        "--traffic",
        str(sample / "traffic.jsonl"),
    )


def test_a_line_longer_than_80_columns_is_printed_whole_to_a_pipe(
    deep_sample: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """(``COLUMNS`` is unset by tests/cli/conftest.py.)"""
    assert _analyze(deep_sample, tmp_path / "r.db") == 0
    lines = capsys.readouterr().out.splitlines()
    [traffic] = [line for line in lines if line.startswith("Traffic ") and "queries" in line]
    assert f"{deep_sample / 'traffic.jsonl'}: 1,722 queries (55 distinct) in " in traffic
    assert len(traffic) > 200
    assert any(
        line.startswith("Least-covered documents (") and line.endswith("; all in the JSON report)") for line in lines
    )
    assert any(line.startswith("priority = 1 − covered share") and line.endswith("only break ties.") for line in lines)


def test_columns_sets_the_width_when_given(
    deep_sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    assert _analyze(deep_sample, tmp_path / "r.db") == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines if not line.startswith("Open it: ")) <= 100  # a command is never cut
    assert not any(line.startswith("Traffic ") and "1,722 queries" in line for line in lines)  # the path fills the line
