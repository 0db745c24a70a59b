"""The one table of field-name aliases a test file may use, and how a row's names resolve.

Seeds and common tools name the same things differently: Giskard (``question``,
``reference_answer``), Ragas (``user_input``, ``reference``, ``response``,
``retrieved_contexts``), DeepEval (``input``, ``expected_output``, ``actual_output``,
``retrieval_context``). For each canonical field the aliases are listed in priority order: when a
row has several, the first one present wins.

Ragas 0.1 names both kinds of context ``contexts``: its *test set* (``question``, ``contexts``,
``ground_truth``, ``evolution_type``, no answer) holds the contexts each question was written
from, its evaluation records (``answer`` and ``contexts``) the retrieved ones. A test file is read
as a Ragas 0.1 test set (:func:`is_ragas_testset`) when some row has ``contexts`` and none an
answer field; then ``contexts`` is a reference-context alias (:data:`RAGAS_TESTSET_ALIASES`).
An ``evolution_type`` column alone does not decide it: a test set whose rows were given answers
was passed through a RAG system, and Ragas' ``evaluate`` reads its ``contexts`` as retrieved.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

FIELD_ALIASES: dict[str, tuple[str, ...]] = {
    "id": ("id", "qid", "question_id", "query_id"),
    "question": ("question", "query", "user_input", "input"),
    "ground_truth": (
        "ground_truth",
        "reference",
        "expected_output",
        "reference_answer",
        "answer_ground_truth",
        "expected_answer",
    ),
    "gold": (
        "gold_chunk_ids",
        "gold_doc_ids",
        "relevant_doc_ids",
        "expected_document_ids",
        "reference_context_ids",
        "must_be_grounded_in",
        "relevant_chunk_ids",
    ),
    "expected_keywords": ("expected_keywords", "keywords"),
    "paraphrases": ("paraphrases", "question_variants"),
    "answer": ("answer", "response", "actual_output"),
    "retrieved_ids": ("retrieved_ids", "retrieved_context_ids", "retrieved_doc_ids"),
    "retrieved_contexts": ("retrieved_contexts", "retrieval_context", "contexts"),
    "reference_contexts": ("reference_contexts", "reference_context", "context"),
    "vector": ("vector", "embedding"),
    # whether the knowledge base holds the answer (out-of-scope questions are false); the last two
    # say the opposite (SQuAD 2.0's ``is_impossible``) and are read negated
    "answerable": ("answerable", "is_answerable", "unanswerable", "is_impossible"),
}
NEGATED_ALIASES = frozenset({"unanswerable", "is_impossible"})

# Ragas 0.1's one name for reference contexts (in a test set) and retrieved ones (in records).
RAGAS_CONTEXTS = "contexts"
RAGAS_TESTSET_ALIASES: dict[str, tuple[str, ...]] = {
    **FIELD_ALIASES,
    "retrieved_contexts": tuple(a for a in FIELD_ALIASES["retrieved_contexts"] if a != RAGAS_CONTEXTS),
    "reference_contexts": (*FIELD_ALIASES["reference_contexts"], RAGAS_CONTEXTS),
}

# Keys of a JSON object file that may hold the list of questions, in priority order.
CONTAINER_KEYS: tuple[str, ...] = ("questions", "data", "examples", "samples")

# Keys of a JSON object file holding parallel lists of texts (LlamaIndex / ARAGOG): the questions
# (a container key above) and the reference answers, one per question.
PARALLEL_KEYS: tuple[str, ...] = ("questions", "ground_truths")

# The field the writer adds to a new JSON / JSONL row to say where it came from.
PROVENANCE_FIELD = "provenance"


def resolve_fields(names: Iterable[str], *, ragas_testset: bool = False) -> dict[str, str]:
    """Canonical field -> the first of its aliases among ``names`` (canonicals with none omitted);
    with ``ragas_testset``, ``contexts`` names reference contexts (see the module docstring)."""
    return dict(_resolved(frozenset(names), ragas_testset))


def is_ragas_testset(names: Iterable[str]) -> bool:
    """True when ``names`` (every field some row of the file fills) are a Ragas 0.1 test set's:
    ``contexts`` is there and no answer field (``answer``, ``response``, ``actual_output``) is."""
    present = frozenset(names)
    return RAGAS_CONTEXTS in present and present.isdisjoint(FIELD_ALIASES["answer"])


@functools.lru_cache(maxsize=256)
def _resolved(present: frozenset[str], ragas_testset: bool) -> tuple[tuple[str, str], ...]:
    """Cached: the rows of one file mostly share one set of field names."""
    resolved: dict[str, str] = {}
    for canonical, aliases in (RAGAS_TESTSET_ALIASES if ragas_testset else FIELD_ALIASES).items():
        actual = next((alias for alias in aliases if alias in present), None)
        if actual is not None:
            resolved[canonical] = actual
    return tuple(resolved.items())


def aliases_text(canonical: str) -> str:
    """The accepted names of a canonical field, for error messages: ``question, query, …``."""
    return ", ".join(FIELD_ALIASES[canonical])
