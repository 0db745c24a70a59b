"""Gates: regressions against a baseline, --fail-under parsing and checking, loading reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import pytest

from ragcov_tui.evaluation.alignment import align, bootstrap_mean
from ragcov_tui.evaluation.gates import check_gates, find_regressions, load_baseline, parse_fail_under
from ragcov_tui.evaluation.report import read_eval_report
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.store.db import open_db
from ragcov_tui.store.eval_contract import EvalReport, ReportQuestion
from tests.support.present import present


def _report(**means: float | None) -> EvalReport:
    groups: dict[str, dict[str, JsonObject]] = {"retrieval": {}, "generation": {}}
    for name, mean in means.items():
        group = "generation" if name == "faithfulness" else "retrieval"
        groups[group][name.replace("_at_", "@")] = {"mean": mean, "n": 0 if mean is None else 10, "std": 0.1}
    return cast(EvalReport, {"k": 5, "aggregate": groups, "questions": []})


def test_regressions_beyond_max_drop_are_listed() -> None:
    baseline = _report(ndcg_at_5=0.80, mrr=0.70, faithfulness=0.90, map=0.5)
    current = _report(ndcg_at_5=0.70, mrr=0.68, faithfulness=None, map=0.6)
    found = find_regressions(baseline, current, max_drop=0.05)
    assert [(r.metric, r.baseline, r.current) for r in found] == [("ndcg@5", 0.80, 0.70)]
    assert found[0].drop == pytest.approx(0.10)
    assert "0.8000 → 0.7000" in str(found[0])
    assert find_regressions(baseline, current, max_drop=0.2) == []
    with pytest.raises(BadInput, match="--max-drop"):
        find_regressions(baseline, current, max_drop=-1)


def test_fail_under_parsing() -> None:
    parsed = parse_fail_under(["ndcg=0.6", "hit@5=0.9", "faithfulness = 0.75"], 5)
    assert [(t.metric, t.minimum) for t in parsed] == [("ndcg@5", 0.6), ("hit@5", 0.9), ("faithfulness", 0.75)]
    for spec, message in [
        ("ndcg", "expected METRIC=VALUE"),
        ("=0.3", "expected METRIC=VALUE"),
        ("ndcg=high", "'high' is not a number"),
        ("bleu=0.3", "unknown metric 'bleu'"),
        ("ndcg@10=0.5", "does not match --k 5"),
        ("mrr=nan", "finite"),
    ]:
        with pytest.raises(BadInput, match=message):
            parse_fail_under([spec], 5)


def test_check_gates_combines_both_kinds() -> None:
    current = _report(ndcg_at_5=0.55, mrr=0.9, faithfulness=None)
    result = check_gates(
        current,
        baseline=_report(ndcg_at_5=0.7, mrr=0.9),
        max_drop=0.05,
        fail_under=["mrr=0.8", "ndcg=0.6", "faithfulness=0.5"],
    )
    assert result.failed
    assert [r.metric for r in result.regressions] == ["ndcg@5"]
    assert [(b.metric, b.current) for b in result.below] == [("ndcg@5", 0.55), ("faithfulness", None)]
    assert any("not measured" in line for line in result.lines())
    assert json.dumps(result.to_dict())
    assert not check_gates(current, fail_under=["mrr=0.8"]).failed


def test_load_report_from_file_or_session(tmp_path: Path) -> None:
    db = open_db(":memory:")
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(_report(mrr=0.5)))
    assert load_baseline(db, str(path))["aggregate"]["retrieval"]["mrr"]["mean"] == 0.5
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(BadInput, match="not an eval report"):
        read_eval_report(db, str(tmp_path / "bad.json"))
    with pytest.raises(BadInput, match="no such report file"):
        read_eval_report(db, str(tmp_path / "missing.json"))
    with pytest.raises(BadInput, match="no such session"):
        read_eval_report(db, "deadbeef")


def _judged_report(scores: list[float], repeats: int) -> EvalReport:
    """A report whose faithfulness items hold ``scores``, and ndcg@5 a mean of 0.7 (issue #26 §6)."""
    mean = sum(scores) / len(scores)
    report = _report(ndcg_at_5=0.7, faithfulness=mean)
    report["repeats"] = repeats
    report["questions"] = [
        cast(ReportQuestion, {"id": f"q{i}", "status": "done", "generation": {"faithfulness": s}})
        for i, s in enumerate(scores)
    ]
    return report


def test_gate_summary_says_exact_or_judged_and_a_judged_gate_uses_the_lower_bound() -> None:
    scores = [0.9, 0.5, 0.7, 1.0, 0.6, 0.8, 0.4, 0.9]  # mean 0.725
    single = check_gates(_judged_report(scores, 1), fail_under=["ndcg=0.6", "faithfulness=0.7"])
    assert not single.failed  # one run: the mean itself (0.725 ≥ 0.7), and the summary says it has no interval
    lines = single.summary()
    assert lines[0] == "gate ndcg@5 >= 0.6 (exact): mean 0.7000 — passed"
    assert lines[1].startswith("gate faithfulness >= 0.7 (judged): mean 0.7250 (no interval")
    repeated = check_gates(_judged_report(scores, 3), fail_under=["ndcg=0.6", "faithfulness=0.7"])
    low, high = bootstrap_mean(scores)
    assert low is not None and low < 0.7  # the bootstrap lower bound is below the minimum: the gate fails
    assert [(b.metric, b.current) for b in repeated.below] == [("faithfulness", low)]
    assert "95% lower bound" in repeated.summary()[1] and "3 repeats" in repeated.summary()[1]
    assert repeated.to_dict()["gates"][0]["kind"] == "exact" and repeated.to_dict()["gates"][1]["kind"] == "judged"


def test_a_judged_gate_with_alignment_uses_the_corrected_lower_bound() -> None:
    scores = [0.9] * 8 + [0.1] * 2
    report = _judged_report(scores, 1)
    alignment = align(
        {f"q{i}": {"faithfulness": s} for i, s in enumerate(scores)},
        [(f"q{i}", "faithfulness", int(s >= 0.5)) for i, s in enumerate(scores)],
    )
    corrected = present(alignment.of("faithfulness")).corrected.estimate
    result = check_gates(report, fail_under=["faithfulness=0.5"], alignment=alignment)
    assert result.checks[0].compared == corrected.low
    assert "judge-corrected" in result.summary()[0]
    chance = align(
        {"q0": {"faithfulness": 0.9}, "q1": {"faithfulness": 0.9}},
        [("q0", "faithfulness", 1), ("q1", "faithfulness", 0)],
    )
    failed = check_gates(report, fail_under=["faithfulness=0.1"], alignment=chance)
    assert failed.failed and "no better than chance" in failed.summary()[0]  # cannot be shown to pass
