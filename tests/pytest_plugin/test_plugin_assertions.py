"""assert_metric / assert_question on a hand-made eval report: the gate code decides, the message
names the questions (issue #30 §1)."""

from __future__ import annotations

import pytest

from ragcov_tui.pytest_plugin import RagcovResults, assert_metric, assert_question
from ragcov_tui.shared.errors import BadInput


def _question(qid: str, recall: float | None, correct: float | None = None, text: str = "a question") -> dict:
    return {
        "id": qid,
        "status": "done",
        "question": text,
        "retrieval": {"recall@10": recall},
        "generation": {"answer_correctness": correct},
        "retrieved": [{"id": f"{qid}-doc{i}"} for i in range(2)],
    }


def _report(questions: list[dict], *, repeats: int = 1, correctness: dict | None = None) -> dict:
    recalls = [q["retrieval"]["recall@10"] for q in questions if q["retrieval"]["recall@10"] is not None]
    return {
        "session_id": "s1",
        "k": 10,
        "repeats": repeats,
        "questions": questions,
        "aggregate": {
            "retrieval": {"recall@10": {"mean": sum(recalls) / len(recalls), "n": len(recalls), "std": 0.1}},
            "generation": {"answer_correctness": correctness or {"mean": None, "n": 0, "std": None}},
        },
    }


def test_a_metric_below_its_minimum_lists_the_questions_below_lowest_first_with_their_retrieved_ids() -> None:
    results = RagcovResults(
        _report(
            [_question("q1", 1.0), _question("q2", 0.5, text="why\x1b[2J"), _question("q3", 0.0), _question("q4", None)]
        )
    )
    with pytest.raises(AssertionError) as failed:
        assert_metric(results, "recall@10", at_least=0.8)
    lines = str(failed.value).splitlines()
    assert lines[0] == "recall@10: mean 0.5000 < required 0.8 over 3 of 4 questions; 2 below 0.8:"
    assert lines[1] == "  q3  recall@10=0.0000  'a question'  retrieved: q3-doc0, q3-doc1"
    assert lines[2].startswith("  q2  recall@10=0.5000  'why") and "\x1b" not in lines[2]  # made visible
    assert lines[3] == "  not measured on 1: q4"
    assert_metric(results, "recall@10", at_least=0.5)  # the gate's rule: mean >= minimum passes


def test_a_judged_metric_with_repeats_is_asserted_on_its_lower_bound() -> None:
    questions = [_question(f"q{i}", 1.0, correct) for i, correct in enumerate([1.0, 1.0, 0.0, 1.0])]
    once = RagcovResults(_report(questions, correctness={"mean": 0.75, "n": 4, "std": 0.433}))
    assert_metric(once, "answer_correctness", at_least=0.7)  # judged once: the mean, as --fail-under
    thrice = RagcovResults(_report(questions, repeats=3, correctness={"mean": 0.75, "n": 4, "std": 0.433}))
    with pytest.raises(
        AssertionError,
        match=r"answer_correctness: 95% lower bound 0\.\d+ of the mean 0\.7500 "
        r"\(bootstrap over items, 3 repeats\) < required 0\.7",
    ):
        assert_metric(thrice, "answer_correctness", at_least=0.7)  # the gate's figure, as eval --fail-under


def test_a_metric_never_measured_fails_and_a_bad_name_is_a_one_line_error() -> None:
    results = RagcovResults(_report([_question("q1", 1.0)]))
    with pytest.raises(AssertionError, match=r"answer_correctness: not measured \(no interval.*\) < required 0\.1"):
        assert_metric(results, "answer_correctness", at_least=0.1)
    with pytest.raises(BadInput, match="unknown metric 'recal'"):
        assert_metric(results, "recal", at_least=0.1)
    with pytest.raises(BadInput, match="does not match --k 10"):
        assert_metric(results, "recall@5", at_least=0.1)


def test_one_question_per_test() -> None:
    results = RagcovResults(_report([_question("q1", 1.0), _question("q2", 0.0)]))
    assert_question(results, "q1", "recall@10", at_least=1.0)
    with pytest.raises(
        AssertionError,
        match=r"recall@10 below 1:\n  q2  recall@10=0\.0000  'a question'  "
        r"retrieved: q2-doc0, q2-doc1",
    ):
        assert_question(results, "q2", "recall", at_least=1.0)
    with pytest.raises(KeyError, match="no question 'q9' in session s1"):
        assert_question(results, "q9", "recall", at_least=1.0)
