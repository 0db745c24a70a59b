"""Where each row of a test file lies in its text: the shared ground of the reader and writer.

A :class:`Layout` is the file decoded as UTF-8 (a leading BOM kept as ``\\ufeff``), cut into rows
with exact ``[start, end)`` character offsets. Because UTF-8 decoding is a bijection on valid
input, slicing the text at these offsets and encoding it again gives back every untouched byte.

- JSONL: a row is one physical line, its terminator included; blank lines are not rows.
- JSON: a row is the text of one element of the question array (no comma, no whitespace);
  elements are found by walking the array with ``json.JSONDecoder().raw_decode``.
- CSV: a row is one record, from the start of its first physical line to the end of its last
  (terminator included), so a quoted cell spanning lines stays inside its row. The header
  record is kept apart; records whose cells are all empty are not rows. A column without a name
  (empty, or pandas' ``Unnamed: <i>``) is ignored with one note: the first one is pandas' index
  column (``to_csv`` without ``index=False``), any other a trailing delimiter; such a column is
  named ``Unnamed: <i>`` (0-based position) in the rows, as pandas names it.
- JSON parallel lists (LlamaIndex / ARAGOG ``{"questions": [str], "ground_truths": [str]}``): a
  row is the text of one question string, its value ``{"question", "ground_truth"}``.

Structural mistakes (bad or non-strict JSON, see :mod:`ragcov_tui.shared.input_values`; a row that is
not an object; a ragged CSV record; NUL bytes or UTF-16 text) raise :class:`BadInput` naming the
file and line. CSV cells may hold up to :data:`CSV_FIELD_LIMIT` characters (the csv module's
default, 128 KiB, is too small for a cell of retrieved contexts).
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_values import InvalidJson, parse_json, quoted
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.testset.fields import CONTAINER_KEYS, PARALLEL_KEYS
from ragcov_tui.testset.models import TestFormat

BOM = "\ufeff"
CSV_DELIMITERS = (",", ";", "\t", "|")
CSV_FIELD_LIMIT = 64 * 1024 * 1024
_JSON_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


@dataclass
class RawRow:
    """One row: its parsed value (a dict of cell/field values) and where its text lies."""

    value: JsonObject
    start: int
    end: int
    line: int  # 1-based line where the row starts
    index: int  # 0-based position among the rows


@dataclass
class Layout:
    """A decoded test file cut into rows (see the module docstring for what a row span is)."""

    format: TestFormat
    text: str
    rows: list[RawRow]
    newline: str  # the file's line terminator, "\n" when it has none
    container: str | None = None  # JSON object files: the key holding the array
    array_open: int = 0  # JSON: offset of the array's "["
    header: list[str] = field(default_factory=list)  # CSV column names (unnamed: ``Unnamed: <i>``)
    delimiter: str = ","  # CSV
    index_column: str | None = None  # CSV: an ignored first column, pandas' index
    parallel: str | None = None  # JSON: the key of the list parallel to ``container`` (ARAGOG)
    notes: list[str] = field(default_factory=list)  # one-line warnings on what was ignored

    def where(self, path: Path, row: RawRow) -> str:
        """``file:line`` of a row, plus ``element i`` for JSON, for error messages."""
        if self.format == "json":
            return _json_where(path, row.line, self.container, row.index)
        return f"{path}:{row.line}"


def detect_newline(text: str) -> str:
    """The terminator of the file's first line: ``\\r\\n`` or ``\\n`` (``\\n`` if it has none)."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def split_layout(path: Path, text: str, fmt: TestFormat) -> Layout:
    """Cut ``text`` into rows according to ``fmt``."""
    splitter = {"jsonl": _split_jsonl, "json": _split_json, "csv": _split_csv}[fmt]
    return splitter(path, text)


def _body_start(text: str) -> int:
    return 1 if text.startswith(BOM) else 0


def _require_object(path_line: str, value: Any) -> JsonObject:
    if not isinstance(value, dict):
        raise BadInput(f"{path_line}: a question row must be a JSON object, got {_json_type(value)}")
    return value


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    return names.get(type(value), "a number")


def _split_jsonl(path: Path, text: str) -> Layout:
    rows: list[RawRow] = []
    pos, line = _body_start(text), 0
    while pos < len(text):
        line += 1
        newline_at = text.find("\n", pos)
        end = len(text) if newline_at < 0 else newline_at + 1
        content = text[pos:end].strip()
        if content:
            try:
                value = parse_json(content)
            except InvalidJson as exc:
                raise BadInput(f"{path}:{line}: malformed JSON line ({exc.message} at column {exc.column})") from None
            rows.append(RawRow(_require_object(f"{path}:{line}", value), pos, end, line, len(rows)))
        pos = end
    return Layout("jsonl", text, rows, detect_newline(text))


def _skip_ws(text: str, pos: int) -> int:
    """The position after the JSON whitespace at ``pos`` (``pos`` itself when there is none)."""
    match = _JSON_WS.match(text, pos)  # always matches (``*``): None only to the type checker
    return match.end() if match else pos


def _split_json(path: Path, text: str) -> Layout:
    start = _body_start(text)
    try:
        document = parse_json(text[start:])
    except InvalidJson as exc:
        raise BadInput(f"{path}:{exc.line}: malformed JSON ({exc.message} at column {exc.column})") from None
    container: str | None = None
    if isinstance(document, dict):
        container = next((k for k in CONTAINER_KEYS if isinstance(document.get(k), list)), None)
        if container is None:
            keys = ", ".join(quoted(k, 40) for k in list(document)[:8]) or "none"
            raise BadInput(
                f"{path}: expected a list of questions, or an object with a "
                f"{' / '.join(repr(k) for k in CONTAINER_KEYS)} list (found keys: {keys})"
            )
        array_open = _member_value_offset(text, _skip_ws(text, start), container)
        if any(isinstance(item, str) for item in document[container]):
            return _parallel_lists(path, text, document, container, array_open)
    elif isinstance(document, list):
        array_open = _skip_ws(text, start)
    else:
        raise BadInput(f"{path}: expected a list of questions, got {_json_type(document)}")
    rows = _walk_array(path, text, array_open, container)
    return Layout("json", text, rows, detect_newline(text), container, array_open)


def _parallel_lists(path: Path, text: str, document: JsonObject, container: str, array_open: int) -> Layout:
    """LlamaIndex / ARAGOG ``{"questions": [str], "ground_truths": [str]}``: one row per question
    string; BadInput when the lists differ in length or hold anything but strings."""
    questions = document[container]
    partner = next((k for k in PARALLEL_KEYS if k != container and isinstance(document.get(k), list)), None)
    answers = document[partner] if partner else []
    if partner and len(answers) != len(questions):
        raise BadInput(
            f"{path}: {container!r} has {len(questions)} entries but {partner!r} has {len(answers)} "
            "(parallel lists must have one entry per question)"
        )
    bad = next((i for i, v in enumerate([*questions, *answers]) if not isinstance(v, str)), None)
    if bad is not None:
        name, index = (container, bad) if bad < len(questions) else (partner, bad - len(questions))
        raise BadInput(f"{path}: element {name}[{index}] must be a string like the other entries of a parallel list")
    spans = _walk_array(path, text, array_open, container, objects=False)
    for row in spans:
        row.value = {"question": questions[row.index], **({"ground_truth": answers[row.index]} if partner else {})}
    return Layout("json", text, spans, detect_newline(text), container, array_open, parallel=partner or container)


def _member_value_offset(text: str, object_open: int, wanted: str) -> int:
    """Offset of the value of member ``wanted`` in the (valid) JSON object at ``object_open``.

    The last occurrence wins, as in ``json.loads``.
    """
    found, pos = -1, _skip_ws(text, object_open + 1)
    while text[pos] != "}":
        key, pos = _DECODER.raw_decode(text, pos)
        pos = _skip_ws(text, _skip_ws(text, pos) + 1)  # past the ":"
        if key == wanted:
            found = pos
        _, pos = _DECODER.raw_decode(text, pos)
        pos = _skip_ws(text, pos)
        if text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
    return found


def _json_where(path: Path, line: int, container: str | None, index: int) -> str:
    """``file:line: element questions[3]`` (0-based index, as in a JSON path)."""
    return f"{path}:{line}: element {container or ''}[{index}]"


def _walk_array(path: Path, text: str, array_open: int, container: str | None, *, objects: bool = True) -> list[RawRow]:
    """The element spans of the (valid) JSON array at ``array_open`` (``objects``: each must be one)."""
    rows: list[RawRow] = []
    pos = _skip_ws(text, array_open + 1)
    line, counted_to = 1, 0
    while text[pos] != "]":
        value, end = _DECODER.raw_decode(text, pos)
        line += text.count("\n", counted_to, pos)
        counted_to = pos
        where = _json_where(path, line, container, len(rows))
        rows.append(RawRow(_require_object(where, value) if objects else {}, pos, end, line, len(rows)))
        pos = _skip_ws(text, end)
        if text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
    return rows


def _split_csv(path: Path, text: str) -> Layout:
    line_ends: list[int] = []

    def physical_lines() -> Iterator[str]:
        pos = _body_start(text)
        while pos < len(text):
            newline_at = text.find("\n", pos)
            end = len(text) if newline_at < 0 else newline_at + 1
            line_ends.append(end)
            yield text[pos:end]
            pos = end

    delimiter = _detect_delimiter(text[_body_start(text) :].lstrip("\r\n").split("\n", 1)[0])
    csv.field_size_limit(max(csv.field_size_limit(), CSV_FIELD_LIMIT))
    reader = csv.reader(physical_lines(), delimiter=delimiter, strict=True)
    header: list[str] = []
    ignored: list[str] = []
    rows: list[RawRow] = []
    first_line = 0
    try:
        for record in reader:
            start = line_ends[first_line - 1] if first_line else _body_start(text)
            end = line_ends[reader.line_num - 1]
            line, first_line = first_line + 1, reader.line_num
            if not any(cell.strip() for cell in record):
                continue
            if not header:
                header, ignored = _csv_header(path, line, record)
                continue
            if len(record) > len(header):
                raise BadInput(f"{path}:{line}: {len(record)} cells but the header has {len(header)} columns")
            rows.append(RawRow(dict(zip(header, record, strict=False)), start, end, line, len(rows)))
    except csv.Error as exc:
        raise BadInput(f"{path}:{first_line + 1}: malformed CSV ({exc})") from None
    index_column = header[0] if header and header[0] in ignored else None
    return Layout(
        "csv",
        text,
        rows,
        detect_newline(text),
        header=header,
        delimiter=delimiter,
        index_column=index_column,
        notes=_ignored_note(path, header, ignored, index_column),
    )


def _detect_delimiter(first_line: str) -> str:
    """The candidate delimiter occurring most often outside quotes in the header line (else ``,``)."""
    unquoted = re.sub(r'"[^"]*"', "", first_line)
    counts = {d: unquoted.count(d) for d in CSV_DELIMITERS}
    best = max(CSV_DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] else ","


_UNNAMED = re.compile(r"Unnamed: \d+")


def _csv_header(path: Path, line: int, record: list[str]) -> tuple[list[str], list[str]]:
    """The column names (an empty one named ``Unnamed: <i>``) and those of the ignored columns."""
    header = [name.strip() or f"Unnamed: {i}" for i, name in enumerate(record)]
    ignored = [name for name in header if _UNNAMED.fullmatch(name)]
    if len(ignored) == len(header):
        raise BadInput(f"{path}:{line}: the CSV header names no column")
    seen: set[str] = set()
    for name in header:
        if name in seen:
            raise BadInput(f"{path}:{line}: the CSV header names column {quoted(name)} twice")
        seen.add(name)
    return header, ignored


def _ignored_note(path: Path, header: list[str], ignored: list[str], index_column: str | None) -> list[str]:
    """One line saying which unnamed columns are ignored (none: no line)."""
    if not ignored:
        return []
    what = [
        f"column {header.index(name) + 1} ({'pandas index' if name == index_column else 'no name'})" for name in ignored
    ]
    return [f"{path}: ignoring {', '.join(what)}; kept as is when ragcov writes to the file"]
