"""``records:FILE`` — outputs the user already has, one row per question.

The file is ``.jsonl``, ``.json`` or ``.csv`` (read with the test-file layout code), and its field
names are resolved with the test file's alias table (:mod:`ragcov_tui.testset.fields`), so our
names and the Ragas / DeepEval / Giskard RAGET ones all work:

- id: ``id`` | ``qid`` | ``question_id`` …; question text: ``question`` | ``user_input`` | ``input`` …
- answer: ``answer`` | ``response`` | ``actual_output`` | RAGET's ``message`` (may be absent:
  retrieval-only records)
- ranked retrieved ids: ``retrieved_ids`` | ``retrieved_context_ids`` | ``retrieved_doc_ids``
- their texts, same order: ``retrieved_contexts`` | ``retrieval_context`` | ``contexts`` | RAGET's
  ``documents``; an entry may also be ``{"id"?, "text"?, "score"?}``, the shape an http / python
  system replies with (a score must be a finite number)

Rows are joined to the test questions by :mod:`ragcov_tui.evaluation.systems.records_join` and
answer them through :class:`~ragcov_tui.evaluation.systems.records_system.RecordsSystem`. A row
without an id is known by :func:`~ragcov_tui.testset.ids.content_id` of its question (stable when a
row is dropped), else by its line. The test file itself may be the records file when its rows carry
the answer fields. A malformed row, or an id that repeats, is refused when the file is read (before
any question runs), naming its line(s).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from ragcov_tui.evaluation.systems.base import context_from_value
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_files import decode_text
from ragcov_tui.shared.input_values import quoted
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.testset.fields import aliases_text, resolve_fields
from ragcov_tui.testset.ids import content_id
from ragcov_tui.testset.layout import split_layout
from ragcov_tui.testset.reader import _cell_value, file_format, read_bytes

Context = tuple["str | None", "str | None", "float | None"]  # (id, text, score), unknown parts None
# Names only a records file uses, tried when the shared alias table finds none (Giskard RAGET's
# AgentAnswer: {"message": answer, "documents": [retrieved texts]}).
RECORD_ONLY_ALIASES = {"answer": "message", "retrieved_contexts": "documents"}


@dataclass
class Record:
    """One row of a records file, normalised: its answer and ranked contexts, and the keys it
    joins by (``id`` as written or None, ``question`` text or None, ``row`` its 0-based index,
    ``line`` the 1-based line it starts on)."""

    where: str
    answer: str
    contexts: list[Context]
    id: str | None = None
    question: str | None = None
    row: int = 0
    line: int = 0

    @property
    def key(self) -> str:
        """The row's id: as written, else the content id of its question, else ``row-<n>``."""
        if self.id is not None:
            return self.id
        return content_id(self.question) if self.question else f"row-{self.row + 1}"


@dataclass
class RecordsFile:
    """A records file as read: its rows in order."""

    path: Path
    rows: list[Record] = field(default_factory=list)


def load_records(path: str | Path) -> RecordsFile:
    """Every row, checked; BadInput naming ``file:line`` for a bad row (a field of the wrong
    type, a non-finite score, ids and contexts of different lengths, no answer or retrieved
    field) and for a repeated id, naming both lines. Repeated question texts are not refused
    here: they are fine for ``--join order`` and reported by the join otherwise."""
    p = Path(path)
    fmt = file_format(p)
    layout = split_layout(p, decode_text(read_bytes(p), str(p)), fmt)
    records = RecordsFile(p)
    by_id: dict[str, Record] = {}
    for raw in layout.rows:
        where = layout.where(p, raw)
        present = [k for k, v in raw.value.items() if v is not None and v != ""]
        names = resolve_fields(present)
        for canonical, alias in RECORD_ONLY_ALIASES.items():
            if canonical not in names and alias in present:
                names[canonical] = alias
        value = partial(_field_value, where, names, raw.value, fmt)
        if not {"answer", "retrieved_ids", "retrieved_contexts"} & names.keys():
            raise BadInput(
                f"{where}: no answer or retrieved field (expected one of: {aliases_text('answer')}, "
                f"{aliases_text('retrieved_ids')}, {aliases_text('retrieved_contexts')})"
            )
        question = value("question")
        record = Record(
            where,
            _text(where, names, value("answer")),
            _contexts(where, names, value),
            id=_row_id(where, names, value("id")) if "id" in names else None,
            question=question if isinstance(question, str) and question.strip() else None,
            row=raw.index,
            line=raw.line,
        )
        if record.id is not None:
            first = by_id.setdefault(record.id, record)
            if first is not record:
                raise BadInput(f"{where}: repeated id {quoted(record.id)} (first on {first.where})")
        records.rows.append(record)
    if not records.rows:
        raise BadInput(f"{p}: no records")
    return records


def _field_value(where: str, names: dict[str, str], row: JsonObject, fmt: str, canonical: str) -> Any:
    """The row's value for ``canonical`` (None when the row has no such field); a CSV cell is parsed."""
    if canonical not in names:
        return None
    cell = row[names[canonical]]
    return _cell_value(where, names[canonical], canonical, cell) if fmt == "csv" else cell


def _row_id(where: str, names: dict[str, str], value: Any) -> str:
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return str(value)
    raise BadInput(f"{where}: field {names['id']!r} must be a string or a whole number (got {type(value).__name__})")


def _text(where: str, names: dict[str, str], answer: Any) -> str:
    if answer is None:
        return ""
    if not isinstance(answer, str):
        raise BadInput(f"{where}: field {names['answer']!r} must be a string (got {type(answer).__name__})")
    return answer


def _contexts(where: str, names: dict[str, str], value: Any) -> list[Context]:
    """The row's ranked contexts from ``retrieved_ids`` and / or ``retrieved_contexts``; a context
    may be a text or ``{"id"?, "text"?, "score"?}`` (checked like a python system's reply)."""
    ids = _list(where, names, "retrieved_ids", value("retrieved_ids"))
    given = value("retrieved_contexts")
    given = [given] if isinstance(given, str) else given
    if given is not None and not isinstance(given, list):
        raise BadInput(
            f"{where}: field {names['retrieved_contexts']!r} must be a list of texts or "
            "{'id', 'text', 'score'} objects"
        )
    contexts = [_context(where, names, item, rank) for rank, item in enumerate(given or [], start=1)]
    if ids is None:
        return contexts
    if given is None:
        return [(i, None, None) for i in ids]
    if len(ids) != len(contexts):
        raise BadInput(f"{where}: {len(ids)} retrieved ids but {len(contexts)} retrieved contexts")
    for rank, (i, (own, _, _)) in enumerate(zip(ids, contexts, strict=True), start=1):
        if own is not None and own != i:
            raise BadInput(
                f"{where}: context {rank}: id {quoted(own)} differs from {names['retrieved_ids']!r} entry {quoted(i)}"
            )
    return [(i, text, score) for i, (_, text, score) in zip(ids, contexts, strict=True)]


def _context(where: str, names: dict[str, str], item: Any, rank: int) -> Context:
    if isinstance(item, str):
        return None, item, None
    if not isinstance(item, dict):
        raise BadInput(
            f"{where}: field {names['retrieved_contexts']!r}: context {rank} must be a text or "
            f"an {{'id', 'text', 'score'}} object (got {type(item).__name__})"
        )
    chunk = context_from_value(item, rank, where)
    return (chunk.id if "id" in item else None), (chunk.text if "text" in item else None), chunk.score


def _list(where: str, names: dict[str, str], canonical: str, items: Any) -> list[str] | None:
    if items is None:
        return None
    if isinstance(items, str):
        items = [items]
    if not isinstance(items, list) or not all(isinstance(i, (str, int)) and not isinstance(i, bool) for i in items):
        raise BadInput(f"{where}: field {names[canonical]!r} must be a list of strings")
    return [str(i) for i in items]
