"""Plain-text notes under an eval summary: how many gold ids matched the corpus, how gold ids were
found from reference contexts, how a records file's rows were joined, and what was embedded and
why (from the report's ``gold_ids``, ``gold_from_contexts``, ``records_join`` and ``embedding``
blocks; older reports without them give no line)."""

from __future__ import annotations

from ragcov_tui.evaluation.gold_contexts import context_gold_line
from ragcov_tui.evaluation.systems.records_join import join_line
from ragcov_tui.shared.number_text import count
from ragcov_tui.store.eval_contract import EvalReport


def run_notes(report: EvalReport) -> list[str]:
    """``gold ids: 300 of 300 matched the corpus …`` and ``embedded — corpus: …`` lines."""
    lines = []
    gold = report.get("gold_ids", "absent")
    if gold is None:
        lines.append("gold ids: not checked against a corpus (no --corpus)")
    elif isinstance(gold, dict) and (gold.get("ids") or not report.get("gold_from_contexts")):
        normalised = sum((gold.get("normalised") or {}).values())
        # counts distinct ids (a document named by 40 questions counts once), not questions
        lines.append(
            f"gold ids: {count(gold.get('matched'))} of {count(gold.get('ids'))} distinct ids matched the corpus"
            + (f" ({count(normalised)} after normalisation)" if normalised else "")
            + (f", {count(gold.get('unmatched'))} unmatched" if gold.get("unmatched") else "")
        )
    if isinstance(contexts := report.get("gold_from_contexts"), dict):
        lines.append(context_gold_line(contexts))
    if isinstance(records := report.get("records_join"), dict):
        lines.append(join_line(records))
    embedding = report.get("embedding")
    if isinstance(embedding, dict) and embedding.get("why"):
        lines.append(str(embedding["why"]))
    return lines
