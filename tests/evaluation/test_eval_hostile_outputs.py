"""No NaN from a system ever becomes a score or a stored session.

Every system kind (python callable, http endpoint on 127.0.0.1, records file) × every hostile value
in a context's ``score`` (and other fields): a python / http reply with one is that question's
error, named, and the run goes on; a records file with one is refused when it is read, naming its
line. Whatever happens, the stored session holds no NaN and ``ragcov report`` reads it.
"""

from __future__ import annotations

import importlib
import json
import math
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragcov_tui.evaluation.systems.base import RetrievedChunk, SystemOutput, check_score, output_from_value
from ragcov_tui.evaluation.systems.records import load_records
from ragcov_tui.services.eval_job import run_eval
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store.eval_contract import ReportQuestion
from tests.evaluation.eval_integrity import (
    assert_stored_finite,
    database,
    options,
    report_via_cli,
    write_questions,
)
from tests.support.fake_system import FakeSystemServer
from tests.support.stored import stored_session

# (raw JSON text for http / records, the Python value for a python system, the words the error names)
HOSTILE: list[tuple[str, Any, str]] = [
    ("NaN", float("nan"), "finite number"),
    ("Infinity", float("inf"), "finite number"),
    ("-Infinity", float("-inf"), "finite number"),
    ("1e309", float("inf"), "finite number"),
    ("-1e400", float("-inf"), "finite number"),
    ('"NaN"', "NaN", "must be a number, got str"),
    ('"0.5"', "0.5", "must be a number, got str"),
    ('"high"', "high", "must be a number, got str"),
    ('""', "", "must be a number, got str"),
    ("true", True, "must be a number, got bool"),
    ("false", False, "must be a number, got bool"),
    ("[0.5]", [0.5], "must be a number, got list"),
    ("[]", [], "must be a number, got list"),
    ('{"value": 0.5}', {"value": 0.5}, "must be a number, got dict"),
    ('{"value": NaN}', {"value": float("nan")}, "must be a number, got dict"),
    ("[[NaN]]", [[float("nan")]], "must be a number, got list"),
    ("1" + "0" * 400, 10**400, "finite number"),
    ("-" + "9" * 320, -int("9" * 320), "finite number"),
]
HOSTILE_IDS = [raw if len(raw) < 20 else f"{raw[:4]}…({len(raw)} digits)" for raw, _, _ in HOSTILE]
ACCEPTED: list[tuple[str, Any, float | None]] = [
    ("null", None, None),
    ("0", 0, 0.0),
    ("0.82", 0.82, 0.82),
    ("-3.5", -3.5, -3.5),
    ("12", 12, 12.0),
    ("1e308", 1e308, 1e308),
]
NON_FINITE_LITERAL = re.compile(r"^-?Infinity$|NaN\b(?!\")|e[34]\d\d")
BAD = "When are invoices sent?"  # q1: the question whose reply carries the value under test


def _reply(score_json: str) -> str:
    return f'{{"answer": "On the first day [billing.md].", "contexts": [{{"id": "billing.md", "text": "t", "score": {score_json}}}]}}'


def _check_run(tmp: Path, system: str, words: str | None, context: bool = True) -> ReportQuestion:
    """Run the eval; q1 failed naming ``words`` (or scored when None), q2 and q3 done; the session is
    stored done with no NaN, and ``ragcov report`` exports it."""
    db, path = database(tmp)
    sid, report = run_eval(options(write_questions(tmp), system), db)
    by_id = {q["id"]: q for q in report["questions"]}
    if words is None:
        assert by_id["q1"]["status"] == "done"
    else:
        assert by_id["q1"]["status"] == "error" and words in (by_id["q1"]["error"] or "")
        assert not context or "context 1: 'score' must be a" in (by_id["q1"]["error"] or "")
        assert report["counts"]["errors"] == 1 and report["counts"]["done"] == 2
        assert report["aggregate"]["retrieval"]["hit@2"]["n"] == 2  # the run went on
    assert by_id["q2"]["status"] == by_id["q3"]["status"] == "done"
    assert stored_session(db, sid)["status"] == "done"
    assert_stored_finite(db)
    json.dumps(report, allow_nan=False)
    code, exported = report_via_cli(path, sid, tmp)
    assert code == 0 and exported["counts"] == report["counts"]
    return by_id["q1"]


# -- http ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("raw", "value", "words"), HOSTILE, ids=HOSTILE_IDS)
def test_http_system_hostile_score_is_that_questions_error(tmp_path: Path, raw: str, value: Any, words: str) -> None:
    literal = NON_FINITE_LITERAL.search(raw) is not None  # refused where the reply is parsed
    with FakeSystemServer(lambda q: _reply(raw if q == BAD else "0.5")) as server:
        _check_run(
            tmp_path, f"http:{server.url}", "the reply is not valid JSON" if literal else words, context=not literal
        )


@pytest.mark.parametrize(("raw", "value", "expected"), ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_http_system_finite_scores_are_kept(tmp_path: Path, raw: str, value: Any, expected: float | None) -> None:
    with FakeSystemServer(lambda q: _reply(raw)) as server:
        item = _check_run(tmp_path, f"http:{server.url}", None)
    assert item["retrieved"][0]["score"] == expected


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ('{"answer": NaN, "contexts": []}', "NaN is not valid JSON (numbers must be finite)"),
        ('{"answer": "a", "contexts": NaN}', "NaN is not valid JSON (numbers must be finite)"),
        ('{"answer": "a", "contexts": [-Infinity]}', "-Infinity is not valid JSON"),
        ('{"answer": "a", "contexts": [{"id": "x", "text": 1e309}]}', "number 1e309 is too large"),
        ("NaN", "NaN is not valid JSON (numbers must be finite)"),
        ('{"answer": 3, "contexts": []}', "'answer' must be a string"),
        ('{"answer": "a", "contexts": 0.5}', "'contexts' must be a list"),
        ('{"answer": "a", "contexts": [0.5]}', "context 1: expected"),
        ('{"answer": "a", "contexts": [{"id": 1.5, "text": "t"}]}', "context 1: 'id' must be a string"),
        ('{"answer": "a", "contexts": [{"id": ["x"], "text": "t"}]}', "context 1: 'id' must be a string"),
        ('{"answer": "a", "contexts": [{"id": true, "text": "t"}]}', "context 1: 'id' must be a string"),
        ('{"answer": "a", "contexts": [{"id": "x", "text": {"t": 1}}]}', "context 1: 'text' must be a string"),
        ("[1, 2, 3]", "expected {'answer'"),
        ('{"contexts": []}', "no 'answer' field"),
    ],
)
def test_http_system_hostile_shapes_are_that_questions_error(tmp_path: Path, body: str, words: str) -> None:
    with FakeSystemServer(lambda q: body if q == BAD else _reply("1")) as server:
        item = _check_run(tmp_path, f"http:{server.url}", words, context=False)
    assert (item["error"] or "").startswith("system: ")


# -- python callables ------------------------------------------------------------------------------
@pytest.fixture()
def scripted_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """``python:hostile_rag_mod:answer`` returning ``VALUE`` as q1's context score (0.5 for the others)."""
    (tmp_path / "hostile_rag_mod.py").write_text(
        textwrap.dedent(f"""
        VALUE = None
        SHAPE = "dict"
        def answer(q):
            score = VALUE if q == {BAD!r} else 0.5
            if SHAPE == "output":
                from ragcov_tui.evaluation.systems.base import RetrievedChunk, SystemOutput
                return SystemOutput("On the first day.", [RetrievedChunk("billing.md", "t", score)])
            if SHAPE == "tuple":
                return ("On the first day.", [{{"id": "billing.md", "text": "t", "score": score}}])
            return {{"answer": "On the first day.", "contexts": [{{"id": "billing.md", "text": "t", "score": score}}]}}
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("hostile_rag_mod")  # written above
    sys.modules.pop("hostile_rag_mod", None)


@pytest.mark.parametrize("shape", ["dict", "tuple", "output"])
@pytest.mark.parametrize(("raw", "value", "words"), HOSTILE, ids=HOSTILE_IDS)
def test_python_system_hostile_score_is_that_questions_error(
    tmp_path: Path, scripted_module, shape: str, raw: str, value: Any, words: str
) -> None:
    scripted_module.VALUE, scripted_module.SHAPE = value, shape
    _check_run(tmp_path, "python:hostile_rag_mod:answer", words)


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (np.float32("nan"), "finite number"),
        (np.float64("inf"), "finite number"),
        (np.bool_(True), "got bool"),
        (np.array([0.5]), "got ndarray"),
        (complex(1, 0), "got complex"),
        (b"0.5", "got bytes"),
    ],
)
def test_python_system_numpy_and_odd_scores(tmp_path: Path, scripted_module, value: Any, words: str) -> None:
    scripted_module.VALUE = value
    _check_run(tmp_path, "python:hostile_rag_mod:answer", words)


@pytest.mark.parametrize("value", [np.float32(0.25), np.float64(0.25), np.int64(3), 0.25, 3])
def test_python_system_numpy_scores_become_plain_floats(tmp_path: Path, scripted_module, value: Any) -> None:
    scripted_module.VALUE = value
    item = _check_run(tmp_path, "python:hostile_rag_mod:answer", None)
    score = item["retrieved"][0]["score"]
    assert type(score) is float and score == pytest.approx(float(value))


# -- records files ---------------------------------------------------------------------------------
def _records(tmp: Path, line: str, name: str = "records.jsonl") -> str:
    path = tmp / name
    good = '{"id": "q2", "answer": "Twelve.", "retrieved_ids": ["security.md"]}'
    path.write_text(good + "\n" + line + "\n")
    return str(path)


@pytest.mark.parametrize(("raw", "value", "words"), HOSTILE, ids=HOSTILE_IDS)
def test_records_hostile_score_refused_naming_the_line(tmp_path: Path, raw: str, value: Any, words: str) -> None:
    path = _records(
        tmp_path, f'{{"id": "q1", "answer": "a", "contexts": [{{"id": "billing.md", "text": "t", "score": {raw}}}]}}'
    )
    with pytest.raises(BadInput, match=r"records\.jsonl:2: ") as caught:
        load_records(path)
    message = str(caught.value)  # a non-finite literal may already be refused as JSON by the reader
    assert (words in message and "context 1: 'score'" in message) or "finite" in message
    assert "\n" not in message
    db, _ = database(tmp_path)
    with pytest.raises(BadInput, match="records.jsonl:2"):
        run_eval(options(write_questions(tmp_path), f"records:{path}"), db)
    assert not list(db.query("SELECT id FROM sessions"))  # refused before a session was made


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ('{"id": NaN, "answer": "a"}', "must be a string or a whole number"),
        ('{"id": 1.5, "answer": "a"}', "must be a string or a whole number"),
        ('{"id": ["q1"], "answer": "a"}', "must be a string or a whole number"),
        ('{"id": "q1", "answer": NaN}', "must be a string"),
        ('{"id": "q1", "answer": ["a"]}', "must be a string"),
        ('{"id": "q1", "retrieved_ids": [NaN]}', "must be a list of strings"),
        ('{"id": "q1", "retrieved_ids": [1e309]}', "must be a list of strings"),
        ('{"id": "q1", "retrieved_ids": [{"id": "a"}]}', "must be a list of strings"),
        ('{"id": "q1", "contexts": [NaN]}', "context 1 must be a text"),
        ('{"id": "q1", "contexts": [["t"]]}', "context 1 must be a text"),
        ('{"id": "q1", "contexts": {"id": "a"}}', "must be a list of texts"),
        ('{"id": "q1", "contexts": [{"id": "a", "text": ["t"]}]}', "'text' must be a string"),
        ('{"id": "q1", "contexts": [{"id": NaN, "text": "t"}]}', "'id' must be a string"),
        ('{"id": "q1", "retrieved_ids": ["a", "b"], "contexts": [{"id": "b", "text": "t"}, "u"]}', "differs from"),
    ],
)
def test_records_hostile_fields_refused_naming_the_line(tmp_path: Path, line: str, words: str) -> None:
    with pytest.raises(BadInput, match=r"records\.jsonl:2") as caught:
        load_records(_records(tmp_path, line))
    assert words in str(caught.value) or "finite" in str(caught.value)  # the reader may refuse NaN first


def test_records_context_objects_with_scores_are_used(tmp_path: Path) -> None:
    path = _records(
        tmp_path,
        '{"id": "q1", "answer": "On the first day.", "contexts": '
        '[{"id": "billing.md", "text": "Invoices.", "score": 0.9}, {"text": "loose text"}, "plain"]}',
    )
    db, db_path = database(tmp_path)
    sid, report = run_eval(options(write_questions(tmp_path), f"records:{path}"), db)
    q1 = next(q for q in report["questions"] if q["id"] == "q1")
    assert [(c["id"], c["score"]) for c in q1["retrieved"]] == [("billing.md", 0.9), ("#2", None), ("#3", None)]
    assert q1["retrieval"]["hit@2"] == 1.0
    assert_stored_finite(db)


def test_records_csv_with_nan_score_in_a_json_cell(tmp_path: Path) -> None:
    path = tmp_path / "records.csv"
    path.write_text('id,answer,contexts\nq1,yes,"[{""id"": ""a"", ""text"": ""t"", ""score"": NaN}]"\n')
    with pytest.raises(BadInput, match=r"records\.csv:2: .*finite"):
        load_records(path)


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        (
            "dup.jsonl",
            '{"id": "q1", "answer": "a"}\n{"id": "q2", "answer": "b"}\n{"id": "q1", "answer": "c"}\n',
            r"dup\.jsonl:3: repeated id 'q1' \(first on .*dup\.jsonl:1\)",
        ),
        (
            "dup.jsonl",
            '{"id": 7, "answer": "a"}\n{"id": "7", "answer": "c"}\n',
            r"dup\.jsonl:2: repeated id '7' \(first on .*dup\.jsonl:1\)",
        ),
        ("dup.csv", "id,answer\nq1,a\nq2,b\nq1,c\n", r"dup\.csv:4: repeated id 'q1' \(first on .*dup\.csv:2\)"),
        (
            "dup.json",
            json.dumps([{"id": "q1", "answer": "a"}, {"id": "q1", "answer": "b"}], indent=1),
            r"dup\.json:.*repeated id 'q1' \(first on .*dup\.json:",
        ),
    ],
)  # repeated question texts are the join's to report (test_eval_records_join.py), not the reader's
def test_records_repeated_ids_are_refused_naming_both_lines(tmp_path: Path, name: str, text: str, where: str) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(BadInput, match=where):
        load_records(path)


def test_records_rows_with_ids_may_share_a_question_text(tmp_path: Path) -> None:
    path = tmp_path / "same_text.jsonl"
    path.write_text(
        '{"id": "q1", "question": "When?", "answer": "a"}\n{"id": "q2", "question": "When?", "answer": "b"}\n'
    )
    rows = load_records(path).rows
    assert [(r.id, r.question, r.answer) for r in rows] == [("q1", "When?", "a"), ("q2", "When?", "b")]


# -- the shared checker ----------------------------------------------------------------------------
@pytest.mark.parametrize(("raw", "value", "words"), HOSTILE, ids=HOSTILE_IDS)
def test_check_score_refuses(raw: str, value: Any, words: str) -> None:
    with pytest.raises(BadInput, match="'score' must be a") as caught:
        check_score(value, "sys: context 1")
    assert words in str(caught.value)


def test_output_from_value_rechecks_system_output_objects() -> None:
    with pytest.raises(BadInput, match="finite"):
        output_from_value(SystemOutput("a", [RetrievedChunk("x", "t", math.nan)]), "builtin")
    numpy_score = RetrievedChunk("x", "t", np.float32(0.5))  # type: ignore[arg-type]  # deliberately numpy: must come back a float
    out = output_from_value(SystemOutput("a", [numpy_score], label="l"), "w")
    assert type(out.contexts[0].score) is float and out.label == "l"
