"""text_key normalisation and fresh ids that follow the file's pattern."""

from __future__ import annotations

import pytest

from ragcov_tui.testset.ids import fresh_id, text_key
from ragcov_tui.testset.writer import text_key as writer_text_key


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("What is X?", "  what   is x"),
        ("Was ist Straße?!", "WAS IST STRASSE"),
        ("Ｆｕｌｌｗｉｄｔｈ…", "fullwidth"),
        ("Tabs\tand\nnewlines.", "tabs and newlines"),
    ],
)
def test_text_key_equal_for_trivial_differences(a, b):
    assert text_key(a) == text_key(b)


def test_text_key_keeps_meaningful_differences():
    assert text_key("What is X?") != text_key("What is Y?")
    assert text_key("C++?") == "c++"  # "+" is a symbol, not punctuation
    assert writer_text_key is text_key


@pytest.mark.parametrize(
    ("existing", "expected"),
    [
        (["q007", "q030", "q012"], "q031"),
        (["q9", "q10"], "q11"),
        ([3, 1, 2], 4),
        (["1", "2", "10"], "11"),
        (["doc-a", "doc-b"], "ragcov-1"),
        ([], "ragcov-1"),
        (["ragcov-1", "ragcov-2", "x"], "ragcov-3"),
        (["q001", "q002", "q003", "a", "q004x"], "q004"),
        (["q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9", "Q10"], "q10"),
        (["3f2a-1", "9b1c-2", "77aa-3"], "ragcov-1"),  # no shared prefix: no pattern to follow
    ],
)
def test_fresh_id_follows_the_pattern(existing, expected):
    new = fresh_id(existing)
    assert new == expected and type(new) is type(expected)
    assert str(new) not in {str(i) for i in existing}


def test_fresh_id_skips_taken_ids():
    assert fresh_id(["ragcov-1", "ragcov-2", "a", "b", "c", "d", "e"]) == "ragcov-3"
