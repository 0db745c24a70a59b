"""Read a query log export (``--traffic FILE``) into distinct queries with counts.

Formats, by extension:

- ``.jsonl`` / ``.ndjson``: one JSON object per line (or a bare JSON string: the query);
- ``.csv`` (``,`` ``;`` ``|`` or tab, the one the header uses most) / ``.tsv``: a header row naming the fields;
- ``.txt`` / ``.log``: one query per line (blank lines skipped), count 1 each.

Fields (first alias present wins): query ← ``query`` | ``question`` | ``text`` | ``input`` |
``user_input`` | ``prompt``; count ← ``count`` | ``n`` | ``frequency`` | ``hits`` (optional, default
1: a whole number from 1 to 10¹²; ``3.0`` is 3, ``2.5``, ``0``, negatives, NaN, ``true`` are refused);
timestamp ← ``timestamp`` | ``ts`` | ``time`` (optional: ISO 8601 text, or Unix seconds —
milliseconds when above 10¹¹). Other fields are ignored.

Whole-file errors name the file as ``query log FILE`` (it may come from ``--traffic``, a
``ragcov.toml`` key or the Jobs form). A time must fall between the years 1 and 9999 once in UTC.

A query is made safe where it enters: runs of whitespace become one space, every control, bidi
or other unsafe character becomes its visible stand-in (:func:`~ragcov_tui.safe_text.single_line`),
so no log line can reach a terminal or a report raw. Rows whose queries are equal once
whitespace is collapsed and case folded are one distinct query: counts add up, the first spelling
is kept, and the first / last timestamps are kept. Every bad row is a :class:`BadInput` naming
``file:line`` and the field; a file with no query at all is refused too.
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from ragcov_tui.errors import BadInput
from ragcov_tui.input_files import decode_text, read_input_file
from ragcov_tui.input_values import EMBED_TEXT_CHARS, is_finite_number, long_text_note, parse_json_line, quoted
from ragcov_tui.safe_text import single_line
from ragcov_tui.testset.layout import CSV_FIELD_LIMIT

QUERY_FIELDS = ("query", "question", "text", "input", "user_input", "prompt")
COUNT_FIELDS = ("count", "n", "frequency", "hits")
TIME_FIELDS = ("timestamp", "ts", "time")
FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".tsv": "csv", ".txt": "txt", ".log": "txt"}
MAX_COUNT = 10**12
EPOCH_MS_ABOVE = 1e11  # a Unix time above this is in milliseconds (1e11 s is the year 5138)
YEAR_1, YEAR_10000 = -62135596800.0, 253402300800.0  # the Unix seconds datetime can show
CSV_DELIMITERS = (",", ";", "\t", "|")


@dataclass
class TrafficLog:
    """Distinct queries of a log, most asked first (ties: first seen first).

    ``counts[i]`` is how often ``texts[i]`` was asked; ``first_seen`` / ``last_seen`` are ISO 8601
    UTC times (None when the log has none for it). ``rows`` counts the rows read, ``total`` the
    queries asked (the sum of counts); ``fields`` names the field used for each role.
    """

    path: str
    texts: list[str]
    counts: np.ndarray
    first_seen: list[str | None]
    last_seen: list[str | None]
    rows: int
    fields: dict[str, str] = field(default_factory=dict)
    sha256: str = ""
    notes: list[str] = field(default_factory=list)  # one-line warnings for the caller to show

    @property
    def total(self) -> int:
        return int(self.counts.sum())

    def summary(self) -> dict[str, Any]:
        """The log as the report describes it: file, rows, queries, distinct, fields, time span."""
        seen = [t for t in self.first_seen + self.last_seen if t]
        return {"path": self.path, "sha256": self.sha256, "rows": self.rows, "queries": self.total,
                "distinct": len(self.texts), "fields": self.fields,
                "first": min(seen) if seen else None, "last": max(seen) if seen else None}


_Row = tuple  # (query text, count, Unix seconds or None, "file:line")


def traffic_format(path: Path) -> str:
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise BadInput(f"query log {path}: unsupported file type {path.suffix!r} (use .jsonl, .csv, .tsv or .txt)")
    return fmt


def read_traffic(path: str | Path) -> TrafficLog:
    """Read, check and aggregate the log at ``path`` (module doc); BadInput on any bad row."""
    path = Path(path)
    fmt = traffic_format(path)
    if path.is_dir():
        raise BadInput(f"query log {path}: is a directory, expected a .jsonl, .csv or .txt query log")
    data = read_input_file(path, f"query log {path}")
    text = decode_text(data, str(path))
    fields: dict[str, str] = {}
    rows = {"jsonl": _jsonl_rows, "csv": _csv_rows, "txt": _txt_rows}[fmt](path, text.removeprefix("\ufeff"), fields)
    log = aggregate(path, rows)
    log.fields, log.sha256 = fields, hashlib.sha256(data).hexdigest()
    return log


def aggregate(path: Path, rows: Iterator[_Row]) -> TrafficLog:
    """Distinct queries (collapsed whitespace, case folded) with summed counts, most asked first.

    A query longer than :data:`~ragcov_tui.input_values.EMBED_TEXT_CHARS` keeps its first that
    many characters (it is embedded, and one text must not cost minutes), said in one note
    naming the first such line."""
    index: dict[str, int] = {}
    long: list[tuple[str, int]] = []  # (file:line, characters) of the queries cut
    texts: list[str] = []
    counts: list[int] = []
    first: list[float | None] = []
    last: list[float | None] = []
    n_rows = 0
    for text, count, time, where in rows:
        n_rows += 1
        if len(text) > EMBED_TEXT_CHARS:
            long.append((where, len(text)))
            text = text[:EMBED_TEXT_CHARS]
        key = text.casefold()
        at = index.get(key)
        if at is None:
            index[key] = len(texts)
            texts.append(text)
            counts.append(count)
            first.append(time)
            last.append(time)
            continue
        counts[at] += count
        if time is not None:
            seen = first[at]
            first[at] = time if seen is None or time < seen else seen
            seen = last[at]
            last[at] = time if seen is None or time > seen else seen
    if not texts:
        raise BadInput(f"query log {path}: no queries in the file")
    count_array = np.asarray(counts, dtype=np.int64)
    order = np.argsort(-count_array, kind="stable")
    notes = [long_text_note(long[0][0], "the query", long[0][1], len(long))] if long else []
    return TrafficLog(str(path), [texts[i] for i in order], count_array[order], [_iso(first[i]) for i in order],
                      [_iso(last[i]) for i in order], n_rows, notes=notes)


def _iso(seconds: float | None) -> str | None:
    return None if seconds is None else datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _clean_query(where: str, name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise BadInput(f"{where}: field {name!r} must be text (got {type(value).__name__})")
    text = single_line(value)
    if not text:
        raise BadInput(f"{where}: field {name!r} is empty (no query text)")
    return text


def _count(where: str, name: str, value: Any, is_text: bool) -> int:
    """A whole number of times from 1 to MAX_COUNT; BadInput naming the field otherwise."""
    number = value
    if is_text and isinstance(value, str):
        try:
            number = float(value.strip()) if value.strip() else None
        except ValueError:
            number = None
    bad = BadInput(f"{where}: field {name!r} must be a whole number from 1 to {MAX_COUNT:,} (got {quoted(value, 30)})")
    if not is_finite_number(number) or not 1 <= number <= MAX_COUNT or number != math.floor(number):
        raise bad
    return int(number)


def _time(where: str, name: str, value: Any, is_text: bool) -> float:
    """Unix seconds of an ISO 8601 time (no zone: UTC) or of Unix seconds / milliseconds."""
    bad = BadInput(f"{where}: field {name!r} must be an ISO 8601 time or Unix seconds (got {quoted(value, 40)})")
    number: Any = value
    if is_text and isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = value
    try:
        if is_finite_number(number):
            seconds = float(number / 1000 if number > EPOCH_MS_ABOVE else number)
        elif isinstance(number, str):  # a zone offset can carry 9999-12-31 past the year 9999 in UTC
            moment = datetime.fromisoformat(number.strip())
            seconds = (moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment).timestamp()
        else:
            raise bad
    except (ValueError, OverflowError, OSError):
        raise bad from None
    if not YEAR_1 <= seconds < YEAR_10000:
        raise BadInput(f"{where}: field {name!r} is out of range: {quoted(value, 40)} is not between the years 1 "
                       f"and 9999 in UTC")
    return seconds


def _first(names: Any, aliases: tuple[str, ...], present: Any = None) -> str | None:
    """The first of ``aliases`` among ``names`` (whose value is ``present``, when given)."""
    return next((a for a in aliases if a in names and (present is None or present(a))), None)


ROLES = (("query", QUERY_FIELDS), ("count", COUNT_FIELDS), ("timestamp", TIME_FIELDS))


def _row(where: str, value: dict[str, Any], is_text: bool, names: dict[tuple[str, ...], list[str | None]],
         fields: dict[str, str]) -> _Row:
    """(query, count, seconds) of one row: per role, the first alias present with a value. Rows of
    one log share their keys, so ``names`` resolves each key set once (and notes ``fields``)."""
    keys = tuple(value)
    chosen = names.get(keys)
    if chosen is None:
        chosen = names[keys] = [_first(keys, aliases) for _, aliases in ROLES]
        for (role, _), name in zip(ROLES, chosen, strict=True):
            if name is not None:
                fields.setdefault(role, name)

    def given(name: str) -> bool:
        cell = value[name]
        return cell is not None and not (is_text and isinstance(cell, str) and not cell.strip())

    qname, cname, tname = (n if n is None or given(n) else _first(value, aliases, given)
                           for n, (_, aliases) in zip(chosen, ROLES, strict=True))
    if qname is None:
        if chosen[0] is not None:
            raise BadInput(f"{where}: field {chosen[0]!r} is empty (no query text)")
        raise BadInput(f"{where}: no query field (expected one of: {', '.join(QUERY_FIELDS)})")
    count = _count(where, cname, value[cname], is_text) if cname else 1
    time = _time(where, tname, value[tname], is_text) if tname else None
    return _clean_query(where, qname, value[qname]), count, time, where


def _jsonl_rows(path: Path, text: str, fields: dict[str, str]) -> Iterator[_Row]:
    names: dict[tuple[str, ...], list[str | None]] = {}
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        value = parse_json_line(line, where)
        if isinstance(value, str):
            yield _clean_query(where, "(the line)", value), 1, None, where
            continue
        if not isinstance(value, dict):
            raise BadInput(f"{where}: expected a JSON object or a string (got {type(value).__name__})")
        yield _row(where, value, False, names, fields)


def _csv_rows(path: Path, text: str, fields: dict[str, str]) -> Iterator[_Row]:
    header_line = text.split("\n", 1)[0]
    delimiter = "\t" if path.suffix.lower() == ".tsv" else max(CSV_DELIMITERS, key=header_line.count)
    csv.field_size_limit(CSV_FIELD_LIMIT)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        header = [h.strip() for h in next(reader, [])]
        if not _first(header, QUERY_FIELDS):
            raise BadInput(f"{path}:1: no query column in the header (expected one of: {', '.join(QUERY_FIELDS)}; "
                           f"got {quoted(', '.join(header), 80)})")
        names: dict[tuple[str, ...], list[str | None]] = {}
        start = reader.line_num + 1
        for record in reader:
            where = f"{path}:{start}"
            if any(cell.strip() for cell in record):
                if len(record) != len(header):
                    raise BadInput(f"{where}: {len(record)} cells but the header has {len(header)}")
                yield _row(where, dict(zip(header, record, strict=True)), True, names, fields)
            start = reader.line_num + 1
    except csv.Error as exc:
        raise BadInput(f"{path}:{reader.line_num}: malformed CSV ({exc})") from None


def _txt_rows(path: Path, text: str, fields: dict[str, str]) -> Iterator[_Row]:
    fields["query"] = "(one query per line)"
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip():
            yield _clean_query(f"{path}:{number}", "(the line)", line), 1, None, f"{path}:{number}"
