"""The user's repository stays clean (issue #22 §2): write-back keeps only the newest N backups of
the test file (``$RAGCOV_KEEP_BACKUPS`` / ``keep_backups`` in ragcov.toml / ``tui --keep-backups``,
default 20), undo still works once a decision's backup is gone, and the backup folder carries its
own ``.gitignore`` so ``git status`` never shows it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ragcov_tui.cli.main import main
from ragcov_tui.services import triage
from ragcov_tui.store import open_db
from ragcov_tui.store.queries import gap_rows
from ragcov_tui.testset.durable import BACKUP_DIR, DEFAULT_KEEP_BACKUPS, KEEP_BACKUPS_ENV, prune_backups
from tests.support.synthetic_sessions import make_analysis_session


@pytest.fixture()
def env(tmp_path: Path):
    db = open_db(":memory:")
    sid = make_analysis_session(db, testset_dir=tmp_path, n_chunks=120, n_questions=12)
    return db, sid, tmp_path / "questions.jsonl"


def _backups(path: Path) -> list[str]:
    return sorted(p.name for p in (path.parent / BACKUP_DIR).iterdir() if p.name.endswith(".bak"))


def _accept_all(db, sid, path: Path, n: int) -> None:
    suggestions = [s for g in gap_rows(db, sid, str(path.resolve())) for s in g["suggestions"] if s.status == "open"]
    assert len(suggestions) >= n
    for s in suggestions[:n]:
        triage.accept_suggestion(db, sid, s.id)


def test_only_the_newest_backups_stay_and_undo_still_works(env, monkeypatch) -> None:
    db, sid, path = env
    monkeypatch.setenv(KEEP_BACKUPS_ENV, "3")
    original = path.read_bytes()
    _accept_all(db, sid, path, 5)
    for qid in ("q00003", "q00004"):
        triage.drop_question(db, sid, qid)
    kept = _backups(path)
    assert len(kept) == 3  # 7 writes, 3 backups
    newest = path.read_bytes()
    for _ in range(7):  # every decision undone, the four whose backup was pruned by content
        triage.undo_last(db, sid)
    assert path.read_bytes() == original != newest
    assert len(_backups(path)) == 3


def test_the_default_keeps_twenty(env, monkeypatch) -> None:
    db, sid, path = env
    monkeypatch.delenv(KEEP_BACKUPS_ENV, raising=False)
    folder = path.parent / BACKUP_DIR
    folder.mkdir()
    for i in range(30):  # earlier runs' backups, oldest first
        (folder / f"{path.name}.20250101T0000{i:02d}.000000.0123abcd.bak").write_text("old")
    (folder / "other.jsonl.20250101T000000.000000.0123abcd.bak").write_text("another file's")
    (folder / "notes.txt").write_text("the user's")
    _accept_all(db, sid, path, 1)
    kept = _backups(path)
    assert DEFAULT_KEEP_BACKUPS == 20 and len([k for k in kept if k.startswith(path.name)]) == 20
    assert f"{path.name}.20250101T000029.000000.0123abcd.bak" in kept  # the newest old ones stay
    assert f"{path.name}.20250101T000010.000000.0123abcd.bak" not in kept
    assert "other.jsonl.20250101T000000.000000.0123abcd.bak" in kept and (folder / "notes.txt").exists()


def test_backups_of_one_microsecond_are_ordered_by_their_repeat_number(tmp_path: Path) -> None:
    file = tmp_path / "q.jsonl"
    folder = tmp_path / BACKUP_DIR
    folder.mkdir()
    names = [f"q.jsonl.20250101T000000.000001.0123abcd{suffix}.bak" for suffix in ("", ".1", ".2", ".10")]
    for name in names:
        (folder / name).write_text("x")
    assert prune_backups(file, 2) == 2
    assert sorted(p.name for p in folder.iterdir()) == sorted(names[2:])


@pytest.mark.skipif(shutil.which("git") is None, reason="needs the git command")
def test_the_backup_folder_never_shows_in_git(env) -> None:
    db, sid, path = env
    repo = path.parent
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    _accept_all(db, sid, path, 1)
    assert (repo / BACKUP_DIR / ".gitignore").read_text().splitlines()[-1] == "*"
    status = subprocess.run(
        ["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=all"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert path.name in status and BACKUP_DIR not in status


def test_a_bad_count_is_one_line_before_anything_is_written(env, monkeypatch) -> None:
    db, sid, path = env
    monkeypatch.setenv(KEEP_BACKUPS_ENV, "0")
    before = path.read_bytes()
    with pytest.raises(Exception, match=r"\$RAGCOV_KEEP_BACKUPS: expected a whole number from 1 to 1,000,000, got '0'"):
        _accept_all(db, sid, path, 1)
    assert path.read_bytes() == before and not (path.parent / BACKUP_DIR).exists()


@pytest.mark.parametrize(
    ("how", "message"),
    [
        (["--keep-backups", "none"], "--keep-backups: expected a whole number from 1 to 1000000, got 'none'"),
        (["--config", "CONFIG"], "[tui] keep_backups: expected a whole number from 1 to 1000000, got 0"),
    ],
)
def test_tui_checks_the_setting_at_start(tmp_path: Path, how: list[str], message: str, capsys, monkeypatch) -> None:
    monkeypatch.setattr("ragcov_tui.cli.main.has_terminal", lambda: True)  # past the no-terminal refusal
    config = tmp_path / "ragcov.toml"
    config.write_text("[tui]\nkeep_backups = 0\n")
    assert main(["tui", "--db", str(tmp_path / "db"), *(str(config) if a == "CONFIG" else a for a in how)]) == 2
    assert message in capsys.readouterr().err


def test_tui_hands_the_setting_to_the_app_not_the_environment(tmp_path: Path, monkeypatch) -> None:
    """``ragcov tui`` set ``$RAGCOV_KEEP_BACKUPS`` for the writer to read (a process-wide side
    channel); the setting now goes down through the app's context (issue #29 §2.5)."""
    monkeypatch.setenv(KEEP_BACKUPS_ENV, "")  # unset for the run, restored afterwards
    monkeypatch.setattr("ragcov_tui.cli.main.has_terminal", lambda: True)  # past the no-terminal refusal
    opened: list[int | None] = []

    def run_tui(db: str, session_id: str | None, keep_backups: int | None) -> int:
        opened.append(keep_backups)
        return 0

    monkeypatch.setattr("ragcov_tui.tui.app.run_tui", run_tui)
    config = tmp_path / "ragcov.toml"
    config.write_text("keep_backups = 7\n")
    tui = ["tui", "--config", str(config), "--db", str(tmp_path / "db")]
    assert main(tui) == 0 and main([*tui, "--keep-backups", "4"]) == 0
    assert opened == [7, 4] and os.environ[KEEP_BACKUPS_ENV] == ""


def test_the_apps_setting_reaches_the_writer_over_the_variable(env, monkeypatch) -> None:
    db, sid, path = env
    monkeypatch.setenv(KEEP_BACKUPS_ENV, "1")
    suggestions = [s for g in gap_rows(db, sid, str(path.resolve())) for s in g["suggestions"] if s.status == "open"]
    for s in suggestions[:3]:
        triage.accept_suggestion(db, sid, s.id, keep_backups=2)
    assert len(_backups(path)) == 2
