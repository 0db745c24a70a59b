"""The lint kinds, in report order, and the one-line summary of each."""

from __future__ import annotations

from collections.abc import Sequence

from ragcov_tui.store.lint_contract import LintFinding, LintKind

KINDS = (
    "unanswerable",
    "gold_without_answer",
    "wrong_language",
    "answer_in_question",
    "vague",
    "near_duplicate",
    "stale_gold",
    "gold_missing",
)
KIND_TEXT = {
    "unanswerable": "reference answer not supported by any chunk",
    "gold_without_answer": "gold chunks do not hold the reference answer (other chunks do)",
    "wrong_language": "question not in the corpus's language",
    "answer_in_question": "the question gives its answer away",
    "vague": "too vague to test",
    "near_duplicate": "near-duplicate of another question",
    "stale_gold": "a gold document changed since the baseline session",
    "gold_missing": "a gold document no longer exists",
}
NOT_CHECKED_WHY = {
    "unanswerable": "no reference answer",
    "gold_without_answer": "no reference answer or no gold ids",
    "wrong_language": "too little text to tell",
    "answer_in_question": "no reference answer",
    "stale_gold": "no gold ids or no baseline session",
    "gold_missing": "no gold ids or no baseline session",
}


def finding(question_id: str, kind: str, reason: str, **evidence: object) -> LintFinding:
    assert kind in KIND_TEXT, kind
    return {"question_id": question_id, "kind": kind, "reason": reason, "evidence": dict(evidence)}


def kind_summary(kind: str, findings: Sequence[LintFinding], checked: int, not_checked: int) -> LintKind:
    """``"unanswerable: 12 of 200 checked (reference answer not supported by any chunk); 8 not
    checked (no reference answer)"``."""
    found = sum(1 for f in findings if f["kind"] == kind)
    text = f"{kind}: {found} of {checked} checked ({KIND_TEXT[kind]})"
    if not_checked:
        text += f"; {not_checked} not checked ({NOT_CHECKED_WHY.get(kind, 'not applicable')})"
    return {"kind": kind, "found": found, "checked": checked, "not_checked": not_checked, "text": text}
