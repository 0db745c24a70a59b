"""The Markdown report lists every gap's suggested questions with the chunk each came from."""

from __future__ import annotations

from typing import Any, cast

import pytest

from ragcov_tui.coverage.report_md import _suggestion_lines
from ragcov_tui.store.analysis_contract import GapEntry


@pytest.mark.parametrize(
    "suggestion, row",
    [
        (
            {"text": "How do retries work?", "origin": "heuristic", "chunk_id": "api.md#3", "form": "question"},
            "| 2 | How do retries work? | question | api.md#3 |",
        ),
        (
            {"text": "Ask about: «quota»", "origin": "heuristic", "chunk_id": "x.md#0", "form": "passage"},
            "| 2 | Ask about: «quota» | passage | x.md#0 |",
        ),
        ({"text": "What is a token?", "origin": "llm:openai:m"}, "| 2 | What is a token? | n/a | n/a |"),
        ("An old bare string?", "| 2 | An old bare string? | n/a | n/a |"),
        ({"text": "a | b\nc", "chunk_id": "d|e.md#1", "form": "question"}, "| 2 | a \\| b c | question | d\\|e.md#1 |"),
    ],
)
def test_each_suggestion_is_listed_with_its_source_chunk(suggestion: Any, row: str) -> None:
    lines = _suggestion_lines([cast(GapEntry, {"cluster": 2, "suggested_questions": [suggestion]})])
    assert lines[1] == "### Suggested questions" and "| cluster | suggestion | form | from chunk |" in lines
    assert lines[-1] == row


def test_no_suggestions_no_section() -> None:
    assert (
        _suggestion_lines([cast(GapEntry, {"cluster": 0, "suggested_questions": []}), cast(GapEntry, {"cluster": 1})])
        == []
    )
