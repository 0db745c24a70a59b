"""Read a query log export (``--traffic FILE``) into distinct queries with counts.

Formats, by extension: :data:`~.log_formats.LOG_FORMATS` (``.jsonl`` / ``.ndjson``, ``.csv``,
``.tsv``, ``.txt`` / ``.log``), each with its rows reader. Fields (first alias present wins):
query, count and timestamp (:mod:`.fields`); how each query was served — latency, retrieved
documents and their scores, the answer, user feedback, a session / user id — comes from the
optional fields of :mod:`.served`, kept per row in :class:`ServedRows` (compact arrays: 30 bytes a
row, no text). Other fields are ignored.

The file is read line by line (its SHA-256 computed on the way), so memory grows with the distinct
queries and a few numbers per row, never with the file's text. A row with count n stands for n
asks served alike: its latency, results and feedback count n times in every rate and percentile.

Whole-file errors name the file as ``query log FILE`` (it may come from ``--traffic``, a
``ragcov.toml`` key or the Jobs form). A time must fall between the years 1 and 9999 once in UTC.

A query is made safe where it enters: runs of whitespace become one space, every control, bidi
or other unsafe character becomes its visible stand-in (:func:`~ragcov_tui.shared.safe_text.single_line`),
so no log line can reach a terminal or a report raw. Rows whose queries are equal once
whitespace is collapsed and case folded are one distinct query: counts add up, the first spelling
is kept, and the first / last timestamps are kept. Every bad row is a :class:`BadInput` naming
``file:line`` and the field; a file with no query at all is refused too.
"""

from __future__ import annotations

import array
import hashlib
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_files import os_error_problem, require_regular_file
from ragcov_tui.shared.input_values import EMBED_TEXT_CHARS, long_text_note
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.traffic.fields import Row
from ragcov_tui.traffic.log_formats import log_format, suffix_list
from ragcov_tui.traffic.served import Served


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
        return ServedRows(
            self.query[keep],
            self.count[keep],
            self.time[keep],
            self.latency_ms[keep],
            self.zero_results[keep],
            self.best_score[keep],
            self.feedback[keep],
            self.sessions,
            self.answered,
        )


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

        return ServedRows(
            rank[view(self.query, np.int32)],
            view(self.count, np.int64),
            view(self.time, np.float64),
            view(self.latency, np.float32),
            view(self.zero, np.int8),
            view(self.best, np.float32),
            view(self.feedback, np.int8),
            len(self.sessions),
            self.answered,
        )


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

    def summary(self) -> JsonObject:
        """The log as the report describes it: file, rows, queries, distinct, fields, time span."""
        seen = [t for t in self.first_seen + self.last_seen if t]
        return {
            "path": self.path,
            "sha256": self.sha256,
            "rows": self.rows,
            "queries": self.total,
            "distinct": len(self.texts),
            "fields": self.fields,
            "first": min(seen) if seen else None,
            "last": max(seen) if seen else None,
        }


def read_traffic(path: str | Path) -> TrafficLog:
    """Read, check and aggregate the log at ``path`` (module doc); BadInput on any bad row."""
    path = Path(path)
    fmt = log_format(path)
    if path.is_dir():
        raise BadInput(f"query log {path}: is a directory, expected a {suffix_list()} query log")
    fields: dict[str, str] = {}
    digest = hashlib.sha256()
    lines = _lines(path, f"query log {path}", digest)
    rows = fmt.rows(path, lines, fields)
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


def aggregate(path: Path, rows: Iterable[Row]) -> TrafficLog:
    """Distinct queries (collapsed whitespace, case folded) with summed counts, most asked first,
    and how each row was served (:class:`ServedRows`).

    A query longer than :data:`~ragcov_tui.shared.input_values.EMBED_TEXT_CHARS` keeps its first that
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
    return TrafficLog(
        str(path),
        [texts[i] for i in order],
        count_array[order],
        [_iso(first[i]) for i in order],
        [_iso(last[i]) for i in order],
        n_rows,
        notes=notes,
        served=columns.rows(order),
    )


def _iso(seconds: float | None) -> str | None:
    return None if seconds is None else datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
