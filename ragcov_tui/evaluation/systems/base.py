"""The system-under-test interface and the shape every system returns.

A system takes a question's text and returns a :class:`SystemOutput`: the answer and the ranked
retrieved chunks (best first). Implementations must be thread-safe: the eval pipeline asks many
questions at once. ``label`` says how the answer was produced when that matters to a reader of the
report (``extractive`` for the offline builtin pipeline, ``llm:<model>`` when generated).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_values import quoted

DEFAULT_K = 5  # the retrieval cut-off: chunks a builtin system retrieves, the k of ndcg@k and the other @k metrics


@dataclass
class RetrievedChunk:
    """One retrieved context: its id, its text and the retriever's score when known."""

    id: str
    text: str
    score: float | None = None


@dataclass
class SystemOutput:
    """What a system produced for one question; ``contexts`` are ranked, best first."""

    answer: str
    contexts: list[RetrievedChunk] = field(default_factory=list)
    label: str = ""


@runtime_checkable
class System(Protocol):
    """A RAG system under test. ``answer`` is called from several threads at once."""

    name: str

    def answer(self, question: str) -> SystemOutput: ...


def output_from_value(value: Any, where: str) -> SystemOutput:
    """Normalise what a user's system returned into a :class:`SystemOutput`.

    Accepted: a SystemOutput; a mapping ``{"answer": str, "contexts": [...]}``; a tuple
    ``(answer, contexts)``. Each context is a RetrievedChunk, a mapping ``{"id", "text", "score"?}``
    or a plain string (its text; the id is then ``"#<rank>"``). An id is a string or a whole
    number, a text a string, a score absent / None or a finite real number (NaN, ±inf, strings,
    booleans and containers are refused). Anything else → BadInput naming ``where`` and the
    context's rank; a SystemOutput is checked the same way (its scores made plain floats).
    """
    label = ""
    if isinstance(value, SystemOutput):
        answer, contexts, label = value.answer, value.contexts, value.label
    elif isinstance(value, Mapping):
        if "answer" not in value:
            raise BadInput(f"{where}: the reply has no 'answer' field (expected {{'answer', 'contexts'}})")
        answer, contexts = value["answer"], value.get("contexts") or []
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        answer, contexts = value
    else:
        raise BadInput(f"{where}: expected {{'answer': str, 'contexts': [...]}}, got {type(value).__name__}")
    if not isinstance(answer, str):
        raise BadInput(f"{where}: 'answer' must be a string, got {type(answer).__name__}")
    if not isinstance(contexts, Sequence) or isinstance(contexts, (str, bytes)):
        raise BadInput(f"{where}: 'contexts' must be a list, got {type(contexts).__name__}")
    return SystemOutput(
        answer=answer, contexts=[context_from_value(c, rank, where) for rank, c in enumerate(contexts, 1)], label=label
    )


def context_from_value(value: Any, rank: int, where: str) -> RetrievedChunk:
    """One context (rank ``rank``, 1-based) as a checked RetrievedChunk; BadInput naming ``where``."""
    if isinstance(value, RetrievedChunk):
        return RetrievedChunk(
            id=_id(value.id, rank, where),
            text=_text(value.text, rank, where),
            score=check_score(value.score, f"{where}: context {rank}"),
        )
    if isinstance(value, str):
        return RetrievedChunk(id=f"#{rank}", text=value)
    if isinstance(value, Mapping) and ("id" in value or "text" in value):
        return RetrievedChunk(
            id=_id(value.get("id", f"#{rank}"), rank, where),
            text=_text(value.get("text"), rank, where),
            score=check_score(value.get("score"), f"{where}: context {rank}"),
        )
    raise BadInput(f"{where}: context {rank}: expected {{'id', 'text', 'score'?}}, got {type(value).__name__}")


def check_score(value: Any, where: str) -> float | None:
    """A retriever score as a float: None stays None; a finite real number (numpy's too) is
    accepted; NaN, ±inf, booleans, strings and anything else → BadInput naming ``where``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise BadInput(f"{where}: 'score' must be a number, got {type(value).__name__} {quoted(value)}")
    try:
        score = float(value)
    except OverflowError:  # an integer beyond the float range
        score = math.inf
    if not math.isfinite(score):
        raise BadInput(f"{where}: 'score' must be a finite number, got {quoted(value)}")
    return score


def _id(value: Any, rank: int, where: str) -> str:
    """A context id as text: a string or a whole number (not a boolean), else BadInput."""
    if isinstance(value, str) or (isinstance(value, numbers.Integral) and not isinstance(value, bool)):
        return str(value)
    raise BadInput(f"{where}: context {rank}: 'id' must be a string, got {type(value).__name__} {quoted(value)}")


def _text(value: Any, rank: int, where: str) -> str:
    if value is None or isinstance(value, str):
        return value or ""
    raise BadInput(f"{where}: context {rank}: 'text' must be a string, got {type(value).__name__}")
