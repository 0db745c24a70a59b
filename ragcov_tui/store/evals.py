"""Eval sessions in SQLite: one ``eval_items`` row per question, the report header in ``reports``.

An item is written the moment it finishes (status ``done`` or ``error``), so a killed run keeps
its work and ``run_eval(resume=sid)`` skips every id in :func:`done_ids`. The report header (the
``eval --json`` contract without the ``questions`` list) is stored in ``reports`` when the run
ends; :func:`load_eval_report` joins it with the items, so a stored session gives back the same
report the run printed.

No NaN or ±inf is ever written (:class:`NonFiniteValue`: the inputs are checked where they enter,
this is the last guard), and one stored by an older version reads back as None.

An item is saved as ``evaluate_question`` built it (:class:`~ragcov_tui.store.eval_contract.EvalItem`)
and loaded with every key (:class:`~ragcov_tui.store.eval_contract.StoredItem`); the report lists it
as a :class:`~ragcov_tui.store.eval_contract.ReportQuestion`.
"""

from __future__ import annotations

import json
import math
from typing import Any, cast

import sqlite_utils

from ragcov_tui.store.db import connection_lock
from ragcov_tui.store.eval_contract import Abstention, EvalItem, EvalReport, ReportQuestion, StoredItem
from ragcov_tui.store.sessions import now_iso

# Item keys kept inside the ``details`` JSON column (the other keys have columns of their own).
DETAIL_KEYS = ("answer_label", "level", "relevant_ranks", "spread", "errors", "undefined", "judge", "paraphrases")
# Keys of an item left out of the report's ``questions`` list (still in the database).
HEAVY_KEYS = ("details", "judge_calls")


class NonFiniteValue(ValueError):
    """An item or report held NaN or ±inf; it is refused, never stored (see :func:`non_finite_path`)."""


def non_finite_path(value: Any, path: str = "") -> str | None:
    """Where the first NaN / ±inf in a JSON-like value is (``retrieved[0].score``), or None."""
    if isinstance(value, float):
        return None if math.isfinite(value) else path or "value"
    if isinstance(value, dict):
        pairs: Any = ((f"{path}.{k}" if path else str(k), v) for k, v in value.items())
    elif isinstance(value, (list, tuple)):
        pairs = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    return next((found for where, v in pairs if (found := non_finite_path(v, where)) is not None), None)


def _refuse_non_finite(value: Any, what: str) -> None:
    where = non_finite_path(value)
    if where is not None:
        raise NonFiniteValue(f"{what}: refusing to store a non-finite number at {where}")


def loads_stored(text: str | None, empty: str) -> Any:
    """Stored JSON back; a NaN / Infinity written by an older version reads as None (missing)."""
    return json.loads(text or empty, parse_constant=lambda _: None)


def item_row(sid: str, item: EvalItem) -> dict[str, Any]:
    """The ``eval_items`` row of one item; :class:`NonFiniteValue` if it holds NaN / ±inf anywhere."""
    _refuse_non_finite(item, f"question {item.get('id')!r}")
    details = {key: item.get(key) for key in DETAIL_KEYS}
    details["generation_details"] = item.get("details") or {}
    return {
        "session_id": sid,
        "question_id": item["id"],
        "seq": item["seq"],
        "status": item["status"],
        "question": item.get("question"),
        "answer": item.get("answer"),
        "retrieved": json.dumps(item.get("retrieved") or []),
        "retrieval": json.dumps(item.get("retrieval") or {}),
        "generation": json.dumps(item.get("generation") or {}),
        "details": json.dumps(details),
        "judge_calls": json.dumps(item.get("judge_calls") or []),
        "diagnosis": item.get("diagnosis"),
        "error": item.get("error"),
        "finished_at": now_iso(),
    }


def row_item(row: dict[str, Any]) -> StoredItem:
    """The item of one ``eval_items`` row (inverse of :func:`item_row`), every key present."""
    details = loads_stored(row["details"], "{}")
    return {
        "id": row["question_id"],
        "seq": row["seq"],
        "status": row["status"],
        "question": row["question"],
        "answer": row["answer"],
        "retrieved": loads_stored(row["retrieved"], "[]"),
        "retrieval": loads_stored(row["retrieval"], "{}"),
        "generation": loads_stored(row["generation"], "{}"),
        "diagnosis": row["diagnosis"],
        "error": row["error"],
        "judge_calls": loads_stored(row["judge_calls"], "[]"),
        "details": details.pop("generation_details", {}),
        # DETAIL_KEYS, from the details column
        "answer_label": details.get("answer_label"),
        "level": details.get("level"),
        "relevant_ranks": details.get("relevant_ranks"),
        "spread": details.get("spread"),
        "errors": details.get("errors"),
        "undefined": details.get("undefined"),
        "judge": details.get("judge"),
        "paraphrases": details.get("paraphrases"),
    }


def save_eval_item(db: sqlite_utils.Database, sid: str, item: EvalItem) -> None:
    """Insert or replace one finished item (call from the thread that owns ``db``)."""
    with connection_lock(db):
        db.table("eval_items").insert(item_row(sid, item), replace=True)


def load_eval_items(db: sqlite_utils.Database, sid: str, *, status: str | None = None) -> list[StoredItem]:
    """Every item of the session in test-file order, optionally only those with ``status``."""
    sql = "SELECT * FROM eval_items WHERE session_id = ?"
    args: list[Any] = [sid]
    if status:
        sql += " AND status = ?"
        args.append(status)
    return [row_item(r) for r in db.query(sql + " ORDER BY seq", args)]


def done_ids(db: sqlite_utils.Database, sid: str) -> set[str]:
    """Ids of the items already evaluated successfully (a resumed run skips them)."""
    return {
        r["question_id"]
        for r in db.query("SELECT question_id FROM eval_items WHERE session_id = ? AND status = 'done'", [sid])
    }


def save_eval_header(db: sqlite_utils.Database, sid: str, header: EvalReport) -> None:
    """Store the report without its ``questions`` list; :class:`NonFiniteValue` if it holds NaN / ±inf."""
    body = {k: v for k, v in header.items() if k != "questions"}
    _refuse_non_finite(body, f"session {sid} report")
    with db.conn:
        db.table("reports").insert({"session_id": sid, "report": json.dumps(body)}, replace=True)


def report_question(item: StoredItem) -> ReportQuestion:
    """An item as listed in the report: everything but the judge transcripts and long details
    (:data:`HEAVY_KEYS`; the abstention verdict excepted) and the retrieved contexts' texts."""
    question: ReportQuestion = {
        "id": item["id"],
        "seq": item["seq"],
        "status": item["status"],
        "question": item["question"],
        "answer": item["answer"],
        "retrieved": [
            {"id": c.get("id"), "score": c.get("score"), "cited": c.get("cited")} for c in item.get("retrieved") or []
        ],
        "retrieval": item["retrieval"],
        "generation": item["generation"],
        "diagnosis": item["diagnosis"],
        "error": item["error"],
        "answer_label": item["answer_label"],
        "level": item["level"],
        "relevant_ranks": item["relevant_ranks"],
        "spread": item["spread"],
        "errors": item["errors"],
        "undefined": item["undefined"],
        "judge": item["judge"],
        "paraphrases": item["paraphrases"],
    }
    abstention = (item.get("details") or {}).get("abstention")
    if isinstance(abstention, dict):
        question["abstention"] = cast(
            Abstention, abstention
        )  # stored JSON in the Abstention shape, written by evaluation.items
    return question


def load_eval_report(db: sqlite_utils.Database, sid: str) -> EvalReport:
    """The stored ``eval --json`` report of session ``sid`` (header + one entry per item); a session
    stopped before its end has no header: ``session_id`` and ``questions`` only."""
    rows = list(db.query("SELECT report FROM reports WHERE session_id = ?", [sid]))
    report: EvalReport = loads_stored(rows[0]["report"] if rows else None, "{}")
    report.setdefault("session_id", sid)  # the stored header has it; a session without one gets it here
    report["questions"] = [report_question(i) for i in load_eval_items(db, sid)]
    return report


def item_status_counts(db: sqlite_utils.Database, sid: str) -> dict[str, int]:
    """How many of the session's stored eval items have each status (``ok``, ``error``, …)."""
    return dict(
        db.execute("SELECT status, count(*) FROM eval_items WHERE session_id = ? GROUP BY status", [sid]).fetchall()
    )


def item_questions(db: sqlite_utils.Database, sid: str) -> dict[str, str | None]:
    """Question id → question text of the session's stored eval items, in the order they were run."""
    return {
        qid: text
        for qid, text in db.execute(
            "SELECT question_id, question FROM eval_items WHERE session_id = ? ORDER BY seq", [sid]
        )
    }
