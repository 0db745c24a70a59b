"""The test-set data model: one :class:`Question` per row of the user's test file."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Question:
    """One question of the test file, with every recognised field normalised.

    ``gold`` maps a relevant chunk or document id to its relevance grade (a plain list of gold
    ids gives grade 1 each). ``row`` is the 0-based index of the row in the file, ``line`` the
    1-based line number (JSONL / CSV) or 0 when not meaningful (JSON). ``raw`` is the row as read
    (every field, unknown ones included), so nothing the user wrote is lost.
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
    vector: list[float] | None = field(default=None, repr=False)
    row: int = 0
    line: int = 0
    raw: dict[str, Any] = field(default_factory=dict, repr=False)
