"""Per-question diagnosis: which stage of the RAG pipeline failed this question.

Decided in this order, from the retrieval result (relevant ranks over the *whole* retrieved list),
whether the system abstained ("I don't know": :mod:`ragcov_tui.evaluation.generation.abstention`)
and the generation scores:

- for a question the knowledge base cannot answer (``answerable`` False): ``ok`` when the system
  abstained, ``answered_unanswerable`` when it answered anyway, ``undetermined`` when no answer
  was asked for; retrieval does not enter (there is nothing to find);

- ``no_gold``            — the question has no relevant gold id, so retrieval cannot be judged
  (``refused`` when the system abstained on it);
- ``retrieval_failure``  — no relevant item anywhere in the retrieved list;
- ``ranking_failure``    — relevant items were retrieved, but none in the top ``k``;
- ``refused``            — a relevant item is in the top ``k`` (or retrieval is not measured) and
  the system abstained all the same: a failure of its own kind, not a wrong answer;
- ``generation_failure`` — a relevant item is in the top ``k`` but the answer is unfaithful
  (``faithfulness < FAITHFULNESS_MIN``) or incorrect (``answer_correctness < CORRECTNESS_MIN``);
- ``undetermined``       — retrieval is fine, faithfulness or correctness was asked for, but
  neither was scored (no answer, the judge failed);
- ``ok``                 — retrieval fine and every scored one of the two is at or above its threshold
  (a run that asks for neither, such as a retrieval-only run, is judged by its retrieval alone).

When retrieval could not be measured at all (``retrieval_measured`` False: a records file's context
texts with no corpus to find them in), the retrieval steps are skipped and the answer decides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

FAITHFULNESS_MIN = 0.5
CORRECTNESS_MIN = 0.5

DIAGNOSES = (
    "ok",
    "retrieval_failure",
    "ranking_failure",
    "refused",
    "generation_failure",
    "answered_unanswerable",
    "no_gold",
    "undetermined",
)


def diagnose(
    relevant_ranks: Sequence[int] | None,
    k: int,
    generation: Mapping[str, float | None],
    *,
    retrieval_measured: bool = True,
    abstained: bool | None = None,
    answerable: bool = True,
) -> str:
    """One of :data:`DIAGNOSES`; ``relevant_ranks`` is None when the question has no relevant gold
    id; ``generation`` holds the metrics asked for (a metric not asked for is no key);
    ``abstained`` is None when the system was not asked for an answer."""
    if not answerable:
        return "undetermined" if abstained is None else "ok" if abstained else "answered_unanswerable"
    if retrieval_measured:
        if relevant_ranks is None:
            return "refused" if abstained else "no_gold"
        if not relevant_ranks:
            return "retrieval_failure"
        if min(relevant_ranks) > k:
            return "ranking_failure"
    if abstained:
        return "refused"
    if "faithfulness" not in generation and "answer_correctness" not in generation:
        return "ok" if retrieval_measured else "undetermined"
    faithfulness = generation.get("faithfulness")
    correctness = generation.get("answer_correctness")
    if faithfulness is None and correctness is None:
        return "undetermined"
    if (faithfulness is not None and faithfulness < FAITHFULNESS_MIN) or (
        correctness is not None and correctness < CORRECTNESS_MIN
    ):
        return "generation_failure"
    return "ok"
