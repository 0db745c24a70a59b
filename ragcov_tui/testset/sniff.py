"""Which format a test file's text is in, when its extension says otherwise.

JSON Lines saved as ``.json`` and a JSON document saved as ``.jsonl`` are common (both come out
of ``json.dump`` / ``to_json(lines=True)`` calls with a hand-typed name). The content decides:

- ``.json`` whose first line is a complete JSON object and whose next non-blank line starts
  another one is JSON Lines (a JSON document cannot continue after a complete object); so is a
  one-line object with a question field and no list of questions (a one-row JSON Lines file);
- ``.jsonl`` whose first line is not a complete JSON value while the whole text is one, or
  that is one line holding a list of objects, is a JSON document.

The file is then read, and written back, in the format found, with a note saying so. A CSV file
named ``.json`` / ``.jsonl``, or JSON named ``.csv``, is refused with a one-line error that says
which format it looks like (CSV and JSON cannot be told apart reliably the other way round).
"""

from __future__ import annotations

from pathlib import Path

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_values import InvalidJson, parse_json
from ragcov_tui.testset.fields import CONTAINER_KEYS, resolve_fields
from ragcov_tui.testset.models import TestFormat

_NAMES = {"json": "a JSON document", "jsonl": "JSON Lines", "csv": "CSV"}
_SUFFIX = {"json": ".json", "jsonl": ".jsonl", "csv": ".csv"}


def sniff_format(path: Path, text: str, declared: TestFormat) -> tuple[TestFormat, str | None]:
    """The format of ``text`` (its BOM already kept, see :mod:`.layout`) and a note when it is not
    ``declared``; BadInput when the content is plainly of a format that cannot be read as declared."""
    body = text.lstrip("\ufeff \t\r\n")
    first_line, _, rest = body.partition("\n")
    found = _found(declared, body, first_line, rest)
    if found == declared:
        return declared, None
    if "csv" in (found, declared):
        raise BadInput(
            f"{path}: this looks like {_NAMES[found]}, not {_NAMES[declared]} "
            f"(rename it to {path.stem}{_SUFFIX[found]})"
        )
    return found, f"{path}: the file holds {_NAMES[found]} despite its {path.suffix} name; read as {_NAMES[found]}"


_INVALID = object()


def _found(declared: TestFormat, body: str, first_line: str, rest: str) -> TestFormat:
    """Each text is parsed at most once (a one-line file: its only line)."""
    starts_json = body[:1] in ("{", "[")
    if not starts_json:
        csv_like = declared == "csv" or any(d in first_line for d in (",", ";", "\t"))
        return "csv" if csv_like else declared
    first = _value(first_line) if first_line.strip()[:1] in ("{", "[") else _INVALID
    one_line = not rest.strip()
    next_row = rest.lstrip().startswith("{")
    if declared == "csv":
        if isinstance(first, dict) and (one_line or next_row):
            return "jsonl"
        return "json" if (first if one_line else _value(body)) is not _INVALID else "csv"
    if declared == "json":
        if isinstance(first, dict) and (next_row or (one_line and _is_row(first))):
            return "jsonl"
        return "json"
    if one_line:  # a JSON document only when it is a list of rows
        return "json" if _is_rows(first) else "jsonl"
    return "json" if first is _INVALID and _value(body) is not _INVALID else "jsonl"


def _value(text: str) -> object:
    try:
        return parse_json(text)
    except InvalidJson:
        return _INVALID


def _is_rows(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _is_row(document: dict) -> bool:
    """A one-line object is a question row: it has a question field, and no list of questions."""
    has_list = any(isinstance(document.get(key), list) for key in CONTAINER_KEYS)
    return "question" in resolve_fields(document) and not has_list
