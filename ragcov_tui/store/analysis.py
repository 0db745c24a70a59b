"""Storing one analysis in the session tables, and reading its report back.

``reports.report`` holds ``to_report(details=False)`` (with ``session_id``); the per-item lists
live in ``chunk_results`` / ``question_results`` (so the TUI pages them in SQL), the suggested
questions in ``suggestions`` (triage status, source chunk and form), the texts in ``chunks`` / ``questions``.
``load_analysis_report`` reassembles exactly ``to_report()``; keys the sessions row knows and the stored
report lacks (embedder provider/model, ``llm``, ``timings``, ``usage``) are filled from it.
Rows are written with ``executemany`` in one transaction (100k rows in well under a second).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Protocol, cast

import sqlite_utils

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store.analysis_contract import AnalysisReport, AnalysisUsage, ChunkDetail, QuestionDetail
from ragcov_tui.store.lint import lint_findings
from ragcov_tui.store.sessions import get_session
from ragcov_tui.store.traffic import load_traffic
from ragcov_tui.testset.models import Question


class StoredAnalysis(Protocol):
    """What the store keeps of an analysis (``coverage.result.CoverageResult`` is one): the store sits below
    the coverage package, so it names the three methods it calls instead of importing the result type."""

    def to_report(self, *, details: bool = True) -> AnalysisReport: ...

    def chunk_details(self) -> list[ChunkDetail]: ...

    def question_details(self) -> list[QuestionDetail]: ...


def _insert(db: sqlite_utils.Database, table: str, columns: Sequence[str], rows: Any) -> None:
    marks = ", ".join("?" for _ in columns)
    db.conn.executemany(f"INSERT OR REPLACE INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)


def save_analysis(
    db: sqlite_utils.Database,
    session_id: str,
    result: StoredAnalysis,
    chunks: Sequence[Chunk],
    questions: Sequence[Question],
) -> None:
    """Write the report, per-chunk and per-question results, suggestions, chunk and question texts."""
    report = result.to_report(details=False)
    report["session_id"] = session_id
    with db.conn:
        db.conn.execute(
            "INSERT OR REPLACE INTO reports (session_id, report) VALUES (?, ?)", [session_id, json.dumps(report)]
        )
        db.conn.execute(
            "UPDATE sessions SET params = json_patch(params, ?) WHERE id = ?",  # the values used
            [json.dumps(report["params"]), session_id],
        )
        _insert(
            db,
            "chunks",
            ("session_id", "chunk_id", "seq", "source", "position", "n_tokens", "text"),
            ((session_id, c.id, i, c.source, c.position, c.n_tokens, c.text) for i, c in enumerate(chunks)),
        )
        _insert(
            db,
            "questions",
            ("session_id", "question_id", "seq", "text", "raw"),
            ((session_id, q.id, j, q.text, json.dumps(q.raw, default=str)) for j, q in enumerate(questions)),
        )
        _insert(
            db,
            "chunk_results",
            ("session_id", "chunk_id", "seq", "source", "cluster", "mindist", "nearest_question", "x", "y"),
            (
                (session_id, d["id"], i, d["source"], d["cluster"], d["mindist"], d["nearest_question"], d["x"], d["y"])
                for i, d in enumerate(result.chunk_details())
            ),
        )
        _insert(
            db,
            "question_results",
            (
                "session_id",
                "question_id",
                "seq",
                "text",
                "lof_score",
                "outlier",
                "nearest_cluster",
                "nearest_chunk",
                "nearest_chunk_dist",
                "redundant_with",
                "x",
                "y",
            ),
            (
                (
                    session_id,
                    d["id"],
                    j,
                    d["text"],
                    d["lof_score"],
                    int(d["outlier"]),
                    d["nearest_cluster"],
                    d["nearest_chunk"],
                    d["nearest_chunk_dist"],
                    json.dumps(d["redundant_with"]),
                    d["x"],
                    d["y"],
                )
                for j, d in enumerate(result.question_details())
            ),
        )
        db.conn.execute("DELETE FROM suggestions WHERE session_id = ?", [session_id])
        _insert(
            db,
            "suggestions",
            ("session_id", "cluster", "text", "origin", "chunk_id", "form"),
            (
                (session_id, g["cluster"], s["text"], s["origin"], s.get("chunk_id"), s.get("form"))
                for g in report["gaps"]
                for s in g["suggested_questions"]
            ),
        )


def load_analysis_report(db: sqlite_utils.Database, session_id: str, *, details: bool = True) -> AnalysisReport:
    """The ``analyze --json`` report of a stored session (KeyError if it has none, BadInput if the
    stored text is not a JSON object)."""
    row = db.conn.execute("SELECT report FROM reports WHERE session_id = ?", [session_id]).fetchone()
    if row is None:
        raise KeyError(f"session {session_id}: no analysis report stored")
    try:
        stored: Any = json.loads(row[0])
    except (TypeError, ValueError, RecursionError):
        stored = None
    if not isinstance(stored, dict):  # another version's row, or a hand edit
        raise BadInput(
            f"session {session_id}: its stored analysis report is not readable (not a JSON object: left by "
            "another ragcov, or the database was edited): run it again"
        )
    report = cast(AnalysisReport, stored)
    session = get_session(db, session_id)  # its stored fields read defensively
    if session is not None:
        spec, llm, timings, usage = session["embedder"], session["llm"], session["timings"], session["usage"]
        embedder = report["embedder"]  # to_report always writes it
        if spec and embedder.get("provider") is None:
            provider, _, model = spec.partition(":")
            embedder["provider"], embedder["model"] = provider, model or None
        if llm is not None:
            report.setdefault("llm", llm)
        if timings is not None:
            report.setdefault("timings", timings)
        if usage is not None:  # an AnalysisUsage as this ragcov wrote it, or an object another one wrote
            report.setdefault("usage", cast(AnalysisUsage, usage))
    lint = report.get("lint")
    if isinstance(lint, dict):  # stored without its findings (store/lint.py)
        lint["findings"] = lint_findings(db, session_id)
    traffic = load_traffic(db, session_id, details=details)
    if traffic is not None:
        report["traffic"] = traffic
    if details:
        cur = db.conn.execute(
            "SELECT question_id, text, lof_score, outlier, nearest_cluster, nearest_chunk, nearest_chunk_dist,"
            " redundant_with, x, y FROM question_results WHERE session_id = ? ORDER BY seq",
            [session_id],
        )
        report["question_details"] = [
            {
                "id": q,
                "text": t,
                "lof_score": lof,
                "outlier": bool(o),
                "nearest_cluster": nc,
                "nearest_chunk": nch,
                "nearest_chunk_dist": nd,
                "redundant_with": json.loads(rw or "[]"),
                "x": x,
                "y": y,
            }
            for q, t, lof, o, nc, nch, nd, rw, x, y in cur
        ]
        cur = db.conn.execute(
            "SELECT chunk_id, source, cluster, mindist, nearest_question, x, y FROM chunk_results"
            " WHERE session_id = ? ORDER BY seq",
            [session_id],
        )
        report["chunk_details"] = [
            {"id": c, "source": s, "cluster": k, "mindist": md, "nearest_question": nq, "x": x, "y": y}
            for c, s, k, md, nq, x, y in cur
        ]
    return report
