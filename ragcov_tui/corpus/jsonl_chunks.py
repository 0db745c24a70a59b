"""Reading ready-made chunks from ``.jsonl`` files (one JSON object per line).

Fields, first match wins: text ← ``text`` | ``content`` | ``page_content`` | ``chunk``
(required); id ← ``id`` | ``chunk_id`` (default: the generated
``f"{source}#{position}-{sha256(text)[:8]}"``); source ← ``source`` | ``doc_id`` |
``document_id`` | ``metadata.source`` (default: the file's own source id); ``vector``
(optional list of finite numbers, not all zero, the same length on every row: see
:func:`ragcov_tui.shared.input_values.vector_problem`). ``position`` is the row's index among the rows of
its source. Lines end at ``\n`` only (a JSON string may hold U+2028 and the like); blank lines are
ignored; rows with blank text are skipped with one warning per file. JSON must be strict
(:func:`ragcov_tui.shared.input_values.parse_json`: no ``NaN``, no ``1e400``, at most 100 levels deep).
"""

from __future__ import annotations

from typing import Any

from ragcov_tui.corpus.chunking import chunk_id
from ragcov_tui.corpus.extract import Warn
from ragcov_tui.corpus.jsonl_rows import json_object, read_rows
from ragcov_tui.corpus.models import Chunk
from ragcov_tui.corpus.tokens import TokenCounter
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_values import quoted, vector_problem
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.number_text import count

TEXT_FIELDS = ("text", "content", "page_content", "chunk")
ID_FIELDS = ("id", "chunk_id")
SOURCE_FIELDS = ("source", "doc_id", "document_id")


def _first_field(row: JsonObject, names: tuple[str, ...]) -> tuple[str, Any] | None:
    for name in names:
        if row.get(name) is not None:
            return name, row[name]
    return None


def _metadata_source(row: JsonObject) -> tuple[str, Any] | None:
    metadata = row.get("metadata")
    if isinstance(metadata, dict) and metadata.get("source") is not None:
        return "metadata.source", metadata["source"]
    return None


def _identifier(found: tuple[str, Any] | None, where: str) -> str | None:
    """A (field, value) id as a string, None when absent; BadInput when not a string/integer."""
    if found is None:
        return None
    name, value = found
    if isinstance(value, bool) or not isinstance(value, (str, int)) or str(value).strip() == "":
        raise BadInput(f"{where}: field '{name}' must be a non-empty string or integer")
    return str(value)


class ChunkRowReader:
    """Reads chunk rows from one or more files, checking ids and vector sizes across all of
    them (a duplicate id names both lines; a vector of another length names the first row)."""

    def __init__(self, counter: TokenCounter) -> None:
        self.counter = counter
        self.id_lines: dict[str, str] = {}
        self.next_position: dict[str, int] = {}
        self.vector_dim: tuple[int, str] | None = None

    def read(self, text: str, display: str, default_source: str, warn: Warn) -> list[Chunk]:
        """The chunks in ``text`` (the decoded content of the file named ``display``)."""
        chunks, blank_rows = read_rows(text, display, lambda line, where: self._row(line, where, default_source))
        if blank_rows:
            warn(f"{display}: skipped {count(blank_rows)} row(s) with blank text")
        if not chunks:
            warn(f"{display}: no chunks with text; skipped")
        return chunks

    def _row(self, line: str, where: str, default_source: str) -> Chunk | None:
        row = json_object(line, where)
        found = _first_field(row, TEXT_FIELDS)
        if found is None:
            raise BadInput(f"{where}: no chunk text (expected one of the fields {', '.join(TEXT_FIELDS)})")
        text_field, text = found
        if not isinstance(text, str):
            raise BadInput(f"{where}: field '{text_field}' must be a string")
        if not text.strip():
            return None
        source = _identifier(_first_field(row, SOURCE_FIELDS) or _metadata_source(row), where) or default_source
        vector = self._vector(row.get("vector"), where)
        position = self.next_position.get(source, 0)
        self.next_position[source] = position + 1
        given_id = _identifier(_first_field(row, ID_FIELDS), where)
        cid = given_id if given_id is not None else chunk_id(source, position, text)
        if cid in self.id_lines:
            raise BadInput(f"{where}: duplicate chunk id {quoted(cid)} (first at {self.id_lines[cid]})")
        self.id_lines[cid] = where
        return Chunk(
            id=cid,
            text=text,
            source=source,
            position=position,
            n_tokens=self.counter.count(text),
            vector=vector,
        )

    def _vector(self, value: Any, where: str) -> list[float] | None:
        if value is None:
            return None
        problem = vector_problem(value)
        if problem is not None:
            raise BadInput(f"{where}: field 'vector' {problem}")
        if self.vector_dim is None:
            self.vector_dim = (len(value), where)
        elif len(value) != self.vector_dim[0]:
            dim, first = self.vector_dim
            raise BadInput(f"{where}: field 'vector' has {len(value)} numbers but {first} has {dim}")
        return [float(x) for x in value]
