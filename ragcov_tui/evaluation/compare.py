"""A / B comparison of two eval reports (sessions or ``eval --json`` files).

Per metric, over the questions both runs scored (paired: the metric defined in A and in B):

- ``mean_a``, ``mean_b`` and ``delta = mean_b - mean_a``;
- a paired bootstrap confidence interval of ``delta``: resample the per-question differences
  ``d_i = b_i - a_i`` with replacement ``resamples`` times (seeded, vectorised with numpy), take
  the mean of each resample, and report the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2``
  percentiles; ``significant`` when the interval excludes 0;
- ``wins`` / ``losses`` / ``ties``: questions where B scored higher / lower / within ``tie`` of A.

``scored`` counts the questions each run scored (status ``done``) and those both did: when the two
sets differ (a question added to the test file, one that failed in a run), every delta above is
over the ``both`` only, which :func:`question_set_note` says in one line.

Optionally (given an LLM) a judge reads both answers to each shared question and
says which is better, asked twice with the answers in swapped positions to cancel position bias: a
side wins only when both orders agree, otherwise it is a tie. Replies are JSON, cached by the LLM
cache; an unparseable reply is counted as an error for that question, never as a tie.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import sqlite_utils

from ragcov_tui.evaluation.compare_contract import (
    Comparison,
    MetricComparison,
    MetricDelta,
    PairItem,
    PairVerdict,
    Pairwise,
    RunDescription,
)
from ragcov_tui.evaluation.report import read_eval_report
from ragcov_tui.llm.base import ChatModel
from ragcov_tui.llm.json_reply import ReplyError
from ragcov_tui.llm.prompt import Example, JsonPrompt
from ragcov_tui.llm.reply_schemas import BASE_TOKENS, STRING, TOKENS_PER_REASON, ReplySchema, json_object
from ragcov_tui.shared.concurrency import DEFAULT_CONCURRENCY, run_bounded
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.progress import Progress
from ragcov_tui.store.eval_contract import EvalReport, MetricStats, ReportQuestion

RESAMPLES = 10_000
BLOCK_CELLS = 2_000_000  # resamples x questions drawn per numpy block (bounds memory)


def bootstrap_ci(
    diffs: np.ndarray, *, resamples: int = RESAMPLES, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of ``mean(diffs)`` (see module docstring)."""
    n = len(diffs)
    if n == 0:
        raise ValueError("bootstrap of no values")
    rng = np.random.default_rng(seed)
    means = np.empty(resamples, dtype=np.float64)
    block = max(1, BLOCK_CELLS // n)
    for start in range(0, resamples, block):
        stop = min(resamples, start + block)
        means[start:stop] = diffs[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return float(low), float(high)


def _per_question(report: EvalReport, metric: str, group: str) -> dict[str, float]:
    return {
        q["id"]: float(v)
        for q in report.get("questions", [])
        if q.get("status", "done") == "done" and (v := (_scores(q, group) or {}).get(metric)) is not None
    }


def _scores(question: ReportQuestion, group: str) -> dict[str, float | None] | None:
    """A question's ``retrieval`` or ``generation`` values (None when the report has none)."""
    return question.get("retrieval") if group == "retrieval" else question.get("generation")


def _group_stats(report: EvalReport, group: str) -> dict[str, MetricStats]:
    """The report's aggregate of one group (``{}`` when it has none)."""
    aggregate = report.get("aggregate", {})
    return (aggregate.get("retrieval") if group == "retrieval" else aggregate.get("generation")) or {}


def compare_metric(
    a: dict[str, float],
    b: dict[str, float],
    *,
    resamples: int = RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
    tie: float = 1e-9,
) -> MetricDelta:
    """The paired statistics of one metric given ``{question id: value}`` for A and for B."""
    shared = [q for q in a if q in b]
    if not shared:
        return {
            "n": 0,
            "mean_a": None,
            "mean_b": None,
            "delta": None,
            "ci_low": None,
            "ci_high": None,
            "significant": False,
            "wins": 0,
            "losses": 0,
            "ties": 0,
        }
    va = np.array([a[q] for q in shared], dtype=np.float64)
    vb = np.array([b[q] for q in shared], dtype=np.float64)
    diffs = vb - va
    low, high = bootstrap_ci(diffs, resamples=resamples, confidence=confidence, seed=seed)
    return {
        "n": len(shared),
        "mean_a": float(va.mean()),
        "mean_b": float(vb.mean()),
        "delta": float(diffs.mean()),
        "ci_low": low,
        "ci_high": high,
        "significant": bool(low > 0 or high < 0),
        "wins": int((diffs > tie).sum()),
        "losses": int((diffs < -tie).sum()),
        "ties": int((np.abs(diffs) <= tie).sum()),
    }


def compare_reports(
    a: EvalReport,
    b: EvalReport,
    *,
    resamples: int = RESAMPLES,
    confidence: float = 0.95,
    seed: int = 0,
    pairwise: bool = True,
    llm: ChatModel | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: Progress | None = None,
) -> Comparison:
    """Compare report B against report A (deltas are B - A); see the module docstring. The pairwise
    LLM judge runs when an ``llm`` is given (and ``pairwise`` is not turned off)."""
    metrics: list[MetricComparison] = []
    for group in ("retrieval", "generation"):
        names = [m for m in _group_stats(a, group) if m in _group_stats(b, group)]
        for name in names:
            stats = compare_metric(
                _per_question(a, name, group),
                _per_question(b, name, group),
                resamples=resamples,
                confidence=confidence,
                seed=seed,
            )
            metrics.append({"metric": name, "group": group, **stats})
    ids_a = {q["id"] for q in a.get("questions", [])}
    scored_a, scored_b = _scored(a), _scored(b)
    out: Comparison = {
        "a": _describe(a),
        "b": _describe(b),
        "confidence": confidence,
        "resamples": resamples,
        "seed": seed,
        "shared_questions": sum(1 for q in b.get("questions", []) if q["id"] in ids_a),
        "scored": {"a": len(scored_a), "b": len(scored_b), "both": len(scored_a & scored_b)},
        "metrics": metrics,
        "pairwise": None,
    }
    if pairwise and llm is not None:
        out["pairwise"] = pairwise_judge(a, b, llm, concurrency=concurrency, progress=progress)
    return out


def _scored(report: EvalReport) -> set[str]:
    """Ids of the questions the run scored (finished without error)."""
    return {q["id"] for q in report.get("questions", []) if q.get("status", "done") == "done"}


def question_set_note(result: Comparison) -> str | None:
    """``the runs scored different questions: A 31, B 32, 31 both; deltas are over those 31`` when
    the sets differ (a :func:`compare_reports` result); None when both scored the same questions."""
    scored = result.get("scored")
    if not scored or scored["a"] == scored["b"] == scored["both"]:
        return None
    return (
        f"the runs scored different questions: A {scored['a']:,}, B {scored['b']:,}, {scored['both']:,} both; "
        f"every delta and interval is over those {scored['both']:,}"
    )


def _describe(report: EvalReport) -> RunDescription:
    return {
        "session_id": report.get("session_id"),
        "name": report.get("name"),
        "system": report.get("system"),
        "judge": report.get("judge"),
        "k": report.get("k"),
    }


@dataclass(frozen=True)
class AnswerOrder:
    """One question's two answers in the order the judge reads them."""

    question: str
    first: str
    second: str


@dataclass(frozen=True)
class Preference:
    better: str  # "1" | "2" | "tie"
    reason: str


class PairwisePrompt(JsonPrompt[AnswerOrder, Preference]):
    name = "pairwise"
    instruction = (
        "You compare two answers to the same question. Judge which answer is more correct, complete and "
        "helpful for the question. Ignore length and style unless they hurt clarity. Reply with JSON only: "
        '{"better": "1" | "2" | "tie", "reason": "<one sentence>"}'
    )
    examples = (Example(AnswerOrder("q", "A says", "B says"), '{"better": " TIE "}', Preference("tie", "")),)

    def user(self, data: AnswerOrder) -> str:
        return f"Question: {data.question}\n\nAnswer 1:\n{data.first}\n\nAnswer 2:\n{data.second}"

    def reply_schema(self, data: AnswerOrder) -> ReplySchema:
        return ReplySchema(
            self.name,
            json_object(better={"type": "string", "enum": ["1", "2", "tie"]}, reason=STRING),
            BASE_TOKENS + TOKENS_PER_REASON,
        )

    def read(self, data: AnswerOrder, value: Any) -> Preference:
        better = str(value.get("better", "")).strip().lower() if isinstance(value, dict) else ""
        if better not in ("1", "2", "tie"):
            raise ReplyError('expected {"better": "1" | "2" | "tie", "reason": "..."}')
        return Preference(better, str(value.get("reason", "")))


PAIRWISE = PairwisePrompt()


def _ask(llm: ChatModel, question: str, first: str, second: str) -> tuple[str | None, str, JsonObject]:
    """One ordered judgement: ('1' | '2' | 'tie' | None on failure, reason, the call's record)."""
    result = PAIRWISE.ask(llm, AnswerOrder(question, first, second))
    call = {"prompt": result.prompt, "raw": result.raw, "error": result.error}
    if not result.ok:
        return None, "", call
    preference = result.value()
    return preference.better, preference.reason, call


def judge_pair(llm: ChatModel, question: str, answer_a: str, answer_b: str) -> PairVerdict:
    """Ask with A first, then B first; the winner is ``a`` / ``b`` only when both orders agree."""
    first, reason_1, call_1 = _ask(llm, question, answer_a, answer_b)
    second, reason_2, call_2 = _ask(llm, question, answer_b, answer_a)
    calls = [call_1, call_2]
    if first is None or second is None:
        return {"winner": None, "error": call_1["error"] or call_2["error"], "calls": calls}
    votes = {"1": "a", "2": "b", "tie": "tie"}[first], {"1": "b", "2": "a", "tie": "tie"}[second]
    winner = votes[0] if votes[0] == votes[1] else "tie"
    return {"winner": winner, "votes": list(votes), "reasons": [reason_1, reason_2], "calls": calls}


def pairwise_judge(
    a: EvalReport,
    b: EvalReport,
    llm: ChatModel,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    progress: Progress | None = None,
) -> Pairwise:
    """LLM pairwise verdicts over the questions both reports answered."""
    answers_a = {q["id"]: answer for q in a.get("questions", []) if (answer := q.get("answer"))}
    pairs: Sequence[tuple[str, str, str, str]] = [  # (id, question, A's answer, B's answer)
        (q["id"], q["question"] or "", answers_a[q["id"]], answer)
        for q in b.get("questions", [])
        if (answer := q.get("answer")) and q["id"] in answers_a
    ]
    outcomes = run_bounded(
        lambda p: judge_pair(llm, p[1], p[2], p[3]),
        pairs,
        concurrency=concurrency,
        progress=progress,
        stage="pairwise judging",
    )
    items: list[PairItem] = []
    for (qid, *_), outcome in zip(pairs, outcomes, strict=True):
        verdict: PairVerdict = outcome.value or {"winner": None, "error": str(outcome.error), "calls": []}
        items.append({"id": qid, **verdict})
    winners = [i["winner"] for i in items]
    return {
        "judge": f"llm:{llm.spec}",
        "a_wins": winners.count("a"),
        "b_wins": winners.count("b"),
        "ties": winners.count("tie"),
        "errors": winners.count(None),
        "items": items,
    }


def compare(db: sqlite_utils.Database, ref_a: str, ref_b: str, **options: Any) -> Comparison:
    """:func:`compare_reports` of two sessions (id, prefix, name, ``latest-eval``) or report files;
    BadInput when both name the same session (every delta would be a meaningless 0)."""
    a, b = read_eval_report(db, ref_a), read_eval_report(db, ref_b)
    if a.get("session_id") and a.get("session_id") == b.get("session_id"):
        raise BadInput(
            f"compare: {ref_a!r} and {ref_b!r} are the same session {a['session_id']}; name two different eval sessions"
        )
    return compare_reports(a, b, **options)
