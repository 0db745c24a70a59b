"""``records:FILE`` — outputs the user already has, one row per question.

The file is ``.jsonl``, ``.json`` or ``.csv`` (read with the test-file layout code), and its field
names are resolved with the test file's alias table (:mod:`ragcov_tui.testset.fields`), so our
names and the Ragas / DeepEval ones all work:

- id: ``id`` | ``qid`` | ``question_id`` …; question text: ``question`` | ``user_input`` | ``input`` …
- answer: ``answer`` | ``response`` | ``actual_output`` (may be absent: retrieval-only records)
- ranked retrieved ids: ``retrieved_ids`` | ``retrieved_context_ids`` | ``retrieved_doc_ids``
- their texts, same order: ``retrieved_contexts`` | ``retrieval_context`` | ``contexts``; an entry
  may also be ``{"id"?, "text"?, "score"?}``, the shape an http / python system replies with (a
  score must be a finite number)

A row is found by the question's id, else by its text. Ids without texts get their text from the
corpus chunk of that id (or ``""``); texts without ids get the id of the corpus chunk with exactly
that text, else ``#<rank>`` (such contexts count as non-relevant for retrieval metrics). The test
file itself may be the records file when its rows carry the answer fields. A question with no row
raises :class:`~ragcov_tui.errors.BadInput` for that item only; a malformed row, or an id
that repeats, is refused when the file is read (before any question runs), naming its line(s).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.errors import BadInput
from ragcov_tui.evaluation.systems.base import RetrievedChunk, SystemOutput, context_from_value
from ragcov_tui.input_values import quoted
from ragcov_tui.testset.fields import aliases_text, resolve_fields
from ragcov_tui.testset.layout import decode, split_layout
from ragcov_tui.testset.models import Question
from ragcov_tui.testset.reader import _cell_value, read_bytes, test_format


Context = tuple["str | None", "str | None", "float | None"]  # (id, text, score), unknown parts None


@dataclass
class Record:
    """One row of a records file, normalised: its answer and its ranked contexts."""

    where: str
    answer: str
    contexts: list[Context]


def load_records(path: str | Path) -> tuple[dict[str, Record], dict[str, Record]]:
    """Rows keyed by id and by normalised question text; BadInput naming ``file:line`` for a bad
    row (a field of the wrong type, a non-finite score, ids and contexts of different lengths) and
    for a repeated id (or a repeated question text on rows without ids), naming both lines."""
    p = Path(path)
    fmt = test_format(p)
    layout = split_layout(p, decode(p, read_bytes(p)), fmt)
    by_id: dict[str, Record] = {}
    by_text: dict[str, Record] = {}
    for raw in layout.rows:
        where = layout.where(p, raw)
        names = resolve_fields(k for k, v in raw.value.items() if v is not None and v != "")

        def value(canonical: str) -> Any:
            if canonical not in names:
                return None
            cell = raw.value[names[canonical]]
            return _cell_value(where, names[canonical], canonical, cell) if fmt == "csv" else cell

        if "id" not in names and "question" not in names:
            raise BadInput(f"{where}: no id or question field (expected one of: {aliases_text('id')})")
        if not {"answer", "retrieved_ids", "retrieved_contexts"} & names.keys():
            raise BadInput(f"{where}: no answer or retrieved field (expected one of: {aliases_text('answer')}, "
                           f"{aliases_text('retrieved_ids')}, {aliases_text('retrieved_contexts')})")
        record = Record(where, _text(where, names, value("answer")), _contexts(where, names, value))
        question = value("question")
        if "id" in names:
            _add(by_id, _row_id(where, names, value("id")), record, "id")
        if isinstance(question, str) and ("id" not in names or _key(question) not in by_text):
            _add(by_text, _key(question), record, "question")
    if not by_id and not by_text:
        raise BadInput(f"{p}: no records")
    return by_id, by_text


def _add(table: dict[str, Record], key: str, record: Record, what: str) -> None:
    first = table.get(key)
    if first is not None:
        raise BadInput(f"{record.where}: repeated {what} {quoted(key)} (first on {first.where})")
    table[key] = record


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
        raise BadInput(f"{where}: field {names['retrieved_contexts']!r} must be a list of texts or "
                       "{'id', 'text', 'score'} objects")
    contexts = [_context(where, names, item, rank) for rank, item in enumerate(given or [], start=1)]
    if ids is None:
        return contexts
    if given is None:
        return [(i, None, None) for i in ids]
    if len(ids) != len(contexts):
        raise BadInput(f"{where}: {len(ids)} retrieved ids but {len(contexts)} retrieved contexts")
    for rank, (i, (own, _, _)) in enumerate(zip(ids, contexts), start=1):
        if own is not None and own != i:
            raise BadInput(f"{where}: context {rank}: id {quoted(own)} differs from {names['retrieved_ids']!r} "
                           f"entry {quoted(i)}")
    return [(i, text, score) for i, (_, text, score) in zip(ids, contexts)]


def _context(where: str, names: dict[str, str], item: Any, rank: int) -> Context:
    if isinstance(item, str):
        return None, item, None
    if not isinstance(item, dict):
        raise BadInput(f"{where}: field {names['retrieved_contexts']!r}: context {rank} must be a text or "
                       f"an {{'id', 'text', 'score'}} object (got {type(item).__name__})")
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


def _key(text: str) -> str:
    return " ".join(text.split()).lower()


class RecordsSystem:
    """Answers from a records file; ``answer`` looks a question up by its text (or id, see bind)."""

    def __init__(self, path: str, *, chunks: Sequence[Chunk] = (), questions: Sequence[Question] = ()) -> None:
        self.name = f"records:{path}"
        self.by_id, self.by_text = load_records(path)
        self._chunk_text = {c.id: c.text for c in chunks}
        self._chunk_id = {c.text.strip(): c.id for c in chunks}
        self._text_to_id = {_key(q.text): q.id for q in questions}

    def answer(self, question: str) -> SystemOutput:
        key = _key(question)
        record = self.by_id.get(self._text_to_id.get(key, "\0")) or self.by_text.get(key)
        if record is None:
            raise BadInput(f"{self.name}: no record for this question")
        return SystemOutput(answer=record.answer, contexts=self._contexts(record))

    def _contexts(self, record: Record) -> list[RetrievedChunk]:
        """Fill what the row left out: a missing id from the corpus chunk with that exact text
        (else ``#<rank>``), a missing text from the corpus chunk of that id (else ``""``)."""
        out = []
        for rank, (cid, text, score) in enumerate(record.contexts, start=1):
            if cid is None:
                cid = self._chunk_id.get((text or "").strip(), f"#{rank}")
            out.append(RetrievedChunk(id=cid, text=self._chunk_text.get(cid, "") if text is None else text, score=score))
        return out
