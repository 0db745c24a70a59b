"""The query log formats, one :class:`LogFormat` per kind of file and :data:`LOG_FORMATS` by suffix: the
one place a format is listed. :func:`~ragcov_tui.traffic.reader.read_traffic` picks the rows reader
by the file's suffix from it, and the ``--traffic`` help (:func:`traffic_help`) and the README's table
(checked by ``tests/traffic/test_traffic_log_formats.py``) follow from it; adding a format is one
entry here and its rows reader (docs/architecture.md, "How to add").

A rows reader takes the path (for messages), the file's lines (decoded, each with its ``\\n``) and
``fields`` (to note the field used for each role), and yields one :data:`~.fields.Row` per query
row, each resolved by :func:`~.fields.row` (a record of named fields) or made of the line itself
(:func:`~.fields.clean_query`); a bad row is a BadInput naming ``file:line``.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_values import parse_json_line, quoted
from ragcov_tui.testset.layout import CSV_FIELD_LIMIT
from ragcov_tui.traffic.fields import QUERY_FIELDS, Row, clean_query, first_alias, row
from ragcov_tui.traffic.served import NOT_SERVED

CSV_DELIMITERS = (",", ";", "\t", "|")
RowsReader = Callable[[Path, Iterator[str], dict[str, str]], Iterator[Row]]


@dataclass(frozen=True)
class LogFormat:
    """One kind of query log: its ``suffixes`` (lower case, with the dot), ``description`` (Markdown:
    the README's table) and ``rows`` its rows reader."""

    suffixes: tuple[str, ...]
    description: str
    rows: RowsReader


def _jsonl_rows(path: Path, lines: Iterator[str], fields: dict[str, str]) -> Iterator[Row]:
    names: dict[tuple[str, ...], list[str | None]] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        value = parse_json_line(line, where)
        if isinstance(value, str):
            yield clean_query(where, "(the line)", value), 1, None, where, NOT_SERVED
            continue
        if not isinstance(value, dict):
            raise BadInput(f"{where}: expected a JSON object or a string (got {type(value).__name__})")
        yield row(where, value, False, names, fields)


def _csv_rows(path: Path, lines: Iterator[str], fields: dict[str, str]) -> Iterator[Row]:
    """A header row, then one row per record; the delimiter is the one of :data:`CSV_DELIMITERS`
    the header uses most."""
    header_line = next(lines, "")
    yield from _table_rows(path, _chain(header_line, lines), fields, max(CSV_DELIMITERS, key=header_line.count))


def _tsv_rows(path: Path, lines: Iterator[str], fields: dict[str, str]) -> Iterator[Row]:
    yield from _table_rows(path, lines, fields, "\t")


def _table_rows(path: Path, lines: Iterator[str], fields: dict[str, str], delimiter: str) -> Iterator[Row]:
    csv.field_size_limit(CSV_FIELD_LIMIT)
    reader = csv.reader(lines, delimiter=delimiter, strict=True)
    try:
        header = [h.strip() for h in next(reader, [])]
        if not first_alias(header, QUERY_FIELDS):
            raise BadInput(
                f"{path}:1: no query column in the header (expected one of: {', '.join(QUERY_FIELDS)}; "
                f"got {quoted(', '.join(header), 80)})"
            )
        names: dict[tuple[str, ...], list[str | None]] = {}
        start = reader.line_num + 1
        for record in reader:
            where = f"{path}:{start}"
            if any(cell.strip() for cell in record):
                if len(record) != len(header):
                    raise BadInput(f"{where}: {len(record)} cells but the header has {len(header)}")
                yield row(where, dict(zip(header, record, strict=True)), True, names, fields)
            start = reader.line_num + 1
    except csv.Error as exc:
        raise BadInput(f"{path}:{reader.line_num}: malformed CSV ({exc})") from None


def _chain(first: str, rest: Iterator[str]) -> Iterator[str]:
    yield first
    yield from rest


def _txt_rows(path: Path, lines: Iterator[str], fields: dict[str, str]) -> Iterator[Row]:
    fields["query"] = "(one query per line)"
    for number, line in enumerate(lines, 1):
        if line.strip():
            yield clean_query(f"{path}:{number}", "(the line)", line), 1, None, f"{path}:{number}", NOT_SERVED


LOG_FORMAT_LIST: tuple[LogFormat, ...] = (
    LogFormat((".jsonl", ".ndjson"), "one JSON object per line, or a bare JSON string (the query)", _jsonl_rows),
    LogFormat(
        (".csv",),
        "a header row naming the fields; comma, semicolon, pipe or tab: the one the header uses most",
        _csv_rows,
    ),
    LogFormat((".tsv",), "a header row naming the fields, tab-separated", _tsv_rows),
    LogFormat((".txt", ".log"), "one query per line (blank lines skipped), count 1 each", _txt_rows),
)
LOG_FORMATS: dict[str, LogFormat] = {suffix: fmt for fmt in LOG_FORMAT_LIST for suffix in fmt.suffixes}


def suffix_list() -> str:
    """``.jsonl, .ndjson, .csv, .tsv, .txt or .log``: every accepted suffix, for messages."""
    *first, last = LOG_FORMATS
    return f"{', '.join(first)} or {last}"


def log_format(path: Path) -> LogFormat:
    """The format of the log at ``path`` by its suffix; BadInput naming the file otherwise."""
    fmt = LOG_FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise BadInput(f"query log {path}: unsupported file type {path.suffix!r} (use {suffix_list()})")
    return fmt


def traffic_help() -> str:
    """The formats for the ``--traffic`` help: ``.jsonl .ndjson, .csv, .tsv, .txt .log``."""
    return ", ".join(" ".join(fmt.suffixes) for fmt in LOG_FORMAT_LIST)


def traffic_table() -> str:
    """The README's table of query log formats (Markdown)."""
    rows = [f"| {' / '.join(f'`{s}`' for s in fmt.suffixes)} | {fmt.description} |" for fmt in LOG_FORMAT_LIST]
    return "\n".join(["| query log | rows |", "|---|---|", *rows])
