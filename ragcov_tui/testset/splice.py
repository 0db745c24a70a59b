"""Pure text edits of a test file: append one row, drop one row, nothing else touched.

Each function takes the file's :class:`Layout` and returns the new text. Only the inserted or
removed span differs from the original; every other character (and so, once encoded, every other
byte) is kept as it was.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Literal

from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.testset.layout import Layout, RawRow

# JSON styles tried, in order, to reproduce the previous element's exact text.
_INDENTS: tuple[int | str | None, ...] = (None, 2, 4, "\t", 1, 3, 8)
_SEPARATORS = ((", ", ": "), (",", ":"), (",", ": "), (", ", ":"))

CsvQuoting = Literal[0, 1]  # csv.QUOTE_MINIMAL, csv.QUOTE_ALL: the styles a record is written in


def append_row(layout: Layout, row: JsonObject) -> str:
    """The file's text with ``row`` added after its last row (there is one), in the file's style.

    JSONL: one line ``json.dumps(row, ensure_ascii=False)`` with the file's terminator (a
    terminator is added first if the file does not end with one). JSON: the element is spliced in
    after the last one, separated like the previous elements and dumped in the previous element's
    indentation and separators. CSV: one record in the header's column order (cells not in ``row``
    left empty), with the file's delimiter, quoting style and terminator.
    """
    if layout.format == "json":
        return _append_json(layout, row)
    line = _csv_record(layout, row) if layout.format == "csv" else json.dumps(row, ensure_ascii=False)
    text = layout.text
    return (text if text.endswith("\n") else text + layout.newline) + line + layout.newline


def drop_row(layout: Layout, index: int) -> str:
    """The file's text without row ``index`` (the span :func:`drop_span` gives)."""
    start, end = drop_span(layout, index)
    return layout.text[:start] + layout.text[end:]


def drop_span(layout: Layout, index: int) -> tuple[int, int]:
    """The ``[start, end)`` of the text that dropping row ``index`` takes out.

    JSONL / CSV: the row's lines (terminator included). JSON: the element with the comma and
    whitespace that separate it from its neighbour (the next one, or the previous one when it is
    last). The caller keeps at least one row.
    """
    rows = layout.rows
    start, end = rows[index].start, rows[index].end
    if layout.format == "json":
        if index + 1 < len(rows):
            end = rows[index + 1].start
        else:
            start = rows[index - 1].end
    return start, end


def _append_json(layout: Layout, row: JsonObject) -> str:
    text, rows = layout.text, layout.rows
    last = rows[-1]
    if len(rows) > 1:
        between = text[rows[-2].end : last.start]
        gap = between[between.index(",") + 1 :]
    else:
        gap = text[layout.array_open + 1 : last.start]
    element_indent = gap[gap.rfind("\n") + 1 :] if "\n" in gap else ""
    element = _dump_like(layout, last, row, element_indent)
    return text[: last.end] + "," + gap + element + text[last.end :]


def _dump_like(layout: Layout, sample: RawRow, row: JsonObject, element_indent: str) -> str:
    """``row`` dumped in the indentation and separators that reproduce ``sample``'s text."""
    sample_text = layout.text[sample.start : sample.end].replace(layout.newline, "\n")
    sample_text = sample_text.replace("\n" + element_indent, "\n") if element_indent else sample_text
    multiline = "\n" in sample_text
    fallback = (2, (",", ": ")) if multiline else (None, (", ", ": "))
    reproducing = (
        (indent, separators)
        for indent in _INDENTS
        for separators in _SEPARATORS
        if any(
            json.dumps(sample.value, indent=indent, separators=separators, ensure_ascii=ascii_only) == sample_text
            for ascii_only in (False, True)
        )
    )
    indent, separators = next(reproducing, fallback)
    dumped = json.dumps(row, indent=indent, separators=separators, ensure_ascii=False)
    return dumped.replace("\n", layout.newline + element_indent)


def _csv_record(layout: Layout, row: JsonObject) -> str:
    """One CSV record (no terminator) in the header's column order, quoted like the file."""
    cells = [str(row.get(column, "")) for column in layout.header]
    return _format_csv(layout, cells, _csv_quoting(layout))


def _format_csv(layout: Layout, cells: list[str], quoting: CsvQuoting) -> str:
    """One record without its terminator. The writer is given ``\r\n`` as terminator because it
    quotes a cell only when it holds a terminator character: so a cell with ``\r`` or ``\n`` is
    always quoted, whatever the file's own terminator."""
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=layout.delimiter, quoting=quoting, lineterminator="\r\n").writerow(cells)
    return buffer.getvalue()[:-2]


def _csv_quoting(layout: Layout) -> CsvQuoting:
    """QUOTE_ALL when the last record is written that way, else QUOTE_MINIMAL."""
    sample = layout.rows[-1]
    cells = list(sample.value.values())
    sample_text = layout.text[sample.start : sample.end].rstrip("\r\n")
    quote_all = _format_csv(layout, cells, csv.QUOTE_ALL)
    minimal = _format_csv(layout, cells, csv.QUOTE_MINIMAL)
    return csv.QUOTE_ALL if sample_text == quote_all != minimal else csv.QUOTE_MINIMAL
