"""The store never writes NaN / ±inf for an eval, and reads what an older version wrote as missing."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import cast

import pytest
import sqlite_utils

from ragcov_tui.cli.main import main
from ragcov_tui.services.eval_job import _store_item
from ragcov_tui.store.db import open_db
from ragcov_tui.store.eval_contract import EvalItem, EvalReport
from ragcov_tui.store.evals import (
    NonFiniteValue,
    load_eval_items,
    load_eval_report,
    non_finite_path,
    save_eval_header,
    save_eval_item,
)
from ragcov_tui.store.sessions import create_session, finish_session, list_sessions
from tests.support.stored import stored_session

NAN, INF = math.nan, math.inf


def _item(**kw: object) -> EvalItem:
    return {
        "id": "q1",
        "seq": 0,
        "status": "done",
        "question": "Q?",
        "answer": "A.",
        "retrieved": [{"id": "a", "text": "t", "score": 0.5, "cited": False}],
        "retrieval": {"mrr": 1.0},
        "generation": {"faithfulness": 0.5},
        "errors": {},
        **kw,  # type: ignore[typeddict-item]  # deliberately partial, with the hostile value
    }


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ({"retrieved": [{"id": "a", "score": NAN}]}, "retrieved[0].score"),
        ({"retrieval": {"mrr": INF}}, "retrieval.mrr"),
        ({"generation": {"faithfulness": -INF}}, "generation.faithfulness"),
        ({"spread": {"faithfulness": NAN}}, "spread.faithfulness"),
        ({"details": {"faithfulness": {"repeats": [0.5, NAN]}}}, "details.faithfulness.repeats[1]"),
        ({"judge_calls": [{"raw": "x", "score": NAN}]}, "judge_calls[0].score"),
        ({"relevant_ranks": [1, INF]}, "relevant_ranks[1]"),
    ],
)
def test_an_item_holding_nan_is_refused_naming_where(value: dict, where: str) -> None:
    db = open_db(":memory:")
    sid = create_session(db, "eval")
    with pytest.raises(
        NonFiniteValue, match=re.escape(f"question 'q1': refusing to store a non-finite number at {where}")
    ):
        save_eval_item(db, sid, _item(**value))
    assert not load_eval_items(db, sid)


@pytest.mark.parametrize(
    "value",
    [{"aggregate": {"retrieval": {"mrr": {"mean": NAN}}}}, {"usage": {"cost_usd": INF}}, {"timings": {"total": NAN}}],
)
def test_a_report_holding_nan_is_refused(value: dict) -> None:
    db = open_db(":memory:")
    sid = create_session(db, "eval")
    with pytest.raises(NonFiniteValue, match="refusing to store a non-finite number"):
        save_eval_header(db, sid, cast(EvalReport, {"k": 5, **value}))


def test_the_pipeline_stores_a_refused_item_as_failed() -> None:
    db = open_db(":memory:")
    sid = create_session(db, "eval")
    _store_item(db, sid, _item(retrieval={"mrr": NAN}))
    [item] = load_eval_items(db, sid)
    assert item["status"] == "error" and "non-finite number at retrieval.mrr" in (item["error"] or "")


@pytest.mark.parametrize("value", [1e308, -1e308, 0.0, 5e-324, None, "NaN", True])
def test_finite_and_other_values_pass(value: object) -> None:
    assert non_finite_path({"a": [value, {"b": value}]}) is None


def _old_database(path: Path) -> tuple[str, sqlite_utils.Database]:
    """A database as an older version left it: NaN inside items, the report and the session."""
    db = open_db(path)
    sid = create_session(db, "eval", questions_path="q.jsonl")
    db.table("eval_items").insert(
        {
            "session_id": sid,
            "question_id": "q1",
            "seq": 0,
            "status": "done",
            "question": "Q?",
            "answer": "A.",
            "retrieved": '[{"id": "a", "text": "t", "score": NaN, "cited": false}]',
            "retrieval": '{"mrr": NaN}',
            "generation": '{"answer_relevance": Infinity}',
            "details": '{"spread": {"answer_relevance": NaN}}',
            "judge_calls": "[]",
            "diagnosis": "undetermined",
            "error": None,
            "finished_at": "2026-01-01T00:00:00+00:00",
        }
    )
    header = {
        "session_id": sid,
        "kind": "eval",
        "k": 5,
        "system": "python:x:y",
        "judge": "heuristic",
        "aggregate": {
            "retrieval": {"mrr": {"mean": NaN_TEXT, "n": 1, "std": 0.0}},
            "generation": {"answer_relevance": {"mean": NaN_TEXT, "n": 1, "std": None}},
        },
        "counts": {"questions": 1, "done": 1, "errors": 0},
        "errors": [],
        "usage": {"cost_usd": NaN_TEXT},
    }
    db.table("reports").insert({"session_id": sid, "report": json.dumps(header).replace('"@NaN@"', "NaN")})
    finish_session(db, sid, "done")
    with db.conn:
        db.execute(
            "UPDATE sessions SET summary = ? WHERE id = ?",
            ['{"means": {"retrieval.mrr": NaN, "generation.answer_relevance": Infinity}, "k": 5}', sid],
        )
    return sid, db


NaN_TEXT = "@NaN@"


def test_an_old_database_with_nan_reads_as_missing(tmp_path: Path) -> None:
    sid, db = _old_database(tmp_path / "old.db")
    report = load_eval_report(db, sid)
    assert report["aggregate"]["retrieval"]["mrr"]["mean"] is None and report["usage"]["cost_usd"] is None
    q = report["questions"][0]
    assert q["retrieved"][0]["score"] is None and q["retrieval"]["mrr"] is None
    undefined: dict[str, float | None] = {"answer_relevance": None}
    assert q["generation"]["answer_relevance"] is None and q["spread"] == undefined
    json.dumps(report, allow_nan=False)
    assert (stored_session(db, sid)["summary"] or {})["means"] == {
        "retrieval.mrr": None,
        "generation.answer_relevance": None,
    }
    assert (list_sessions(db)[0]["summary"] or {})["means"]["retrieval.mrr"] is None


@pytest.mark.parametrize("extra", [[], ["--markdown", "-"]])
def test_ragcov_report_on_an_old_database_with_nan_works(tmp_path: Path, capsys: pytest.CaptureFixture, extra) -> None:
    sid, _ = _old_database(tmp_path / "old.db")
    out = tmp_path / "r.json"
    assert main(["report", "--db", str(tmp_path / "old.db"), sid, "--json", str(out), *extra]) == 0
    exported = json.loads(out.read_text(), parse_constant=lambda c: pytest.fail(f"{c} exported"))
    assert exported["questions"][0]["retrieval"]["mrr"] is None
    assert "nan" not in capsys.readouterr().out.lower()


def test_the_apps_queries_read_an_old_nan_as_missing(tmp_path: Path) -> None:
    from ragcov_tui.store.queries import eval_detail, eval_page

    sid, db = _old_database(tmp_path / "old.db")
    detail = eval_detail(db, sid, "q1")
    assert detail is not None
    assert detail.retrieved[0]["score"] is None and detail.retrieval == {"mrr": None}
    assert eval_page(db, sid).rows[0].generation == {"answer_relevance": None}
