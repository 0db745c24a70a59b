"""Real ``ragcov`` subprocesses on one database: a deliberately slow ``python:`` RAG system, and
waits on what they have stored (used by the kill / SIGTERM / concurrency tests)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "sample_data" / "corpus"
QUESTIONS = REPO / "sample_data" / "questions.jsonl"
N_QUESTIONS = sum(1 for line in QUESTIONS.read_text().splitlines() if line.strip())

SLOW_RAG = """
import os, time

def answer(question):
    time.sleep(float(os.environ.get("SLOW_RAG_DELAY", "0.15")))
    return {"answer": "It depends on " + question, "contexts": [{"id": "api-overview.md", "text": question}]}
"""


def write_slow_rag(work: Path) -> None:
    """``python:slow_rag:answer`` in ``work`` (the runs' working directory): SLOW_RAG_DELAY seconds per question."""
    (work / "slow_rag.py").write_text(SLOW_RAG)


def ragcov(work: Path, *argv: str, delay: float = 0.15, **kw) -> subprocess.Popen:
    """``ragcov ARGV --db work/r.db`` in ``work``; stdout / stderr piped as text."""
    env = {**os.environ, "SLOW_RAG_DELAY": str(delay), "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-m", "ragcov_tui", *argv, "--db", str(work / "r.db")],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def start_eval(work: Path, *extra: str, delay: float = 0.15) -> subprocess.Popen:
    """An eval of sample_data/ through the slow system, hash embedder, two questions at a time."""
    return ragcov(
        work,
        "eval",
        "--quiet",
        "--questions",
        str(QUESTIONS),
        "--corpus",
        str(CORPUS),
        "--system",
        "python:slow_rag:answer",
        "--embedder",
        "hash",
        "--concurrency",
        "2",
        *extra,
        delay=delay,
    )


def wait_items(work: Path, at_least: int, proc: subprocess.Popen, timeout: float = 60) -> str:
    """Wait until one eval session holds ``at_least`` items; returns its id."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        if (work / "r.db").exists():
            conn = sqlite3.connect(work / "r.db", timeout=10)
            try:
                row = conn.execute("SELECT session_id, count(*) FROM eval_items GROUP BY session_id").fetchone()
            except sqlite3.OperationalError:  # tables not created yet
                row = None
            finally:
                conn.close()
            if row and row[1] >= at_least:
                return row[0]
        time.sleep(0.05)
    raise AssertionError("the eval never stored its first items")


def sessions(work: Path) -> list[dict]:
    """``ragcov sessions --json``."""
    proc = ragcov(work, "sessions", "--json")
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return json.loads(out)
