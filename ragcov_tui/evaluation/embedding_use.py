"""What an eval run embedded, and why — the ``embedding`` block of the eval report.

The embedder's counters are read at three moments: before the system is prepared, after it
(the corpus index: ``builtin:dense`` / ``hybrid`` embed every chunk once, served from the cache
on a rerun), and at the end (per question: the questions for dense retrieval, the sentences of
extractive answers, and the texts offline generation metrics score — answers, retrieved
contexts, ground truths). ``texts`` are asked for, ``cached`` came from the cache, ``embedded``
ran the model.
"""

from __future__ import annotations

import dataclasses

from ragcov_tui.embeddings.base import EmbedStats
from ragcov_tui.store.eval_contract import EmbeddingUse, TextCounts

FIELDS = ("texts", "cached", "embedded")


def snapshot(stats: EmbedStats) -> dict[str, int]:
    """The counters now (a copy)."""
    return {k: v for k, v in dataclasses.asdict(stats).items() if k in FIELDS}


def delta(before: dict[str, int], after: dict[str, int]) -> TextCounts:
    """The counters of :data:`FIELDS` gone up between two snapshots."""
    return {
        "texts": after["texts"] - before["texts"],
        "cached": after["cached"] - before["cached"],
        "embedded": after["embedded"] - before["embedded"],
    }


def embedding_use(
    start: dict[str, int], prepared: dict[str, int], end: dict[str, int], *, system: str, generation_metrics: list[str]
) -> EmbeddingUse:
    """``{"corpus": counts, "per_question": counts, "why": one line}``."""
    corpus, per_question = delta(start, prepared), delta(prepared, end)
    parts = []
    if corpus["texts"]:
        parts.append(
            f"corpus: {corpus['texts']:,} chunks for the {system} index "
            f"({corpus['cached']:,} from the cache, {corpus['embedded']:,} embedded)"
        )
    else:
        parts.append(f"corpus: nothing ({system} needs no corpus vectors)")
    if per_question["texts"]:
        reasons = []
        if system in ("builtin:dense", "builtin:hybrid"):
            reasons.append("questions for dense retrieval")
        if generation_metrics:
            reasons.append("answers, contexts and ground truths for the generation metrics")
        parts.append(
            f"per question: {per_question['texts']:,} texts ({per_question['cached']:,} from the cache, "
            f"{per_question['embedded']:,} embedded: {', '.join(reasons) or 'answers'})"
        )
    else:
        parts.append("per question: nothing" + ("" if generation_metrics else " (retrieval metrics only)"))
    return {"corpus": corpus, "per_question": per_question, "why": "embedded — " + "; ".join(parts)}
