"""What a new user met on a first try of the CLI: commands printed to paste, files written, pipes closed early."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.cli.conftest import CORPUS, QUESTIONS, run_cli

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture()
def terminal_80(monkeypatch: pytest.MonkeyPatch) -> None:
    """stdout is taken for an 80-column terminal (rich reads both variables when a console is made)."""
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    monkeypatch.setenv("COLUMNS", "80")


def _lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return ANSI.sub("", capsys.readouterr().out).splitlines()


def test_start_with_command_is_one_line_in_an_80_column_terminal(
    terminal_80: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / ("d" * 90) / "r.db"
    assert run_cli("sessions", "--db", str(db)) == 0
    [line] = [x for x in _lines(capsys) if "Start with:" in x]
    assert line.endswith(" analyze --help")
    assert len(line) > 80


def test_open_it_command_is_one_line_in_an_80_column_terminal(
    terminal_80: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / ("d" * 90) / "r.db"
    assert (
        run_cli(
            "analyze",
            "--quiet",
            "--db",
            str(db),
            "--embedder",
            "hash",
            "--corpus",
            str(CORPUS),
            "--questions",
            str(QUESTIONS),
        )
        == 0
    )
    [line] = [x for x in _lines(capsys) if x.startswith("Open it: ")]
    assert re.search(f" tui --db {re.escape(shlex.quote(str(db)))} --session [0-9a-f]+$", line)


def test_each_file_written_is_named_on_stderr(
    sample_analysis: tuple[dict, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, db = sample_analysis
    md, js = tmp_path / "coverage.md", tmp_path / "report.json"
    assert run_cli("report", "latest", "--db", str(db), "--markdown", str(md), "--json", str(js)) == 0
    err = capsys.readouterr().err.splitlines()
    assert f"wrote {js}" in err and f"wrote {md}" in err
    assert md.is_file() and js.is_file()


def test_quiet_names_no_file(
    sample_analysis: tuple[dict, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, db = sample_analysis
    assert run_cli("report", "latest", "--quiet", "--db", str(db), "--markdown", str(tmp_path / "c.md")) == 0
    assert "wrote" not in capsys.readouterr().err


def test_a_reader_closing_the_pipe_early_ends_quietly_with_exit_0(sample_analysis: tuple[dict, Path]) -> None:
    """``ragcov sessions | head -1``: a real pipe whose reader has closed it (before the first write,
    so that every write fails whatever the timing: a reader that read one line may close after the
    last write of a short output)."""
    import os
    import subprocess
    import sys

    _, db = sample_analysis
    repo = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(repo)}
    for argv in (["sessions"], ["sessions", "--json"], ["report", "latest", "--json", "-"]):
        proc = subprocess.Popen(
            [sys.executable, "-m", "ragcov_tui", *argv, "--db", str(db)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=60) == 0, (argv, err)
        assert err == "", argv


def test_figures_of_the_hash_test_embedder_carry_one_warning(
    sample_analysis: tuple[dict, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        run_cli(
            "analyze",
            "--quiet",
            "--db",
            str(tmp_path / "r.db"),
            "--embedder",
            "hash",
            "--corpus",
            str(CORPUS),
            "--questions",
            str(QUESTIONS),
        )
        == 0
    )
    [warning] = [x for x in capsys.readouterr().out.splitlines() if "test embedder" in x]
    assert warning.startswith("warning: embedder hash is a test embedder") and "not semantic" in warning
    _, db = sample_analysis  # the default embedder: no such warning
    assert run_cli("report", "latest", "--db", str(db)) == 0
    assert "test embedder" not in capsys.readouterr().out


def test_a_stage_with_nothing_to_do_is_drawn_complete_in_a_terminal(
    terminal_80: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every text came from the cache: the embedding bar reads 0/0, not 0/? (unknown) for ever."""
    from ragcov_tui.cli.render import ProgressBar

    with ProgressBar() as bar:
        bar("embedding chunks", 0, 0)
    drawn = ANSI.sub("", capsys.readouterr().err).replace("\r", "\n").splitlines()
    last = [line for line in drawn if "embedding chunks" in line][-1]
    assert " 0/0 " in last and "0/?" not in last
