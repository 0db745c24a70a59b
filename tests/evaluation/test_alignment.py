"""Judge alignment against labels (issue #26 §4): every figure checked against a hand computation."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from ragcov_tui.evaluation.alignment import (
    align,
    align_metric,
    bootstrap_mean,
    kappa,
    labels_to_decide,
    roc_auc,
    rogan_gladen,
    wilson,
)
from tests.support.present import present

# 10 labelled items: 6 yes, 4 no. Judge scores: yes → 0.9 0.8 0.7 0.6 0.3 0.2; no → 0.55 0.4 0.1 0.0.
# At the cut 0.5: tp = 4 (0.9 0.8 0.7 0.6), fn = 2, fp = 1 (0.55), tn = 3.
YES = [0.9, 0.8, 0.7, 0.6, 0.3, 0.2]
NO = [0.55, 0.4, 0.1, 0.0]
PAIRS = [(s, 1) for s in YES] + [(s, 0) for s in NO]


def test_rogan_gladen_by_hand() -> None:
    # p = (q + TNR - 1) / (TPR + TNR - 1) = (0.6 + 0.8 - 1) / (0.9 + 0.8 - 1) = 0.4 / 0.7
    assert rogan_gladen(0.6, 0.9, 0.8) == pytest.approx(0.4 / 0.7)
    assert rogan_gladen(0.05, 0.9, 0.8) == 0.0  # (0.05 - 0.2) / 0.7 < 0: clipped
    assert rogan_gladen(0.99, 0.8, 0.95) == 1.0  # (0.94) / 0.75 > 1: clipped
    assert rogan_gladen(0.5, 0.5, 0.5) is None  # TPR + TNR = 1: no information, undefined (never NaN)
    assert rogan_gladen(0.5, 0.3, 0.4) is None


def test_wilson_and_kappa_and_auc_by_hand() -> None:
    low, high = present(wilson(8, 10))  # the textbook example: 0.8 of 10 → [0.490, 0.943]
    assert (round(low, 3), round(high, 3)) == (0.490, 0.943)
    # kappa: po = 7/10; pe = (5*6 + 5*4) / 100 = 0.5 → (0.7 - 0.5) / 0.5 = 0.4
    assert kappa(4, 2, 1, 3) == pytest.approx(0.4)
    assert kappa(5, 0, 0, 0) is None  # one class on both sides: chance agreement 1
    # AUC: of the 24 (yes, no) pairs the yes scores higher in 4*4 + 1 (0.3 > 0.1, 0.0: 2) + (0.2: 2) = 20
    # pairs (0.9 .. 0.6 beat all four; 0.3 and 0.2 beat 0.1 and 0.0) → 20 / 24
    scores = np.array(YES + NO)
    labels = np.array([1] * 6 + [0] * 4)
    assert roc_auc(scores, labels) == pytest.approx(20 / 24)
    assert roc_auc(np.array([0.5, 0.5]), np.array([1, 0])) == pytest.approx(0.5)  # a tie counts 1/2
    assert roc_auc(np.array([0.5]), np.array([1])) is None


def test_align_metric_figures() -> None:
    # all scored items: the 10 labelled plus 10 more, 5 of them ≥ 0.5 → q = (5 + 5) / 20
    every = YES + NO + [0.9] * 5 + [0.1] * 5
    m = align_metric("faithfulness", PAIRS, every)
    assert m.confusion == {"tp": 4, "fn": 2, "fp": 1, "tn": 3}
    assert (m.n, m.positives, m.negatives) == (10, 6, 4)
    assert m.tpr.value == pytest.approx(4 / 6) and m.tnr.value == pytest.approx(3 / 4)
    assert (m.tpr.low, m.tpr.high) == pytest.approx(wilson(4, 6))
    assert m.balanced_accuracy.value == pytest.approx((4 / 6 + 3 / 4) / 2)
    assert m.kappa.value == pytest.approx(0.4)
    assert m.auc.value == pytest.approx(20 / 24)
    for e in (m.balanced_accuracy, m.kappa, m.auc):
        assert e.low is not None and e.high is not None and e.value is not None and e.low <= e.value <= e.high
    # best cut: s ≥ 0.6 → TPR 4/6, TNR 4/4 → 0.8333 (no other cut does better; the lowest such t)
    assert m.best_threshold == pytest.approx(0.6) and m.best_balanced_accuracy == pytest.approx((4 / 6 + 1) / 2)
    # corrected: q = 0.5; p = (0.5 + 0.75 - 1) / (4/6 + 0.75 - 1) = 0.25 / 0.41667 = 0.6
    assert m.corrected.pass_share == pytest.approx(0.5)
    assert m.corrected.estimate.value == pytest.approx(0.25 / (4 / 6 + 0.75 - 1))
    assert m.corrected.judged_mean == pytest.approx(sum(every) / len(every))
    estimate = m.corrected.estimate
    assert present(estimate.low) <= present(estimate.value) <= present(estimate.high)
    # calibration: bins of 0.2; [0.8, 1.0] holds 0.9 0.8 (both yes)
    top = m.calibration[-1]
    assert (top.n, top.yes_share) == (2, 1.0)
    assert not m.certified and "not certified" in m.verdict
    assert json.dumps(m.to_dict())  # no NaN anywhere: json.dumps would write it, so check each number
    assert all(math.isfinite(v) for v in _numbers(m.to_dict()))


def _numbers(node: object) -> list[float]:
    if isinstance(node, dict):
        return [x for v in node.values() for x in _numbers(v)]
    if isinstance(node, list):
        return [x for v in node for x in _numbers(v)]
    return [float(node)] if isinstance(node, (int, float)) and not isinstance(node, bool) else []


def test_seeded_so_the_same_labels_give_the_same_intervals() -> None:
    a = align_metric("faithfulness", PAIRS, YES + NO).to_dict()
    b = align_metric("faithfulness", PAIRS, YES + NO).to_dict()
    assert a == b


def test_certified_when_both_lower_bounds_clear_the_bar() -> None:
    pairs = [(0.9, 1)] * 40 + [(0.1, 0)] * 40  # no error: Wilson lower bound of 40/40 = 40 / (40 + z²) = 0.912
    m = align_metric("answer_correctness", pairs, [p[0] for p in pairs])
    assert m.certified and m.verdict.startswith("certified")
    assert m.tpr.low == pytest.approx(40 / (40 + 1.959963984540054**2))
    assert not align_metric("answer_correctness", pairs, [p[0] for p in pairs], certify_at=0.95).certified


def test_a_few_perfect_labels_do_not_certify_and_say_how_many_more() -> None:
    pairs = [(0.9, 1)] * 3 + [(0.1, 0)] * 3
    m = align_metric("faithfulness", pairs, [0.9, 0.1])
    assert not m.certified
    # r = 1 stays: Wilson lower bound m / (m + z²) ≥ 0.8 ⇔ m ≥ 4 z² = 15.37 → 16 labels, 13 more of each class
    assert m.more_labels == {"yes": 13, "no": 13}
    assert "about 13 more labels of class 'yes' would decide it" in m.verdict


def test_labels_to_decide_by_hand() -> None:
    assert labels_to_decide(0, 0, 0.8) == 16  # no label yet: the best case needs 16
    assert labels_to_decide(40, 40, 0.8) == 0  # decided already
    assert labels_to_decide(8, 10, 0.8) is None  # sits on the bar: no number of labels decides it
    # r = 0.6 < 0.8: decided (not certifiable) once the upper bound < 0.8; Wilson upper at 0.6 with
    # m labels: (0.6 + z²/2m + z·sqrt(0.24/m + z²/4m²)) / (1 + z²/m) is 0.8018 at m = 15, 0.7971 at
    # m = 16 → 16 - 5 = 11 more
    assert labels_to_decide(3, 5, 0.8) == 11
    assert present(wilson(0.6 * 16, 16))[1] == pytest.approx(0.7971, abs=1e-4)
    assert present(wilson(0.6 * 15, 15))[1] == pytest.approx(0.8018, abs=1e-4)


def test_decided_below_the_bar_says_so() -> None:
    pairs = [(0.9, 1)] * 30 + [(0.9, 0)] * 20 + [(0.1, 0)] * 10  # TNR 10/30: upper bound 0.52 < 0.8
    m = align_metric("faithfulness", pairs, [p[0] for p in pairs])
    assert "true-negative rate 0.333" in m.verdict and "is below 0.8" in m.verdict and not m.more_labels


def test_chance_judge_has_no_correction_and_says_why() -> None:
    pairs = [(0.9, 1)] * 5 + [(0.9, 0)] * 5  # TPR 1, TNR 0: TPR + TNR = 1
    m = align_metric("faithfulness", pairs, [0.9] * 10)
    assert m.corrected.estimate.value is None
    assert "no better than chance" in (m.corrected.estimate.why or "")
    assert "corrected n/a" in m.corrected.text()


def test_one_class_only_leaves_the_other_rate_undefined() -> None:
    m = align_metric("faithfulness", [(0.9, 1), (0.8, 1)], [0.9, 0.8])
    assert m.tnr.value is None and "no 'no' labels" in (m.tnr.why or "")
    assert m.auc.value is None and m.corrected.estimate.value is None
    assert m.more_labels["no"] == 16


def test_align_groups_by_metric_and_counts_labels_without_a_score() -> None:
    scores: dict[str, dict[str, float | None]] = {
        "q1": {"faithfulness": 0.9, "answer_correctness": 1.0},
        "q2": {"faithfulness": 0.2, "answer_correctness": None},
    }
    out = align(
        scores,
        [
            ("q1", "faithfulness", 1),
            ("q2", "faithfulness", 0),
            ("q2", "answer_correctness", 1),
            ("q9", "faithfulness", 1),
        ],
    )
    assert [m.metric for m in out.metrics] == ["faithfulness"]
    assert out.unmatched == 2 and out.labels == 4
    assert present(out.of("faithfulness")).confusion == {"tp": 1, "fn": 0, "fp": 0, "tn": 1}


def test_bootstrap_mean_is_seeded_and_brackets_the_mean() -> None:
    values = [0.1, 0.5, 0.9, 0.7, 0.3]
    low, high = bootstrap_mean(values)
    assert low is not None and high is not None and low < 0.5 < high
    assert bootstrap_mean(values) == (low, high)
    assert bootstrap_mean([0.4]) == (None, None)
