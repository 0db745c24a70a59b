"""Joining a records file's rows to the test questions: by id, by question text, or by position.

Modes (``--join``):

- ``auto`` (default): by id where a row's id is a test question's id, then by normalised question
  text (:func:`~ragcov_tui.testset.ids.text_key`: case, spacing and end punctuation ignored) for
  the questions left, using only rows not joined by id;
- ``id``: by id only; ``question``: by question text only;
- ``order``: row n is question n (a file without ids or questions, e.g. Giskard RAGET's
  ``[{message, documents}]``); the counts must be equal.

Nothing is guessed: a text that two test questions share, or that two rows share, joins nothing;
those questions fail with the reason (naming the ids / lines) and the report counts them. A file
of which no row joins any question is refused in one line that lists the keys tried.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ragcov_tui.evaluation.systems.records import Record, RecordsFile
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_values import quoted
from ragcov_tui.shared.number_text import count
from ragcov_tui.store.eval_contract import RecordsJoinReport
from ragcov_tui.testset.fields import aliases_text
from ragcov_tui.testset.ids import text_key
from ragcov_tui.testset.models import Question

JOINS = ("auto", "id", "question", "order")
NO_ROW = "no record for this question"


@dataclass
class RecordsJoin:
    """Which row answers which test question, how each was joined, and why some were not."""

    mode: str
    rows: int
    questions: int
    by_question: dict[str, Record] = field(default_factory=dict)
    how: Counter = field(default_factory=Counter)  # "id" | "question" | "order" -> questions joined
    ambiguous: dict[str, str] = field(default_factory=dict)  # question id -> the reason
    rows_by_text: dict[str, list[Record]] = field(default_factory=dict)

    def record_for(self, question_id: str, name: str) -> Record:
        """The row joined to this question; BadInput naming ``name`` and the reason otherwise."""
        record = self.by_question.get(question_id)
        if record is None:
            raise BadInput(f"{name}: {self.ambiguous.get(question_id, NO_ROW)}")
        return record

    def record_for_text(self, text: str, name: str) -> Record:
        """The one row whose question has this text; BadInput when none or several do."""
        rows = self.rows_by_text.get(text_key(text), [])
        if len(rows) == 1:
            return rows[0]
        raise BadInput(f"{name}: " + (_rows_reason(rows) if rows else NO_ROW))

    def as_dict(self) -> RecordsJoinReport:
        joined = len(self.by_question)
        return {
            "join": self.mode,
            "rows": self.rows,
            "questions": self.questions,
            "joined": joined,
            "by": dict(self.how),
            "ambiguous": len(self.ambiguous),
            "missing": self.questions - joined - len(self.ambiguous),
            "ambiguous_examples": list(self.ambiguous.values())[:3],
        }


def join_line(block: RecordsJoinReport) -> str:
    """``records: 30 of 31 questions joined (29 by id, 1 by question text); 1 ambiguous: …``."""
    names = {"id": "by id", "question": "by question text", "order": "by position"}
    how = ", ".join(f"{count(n)} {names.get(k, k)}" for k, n in (block.get("by") or {}).items())
    line = f"records: {count(block.get('joined'))} of {count(block.get('questions'))} questions joined" + (
        f" ({how})" if how else ""
    )
    if block.get("missing"):
        line += f"; {count(block['missing'])} without a row"
    if block.get("ambiguous"):
        line += f"; {count(block['ambiguous'])} ambiguous, not joined (e.g. {(block.get('ambiguous_examples') or ['?'])[0]})"
    return line


def join_records(records: RecordsFile, questions: Sequence[Question], mode: str = "auto") -> RecordsJoin:
    """Join ``records`` to ``questions`` by ``mode`` (see the module docstring); BadInput for an
    unknown mode, unequal counts under ``order``, or a file no row of which joins a question."""
    if mode not in JOINS:
        raise BadInput(f"--join: expected one of {', '.join(JOINS)}, got {quoted(mode)}")
    join = RecordsJoin(mode, len(records.rows), len(questions))
    for row in records.rows:
        if row.question is not None:
            join.rows_by_text.setdefault(text_key(row.question), []).append(row)
    if mode == "order":
        if len(records.rows) != len(questions):
            raise BadInput(
                f"{records.path}: --join order: {count(len(records.rows))} rows but the test file has "
                f"{count(len(questions))} questions (row n answers question n)"
            )
        join.by_question = {q.id: row for q, row in zip(questions, records.rows, strict=True)}
        join.how["order"] = len(questions)
        return join
    used: set[int] = set()
    if mode in ("auto", "id"):
        by_id = {row.id: row for row in records.rows if row.id is not None}
        for q in questions:
            if q.id in by_id:
                join.by_question[q.id] = by_id[q.id]
                used.add(by_id[q.id].row)
                join.how["id"] += 1
    if mode in ("auto", "question"):
        _join_by_text(join, questions, used)
    if questions and not join.by_question and not join.ambiguous:
        raise BadInput(
            f"{records.path}: no row joins a test question (tried: {_tried(records, questions, mode)}); "
            "use --join order to join row n to question n"
        )
    return join


def _join_by_text(join: RecordsJoin, questions: Sequence[Question], used: set[int]) -> None:
    """Join the questions left by their text, one question to one unused row, else ambiguous."""
    left: dict[str, list[Question]] = {}
    for q in questions:
        if q.id not in join.by_question:
            left.setdefault(text_key(q.text), []).append(q)
    for key, group in left.items():
        rows = [r for r in join.rows_by_text.get(key, []) if r.row not in used]
        if not rows:
            continue
        if len(group) == 1 and len(rows) == 1:
            join.by_question[group[0].id] = rows[0]
            join.how["question"] += 1
            continue
        reason = (
            _rows_reason(rows)
            if len(rows) > 1
            else (
                f"ambiguous join: {len(group)} test questions have this text "
                f"({', '.join(quoted(q.id) for q in group[:3])}); give the files ids or use --join order"
            )
        )
        join.ambiguous.update(dict.fromkeys((q.id for q in group), reason))


def _rows_reason(rows: list[Record]) -> str:
    lines = ", ".join(str(r.line) for r in rows[:3])
    return (
        f"ambiguous join: {len(rows)} records rows have this question (lines {lines}); "
        "give the rows ids or use --join order"
    )


def _tried(records: RecordsFile, questions: Sequence[Question], mode: str) -> str:
    """The keys tried, with an example of each side: ``id (rows 'a1', …; questions 'q001', …)``."""

    def sample(values: list[str]) -> str:
        return ", ".join(quoted(v, 30) for v in values[:2]) + (", …" if len(values) > 2 else "")

    parts = []
    if mode in ("auto", "id"):
        ids = [r.id for r in records.rows if r.id is not None]
        parts.append(
            f"id (rows {sample(ids)}; questions {sample([q.id for q in questions])})"
            if ids
            else f"id (no row has one of: {aliases_text('id')})"
        )
    if mode in ("auto", "question"):
        texts = [r.question for r in records.rows if r.question is not None]
        parts.append(
            f"question text, normalised (rows {sample(texts)}; questions {sample([q.text for q in questions])})"
            if texts
            else f"question text (no row has one of: {aliases_text('question')})"
        )
    return "; ".join(parts)
