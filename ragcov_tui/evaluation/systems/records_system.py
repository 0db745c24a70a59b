"""``records:FILE`` as a system under test: the rows of a records file (:mod:`.records`), joined to the
test questions once (:mod:`.records_join`: by id, by normalised question text, or with ``--join order``
by position), answer each question.

Ids without texts get their text from the corpus chunk of that id (or ``""``); texts without ids get
the id of the corpus chunk with exactly that text, else ``#<rank>`` (such contexts count as
non-relevant for retrieval metrics). Without a corpus no text can be matched, so a file whose
contexts are texts without ids cannot have its retrieval measured
(:meth:`RecordsSystem.retrieval_unmeasured`). A question with no row, or with an ambiguous one,
raises :class:`~ragcov_tui.shared.errors.BadInput` for that item only.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.evaluation.systems.base import RetrievedChunk, SystemOutput
from ragcov_tui.evaluation.systems.records import Record, load_records
from ragcov_tui.evaluation.systems.records_join import join_records
from ragcov_tui.store.eval_contract import RecordsJoinReport
from ragcov_tui.testset.ids import text_key
from ragcov_tui.testset.models import Question


class RecordsSystem:
    """Answers from a records file, joined to the test questions once (see records_join)."""

    def __init__(
        self, path: str, *, chunks: Sequence[Chunk] = (), questions: Sequence[Question] = (), join: str = "auto"
    ) -> None:
        self.name = f"records:{path}"
        records = load_records(path)
        self.join = join_records(records, questions, join)
        self._idless_rows = sum(1 for r in records.rows if r.contexts and all(cid is None for cid, _, _ in r.contexts))
        self._rows_with_ids = sum(1 for r in records.rows if any(cid is not None for cid, _, _ in r.contexts))
        self._rows = len(records.rows)
        self._by_text: dict[str, list[str]] = {}
        for question in questions:
            self._by_text.setdefault(text_key(question.text), []).append(question.id)
        self._chunk_text = {c.id: c.text for c in chunks}
        self._chunk_id = {c.text.strip(): c.id for c in chunks}

    def answer_for(self, question: Question) -> SystemOutput:
        """The joined row's output for this test question; BadInput when it has none or the
        join was ambiguous (the reason named)."""
        return SystemOutput(
            answer=(record := self.join.record_for(question.id, self.name)).answer, contexts=self._contexts(record)
        )

    def answer(self, question: str) -> SystemOutput:
        """By text (a paraphrase, or a caller without the Question): the one test question with
        this text, else the one row with this text; BadInput otherwise."""
        ids = self._by_text.get(text_key(question), [])
        if len(ids) == 1:
            return self.answer_for(Question(id=ids[0], text=question))
        record = self.join.record_for_text(question, self.name)
        return SystemOutput(answer=record.answer, contexts=self._contexts(record))

    def retrieval_unmeasured(self) -> str | None:
        """Why retrieval metrics cannot be computed, or None: no row names a retrieved context by id,
        some give them as bare texts, and there is no corpus to find those texts in (every one would
        read as a miss). A row that names some of its contexts by id is measured (its bare texts rank
        as misses at their places)."""
        if self._chunk_id or not self._idless_rows or self._rows_with_ids:
            return None
        return (
            f"{self._idless_rows:,} of {self._rows:,} rows give retrieved contexts as texts without ids; "
            "--corpus is needed to match them to corpus chunks"
        )

    def join_report(self) -> RecordsJoinReport:
        """How rows were joined (the eval report's ``records_join``)."""
        return self.join.as_dict()

    def _contexts(self, record: Record) -> list[RetrievedChunk]:
        """Fill what the row left out: a missing id from the corpus chunk with that exact text
        (else ``#<rank>``), a missing text from the corpus chunk of that id (else ``""``)."""
        out = []
        for rank, (cid, text, score) in enumerate(record.contexts, start=1):
            if cid is None:
                cid = self._chunk_id.get((text or "").strip(), f"#{rank}")
            out.append(
                RetrievedChunk(id=cid, text=self._chunk_text.get(cid, "") if text is None else text, score=score)
            )
        return out
