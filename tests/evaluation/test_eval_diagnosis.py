"""Per-question diagnosis: each branch and its thresholds."""

from __future__ import annotations

import pytest

from ragcov_tui.evaluation.diagnosis import diagnose


@pytest.mark.parametrize(
    ("ranks", "generation", "expected"),
    [
        (None, {"faithfulness": 1.0}, "no_gold"),
        ([], {"faithfulness": 1.0}, "retrieval_failure"),
        ([7, 9], {"faithfulness": 1.0}, "ranking_failure"),
        ([2], {"faithfulness": 0.4}, "generation_failure"),
        ([2], {"faithfulness": 0.9, "answer_correctness": 0.0}, "generation_failure"),
        ([2], {"faithfulness": 0.5, "answer_correctness": 1.0}, "ok"),
        ([1], {"faithfulness": None, "answer_correctness": 1.0}, "ok"),
        ([1], {"faithfulness": None}, "undetermined"),
        ([5], {"answer_correctness": None}, "undetermined"),
        ([5], {}, "ok"),  # a retrieval-only run (issue #22 §1): its retrieval decides
        ([5], {"answer_relevance": 0.1}, "ok"),  # neither faithfulness nor correctness asked for
        ([7], {}, "ranking_failure"),
        (None, {}, "no_gold"),
    ],
)
def test_diagnose(ranks, generation, expected) -> None:
    assert diagnose(ranks, 5, generation) == expected


@pytest.mark.parametrize(
    ("generation", "expected"),
    [
        ({"faithfulness": 0.9}, "ok"),
        ({"faithfulness": 0.1}, "generation_failure"),
        ({"faithfulness": None}, "undetermined"),
        ({}, "undetermined"),
    ],
)
def test_without_measured_retrieval_the_answer_decides(generation, expected) -> None:
    assert diagnose([], 5, generation, retrieval_measured=False) == expected
    assert diagnose(None, 5, generation, retrieval_measured=False) == expected
