"""The shared ``.jsonl`` row loop: lines end at \\n only, blank lines skipped, blank-text rows counted."""

from __future__ import annotations

import pytest

from ragcov_tui.corpus.jsonl_rows import json_object, read_rows
from ragcov_tui.shared.errors import BadInput


def text_of(line: str, where: str) -> str | None:
    row = json_object(line, where)
    return f"{where}={row['t']}" if row["t"].strip() else None


def test_rows_are_numbered_by_line_and_blank_text_is_counted() -> None:
    text = '{"t": "a"}\n\n   \n{"t": " "}\n{"t": "b\\u2028c"}\n'
    kept, blank = read_rows(text, "f.jsonl", text_of)
    assert kept == ["f.jsonl:1=a", "f.jsonl:5=b\u2028c"] and blank == 1


def test_a_u2028_inside_a_string_is_no_line_end() -> None:
    kept, _ = read_rows('{"t": "x\u2028y"}', "f", text_of)
    assert kept == ["f:1=x\u2028y"]


@pytest.mark.parametrize(
    ("line", "needle"),
    [("[1]", "expected a JSON object, got list"), ('"s"', "got str"), ("{bad", "f:3"), ('{"t": NaN}', "f:3")],
)
def test_a_row_that_is_no_object_names_its_line(line: str, needle: str) -> None:
    with pytest.raises(BadInput, match=needle):
        read_rows('{"t": "a"}\n{"t": "b"}\n' + line, "f", text_of)
