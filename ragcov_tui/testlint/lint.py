"""One lint section from the vectors a run already has (``ragcov lint``, ``ragcov analyze``).

Each kind is checked on the questions it applies to; the others are counted ``not_checked``
(never clean): unanswerable / answer in the question need a reference answer, gold without the
answer needs gold ids too, wrong language enough letters, stale gold gold ids and a baseline.
``clean`` counts questions with no finding of any kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.evaluation.generation.support import TextEmbedder
from ragcov_tui.shared.progress import Progress
from ragcov_tui.store.lint_contract import LintFinding, LintKind, LintSection, StaleBaseline, StaleGoldSection
from ragcov_tui.testlint import language
from ragcov_tui.testlint.answerable import AnswerCheck, check_answers
from ragcov_tui.testlint.duplicates import closest_distance, duplicate_groups
from ragcov_tui.testlint.findings import KINDS, finding, kind_summary
from ragcov_tui.testlint.stale import StaleGold
from ragcov_tui.testlint.wording import answer_in_question, vagueness
from ragcov_tui.testset.models import Question

SHOWN_IDS = 5


@dataclass
class LintInputs:
    """What one lint needs: the questions and chunks with their unit vectors, each question's gold
    chunk rows (``coverage.gold.gold_chunk_sets``), the near-duplicate pairs (question ids and
    cosine distance, ``coverage.redundancy``), and the stale-gold comparison when a baseline exists."""

    questions: Sequence[Question]
    question_vecs: np.ndarray
    chunks: Sequence[Chunk]
    chunk_vecs: np.ndarray
    gold_rows: Sequence[np.ndarray]
    duplicate_pairs: Sequence[tuple[str, str, float]]
    stale: StaleGold | None = None
    baseline: StaleBaseline | None = None


def lint_report(inputs: LintInputs, embedder: TextEmbedder, progress: Progress | None = None) -> LintSection:
    """The ``lint`` section (module doc)."""
    questions = inputs.questions
    n = len(questions)
    with_answer = [j for j, q in enumerate(questions) if (q.ground_truth or "").strip()]
    checks = [
        AnswerCheck(
            questions[j].id,
            questions[j].text,
            (questions[j].ground_truth or "").strip(),
            inputs.question_vecs[j],
            inputs.gold_rows[j],
        )
        for j in with_answer
    ]
    findings = check_answers(checks, inputs.chunks, inputs.chunk_vecs, embedder, progress)
    gold_checked = sum(1 for j in with_answer if len(inputs.gold_rows[j]))
    corpus_lang = language.corpus_language([c.text for c in inputs.chunks])
    lang_checked = 0
    for q in questions:
        if corpus_lang is not None and language.checkable(q.text):
            lang_checked += 1
            wrong = language.wrong_language(q.text, corpus_lang)
            if wrong is not None:
                findings.append(
                    finding(
                        q.id,
                        "wrong_language",
                        f"written in {wrong[0]!r} ({wrong[1]:.0%}), the corpus in {corpus_lang!r}",
                        language=wrong[0],
                        probability=round(wrong[1], 4),
                        corpus_language=corpus_lang,
                    )
                )
        reference = (q.ground_truth or "").strip()
        given = answer_in_question(q.text, reference) if reference else None
        if given:
            findings.append(
                finding(
                    q.id,
                    "answer_in_question",
                    f"the question holds every word of its answer ({', '.join(given[:4])})",
                    answer=reference,
                )
            )
        why = vagueness(q.text, english=corpus_lang in (None, "en"))
        if why:
            findings.append(finding(q.id, "vague", f"too vague to test: {why}"))
    findings += _duplicates(questions, inputs.duplicate_pairs)
    stale = inputs.stale
    if stale is not None:
        findings += stale.findings
    order = {q.id: j for j, q in enumerate(questions)}
    findings.sort(key=lambda f: (order.get(f["question_id"], n), KINDS.index(f["kind"])))
    checked = {
        "unanswerable": len(with_answer),
        "gold_without_answer": gold_checked,
        "wrong_language": lang_checked,
        "answer_in_question": len(with_answer),
        "vague": n,
        "near_duplicate": n,
        "stale_gold": stale.checked if stale else 0,
        "gold_missing": stale.checked if stale else 0,
    }
    kinds = [kind_summary(k, findings, checked[k], n - checked[k]) for k in KINDS]
    _stale_texts(kinds, findings, stale, inputs.baseline)
    flagged = {f["question_id"] for f in findings}
    clean = n - len(flagged)
    return {
        "questions": n,
        "corpus_language": corpus_lang,
        "kinds": kinds,
        "findings": findings,
        "clean": clean,
        "clean_share": clean / n if n else 0.0,
        "baseline": inputs.baseline,
    }


def stale_section(n_questions: int, stale: StaleGold | None, baseline: StaleBaseline | None) -> StaleGoldSection:
    """Only the stale-gold kinds (``eval``): their summaries and findings."""
    findings = stale.findings if stale else []
    checked = stale.checked if stale else 0
    kinds = [kind_summary(k, findings, checked, n_questions - checked) for k in ("stale_gold", "gold_missing")]
    _stale_texts(kinds, findings, stale, baseline)
    return {"baseline": baseline, "kinds": kinds, "findings": findings}


def _duplicates(questions: Sequence[Question], pairs: Sequence[tuple[str, str, float]]) -> list[LintFinding]:
    """Every member but the first of each near-duplicate group (``duplicates``)."""
    row = {q.id: j for j, q in enumerate(questions)}
    rows = [(row[a], row[b], d) for a, b, d in pairs if a in row and b in row]
    nearest = closest_distance(rows)
    out = []
    for group in duplicate_groups(rows, len(questions)):
        ids = [questions[j].id for j in group]
        for j in group[1:]:
            out.append(
                finding(
                    questions[j].id,
                    "near_duplicate",
                    f"near-duplicate of {ids[0]} (group of {len(ids)}, cosine distance {nearest[j]:.3f})",
                    group=ids,
                    distance=round(nearest[j], 6),
                )
            )
    return out


def _stale_texts(
    kinds: list[LintKind], findings: list[LintFinding], stale: StaleGold | None, baseline: StaleBaseline | None
) -> None:
    """The stale-gold lines name the baseline: "7 gold documents changed since session 3f2a
    (2026-11-20): q003, q017, … may have stale reference answers"; without one they say so."""
    if stale is None or baseline is None:
        for entry in kinds:
            if entry["kind"] in ("stale_gold", "gold_missing"):
                entry["text"] = f"{entry['kind']}: not checked (no earlier session of this test file to compare with)"
        return
    since = f"session {baseline['session_id']}" + (
        f" ({baseline['created_at'][:10]})" if baseline["created_at"] else ""
    )
    for entry in kinds:
        ids = [f["question_id"] for f in findings if f["kind"] == entry["kind"]]
        shown = ", ".join(ids[:SHOWN_IDS]) + (", …" if len(ids) > SHOWN_IDS else "")
        if entry["kind"] == "stale_gold":
            entry["text"] = f"stale_gold: {_n(len(stale.changed), 'gold document')} changed since {since}" + (
                f": {shown} may have stale reference answers" if ids else ""
            )
        elif entry["kind"] == "gold_missing":
            verb = "exists" if len(stale.missing) == 1 else "exist"
            entry["text"] = f"gold_missing: {_n(len(stale.missing), 'gold document')} no longer {verb}" + (
                f" (since {since}): {shown}" if ids else ""
            )


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' if count != 1 else ''}"


def findings_by_kind(section: LintSection) -> dict[str, list[LintFinding]]:
    out: dict[str, list[LintFinding]] = {k: [] for k in KINDS}
    for f in section["findings"]:
        out.setdefault(f["kind"], []).append(f)
    return out
