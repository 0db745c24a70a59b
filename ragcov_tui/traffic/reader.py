"""Read a query log export (``--traffic FILE``) into distinct queries with counts.

Formats, by extension:

- ``.jsonl`` / ``.ndjson``: one JSON object per line (or a bare JSON string: the query);
- ``.csv`` (``,`` ``;`` ``|`` or tab, the one the header uses most) / ``.tsv``: a header row naming the fields;
- ``.txt`` / ``.log``: one query per line (blank lines skipped), count 1 each.

Fields (first alias present wins): query ← ``query`` | ``question`` | ``text`` | ``input`` |
``user_input`` | ``prompt``; count ← ``count`` | ``n`` | ``frequency`` | ``hits`` (optional, default
1: a whole number from 1 to 10¹²; ``3.0`` is 3, ``2.5``, ``0``, negatives, NaN, ``true`` are refused);
timestamp ← ``timestamp`` | ``ts`` | ``time`` (optional: ISO 8601 text, or Unix seconds —
milliseconds when above 10¹¹). How each query was served — latency, retrieved documents and
their scores, the answer, user feedback, a session / user id — comes from the optional fields of
:mod:`.served`, kept per row in :class:`ServedRows` (compact arrays: 30 bytes a row, no
text). Other fields are ignored.

The file is read line by line (its SHA-256 computed on the way), so memory grows with the distinct
queries and a few numbers per row, never with the file's text. A row with count n stands for n
asks served alike: its latency, results and feedback count n times in every rate and percentile.

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

import array
import csv
import hashlib
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from ragcov_tui.errors import BadInput
from ragcov_tui.input_files import os_error_problem, require_regular_file
from ragcov_tui.input_values import EMBED_TEXT_CHARS, is_finite_number, long_text_note, parse_json_line, quoted
from ragcov_tui.safe_text import single_line
from ragcov_tui.testset.layout import CSV_FIELD_LIMIT
from ragcov_tui.traffic import served as served_fields
from ragcov_tui.traffic.served import NOT_SERVED, Served

QUERY_FIELDS = ("query", "question", "text", "input", "user_input", "prompt")
COUNT_FIELDS = ("count", "n", "frequency", "hits")
TIME_FIELDS = ("timestamp", "ts", "time")
FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".tsv": "csv", ".txt": "txt", ".log": "txt"}
MAX_COUNT = 10**12
EPOCH_MS_ABOVE = 1e11  # a Unix time above this is in milliseconds (1e11 s is the year 5138)
YEAR_1, YEAR_10000 = -62135596800.0, 253402300800.0  # the Unix seconds datetime can show
CSV_DELIMITERS = (",", ";", "\t", "|")


@dataclass
class ServedRows:
    """How each row of the log was served, one array entry per row in file order.

    ``query[i]`` is the row's distinct query (an index into ``TrafficLog.texts``), ``count[i]`` its
    count (its weight), ``time[i]`` Unix seconds, ``latency_ms[i]`` / ``best_score[i]`` NaN where not
    logged, ``zero_results[i]`` 1 / 0 / −1 (not logged), ``feedback[i]`` 1 positive, 0 neutral,
    −1 negative, −2 none. ``sessions`` counts the distinct session / user ids, ``answered`` the rows
    with a logged answer.
    """

    query: np.ndarray
    count: np.ndarray
    time: np.ndarray
    latency_ms: np.ndarray
    zero_results: np.ndarray
    best_score: np.ndarray
    feedback: np.ndarray
    sessions: int = 0
    answered: int = 0

    def select(self, keep: np.ndarray) -> ServedRows:
        """The rows where ``keep`` is true (a window of the log)."""
        return ServedRows(self.query[keep], self.count[keep], self.time[keep], self.latency_ms[keep],
                          self.zero_results[keep], self.best_score[keep], self.feedback[keep],
                          self.sessions, self.answered)


class _ServedColumns:
    """Growing typed arrays (no per-row Python objects) that become a :class:`ServedRows`."""

    def __init__(self) -> None:
        self.query, self.count, self.time = array.array("i"), array.array("q"), array.array("d")
        self.latency, self.best = array.array("f"), array.array("f")
        self.zero, self.feedback = array.array("b"), array.array("b")
        self.sessions: set[int] = set()
        self.answered = 0

    def add(self, query: int, count: int, time: float | None, how: Served) -> None:
        self.query.append(query)
        self.count.append(count)
        self.time.append(math.nan if time is None else time)
        self.latency.append(how.latency_ms)
        self.best.append(how.best_score)
        self.zero.append(how.zero_results)
        self.feedback.append(how.feedback)
        if how.session is not None:
            self.sessions.add(hash(how.session))
        self.answered += how.answered

    def rows(self, order: np.ndarray) -> ServedRows:
        """The arrays, ``query`` renumbered to the log's final order (``order[new] = old``)."""
        rank = np.empty(len(order), dtype=np.int32)
        rank[order] = np.arange(len(order), dtype=np.int32)
        def view(column: array.array, dtype: type) -> np.ndarray:  # no copy: the array keeps the buffer alive
            return np.frombuffer(column, dtype=dtype) if len(column) else np.zeros(0, dtype=dtype)

        return ServedRows(rank[view(self.query, np.int32)], view(self.count, np.int64), view(self.time, np.float64),
                          view(self.latency, np.float32), view(self.zero, np.int8), view(self.best, np.float32),
                          view(self.feedback, np.int8), len(self.sessions), self.answered)


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
    served: ServedRows | None = None

    @property
    def total(self) -> int:
        return int(self.counts.sum())

    def summary(self) -> dict[str, Any]:
        """The log as the report describes it: file, rows, queries, distinct, fields, time span."""
        seen = [t for t in self.first_seen + self.last_seen if t]
        return {"path": self.path, "sha256": self.sha256, "rows": self.rows, "queries": self.total,
                "distinct": len(self.texts), "fields": self.fields,
                "first": min(seen) if seen else None, "last": max(seen) if seen else None}


_Row = tuple  # (query text, count, Unix seconds or None, "file:line", Served)


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
    fields: dict[str, str] = {}
    digest = hashlib.sha256()
    lines = _lines(path, f"query log {path}", digest)
    rows = {"jsonl": _jsonl_rows, "csv": _csv_rows, "txt": _txt_rows}[fmt](path, lines, fields)
    log = aggregate(path, rows)
    log.fields, log.sha256 = fields, digest.hexdigest()
    return log


def _lines(path: Path, display: str, digest: Any) -> Iterator[str]:
    """The file's lines as text (each with its ``\\n``), read in chunks of lines, hashed on the way;
    BadInput naming the line of invalid UTF-8 or a NUL byte, or a UTF-16 file."""
    require_regular_file(path, display)
    try:
        handle = open(path, "rb", buffering=1 << 20)  # noqa: SIM115 - closed below, after the last line
    except OSError as exc:
        raise BadInput(f"{display}: {os_error_problem(exc, path)}") from None
    with handle:
        for number, raw in enumerate(handle, 1):
            digest.update(raw)
            if number == 1:
                if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
                    raise BadInput(f"{display}: UTF-16 text (save the file as UTF-8)")
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise BadInput(f"{display}:{number}: not valid UTF-8 (byte offset {exc.start} of the line)") from None
            if "\0" in line:
                raise BadInput(f"{display}:{number}: NUL byte (a binary file, or UTF-16 text: save it as UTF-8)")
            yield line


def aggregate(path: Path, rows: Iterable[_Row]) -> TrafficLog:
    """Distinct queries (collapsed whitespace, case folded) with summed counts, most asked first,
    and how each row was served (:class:`ServedRows`).

    A query longer than :data:`~ragcov_tui.input_values.EMBED_TEXT_CHARS` keeps its first that
    many characters (it is embedded, and one text must not cost minutes), said in one note
    naming the first such line."""
    index: dict[str, int] = {}
    long: list[tuple[str, int]] = []  # (file:line, characters) of the queries cut
    texts: list[str] = []
    counts: list[int] = []
    first: list[float | None] = []
    last: list[float | None] = []
    columns = _ServedColumns()
    n_rows = 0
    for text, count, time, where, how in rows:
        n_rows += 1
        if len(text) > EMBED_TEXT_CHARS:
            long.append((where, len(text)))
            text = text[:EMBED_TEXT_CHARS]
        key = text.casefold()
        at = index.get(key)
        if at is None:
            at = index[key] = len(texts)
            texts.append(text)
            counts.append(count)
            first.append(time)
            last.append(time)
            columns.add(at, count, time, how)
            continue
        columns.add(at, count, time, how)
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
                      [_iso(last[i]) for i in order], n_rows, notes=notes, served=columns.rows(order))


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


ROLES = (("query", QUERY_FIELDS), ("count", COUNT_FIELDS), ("timestamp", TIME_FIELDS)) + served_fields.ROLES


def _row(where: str, value: dict[str, Any], is_text: bool, names: dict[tuple[str, ...], list[str | None]],
         fields: dict[str, str]) -> _Row:
    """(query, count, seconds, where, served) of one row: per role, the first alias present with a
    value. Rows of one log share their keys, so ``names`` resolves each key set once (and notes ``fields``)."""
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

    picked = [n if n is None or given(n) else _first(value, aliases, given)
              for n, (_, aliases) in zip(chosen, ROLES, strict=True)]
    qname, cname, tname = picked[:3]
    if qname is None:
        if chosen[0] is not None:
            raise BadInput(f"{where}: field {chosen[0]!r} is empty (no query text)")
        raise BadInput(f"{where}: no query field (expected one of: {', '.join(QUERY_FIELDS)})")
    count = _count(where, cname, value[cname], is_text) if cname else 1
    time = _time(where, tname, value[tname], is_text) if tname else None
    how = served_fields.served(where, value, picked[3:], is_text) if any(picked[3:]) else NOT_SERVED
    return _clean_query(where, qname, value[qname]), count, time, where, how


def _jsonl_rows(path: Path, lines: Iterator[str], fields: dict[str, str]) -> Iterator[_Row]:
    names: dict[tuple[str, ...], list[str | None]] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        value = parse_json_line(line, where)
        if isinstance(value, str):
            yield _clean_query(where, "(the line)", value), 1, None, where, NOT_SERVED
            continue
        if not isinstance(value, dict):
            raise BadInput(f"{where}: expected a JSON object or a string (got {type(value).__name__})")
        yield _row(where, value, False, names, fields)


def _csv_rows(path: Path, lines: Iterator[str], fields: dict[str, str]) -> Iterator[_Row]:
    header_line = next(lines, "")
    delimiter = "\t" if path.suffix.lower() == ".tsv" else max(CSV_DELIMITERS, key=header_line.count)
    csv.field_size_limit(CSV_FIELD_LIMIT)
    reader = csv.reader(_chain(header_line, lines), delimiter=delimiter, strict=True)
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


def _chain(first: str, rest: Iterator[str]) -> Iterator[str]:
    yield first
    yield from rest


def _txt_rows(path: Path, lines: Iterator[str], fields: dict[str, str]) -> Iterator[_Row]:
    fields["query"] = "(one query per line)"
    for number, line in enumerate(lines, 1):
        if line.strip():
            yield _clean_query(f"{path}:{number}", "(the line)", line), 1, None, f"{path}:{number}", NOT_SERVED
