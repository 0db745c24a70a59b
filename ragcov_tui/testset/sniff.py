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

from ragcov_tui.errors import BadInput
from ragcov_tui.input_values import InvalidJson, parse_json
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
        raise BadInput(f"{path}: this looks like {_NAMES[found]}, not {_NAMES[declared]} "
                       f"(rename it to {path.stem}{_SUFFIX[found]})")
    return found, f"{path}: the file holds {_NAMES[found]} despite its {path.suffix} name; read as {_NAMES[found]}"


def _found(declared: TestFormat, body: str, first_line: str, rest: str) -> TestFormat:
    starts_json = body[:1] in ("{", "[")
    if declared == "csv":
        if not starts_json:
            return "csv"
        if _is_object(first_line) and (not rest.strip() or rest.lstrip().startswith("{")):
            return "jsonl"
        return "json" if _is_json(body) else "csv"
    if not starts_json:
        return "csv" if any(d in first_line for d in (",", ";", "\t")) else declared
    if declared == "json":
        one_row = not rest.strip() and _is_object(first_line) and _is_row(parse_json(first_line))
        return "jsonl" if one_row or (_is_object(first_line) and rest.lstrip().startswith("{")) else "json"
    if not rest.strip():  # one line: a JSON document only when it is a list of rows
        return "json" if body[0] == "[" and _is_json(first_line) and _is_rows(parse_json(first_line)) else "jsonl"
    return "json" if not _is_json(first_line) and _is_json(body) else "jsonl"


def _is_rows(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _is_json(text: str) -> bool:
    try:
        parse_json(text)
    except InvalidJson:
        return False
    return True


def _is_row(document: dict) -> bool:
    """A one-line object is a question row: it has a question field, and no list of questions."""
    has_list = any(isinstance(document.get(key), list) for key in CONTAINER_KEYS)
    return "question" in resolve_fields(document) and not has_list


def _is_object(line: str) -> bool:
    line = line.strip()
    return line.startswith("{") and _is_json(line)
