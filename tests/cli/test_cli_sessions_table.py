"""``ragcov sessions`` (issue #22 §6): at 80 columns the headline is never folded a word per line
(it moves under its session), each run names its system (or, for an analysis, its embedder), so two
unnamed evals of one test file are told apart, and without a terminal each session is one line."""

from __future__ import annotations

import io

from ragcov_tui.cli.render import print_sessions
from ragcov_tui.cli.safe_console import SafeConsole
from ragcov_tui.store.rows import SessionRow


def _session(sid: str, kind: str, system: str | None, embedder: str, summary: dict) -> SessionRow:
    return {
        "id": sid,
        "kind": kind,
        "name": None,
        "status": "done",
        "created_at": "2026-11-28T02:33:10+00:00",
        "finished_at": None,
        "user": None,
        "corpus": None,
        "questions_path": "/a/very/long/path/questions.jsonl",
        "testset_sha256": None,
        "embedder": embedder,
        "llm": None,
        "system": system,
        "params": None,
        "summary": summary,
        "timings": None,
        "usage": None,
        "error": None,
        "pid": None,
        "host": None,
        "heartbeat_at": None,
        "progress": None,
        "live": False,
    }


SESSIONS = [
    _session(
        "da4c5ce5",
        "eval",
        "records:/home/me/runs/2026-11/records-v2.jsonl",
        "local",
        {"k": 5, "means": {"retrieval.hit@5": 1.0, "retrieval.ndcg@5": 0.93, "generation.faithfulness": 0.45}},
    ),
    _session(
        "1a954e44",
        "eval",
        "builtin:hybrid",
        "local",
        {"k": 5, "means": {"retrieval.hit@5": 0.5, "retrieval.ndcg@5": 0.41, "generation.faithfulness": 0.45}},
    ),
    _session("dc9c5aa9", "analysis", None, "local:all-MiniLM-L6-v2-int8", {"basic": 0.388, "gaps": 1, "outliers": 7}),
]


def _printed(console_width: int | None) -> list[str]:
    buffer = io.StringIO()
    console = SafeConsole(file=buffer) if console_width is None else SafeConsole(file=buffer, width=console_width)
    print_sessions(console, SESSIONS)
    return buffer.getvalue().splitlines()


def test_at_80_columns_each_headline_is_whole_on_the_line_under_its_session() -> None:
    lines = _printed(80)
    assert max(len(line) for line in lines) <= 80
    assert lines[1].split() == ["id", "kind", "status", "created", "UTC", "embedder", "/", "system", "test", "file"]
    assert lines[2].split()[:5] == ["da4c5ce5", "eval", "done", "11-28", "02:33"]
    assert lines[2].split()[5:] == ["records:records-v2.js…", "questions.jsonl"]  # cut to fit
    assert lines[3].strip() == "hit@5 1.00 · ndcg 0.93 · faith 0.45"
    assert lines[4].split()[5] == "builtin:hybrid" and lines[5].strip() == "hit@5 0.50 · ndcg 0.41 · faith 0.45"
    assert lines[6].split()[5] == "local:all-MiniLM-L6-v…" and lines[7].strip() == "basic 0.388 · 1 gap · 7 outliers"


def test_without_a_terminal_each_session_is_one_line() -> None:
    lines = _printed(None)
    assert len(lines) == 2 + len(SESSIONS) and lines[1].split()[-1] == "headline"
    assert lines[2].split()[5:] == [
        "records:records-v2.jsonl",
        "questions.jsonl",
        *"hit@5 1.00 · ndcg 0.93 · faith 0.45".split(),
    ]
    assert lines[4].split()[5] == "local:all-MiniLM-L6-v2-int8"


def test_each_header_starts_where_its_values_start() -> None:
    """The header "test file" is narrower than its values: "headline" still starts above the headlines."""
    header, *rows = _printed(None)[1:]
    starts = {header.index("headline")} | {row.index("hit@5") if "hit@5" in row else row.index("basic") for row in rows}
    assert len(starts) == 1
    assert {header.index("test file")} == {row.index("questions.jsonl") for row in rows}
