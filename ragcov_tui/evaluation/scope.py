"""Out-of-scope questions: which questions the knowledge base cannot answer, and how a run did on them.

A question is out of scope when its test-file row says so (``answerable: false``; the reader's
field, :mod:`ragcov_tui.testset.fields`), or — with ``--no-gold-unanswerable`` — when the row says
nothing either way and has neither gold ids nor a reference answer. A row that says
``answerable: true`` is answerable whatever it lacks. Every other question is answerable.

:func:`scope_counts` sums a run's items for the reports: out-of-scope questions and how many the
system declined, answerable ones and how many it refused (``details.abstention`` of each item,
:mod:`ragcov_tui.evaluation.generation.abstention`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ragcov_tui.shared.number_text import count
from ragcov_tui.store.eval_contract import ScopeCounts
from ragcov_tui.testset.models import Question


def is_out_of_scope(question: Question, *, no_gold_unanswerable: bool = False) -> bool:
    """True when ``question`` cannot be answered from the knowledge base (the module docstring)."""
    if question.answerable is not None:
        return not question.answerable
    return (
        no_gold_unanswerable
        and not any(g > 0 for g in question.gold.values())
        and not (question.ground_truth or "").strip()
    )


def out_of_scope_ids(questions: Iterable[Question], *, no_gold_unanswerable: bool = False) -> frozenset[str]:
    """The ids of the out-of-scope questions among ``questions``."""
    return frozenset(q.id for q in questions if is_out_of_scope(q, no_gold_unanswerable=no_gold_unanswerable))


def scope_counts(items: Sequence[Any]) -> ScopeCounts | None:
    """``{"unanswerable", "abstained", "answerable", "refused", "by"}`` over the items whose abstention
    was decided (``by``: who decided, ``phrases`` or ``llm:<spec>``); None when no item was."""
    verdicts = [
        v
        for i in items
        if i.get("status") == "done"
        and isinstance(v := ((i.get("details") or {}).get("abstention")), dict)
        and "abstained" in v
    ]
    if not verdicts:
        return None
    out_of_scope = [v for v in verdicts if v.get("out_of_scope")]
    answerable = [v for v in verdicts if not v.get("out_of_scope")]
    return {
        "unanswerable": len(out_of_scope),
        "abstained": sum(1 for v in out_of_scope if v["abstained"]),
        "answerable": len(answerable),
        "refused": sum(1 for v in answerable if v["abstained"]),
        "by": sorted({str(v.get("by")) for v in verdicts}),
    }


def scope_line(scope: Any) -> str | None:
    """The reports' one line on abstention: ``Out of scope: 3 of 4 questions declined; answerable:
    2 of 26 refused (decided by phrases)``; None when no abstention was decided."""
    if not isinstance(scope, dict) or not scope.get("unanswerable", 0) + scope.get("answerable", 0):
        return None
    parts = []
    if scope.get("unanswerable"):
        parts.append(
            f"Out of scope: {count(scope['abstained'])} of {count(scope['unanswerable'])} "
            f"question{'s' if scope['unanswerable'] != 1 else ''} declined"
        )
    if scope.get("answerable"):
        parts.append(
            f"{'answerable' if parts else 'Answerable'}: {count(scope['refused'])} of "
            f'{count(scope["answerable"])} refused ("I don\'t know")'
        )
    by = ", ".join(str(b) for b in scope.get("by") or []) or "phrases"
    return "; ".join(parts) + f" — decided by {by}"
