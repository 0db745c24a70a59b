"""The plugin's fixtures in a pytest run of their own (pytester): once per session, a user mistake
as one line, the database where --ragcov-db says (issue #30 §1)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


def test_ragcov_eval_runs_once_per_session_and_a_mistake_fails_in_one_line(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    pytester.makepyfile(f"""
        from ragcov_tui.pytest_plugin import assert_question
        Q, C = {str(SAMPLE / "questions.jsonl")!r}, {str(SAMPLE / "corpus")!r}

        def test_a_missing_test_file(ragcov_eval):
            ragcov_eval(questions="missing.jsonl", system="builtin:bm25")

        def test_one_run_per_set_of_options(ragcov_eval, ragcov_testset):
            first = ragcov_eval(questions=Q, corpus=C, system="builtin:bm25", metrics="retrieval")
            again = ragcov_eval(questions=Q, corpus=[C], system="builtin:bm25", metrics="retrieval")
            assert first is again and len(first) == len(ragcov_testset(Q).questions) == 31
            assert first["q001"].retrieved_ids and first.mean("mrr") > 0.5
            assert_question(first, "q001", "hit", at_least=1)
    """)
    db = tmp_path / "ragcov.db"
    result = pytester.runpytest_subprocess("-p", "ragcov_tui.pytest_plugin.plugin", "--ragcov-db", str(db))
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*ragcov eval: *missing.jsonl*"])
    assert "Traceback" not in result.stdout.str() and "raise BadInput" not in result.stdout.str()
    assert db.is_file()


def test_the_options_are_in_pytest_help(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("-p", "ragcov_tui.pytest_plugin.plugin", "--help")
    result.stdout.fnmatch_lines(["*--ragcov-db=PATH*", "*--ragcov-no-cache*"])
