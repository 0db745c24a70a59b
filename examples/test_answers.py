"""Answer-correctness tests with a judge, against reference answers written by `ragcov references`."""

from __future__ import annotations

import json

from ragcov_tui.pytest_plugin import assert_metric


def reference_rows(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_references_are_marked_synthetic_and_name_their_documents(references):
    rows = reference_rows(references)
    assert rows and all(row["reference_generated"]["documents"] for row in rows)


def test_the_report_says_the_references_are_synthetic(answers):
    assert answers.report["synthetic_references"]["questions"] == len(answers)


def test_answers_are_correct(answers):
    assert_metric(answers, "answer_correctness", at_least=0.5)
