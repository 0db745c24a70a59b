"""The ``lint`` section of ``ragcov lint --json`` and of ``ragcov analyze --json``, typed.

Built by :func:`ragcov_tui.testlint.lint.lint_report`; stored with the analysis report (findings
also one row each in ``lint_findings``, so the app filters them in SQL). Checked key for key against
a real report by ``tests/core/test_json_contracts.py``.
No ``from __future__ import annotations`` here: TypedDict reads ``NotRequired`` from evaluated
annotations.
"""

from typing import Any, TypedDict


class LintFinding(TypedDict):
    """One finding: which question, what kind, why (one line), and the evidence (kind-specific:
    chunk ids, the supporting sentence, the detected language, the duplicate group…)."""

    question_id: str
    kind: str
    reason: str
    evidence: dict[str, Any]


class LintKind(TypedDict):
    """One kind's one-line summary. ``checked`` questions were tested for it; ``not_checked`` could
    not be (no reference answer, no gold ids, no baseline…): they are never counted as clean."""

    kind: str
    found: int
    checked: int
    not_checked: int
    text: str


class StaleBaseline(TypedDict):
    """The earlier session the content hashes were compared with (stale gold)."""

    session_id: str
    created_at: str | None
    changed_documents: list[str]
    missing_documents: list[str]


class LintSection(TypedDict):
    questions: int
    corpus_language: str | None  # the majority language of a sample of chunks (None: no text to tell)
    kinds: list[LintKind]
    findings: list[LintFinding]  # in question order, then kind order
    clean: int  # questions with no finding
    clean_share: float  # clean / questions
    baseline: StaleBaseline | None  # None: no earlier session of this test file with content hashes


class StaleGoldSection(TypedDict):
    """``eval --json``'s ``stale_gold``: the two stale-gold kinds of the lint, against the test
    file's last session (baseline None: there was none, nothing checked)."""

    baseline: StaleBaseline | None
    kinds: list[LintKind]
    findings: list[LintFinding]
