"""A/B comparison: bootstrap intervals, wins/losses/ties, the position-swapped pairwise judge."""

from __future__ import annotations

import json
from typing import cast

import numpy as np
import pytest

from ragcov_tui.evaluation.compare import bootstrap_ci, compare_metric, compare_reports, judge_pair
from ragcov_tui.llm.base import ChatModel, ChatReply, Message
from ragcov_tui.llm.structured import ReplySchema
from ragcov_tui.store.eval_contract import EvalReport
from tests.support.present import present


def test_bootstrap_ci_contains_true_delta_most_of_the_time() -> None:
    rng = np.random.default_rng(1)
    true_delta, covered, trials = 0.07, 0, 60
    for seed in range(trials):
        a = rng.uniform(0, 1, 80)
        b = np.clip(a + true_delta + rng.normal(0, 0.1, 80), -1, 2)
        low, high = bootstrap_ci(b - a, resamples=2000, seed=seed)
        covered += low <= true_delta <= high
    assert covered / trials >= 0.85  # nominal 95 %


def test_bootstrap_is_seeded_and_blocks_agree() -> None:
    diffs = np.random.default_rng(0).normal(0.1, 0.2, 300)
    assert bootstrap_ci(diffs, seed=3) == bootstrap_ci(diffs, seed=3)
    low, high = bootstrap_ci(diffs, resamples=10_000, seed=3)
    assert low < diffs.mean() < high and high - low < 0.1


def test_compare_metric_pairs_questions_and_counts_wins() -> None:
    a = {"q1": 0.5, "q2": 1.0, "q3": 0.0, "only_a": 1.0}
    b = {"q1": 0.5, "q2": 0.0, "q3": 1.0, "q4": 1.0}
    stats = compare_metric(a, b, resamples=500)
    assert stats["n"] == 3 and stats["delta"] == pytest.approx(0.0)
    assert (stats["wins"], stats["losses"], stats["ties"]) == (1, 1, 1)
    assert present(stats["ci_low"]) <= 0 <= present(stats["ci_high"]) and not stats["significant"]
    assert compare_metric({"x": 1.0}, {"y": 1.0})["n"] == 0


def _report(values: dict[str, float | None], answer: str) -> EvalReport:
    return cast(
        EvalReport,
        {
            "k": 5,
            "system": "s",
            "aggregate": {"retrieval": {"mrr": {"mean": 0.5}}, "generation": {}},
            "questions": [
                {
                    "id": q,
                    "status": "done",
                    "question": f"Q {q}?",
                    "answer": f"{answer} {q}",
                    "retrieval": {"mrr": v},
                    "generation": {},
                }
                for q, v in values.items()
            ],
        },
    )


def test_compare_reports_significant_improvement() -> None:
    ids = [f"q{i}" for i in range(40)]
    a = _report({q: 0.2 for q in ids}, "A")
    b = _report({q: 0.9 if i % 4 else 0.2 for i, q in enumerate(ids)}, "B")
    out = compare_reports(a, b, resamples=1000)
    [mrr] = out["metrics"]
    assert mrr["metric"] == "mrr" and mrr["significant"] and present(mrr["ci_low"]) > 0
    assert (mrr["wins"], mrr["losses"], mrr["ties"]) == (30, 0, 10)
    assert out["shared_questions"] == 40 and out["pairwise"] is None


class ScriptedJudge(ChatModel):
    """Prefers the answer containing 'B', or always answer 1 (position bias) when biased."""

    provider, model = "scripted", "judge"

    def __init__(self, biased: bool = False, broken: bool = False) -> None:
        super().__init__()
        self.biased, self.broken = biased, broken

    def chat(
        self,
        messages: list[Message],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        json_mode: bool | ReplySchema = False,
        logprobs: int = 0,
    ) -> ChatReply:
        if self.broken:
            return ChatReply("not json at all")
        user = messages[-1]["content"]
        first = user.split("Answer 1:")[1].split("Answer 2:")[0]
        better = "1" if self.biased or "B" in first else "2"
        return ChatReply(json.dumps({"better": better, "reason": "r"}))


def test_pairwise_judge_swaps_positions() -> None:
    assert judge_pair(ScriptedJudge(), "q", "A says", "B says")["winner"] == "b"
    biased = judge_pair(ScriptedJudge(biased=True), "q", "A says", "B says")
    assert biased["winner"] == "tie" and biased["votes"] == ["a", "b"]
    broken = judge_pair(ScriptedJudge(broken=True), "q", "A", "B")
    assert broken["winner"] is None and broken["error"]


def test_compare_reports_with_pairwise_judge() -> None:
    a, b = _report({"q1": 0.1, "q2": 0.5}, "A"), _report({"q1": 0.2, "q2": 0.5}, "B")
    out = compare_reports(a, b, resamples=100, llm=ScriptedJudge())
    pairwise = present(out["pairwise"])
    assert pairwise["b_wins"] == 2 and pairwise["errors"] == 0
    assert pairwise["judge"] == "llm:scripted:judge"


@pytest.mark.parametrize(
    "ids_a, ids_b, failed_b, scored, note",
    [
        (40, 40, [], {"a": 40, "b": 40, "both": 40}, None),
        (31, 32, [], {"a": 31, "b": 32, "both": 31}, "A 31, B 32, 31 both; every delta and interval is over those 31"),
        (32, 32, ["q3"], {"a": 32, "b": 31, "both": 31}, "A 32, B 31, 31 both"),
        (32, 32, ["q3", "q4"], {"a": 32, "b": 30, "both": 30}, "over those 30"),
    ],
)
def test_compare_says_when_the_runs_scored_different_questions(
    ids_a: int, ids_b: int, failed_b: list[str], scored: dict, note: str | None
) -> None:
    from ragcov_tui.evaluation.compare import question_set_note

    a = _report({f"q{i}": 0.5 for i in range(ids_a)}, "A")
    b = _report({f"q{i}": 0.7 for i in range(ids_b)}, "B")
    for q in b["questions"]:
        if q["id"] in failed_b:
            q["status"] = "error"
            q["retrieval"] = None  # type: ignore[typeddict-item]  # deliberately: a failed question stored no scores
    out = compare_reports(a, b, resamples=200)
    assert out["scored"] == scored and out["metrics"][0]["n"] == scored["both"]
    said = question_set_note(out)
    if note is None:
        assert said is None
    else:
        assert said is not None and note in said and said.startswith("the runs scored different questions")
