"""The row loop both ``.jsonl`` corpus readers share: one JSON object per line, blank lines ignored.

Lines end at ``\\n`` only (a JSON string may hold U+2028 and the like, which ``splitlines`` would
cut); each line is parsed strictly (:func:`ragcov_tui.shared.input_values.parse_json_line`: no NaN, no
1e400, no lone surrogate, at most 100 levels deep) and must be an object. A row reader returns
None for a row whose text is blank; those are counted, not kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_values import parse_json_line
from ragcov_tui.shared.json_types import JsonObject

T = TypeVar("T")


def json_object(line: str, where: str) -> JsonObject:
    """The JSON object on ``line``; BadInput naming ``where`` when it is not valid JSON or no object."""
    row = parse_json_line(line, where)
    if not isinstance(row, dict):
        raise BadInput(f"{where}: expected a JSON object, got {type(row).__name__}")
    return row


def read_rows(text: str, display: str, row: Callable[[str, str], T | None]) -> tuple[list[T], int]:
    """``row(line, "display:lineno")`` for every non-blank line of ``text``: the results that are not
    None, and how many were None (rows with blank text)."""
    kept: list[T] = []
    blank = 0
    for lineno, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        item = row(line, f"{display}:{lineno}")
        if item is None:
            blank += 1
        else:
            kept.append(item)
    return kept, blank
