"""``records:FILE`` — outputs the user already has, one row per question.

The file is ``.jsonl``, ``.json`` or ``.csv`` (read with the test-file layout code), and its field
names are resolved with the test file's alias table (:mod:`ragcov_tui.testset.fields`), so our
names and the Ragas / DeepEval ones all work:

- id: ``id`` | ``qid`` | ``question_id`` …; question text: ``question`` | ``user_input`` | ``input`` …
- answer: ``answer`` | ``response`` | ``actual_output`` (may be absent: retrieval-only records)
- ranked retrieved ids: ``retrieved_ids`` | ``retrieved_context_ids`` | ``retrieved_doc_ids``
- their texts, same order: ``retrieved_contexts`` | ``retrieval_context`` | ``contexts``

A row is found by the question's id, else by its text. Ids without texts get their text from the
corpus chunk of that id (or ``""``); texts without ids get the id of the corpus chunk with exactly
that text, else ``#<rank>`` (such contexts count as non-relevant for retrieval metrics). The test
file itself may be the records file when its rows carry the answer fields. A question with no row
raises :class:`~ragcov_tui.errors.BadInput` for that item only.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.errors import BadInput
from ragcov_tui.evaluation.systems.base import RetrievedChunk, SystemOutput
from ragcov_tui.testset.fields import aliases_text, resolve_fields
from ragcov_tui.testset.layout import decode, split_layout
from ragcov_tui.testset.models import Question
from ragcov_tui.testset.reader import _cell_value, read_bytes, test_format


@dataclass
class Record:
    """One row of a records file, normalised."""

    where: str
    answer: str
    ids: list[str] | None
    texts: list[str] | None


def load_records(path: str | Path) -> tuple[dict[str, Record], dict[str, Record]]:
    """Rows keyed by id and by normalised question text; BadInput naming ``file:line`` for bad rows."""
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
        record = Record(where, _text(where, names, value("answer")), _list(where, names, "retrieved_ids", value),
                        _list(where, names, "retrieved_contexts", value))
        if "id" in names:
            by_id[str(value("id"))] = record
        if isinstance(value("question"), str):
            by_text[_key(value("question"))] = record
    if not by_id and not by_text:
        raise BadInput(f"{p}: no records")
    return by_id, by_text


def _text(where: str, names: dict[str, str], answer: Any) -> str:
    if answer is None:
        return ""
    if not isinstance(answer, str):
        raise BadInput(f"{where}: field {names['answer']!r} must be a string (got {type(answer).__name__})")
    return answer


def _list(where: str, names: dict[str, str], canonical: str, value: Any) -> list[str] | None:
    items = value(canonical)
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
        ids, texts = record.ids, record.texts
        if ids is not None and texts is not None and len(ids) != len(texts):
            raise BadInput(f"{record.where}: {len(ids)} retrieved ids but {len(texts)} retrieved contexts")
        if ids is None:
            ids = [self._chunk_id.get(t.strip(), f"#{rank}") for rank, t in enumerate(texts or [], start=1)]
        if texts is None:
            texts = [self._chunk_text.get(i, "") for i in ids]
        return [RetrievedChunk(id=i, text=t) for i, t in zip(ids, texts)]
