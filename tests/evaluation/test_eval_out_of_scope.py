"""Out-of-scope questions (issue #30 §4): the test file's ``answerable`` field, the "I don't know"
matcher, the judge's verdict, the diagnoses, and a run on questions with and without answers in
the corpus — its reports and gates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcov_tui.corpus import build_chunks
from ragcov_tui.corpus.models import Chunk
from ragcov_tui.evaluation.diagnosis import diagnose
from ragcov_tui.evaluation.generation.abstention import abstains
from ragcov_tui.evaluation.scope import is_out_of_scope
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.testset.reader import read_testset
from tests.cli.conftest import CORPUS, QUESTIONS, run_cli
from tests.support.fake_api import FakeAPIServer, api_env

ABSTAINING = [
    "",
    "   ",
    "N/A",
    "Unknown.",
    "I don't know.",
    "I do not know: what is X?",
    "I dont know",
    "I don't know: none of the retrieved passages answers this question.",
    "Sorry, I could not find that in the documents.",
    "I'm not sure.",
    "The provided context does not mention the dosage.",
    "Unfortunately, the documents provided do not contain information about this.",
    "The answer is not mentioned in the provided context.",
    "There is no information about this in the sources.",
    "I cannot answer this question based on the given passages.",
    "Based on the context, it cannot be determined whether X causes Y.",
    "I don't have enough information to answer that.",
    "This question is outside the scope of the provided documents.",
    "The retrieved passages don't say.",
    "Not enough information to answer.",
    "I’m unable to find the answer in the knowledge base. Please contact support.",
]
ANSWERING = [
    "Paris is the capital of France.",
    "I'm not sure, but I think it is 42.",
    "The context does not mention X. However, it states that Y is 3.",
    "The dose is 5 mg. The documents do not mention children.",
    "Yes, vitamin D deficiency is associated with a higher risk.",
    "I know that the answer is 7.",
    "No, the drug does not cause weight gain.",
    "Nothing is known to cause it; it is idiopathic.",
    "Unfortunately, refunds take 10 days.",
    "There is no fee for the first seat.",
]


@pytest.mark.parametrize("answer", ABSTAINING)
def test_the_matcher_reads_common_ways_of_saying_i_dont_know(answer: str) -> None:
    assert abstains(answer)


@pytest.mark.parametrize("answer", ANSWERING)
def test_the_matcher_does_not_take_a_hedged_or_plain_answer_for_an_abstention(answer: str) -> None:
    assert not abstains(answer)


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        ({"answerable": False}, False),
        ({"answerable": True}, True),
        ({"is_answerable": 0}, False),
        ({"unanswerable": True}, False),
        ({"is_impossible": False}, True),
        ({}, None),
    ],
)
def test_the_answerable_field_and_its_spellings(tmp_path: Path, row: dict, expected: bool | None) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"id": "q1", "question": "Who?", **row}) + "\n")
    assert read_testset(path).questions[0].answerable is expected


def test_csv_cells_say_yes_or_no_and_anything_else_is_one_line_naming_the_row(tmp_path: Path) -> None:
    path = tmp_path / "q.csv"
    path.write_text("id,question,answerable\nq1,Who?,no\nq2,What?,TRUE\nq3,Where?,\n")
    assert [q.answerable for q in read_testset(path).questions] == [False, True, None]
    path.write_text("id,question,answerable\nq1,Who?,maybe\n")
    with pytest.raises(BadInput, match=r"q\.csv:2: field 'answerable' must be true or false \(got 'maybe'\)"):
        read_testset(path)


def test_no_gold_means_out_of_scope_only_when_asked_and_the_file_is_silent(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    rows = [
        {"id": "bare", "question": "Who?"},
        {"id": "gold", "question": "Who?", "gold_doc_ids": ["d"]},
        {"id": "ref", "question": "Who?", "reference": "Ann."},
        {"id": "said", "question": "Who?", "answerable": True},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    questions = read_testset(path).questions
    assert [is_out_of_scope(q) for q in questions] == [False] * 4
    assert [is_out_of_scope(q, no_gold_unanswerable=True) for q in questions] == [True, False, False, False]


@pytest.mark.parametrize(
    ("ranks", "abstained", "answerable", "expected"),
    [
        (None, True, False, "ok"),
        (None, False, False, "answered_unanswerable"),
        (None, None, False, "undetermined"),
        ([1], True, True, "refused"),
        (None, True, True, "refused"),
        ([], True, True, "retrieval_failure"),
        ([9], True, True, "ranking_failure"),
        ([1], False, True, "ok"),
    ],
)
def test_diagnoses_of_abstention(ranks, abstained, answerable, expected) -> None:
    assert diagnose(ranks, 5, {"faithfulness": 1.0}, abstained=abstained, answerable=answerable) == expected


# -- a run: questions the corpus answers, and questions it does not ---------------------------

OUT_OF_SCOPE = [
    ("oos1", "What is the boiling point of liquid nitrogen in kelvin?", "I don't know."),
    ("oos2", "Who won the 1998 football world cup?", "Sorry, the documents do not mention this."),
    ("oos3", "How many moons does Jupiter have?", "Jupiter has 95 known moons."),
]


def _files(tmp_path: Path) -> tuple[Path, Path]:
    """Four sample questions (q002 refused by the system) and three the corpus cannot answer (two declined)."""
    _, chunks = build_chunks([CORPUS])
    first: dict[str, Chunk] = {}
    for chunk in chunks:
        first.setdefault(chunk.source, chunk)
    questions, records = [], []
    for line in QUESTIONS.read_text().splitlines()[:4]:
        q = json.loads(line)
        gold = first[q["relevant_doc_ids"][0]]
        questions.append(q)
        answer = "I don't know." if q["id"] == "q002" else q["ground_truth"]
        records.append({"id": q["id"], "answer": answer, "retrieved_ids": [gold.id], "retrieved_contexts": [gold.text]})
    any_chunk = chunks[0]
    for qid, text, answer in OUT_OF_SCOPE:
        questions.append({"id": qid, "question": text, "answerable": False})
        records.append(
            {"id": qid, "answer": answer, "retrieved_ids": [any_chunk.id], "retrieved_contexts": [any_chunk.text]}
        )
    qpath, rpath = tmp_path / "q.jsonl", tmp_path / "records.jsonl"
    qpath.write_text("".join(json.dumps(q) + "\n" for q in questions))
    rpath.write_text("".join(json.dumps(r) + "\n" for r in records))
    return qpath, rpath


def test_a_run_scores_abstention_and_refusals_in_every_report_and_gate(tmp_path: Path, capsys) -> None:
    qpath, rpath = _files(tmp_path)
    out = tmp_path / "r.json"
    md = tmp_path / "r.md"
    code = run_cli(
        "eval",
        "--db",
        str(tmp_path / "db"),
        "--questions",
        str(qpath),
        "--corpus",
        str(CORPUS),
        "--system",
        f"records:{rpath}",
        "--embedder",
        "hash",
        "--json",
        str(out),
        "--markdown",
        str(md),
        "--fail-under",
        "abstention=0.9",
        "answered=0.7",
    )
    printed = capsys.readouterr()
    assert code == 3
    report = json.loads(out.read_text())
    generation = report["aggregate"]["generation"]
    assert generation["abstention"]["mean"] == pytest.approx(2 / 3) and generation["abstention"]["n"] == 3
    assert generation["answered"]["mean"] == pytest.approx(3 / 4) and generation["answered"]["n"] == 4
    assert report["scope"] == {"unanswerable": 3, "abstained": 2, "answerable": 4, "refused": 1, "by": ["phrases"]}
    by_id = {q["id"]: q for q in report["questions"]}
    assert {i: by_id[i]["diagnosis"] for i in ("q002", "oos1", "oos2", "oos3")} == {
        "q002": "refused",
        "oos1": "ok",
        "oos2": "ok",
        "oos3": "answered_unanswerable",
    }
    assert by_id["oos1"]["abstention"] == {
        "abstained": True,
        "by": "phrases",
        "reason": 'says "I don\'t know"',
        "out_of_scope": True,
    }
    assert by_id["oos1"]["generation"]["answered"] is None and by_id["q001"]["generation"]["abstention"] is None
    assert "Out of scope: 2 of 3 questions declined; answerable: 1 of 4 refused" in printed.out
    assert "fail-under abstention: 0.6667 < required 0.9" in printed.err and "fail-under answered" not in printed.err
    assert "## Out of scope" in md.read_text() and "2 of 3 questions declined" in md.read_text()


def test_a_named_judge_decides_abstention(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    qpath, rpath = _files(tmp_path)

    def judge(messages: list[dict], body: dict) -> str:
        assert messages[0]["content"].startswith("Decide whether a question-answering system abstained")
        answer = messages[-1]["content"].split("Answer: ", 1)[1]
        return json.dumps({"abstained": "moons" in answer or abstains(answer), "reason": "the judge says so"})

    out = tmp_path / "r.json"
    with FakeAPIServer() as server:
        api_env(monkeypatch, server)
        server.chat_handler = judge
        assert (
            run_cli(
                "eval",
                "--quiet",
                "--db",
                str(tmp_path / "db"),
                "--questions",
                str(qpath),
                "--corpus",
                str(CORPUS),
                "--system",
                f"records:{rpath}",
                "--embedder",
                "hash",
                "--judge-llm",
                "openai:judge",
                "--no-preflight",
                "--metrics",
                "abstention,answered",
                "--json",
                str(out),
            )
            == 0
        )
        assert server.count("/chat/completions") == 7  # one verdict per question
    report = json.loads(out.read_text())
    assert report["aggregate"]["generation"]["abstention"]["mean"] == 1.0  # the judge counted oos3 as declined
    assert report["scope"]["by"] == ["llm:openai:judge"]
    assert {q["id"]: q["abstention"]["reason"] for q in report["questions"]}["oos3"] == "the judge says so"


def test_no_gold_unanswerable_with_a_builtin_system_on_questions_with_and_without_answers(tmp_path: Path) -> None:
    qpath = tmp_path / "q.jsonl"
    lines = QUESTIONS.read_text().splitlines()[:6]
    extra = [{"id": f"x{i}", "question": text} for i, (_, text, _) in enumerate(OUT_OF_SCOPE)]  # no gold, no reference
    qpath.write_text("\n".join(lines) + "\n" + "".join(json.dumps(q) + "\n" for q in extra))
    out = tmp_path / "r.json"
    assert (
        run_cli(
            "eval",
            "--quiet",
            "--db",
            str(tmp_path / "db"),
            "--questions",
            str(qpath),
            "--corpus",
            str(CORPUS),
            "--system",
            "builtin:bm25",
            "--embedder",
            "hash",
            "--no-gold-unanswerable",
            "--json",
            str(out),
        )
        == 0
    )
    report = json.loads(out.read_text())
    assert report["scope"]["unanswerable"] == 3 and report["scope"]["answerable"] == 6
    assert report["aggregate"]["generation"]["abstention"]["n"] == 3
    assert {q["id"]: q["abstention"]["out_of_scope"] for q in report["questions"]} == {
        **{json.loads(line)["id"]: False for line in lines},
        "x0": True,
        "x1": True,
        "x2": True,
    }


def test_an_empty_answer_is_no_verdict_not_a_refusal(tmp_path: Path) -> None:
    qpath, rpath = _files(tmp_path)
    rows = [json.loads(line) for line in rpath.read_text().splitlines()]
    rpath.write_text("".join(json.dumps({**r, "answer": ""}) + "\n" for r in rows))
    out = tmp_path / "r.json"
    assert (
        run_cli(
            "eval",
            "--quiet",
            "--db",
            str(tmp_path / "db"),
            "--questions",
            str(qpath),
            "--corpus",
            str(CORPUS),
            "--system",
            f"records:{rpath}",
            "--embedder",
            "hash",
            "--json",
            str(out),
        )
        == 0
    )
    report = json.loads(out.read_text())
    assert report["aggregate"]["generation"]["abstention"] == {"mean": None, "n": 0, "std": None}
    assert report["scope"] is None and "refused" not in report["counts"]["diagnosis"]
    assert {q["undefined"].get("answered") for q in report["questions"] if q["id"].startswith("q")} == {"no answer"}


def test_the_dry_run_counts_one_judged_verdict_per_question(tmp_path: Path) -> None:
    qpath, rpath = _files(tmp_path)
    out = tmp_path / "plan.json"
    assert (
        run_cli(
            "eval",
            "--quiet",
            "--db",
            str(tmp_path / "db"),
            "--questions",
            str(qpath),
            "--system",
            f"records:{rpath}",
            "--embedder",
            "hash",
            "--judge-llm",
            "openai:judge",
            "--metrics",
            "mrr,answer_relevance",
            "--dry-run",
            "--json",
            str(out),
        )
        == 0
    )
    assert json.loads(out.read_text())["llm_calls"] == 7  # relevance only: --metrics names the metrics
    assert (
        run_cli(
            "eval",
            "--quiet",
            "--db",
            str(tmp_path / "db"),
            "--questions",
            str(qpath),
            "--system",
            f"records:{rpath}",
            "--embedder",
            "hash",
            "--judge-llm",
            "openai:judge",
            "--metrics",
            "mrr,answer_relevance,abstention",
            "--dry-run",
            "--json",
            str(out),
        )
        == 0
    )
    assert json.loads(out.read_text())["llm_calls"] == 7 * 2  # + one abstention verdict per question
