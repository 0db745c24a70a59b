"""The test-set data model: one :class:`Question` per row of the user's test file."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ragcov_tui.shared.json_types import JsonObject

TestFormat = Literal["jsonl", "json", "csv", "beir"]  # beir: a read-only IR folder (testset.beir)


@dataclass
class Question:
    """One question of the test file, with every recognised field normalised.

    ``gold`` maps a relevant chunk or document id to its relevance grade (a plain list of gold
    ids gives grade 1 each). ``row`` is the 0-based index of the row in the file, ``line`` the
    1-based line number where the row starts (for JSON, the line of the element's first
    character). ``raw`` is the row as read (every field, unknown ones included), so nothing the
    user wrote is lost. ``id_in_file`` is False when the row carried no id and ``id`` is its
    content id (``q-`` + 10 hex digits of the sha256 of its normalised text, ``-2``, ``-3``… for
    the 2nd, 3rd… row with that text: :func:`ragcov_tui.testset.ids.content_ids`); it stays put
    when other rows are dropped, inserted or moved, and moves only among rows sharing one text.
    ``reference_contexts`` are the texts the reference answer rests on (Ragas / LlamaIndex
    ``reference_contexts``, DeepEval ``context``, Giskard ``reference_context`` as one text, the
    ``contexts`` of a Ragas 0.1 test set: :func:`ragcov_tui.testset.fields.is_ragas_testset`);
    ``seed_document_id`` is Giskard's ``metadata.seed_document_id``. Both are read, never mapped
    to corpus ids here. ``answerable`` is what the file says of whether the knowledge base holds the
    answer (``answerable: false`` marks an out-of-scope question, which a good system declines),
    ``None`` when it says nothing.
    """

    id: str
    text: str
    ground_truth: str | None = None
    gold: dict[str, float] = field(default_factory=dict)
    expected_keywords: list[str] = field(default_factory=list)
    paraphrases: list[str] = field(default_factory=list)
    answer: str | None = None
    retrieved_ids: list[str] | None = None
    retrieved_contexts: list[str] | None = None
    reference_contexts: list[str] | None = None
    seed_document_id: str | None = None
    vector: list[float] | None = field(default=None, repr=False)
    answerable: bool | None = None
    row: int = 0
    line: int = 0
    raw: JsonObject = field(default_factory=dict, repr=False)
    id_in_file: bool = True


@dataclass
class TestSet:
    """The user's test file as read.

    ``field_names`` maps a canonical field (``id``, ``question``, ``ground_truth``, ``gold``,
    ``expected_keywords``, ``paraphrases``, ``answer``, ``retrieved_ids``,
    ``retrieved_contexts``, ``vector``) to the name this file uses for it; a canonical name is
    absent when no row has the field (``"id" not in field_names`` means the file has no ids).
    ``container`` is the key holding the list in a JSON object file (``questions``, ``data``…),
    None for a top-level list, JSONL or CSV. ``sha256`` is the hex digest of the exact bytes read:
    the writer refuses to write unless the file still has it. ``format`` is the format of the
    content (a JSON Lines file named ``.json`` is ``jsonl``). ``notes`` are one-line warnings on
    what was read differently from the file's name or ignored (pandas' index column).
    """

    __test__ = False  # not a pytest test class despite the name

    path: Path
    format: TestFormat
    questions: list[Question]
    sha256: str
    field_names: dict[str, str]
    container: str | None = None
    notes: list[str] = field(default_factory=list)

    def by_id(self, question_id: str) -> Question | None:
        """The question with this id, or None."""
        return next((q for q in self.questions if q.id == question_id), None)

    @property
    def has_ids(self) -> bool:
        """True when the file has an id field (otherwise every id is a content id)."""
        return "id" in self.field_names
