"""The system-under-test interface and the shape every system returns.

A system takes a question's text and returns a :class:`SystemOutput`: the answer and the ranked
retrieved chunks (best first). Implementations must be thread-safe: the eval pipeline asks many
questions at once. ``label`` says how the answer was produced when that matters to a reader of the
report (``extractive`` for the offline builtin pipeline, ``llm:<model>`` when generated).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence, runtime_checkable

from ragcov_tui.errors import BadInput


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
    or a plain string (its text; the id is then ``"#<rank>"``). Anything else → BadInput naming
    ``where``.
    """
    if isinstance(value, SystemOutput):
        return value
    if isinstance(value, Mapping):
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
    return SystemOutput(answer=answer, contexts=[_context(c, rank, where) for rank, c in enumerate(contexts, 1)])


def _context(value: Any, rank: int, where: str) -> RetrievedChunk:
    if isinstance(value, RetrievedChunk):
        return value
    if isinstance(value, str):
        return RetrievedChunk(id=f"#{rank}", text=value)
    if isinstance(value, Mapping) and ("id" in value or "text" in value):
        score = value.get("score")
        try:
            score = None if score is None else float(score)
        except (TypeError, ValueError):
            raise BadInput(f"{where}: context {rank}: 'score' must be a number, got {score!r}") from None
        return RetrievedChunk(id=str(value.get("id", f"#{rank}")), text=str(value.get("text") or ""), score=score)
    raise BadInput(f"{where}: context {rank}: expected {{'id', 'text', 'score'?}}, got {type(value).__name__}")
