"""Reading whole documents from a ``.jsonl`` corpus (BEIR's ``corpus.jsonl``): one document per row.

A ``.jsonl`` file holds documents (not ready-made chunks) when its first row has a ``_id`` or a
``title`` field; otherwise it is read as chunks (:mod:`ragcov_tui.corpus.jsonl_chunks`).
Per row: id ← ``_id`` | ``id`` (required; a string or an integer, unique across the corpus);
``title`` (optional) is prepended to the text as its own paragraph; text ← ``text`` |
``content`` (a string). The document's ``source`` is its id, so gold ids name it directly, and
documents are chunked like files: a short abstract stays one chunk whose document is the row.
Rows whose title and text are both blank are skipped with one warning per file.
"""

from __future__ import annotations

from typing import Any

from ragcov_tui.corpus.extract import Warn
from ragcov_tui.corpus.jsonl_rows import json_object, read_rows
from ragcov_tui.corpus.models import Document
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_values import InvalidJson, parse_json
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.number_text import count

DOCUMENT_MARKERS = ("_id", "title")
ID_FIELDS = ("_id", "id")
TEXT_FIELDS = ("text", "content")


def holds_documents(text: str) -> bool:
    """True when the first non-blank row of a ``.jsonl`` file is a document row (has ``_id`` or ``title``)."""
    for line in text.split("\n"):
        if line.strip():
            try:
                row = parse_json(line)
            except InvalidJson:
                return False  # the chunk reader reports the bad line
            return isinstance(row, dict) and any(key in row for key in DOCUMENT_MARKERS)
    return False


class DocumentRowReader:
    """Reads document rows from one or more files; ids must be unique across all of them."""

    def __init__(self) -> None:
        self.id_lines: dict[str, str] = {}

    def read(self, text: str, display: str, path: str, warn: Warn) -> list[Document]:
        """The documents in ``text`` (the decoded content of the file named ``display``)."""
        documents, blank = read_rows(text, display, lambda line, where: self._row(line, where, path))
        if blank:
            warn(f"{display}: skipped {count(blank)} document row(s) with blank text")
        return documents

    def _row(self, line: str, where: str, path: str) -> Document | None:
        row = json_object(line, where)
        doc_id = _field(row, ID_FIELDS)
        if doc_id is None or isinstance(doc_id, bool) or not isinstance(doc_id, (str, int)) or not str(doc_id).strip():
            raise BadInput(f"{where}: a document row needs '_id' (or 'id'): a non-empty string or integer")
        doc_id = str(doc_id)
        if doc_id in self.id_lines:
            raise BadInput(f"{where}: duplicate document id {doc_id!r} (first at {self.id_lines[doc_id]})")
        self.id_lines[doc_id] = where
        title, body = row.get("title"), _field(row, TEXT_FIELDS)
        for name, value in (("title", title), ("text", body)):
            if value is not None and not isinstance(value, str):
                raise BadInput(f"{where}: field '{name}' must be a string (got {type(value).__name__})")
        text = "\n\n".join(part.strip() for part in (title, body) if part and part.strip())
        return Document(source=doc_id, text=text, path=path) if text else None


def _field(row: JsonObject, names: tuple[str, ...]) -> Any:
    return next((row[name] for name in names if row.get(name) is not None), None)
