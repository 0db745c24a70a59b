"""A run writes only the paths the user named and the session database, nothing under the user's
home: onnxruntime's telemetry (a device id and an event database under ``~/.cache/Microsoft/``) is
off. Run in a fresh interpreter with HOME pointing at an empty directory, since onnxruntime writes
when it first initialises in a process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = (
    "from ragcov_tui.embeddings.factory import make_embedder\n"
    "print(make_embedder('local').embed(['refunds are issued within 14 days']).shape)\n"
)


@pytest.mark.slow
def test_the_local_embedder_writes_nothing_under_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("ORT_DISABLE_TELEMETRY", "XDG_CACHE_HOME")}
    env.update(HOME=str(home), PYTHONPATH=str(REPO))
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "(1, 384)"
    assert sorted(str(p.relative_to(home)) for p in home.rglob("*")) == []


@pytest.mark.slow
def test_analyze_and_eval_write_only_the_named_paths(tmp_path: Path) -> None:
    """The whole commands (the hash embedder keeps it fast; onnxruntime is the test above)."""
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("ORT_DISABLE_TELEMETRY", "XDG_CACHE_HOME", "RAGCOV_DB")}
    env.update(HOME=str(home), PYTHONPATH=str(REPO))
    sample = REPO / "sample_data"
    common = [
        "--quiet",
        "--db",
        str(work / "s.db"),
        "--embedder",
        "hash",
        "--corpus",
        str(sample / "corpus"),
        "--questions",
        str(sample / "questions.jsonl"),
    ]
    for argv in (
        ["analyze", *common, "--json", str(work / "r.json")],
        ["eval", *common, "--system", "builtin:hybrid", "--markdown", str(work / "e.md")],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "ragcov_tui", *argv], env=env, cwd=work, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr
    # the database's own companions: SQLite's -shm / -wal, and the run locks (store/session_locks.py)
    assert {p.name for p in work.iterdir()} - {"s.db-shm", "s.db-wal", "s.db.locks"} == {"e.md", "r.json", "s.db"}
    assert [str(p.relative_to(home)) for p in home.rglob("*")] == []
