"""Shared pieces of the evaluation-integrity tests: a tiny test file, a database on disk, and the
checks that a stored session holds no NaN / ±inf anywhere and that ``ragcov report`` reads it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import sqlite_utils

from ragcov_tui.cli.main import main
from ragcov_tui.services.eval_job import EvalOptions
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.store.db import open_db

QUESTIONS: list[JsonObject] = [
    {
        "id": "q1",
        "question": "When are invoices sent?",
        "gold_doc_ids": ["billing.md"],
        "ground_truth": "On the first day of each month.",
    },
    {
        "id": "q2",
        "question": "How long must a password be?",
        "gold_doc_ids": ["security.md"],
        "ground_truth": "Twelve characters.",
    },
    {
        "id": "q3",
        "question": "What do I restart after the install?",
        "gold_doc_ids": ["setup.md"],
        "ground_truth": "The server.",
    },
]
JSON_TABLES = {
    "sessions": ("params", "summary", "timings", "usage", "corpus"),
    "eval_items": ("retrieved", "retrieval", "generation", "details", "judge_calls"),
    "reports": ("report",),
}


def write_questions(tmp: Path, rows: list[dict[str, Any]] = QUESTIONS, name: str = "questions.jsonl") -> str:
    path = tmp / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


def options(questions: str, system: str, **kw: Any) -> EvalOptions:
    base: dict[str, Any] = dict(
        questions=questions, system=system, embedder="hash", metrics=["retrieval"], k=2, concurrency=2
    )
    return EvalOptions(**{**base, **kw})


def database(tmp: Path) -> tuple[sqlite_utils.Database, Path]:
    path = tmp / "ragcov.db"
    return open_db(path), path


def _refuse(name: str) -> None:
    raise AssertionError(f"non-finite {name} stored")


def assert_stored_finite(db: sqlite_utils.Database) -> None:
    """Every JSON column of every session, item and report parses with NaN / Infinity refused."""
    for table, columns in JSON_TABLES.items():
        for row in db.query(f"SELECT {', '.join(columns)} FROM {table}"):
            for text in row.values():
                if text is not None:
                    json.loads(text, parse_constant=_refuse)


def report_via_cli(db_path: Path, sid: str, tmp: Path) -> tuple[int, dict[str, Any]]:
    """``ragcov report SID --json FILE``: its exit code and the JSON it wrote (strict: no NaN)."""
    out = tmp / f"report-{sid}.json"
    code = main(["report", "--db", str(db_path), sid, "--json", str(out)])
    return code, (json.loads(out.read_text(), parse_constant=_refuse) if out.exists() else {})
