"""Records files without ids join the test questions by question text or by position; an
unjoinable file is one line listing the keys tried; ambiguity is reported, never guessed; a row's
id without one in the file comes from its content, so it stays put when another row is dropped."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from ragcov_tui.evaluation.systems.records import load_records
from ragcov_tui.evaluation.systems.records_join import JOINS, join_line, join_records
from ragcov_tui.evaluation.systems.records_system import RecordsSystem
from ragcov_tui.services.settings import SPECS
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.testset.ids import content_id, text_key
from ragcov_tui.testset.models import Question

TEXTS = [
    "How much does the Team plan cost?",
    "Which identity providers work with SSO?",
    "How do I export a workspace?",
    "What is the API rate limit?",
    "Can guests edit pages?",
]


def _questions(ids: bool = True) -> list[Question]:
    return [Question(id=f"q{i + 1:03d}" if ids else content_id(t), text=t, id_in_file=ids) for i, t in enumerate(TEXTS)]


def _answers() -> list[tuple[str, str, list[str]]]:
    return [(t, f"answer {i}", [f"context {i} a", f"context {i} b"]) for i, t in enumerate(TEXTS)]


def _ragas_csv(rows: list[tuple[str, str, list[str]]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["user_input", "retrieved_contexts", "response", "reference", "faithfulness"])
    for q, a, c in rows:
        writer.writerow([q, json.dumps(c), a, "ref", 0.5])
    return out.getvalue()


LAYOUTS = {  # file name -> rows -> text, each in that tool's field names
    "ragas_eval.csv": _ragas_csv,
    "ragas_eval.json": lambda rows: json.dumps(
        [{"user_input": q, "response": a, "retrieved_contexts": c, "reference": "ref"} for q, a, c in rows]
    ),
    "deepeval.json": lambda rows: json.dumps(
        [{"input": q, "actual_output": a, "retrieval_context": c, "expected_output": "ref"} for q, a, c in rows]
    ),
    "deepeval.jsonl": lambda rows: "\n".join(
        json.dumps({"input": q, "actual_output": a, "retrieval_context": c}) for q, a, c in rows
    ),
    "ours.jsonl": lambda rows: "\n".join(
        json.dumps({"question": q, "answer": a, "retrieved_contexts": c}) for q, a, c in rows
    ),
}


def _write(tmp: Path, name: str, text: str) -> Path:
    path = tmp / name
    path.write_text(text + ("\n" if not text.endswith("\n") else ""), encoding="utf-8")
    return path


def _raget(tmp: Path, rows: list[tuple[str, str, list[str]]] | None = None) -> Path:
    """Giskard RAGET's agent_answer.json: [{message, documents}], no id, no question."""
    rows = _answers() if rows is None else rows
    return _write(tmp, "agent_answer.json", json.dumps([{"message": a, "documents": c} for _, a, c in rows]))


def _system(path: Path, questions: list[Question], join: str = "auto") -> RecordsSystem:
    return RecordsSystem(str(path), questions=questions, join=join)


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("variant", ["as is", "reordered", "re-cased", "re-spaced", "end punctuation"])
@pytest.mark.parametrize("ids", [True, False])
def test_rows_without_ids_join_by_question_text(tmp_path: Path, layout: str, variant: str, ids: bool) -> None:
    rows = _answers()
    change = {
        "as is": lambda t: t,
        "reordered": lambda t: t,
        "re-cased": str.upper,
        "re-spaced": lambda t: "  " + t.replace(" ", "\t ") + "\n",
        "end punctuation": lambda t: t.rstrip("?") + " ?!",
    }
    rows = [(change[variant](q), a, c) for q, a, c in (rows[::-1] if variant == "reordered" else rows)]
    system = _system(_write(tmp_path, layout, LAYOUTS[layout](rows)), _questions(ids))
    for i, question in enumerate(_questions(ids)):
        output = system.answer_for(question)
        assert output.answer == f"answer {i}" and [c.text for c in output.contexts] == [
            f"context {i} a",
            f"context {i} b",
        ]
    assert system.join_report()["by"] == {"question": 5} and system.join_report()["joined"] == 5


@pytest.mark.parametrize("join", ["order", "ORDER ", "order"])
def test_a_raget_answer_file_joins_by_position(tmp_path: Path, join: str) -> None:
    system = _system(_raget(tmp_path), _questions(), SPECS["join"].parse(join, True))
    assert [system.answer_for(q).answer for q in _questions()] == [f"answer {i}" for i in range(5)]
    assert [c.text for c in system.answer_for(_questions()[2]).contexts] == ["context 2 a", "context 2 b"]
    assert join_line(system.join_report()) == "records: 5 of 5 questions joined (5 by position)"


@pytest.mark.parametrize("layout", LAYOUTS)
def test_order_join_ignores_the_text_of_any_layout(tmp_path: Path, layout: str) -> None:
    rows = [(f"another wording {i}", a, c) for i, (_, a, c) in enumerate(_answers())]
    system = _system(_write(tmp_path, layout, LAYOUTS[layout](rows)), _questions(), "order")
    assert system.answer_for(_questions()[4]).answer == "answer 4"


@pytest.mark.parametrize("join", ["auto", "id", "question"])
def test_a_file_without_ids_or_questions_is_refused_in_one_line_listing_the_keys_tried(
    tmp_path: Path, join: str
) -> None:
    with pytest.raises(BadInput) as caught:
        _system(_raget(tmp_path), _questions(), join)
    message = str(caught.value)
    assert message.startswith(f"{tmp_path / 'agent_answer.json'}: no row joins a test question (tried: ")
    assert message.endswith("use --join order to join row n to question n") and "\n" not in message
    assert ("id (no row has one of: id, qid" in message) == (join != "question")
    assert ("question text (no row has one of: question, query, user_input" in message) == (join != "id")


def test_an_unjoinable_file_with_texts_and_ids_shows_both_sides(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "r.jsonl",
        "\n".join(json.dumps({"id": f"x{i}", "question": f"Other {i}?", "answer": "a"}) for i in range(4)),
    )
    with pytest.raises(BadInput) as caught:
        _system(path, _questions())
    message = str(caught.value)
    assert (
        "tried: id (rows 'x0', 'x1', …; questions 'q001', 'q002', …); question text, normalised (rows "
        "'Other 0?', 'Other 1?', …; questions 'How much does the Team plan …, 'Which identity "
        "providers wor…, …))" in message
    )


@pytest.mark.parametrize("rows, questions", [(4, 5), (6, 5), (1, 5)])
def test_order_join_needs_one_row_per_question(tmp_path: Path, rows: int, questions: int) -> None:
    path = _raget(tmp_path, (_answers() * 2)[:rows])
    with pytest.raises(
        BadInput,
        match=rf"agent_answer\.json: --join order: {rows} rows but the test file has "
        rf"{questions} questions \(row n answers question n\)$",
    ):
        _system(path, _questions(), "order")


def test_two_test_questions_with_one_text_are_reported_not_joined(tmp_path: Path) -> None:
    questions = _questions() + [Question(id="q006", text=TEXTS[1].upper())]
    system = _system(_write(tmp_path, "r.jsonl", LAYOUTS["ours.jsonl"](_answers())), questions)
    for q in (questions[1], questions[5]):
        with pytest.raises(
            BadInput,
            match=r"ambiguous join: 2 test questions have this text \('q002', 'q006'\); "
            r"give the files ids or use --join order",
        ):
            system.answer_for(q)
    assert system.answer_for(questions[0]).answer == "answer 0"
    report = system.join_report()
    assert (report["joined"], report["ambiguous"], report["missing"]) == (4, 2, 0)
    assert "; 2 ambiguous, not joined (e.g. ambiguous join: 2 test questions" in join_line(report)


def test_duplicate_record_rows_are_reported_not_joined(tmp_path: Path) -> None:
    rows = _answers() + [(TEXTS[3] + "  ", "a second answer", [])]
    system = _system(_write(tmp_path, "r.jsonl", LAYOUTS["ours.jsonl"](rows)), _questions())
    with pytest.raises(BadInput, match=r"ambiguous join: 2 records rows have this question \(lines 4, 6\)"):
        system.answer_for(_questions()[3])
    assert system.join_report()["ambiguous"] == 1 and system.join_report()["joined"] == 4
    order = _system(tmp_path / "r.jsonl", _questions() + [Question(id="q006", text="Sixth?")], "order")
    assert order.answer_for(Question(id="q006", text="Sixth?")).answer == "a second answer"


def test_auto_joins_by_id_first_then_by_text_without_reusing_a_row(tmp_path: Path) -> None:
    rows = [
        {"id": "q001", "question": TEXTS[1], "answer": "by id"},  # the text of q002, the id of q001
        {"question": TEXTS[1], "answer": "by text"},
        {"id": "zz", "question": TEXTS[2], "answer": "text of a row with a foreign id"},
    ]
    system = _system(_write(tmp_path, "r.jsonl", "\n".join(map(json.dumps, rows))), _questions())
    q = _questions()
    assert system.answer_for(q[0]).answer == "by id" and system.answer_for(q[1]).answer == "by text"
    assert system.answer_for(q[2]).answer == "text of a row with a foreign id"
    with pytest.raises(BadInput, match="no record for this question"):
        system.answer_for(q[3])
    report = system.join_report()
    assert report["by"] == {"id": 1, "question": 2} and report["missing"] == 2
    assert join_line(report) == "records: 3 of 5 questions joined (1 by id, 2 by question text); 2 without a row"


def test_join_id_uses_ids_only_and_join_question_uses_text_only(tmp_path: Path) -> None:
    rows = [
        {"id": "q001", "question": TEXTS[1], "answer": "row 1"},
        {"id": "q002", "question": TEXTS[0], "answer": "row 2"},
    ]
    path = _write(tmp_path, "r.jsonl", "\n".join(map(json.dumps, rows)))
    q = _questions()
    by_id, by_text = _system(path, q, "id"), _system(path, q, "question")
    assert (by_id.answer_for(q[0]).answer, by_id.answer_for(q[1]).answer) == ("row 1", "row 2")
    assert (by_text.answer_for(q[0]).answer, by_text.answer_for(q[1]).answer) == ("row 2", "row 1")


def test_answer_by_text_finds_the_question_or_the_row(tmp_path: Path) -> None:
    system = _system(_write(tmp_path, "r.jsonl", LAYOUTS["ours.jsonl"](_answers())), _questions())
    assert system.answer("  how much does the team plan COST").answer == "answer 0"
    with pytest.raises(BadInput, match="no record for this question"):
        system.answer("A paraphrase nobody stored?")
    alone = RecordsSystem(str(tmp_path / "r.jsonl"))  # no test questions given: rows by their own text
    assert alone.answer(TEXTS[4]).answer == "answer 4"


@pytest.mark.parametrize("layout", LAYOUTS)
def test_row_ids_come_from_content_and_survive_a_dropped_row(tmp_path: Path, layout: str) -> None:
    full = load_records(_write(tmp_path, layout, LAYOUTS[layout](_answers()))).rows
    dropped = load_records(_write(tmp_path, "less-" + layout, LAYOUTS[layout](_answers()[1:]))).rows
    assert [r.key for r in full[1:]] == [r.key for r in dropped]
    assert [r.key for r in full] == [content_id(t) for t in TEXTS]
    assert len({r.key for r in full}) == 5 and all(r.key.startswith("q-") for r in full)


def test_row_ids_as_written_win_and_rows_of_answers_only_are_known_by_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "r.jsonl", '{"id": 7, "question": "A?", "answer": "a"}\n{"answer": "b"}\n')
    assert [r.key for r in load_records(path).rows] == ["7", "row-2"]


@pytest.mark.parametrize("a, b", [("What?", "what"), ("  A  b ", "a b"), ("Ｆｕｌｌ?", "full"), ("Straße", "STRASSE")])
def test_content_ids_are_equal_for_texts_equal_under_text_key(a: str, b: str) -> None:
    assert text_key(a) == text_key(b) and content_id(a) == content_id(b)


def test_content_ids_differ_for_different_texts() -> None:
    assert len({content_id(t) for t in TEXTS}) == len(TEXTS)


@pytest.mark.parametrize("bad", ["position", "", "ids", "1"])
def test_an_unknown_join_is_refused(tmp_path: Path, bad: str) -> None:
    with pytest.raises(BadInput, match=r"--join: expected one of auto, id, question, order"):
        join_records(load_records(_raget(tmp_path)), _questions(), bad)
    with pytest.raises(ValueError, match="expected one of auto, id, question, order"):
        SPECS["join"].parse(bad, True)


def test_the_setting_offers_exactly_the_joins() -> None:
    assert all(SPECS["join"].parse(j, True) == j for j in JOINS)
