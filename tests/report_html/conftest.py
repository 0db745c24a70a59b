"""Stored sessions to make pages from: a real analysis and two real evals of sample_data/ (hash
embedder: fast, offline), the same database poisoned with hostile text, and their pages."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest

from ragcov_tui.cli.main import main
from ragcov_tui.evaluation.compare import compare_reports
from ragcov_tui.services.html_export import compare_page, session_page
from ragcov_tui.store import open_db
from ragcov_tui.store.evals import load_eval_report
from tests.support.hostile import HOSTILE_NO_NUL, poison_database

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_data"
# markup and script that must show as text and run nothing (window.__pwned stays undefined)
MARKUP = (
    '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'
    '<a href="javascript:window.__pwned=3">link</a><style>body{display:none}</style>'
)


@dataclass(frozen=True)
class Pages:
    """The three pages of one database, as files, and the sessions they were made from."""

    analysis: Path
    eval: Path
    compare: Path
    db: Path
    sessions: dict[str, str]  # "analysis", "bm25", "hybrid" → session id


def sample_sessions(db_path: Path) -> dict[str, str]:
    """An analysis (with the traffic log) and evals of builtin:bm25 and builtin:hybrid, stored in ``db_path``."""
    common = [
        "--quiet",
        "--db",
        str(db_path),
        "--embedder",
        "hash",
        "--questions",
        str(SAMPLE / "questions.jsonl"),
        "--corpus",
        str(SAMPLE / "corpus"),
    ]
    assert main(["analyze", *common, "--traffic", str(SAMPLE / "traffic.jsonl")]) == 0
    for system in ("bm25", "hybrid"):
        assert main(["eval", *common, "--system", f"builtin:{system}", "--name", system]) == 0
    db = open_db(db_path)
    try:
        ids = {row["name"] or row["kind"]: row["id"] for row in db.query("SELECT id, kind, name FROM sessions")}
    finally:
        db.conn.close()
    return {"analysis": ids["analysis"], "bm25": ids["bm25"], "hybrid": ids["hybrid"]}


def write_pages(db_path: Path, sessions: dict[str, str], out: Path) -> Pages:
    db = open_db(db_path)
    try:
        pages = Pages(out / "analysis.html", out / "eval.html", out / "compare.html", db_path, sessions)
        pages.analysis.write_text(session_page(db, sessions["analysis"], "analysis"), encoding="utf-8")
        pages.eval.write_text(session_page(db, sessions["hybrid"], "eval"), encoding="utf-8")
        a, b = load_eval_report(db, sessions["bm25"]), load_eval_report(db, sessions["hybrid"])
        pages.compare.write_text(compare_page(compare_reports(a, b, resamples=500), a, b), encoding="utf-8")
    finally:
        db.conn.close()
    return pages


@pytest.fixture(scope="session")
def sample_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    path = tmp_path_factory.mktemp("html-db") / "r.db"
    return path, sample_sessions(path)


@pytest.fixture(scope="session")
def plain_pages(tmp_path_factory: pytest.TempPathFactory, sample_db: tuple[Path, dict[str, str]]) -> Pages:
    return write_pages(*sample_db, tmp_path_factory.mktemp("html-plain"))


@pytest.fixture(scope="session")
def hostile_pages(tmp_path_factory: pytest.TempPathFactory, sample_db: tuple[Path, dict[str, str]]) -> Pages:
    """Every stored text starts with markup, script, every control character and the bidi controls."""
    tmp = tmp_path_factory.mktemp("html-hostile")
    path = tmp / "r.db"
    with sqlite3.connect(sample_db[0]) as source, sqlite3.connect(path) as copy:  # WAL pages included
        source.backup(copy)
    poison_database(path, MARKUP + HOSTILE_NO_NUL)
    return write_pages(path, sample_db[1], tmp)
