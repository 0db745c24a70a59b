"""How far a judge agrees with the user's own labels, and the judged figures corrected for its errors.

Per judged metric, over the done items that hold both a judge score ``s`` in [0, 1] and a person's
label ``y`` (1 yes, 0 no; :mod:`ragcov_tui.store.labels`), with the judge's verdict ``v = s ≥ t``
at the product's threshold ``t`` = :data:`VERDICT_THRESHOLD`:

- confusion matrix ``tp = #(v=1, y=1)``, ``fn = #(v=0, y=1)``, ``fp = #(v=1, y=0)``, ``tn = #(v=0, y=0)``;
- true-positive rate ``TPR = tp / (tp + fn)``, true-negative rate ``TNR = tn / (tn + fp)``, each with
  its 95% **Wilson score** interval (a bootstrap interval of a rate with no error collapses to
  [1, 1] and would certify a judge on three labels; Wilson's does not);
- balanced accuracy ``(TPR + TNR) / 2``; Cohen's kappa ``(p_o − p_e) / (1 − p_e)`` with
  ``p_o = (tp + tn) / n``, ``p_e = ((tp + fp)(tp + fn) + (fn + tn)(fp + tn)) / n²``; ROC-AUC of the
  score against the label (Mann–Whitney, ties count ½) — each with a seeded percentile bootstrap 95%
  interval (:data:`BOOTSTRAP_DRAWS` resamples of the labelled items, seed :data:`SEED`);
- a calibration table: per score bin, the items and the share people labelled yes;
- the threshold that maximises balanced accuracy (``s ≥ t'`` over the distinct scores);
- **certified** when both rates' lower bounds reach the bar (default :data:`CERTIFY_AT`), see
  :func:`labels_to_decide`;
- the **judge-corrected estimate** (Rogan–Gladen): with ``q`` the share of *all* scored items the
  judge passes, ``p = (q + TNR − 1) / (TPR + TNR − 1)`` clipped to [0, 1] — the share of items
  people would pass. Undefined (None, with the reason) when ``TPR + TNR ≤ 1`` (a judge no better
  than chance carries no information) or a class has no label. Its 95% interval is a percentile
  bootstrap that resamples the labelled items (→ TPR, TNR) and all scored items (→ q) together;
  draws where ``TPR + TNR ≤ 1`` are left out and counted. For a pass / fail metric the judged mean
  *is* ``q``; for a graded one (faithfulness) ``q`` is its pass share at ``t``, shown beside the mean.

Nothing here draws, prints or reads the database: :func:`align` takes plain scores and labels.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ragcov_tui.shared.intervals import wilson
from ragcov_tui.shared.json_types import JsonObject

VERDICT_THRESHOLD = 0.5  # a judge score ≥ this is a pass; an imported score label ≥ this is a yes
CERTIFY_AT = 0.8  # both rates' 95% lower bounds must reach this
BOOTSTRAP_DRAWS = 2000
SEED = 0
CALIBRATION_BINS = 5
MAX_LABELS = 10_000_000  # labels_to_decide searches no further


@dataclass(frozen=True)
class Estimate:
    """A figure with its 95% interval; ``value`` None: undefined, ``why`` says so."""

    value: float | None
    low: float | None = None
    high: float | None = None
    why: str | None = None

    def to_dict(self) -> JsonObject:
        out: JsonObject = {"value": self.value, "low": self.low, "high": self.high}
        if self.why:
            out["why"] = self.why
        return out


@dataclass(frozen=True)
class CalibrationBin:
    low: float
    high: float
    n: int
    yes_share: float | None  # share of the bin's items people labelled yes; None when empty
    mean_score: float | None


@dataclass(frozen=True)
class Corrected:
    """A judged mean next to its judge-corrected estimate (Rogan–Gladen, see the module doc)."""

    metric: str
    judged_mean: float | None
    pass_share: float | None  # q: share of scored items with score ≥ the threshold
    n_items: int
    estimate: Estimate
    undefined_draws: int = 0

    def to_dict(self) -> JsonObject:
        return {
            "judged_mean": self.judged_mean,
            "pass_share": self.pass_share,
            "n_items": self.n_items,
            "corrected": self.estimate.to_dict(),
            "undefined_draws": self.undefined_draws,
            "method": "Rogan-Gladen; 95% percentile bootstrap over labels and items",
        }

    def text(self) -> str:
        """``judged mean 0.840 (pass share 0.800) → corrected 0.714 [0.61, 0.83]`` or why undefined."""
        mean = "n/a" if self.judged_mean is None else f"{self.judged_mean:.3f}"
        q = "" if self.pass_share is None else f" (pass share {self.pass_share:.3f})"
        return f"judged mean {mean}{q} → corrected {estimate_text(self.estimate)}"


@dataclass(frozen=True)
class MetricAlignment:
    metric: str
    n: int
    positives: int
    negatives: int
    threshold: float
    confusion: dict[str, int]  # tp fn fp tn
    tpr: Estimate
    tnr: Estimate
    balanced_accuracy: Estimate
    kappa: Estimate
    auc: Estimate
    calibration: list[CalibrationBin]
    best_threshold: float | None
    best_balanced_accuracy: float | None
    certify_at: float
    certified: bool
    verdict: str
    corrected: Corrected
    more_labels: dict[str, int] = field(default_factory=dict)  # class ("yes" | "no") → about N more to decide

    def to_dict(self) -> JsonObject:
        return {
            "metric": self.metric,
            "n": self.n,
            "positives": self.positives,
            "negatives": self.negatives,
            "threshold": self.threshold,
            "confusion": dict(self.confusion),
            "tpr": self.tpr.to_dict(),
            "tnr": self.tnr.to_dict(),
            "balanced_accuracy": self.balanced_accuracy.to_dict(),
            "kappa": self.kappa.to_dict(),
            "roc_auc": self.auc.to_dict(),
            "calibration": [
                {"low": b.low, "high": b.high, "n": b.n, "yes_share": b.yes_share, "mean_score": b.mean_score}
                for b in self.calibration
            ],
            "best_threshold": self.best_threshold,
            "best_balanced_accuracy": self.best_balanced_accuracy,
            "certify_at": self.certify_at,
            "certified": self.certified,
            "verdict": self.verdict,
            "more_labels": dict(self.more_labels),
            "corrected": self.corrected.to_dict(),
        }


def estimate_text(e: Estimate, digits: int = 3) -> str:
    """``0.714 [0.610, 0.830]``; ``n/a (why)`` when undefined."""
    if e.value is None:
        return f"n/a ({e.why})" if e.why else "n/a"
    interval = "" if e.low is None or e.high is None else f" [{e.low:.{digits}f}, {e.high:.{digits}f}]"
    return f"{e.value:.{digits}f}{interval}"


# ------------------------------------------------------------------ the formulas


def rate(successes: int, n: int, cls: str) -> Estimate:
    """``successes / n`` with its Wilson interval; undefined without a label of class ``cls``."""
    if n == 0:
        return Estimate(None, why=f"no '{cls}' labels")
    low, high = wilson(successes, n) or (0.0, 1.0)  # n > 0 here: always an interval
    return Estimate(successes / n, low, high)


def rogan_gladen(q: float, tpr: float, tnr: float) -> float | None:
    """``(q + TNR − 1) / (TPR + TNR − 1)`` clipped to [0, 1]; None when ``TPR + TNR ≤ 1``."""
    youden = tpr + tnr - 1
    if youden <= 1e-12:
        return None
    return min(1.0, max(0.0, (q + tnr - 1) / youden))


def kappa(tp: float, fn: float, fp: float, tn: float) -> float | None:
    """Cohen's kappa of verdict against label; None when chance agreement is 1 (one class only on both sides)."""
    n = tp + fn + fp + tn
    if n == 0:
        return None
    po = (tp + tn) / n
    pe = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / (n * n)
    return None if pe >= 1 - 1e-12 else (po - pe) / (1 - pe)


def roc_auc(scores: np.ndarray, labels: np.ndarray) -> float | None:
    """P(score of a yes > score of a no) + ½ P(tie) (Mann–Whitney); None without both classes."""
    pos, neg = scores[labels == 1], scores[labels == 0]
    if not len(pos) or not len(neg):
        return None
    order = np.argsort(np.concatenate([pos, neg]), kind="mergesort")
    values = np.concatenate([pos, neg])[order]
    ranks = np.empty(len(values))
    ranks[order] = _average_ranks(values)
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def _average_ranks(sorted_values: np.ndarray) -> np.ndarray:
    """1-based ranks of sorted values, ties given their average rank."""
    n = len(sorted_values)
    ranks = np.arange(1, n + 1, dtype=float)
    starts = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
    ends = np.r_[starts[1:], n]
    for s, e in zip(starts, ends, strict=True):
        if e - s > 1:
            ranks[s:e] = (s + 1 + e) / 2
    return ranks


def labels_to_decide(successes: int, n: int, bar: float) -> int | None:
    """About how many more labels of a class would decide whether its rate clears ``bar``.

    Assume the rate stays at its measured value ``r = successes / n`` (1 when ``n`` is 0: the best
    case). The Wilson 95% interval narrows as labels are added; the answer is ``m − n`` for the
    smallest ``m`` at which it would lie wholly on one side of ``bar`` — its lower bound ≥ ``bar``
    when ``r > bar`` (certified), its upper bound < ``bar`` when ``r < bar`` (not certifiable).
    0 when it is decided already; None when ``r`` equals ``bar`` (no number of labels decides it)
    or more than :data:`MAX_LABELS` would be needed. Found by bisection (the bound moves
    monotonically towards ``r`` as ``m`` grows).
    """
    r = successes / n if n else 1.0
    if abs(r - bar) < 1e-12:
        return None

    def decided(m: int) -> bool:
        low, high = wilson(r * m, m) or (0.0, 1.0)  # no label yet: no information
        return low >= bar if r > bar else high < bar

    if decided(n):
        return 0
    if not decided(MAX_LABELS):
        return None
    lo, hi = max(n, 1), MAX_LABELS
    while lo < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if decided(mid) else (mid + 1, hi)
    return lo - n


def bootstrap_mean(
    values: Sequence[float], *, draws: int = BOOTSTRAP_DRAWS, seed: int = SEED
) -> tuple[float | None, float | None]:
    """A seeded percentile bootstrap 95% interval of the mean of ``values`` (None, None with fewer than 2)."""
    x = np.asarray(values, dtype=float)
    if len(x) < 2:
        return None, None
    idx = np.random.default_rng(seed).integers(0, len(x), size=(draws, len(x)))
    return _percentile(x[idx].mean(1))


# ------------------------------------------------------------------ one metric


def _percentile(values: np.ndarray) -> tuple[float | None, float | None]:
    finite = values[np.isfinite(values)]
    if len(finite) < 2:
        return None, None
    low, high = np.percentile(finite, [2.5, 97.5])
    return float(low), float(high)


def _bootstrap(
    scores: np.ndarray, labels: np.ndarray, threshold: float, rng: np.random.Generator, draws: int
) -> dict[str, np.ndarray]:
    """Balanced accuracy, kappa and AUC over ``draws`` resamples of the labelled pairs, all draws at
    once (NaN where a draw leaves the figure undefined)."""
    n = len(scores)
    idx = rng.integers(0, n, size=(draws, n))
    s, y = scores[idx], labels[idx] == 1
    v = s >= threshold
    tp, fn = (v & y).sum(1).astype(float), (~v & y).sum(1).astype(float)
    fp, tn = (v & ~y).sum(1).astype(float), (~v & ~y).sum(1).astype(float)
    pos, neg = tp + fn, fp + tn
    with np.errstate(divide="ignore", invalid="ignore"):
        ba = (tp / pos + tn / neg) / 2
        po = (tp + tn) / n
        pe = ((tp + fp) * pos + (fn + tn) * neg) / (n * n)
        k = np.where(pe < 1 - 1e-12, (po - pe) / (1 - pe), np.nan)
    return {"ba": ba, "kappa": k, "auc": _bootstrap_auc(scores, labels, idx)}


def _bootstrap_auc(scores: np.ndarray, labels: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """ROC-AUC of each resample ``idx`` (draws × n indices) without sorting each one: a resample is
    the original items with multiplicities, so with the items grouped by equal score in ascending
    order, AUC = Σ_g yes_g · (no below g + ½ no_g) / (yes · no), per draw (NaN without both classes)."""
    draws, n = idx.shape
    counts = np.bincount((idx + n * np.arange(draws)[:, None]).ravel(), minlength=draws * n).reshape(draws, n)
    order = np.argsort(scores, kind="mergesort")
    ordered = scores[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    c, yes = counts[:, order].astype(float), labels[order] == 1
    yes_g, no_g = np.add.reduceat(c * yes, starts, axis=1), np.add.reduceat(c * ~yes, starts, axis=1)
    below = np.cumsum(no_g, axis=1) - no_g
    p, q = yes_g.sum(1), no_g.sum(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((p > 0) & (q > 0), (yes_g * (below + no_g / 2)).sum(1) / (p * q), np.nan)


def _calibration(scores: np.ndarray, labels: np.ndarray, bins: int = CALIBRATION_BINS) -> list[CalibrationBin]:
    """Score bins ``[i/bins, (i+1)/bins)`` (the last closed): items, share labelled yes, mean score."""
    out = []
    which = np.minimum((scores * bins).astype(int), bins - 1)
    for i in range(bins):
        mask = which == i
        n = int(mask.sum())
        out.append(
            CalibrationBin(
                i / bins,
                (i + 1) / bins,
                n,
                float(labels[mask].mean()) if n else None,
                float(scores[mask].mean()) if n else None,
            )
        )
    return out


def _best_threshold(scores: np.ndarray, labels: np.ndarray) -> tuple[float | None, float | None]:
    """The cut ``s ≥ t`` over the distinct scores with the highest balanced accuracy (lowest ``t`` on a tie)."""
    pos, neg = np.sort(scores[labels == 1]), np.sort(scores[labels == 0])
    if not len(pos) or not len(neg):
        return None, None
    cuts = np.unique(scores)
    tpr = (len(pos) - np.searchsorted(pos, cuts, side="left")) / len(pos)  # share of yes with s ≥ t
    tnr = np.searchsorted(neg, cuts, side="left") / len(neg)  # share of no with s < t
    ba = (tpr + tnr) / 2
    best = int(np.flatnonzero(ba >= ba.max() - 1e-12)[0])
    return float(cuts[best]), float(ba[best])


def _verdict(
    tpr: Estimate, tnr: Estimate, counts: dict[str, tuple[int, int]], bar: float
) -> tuple[bool, str, dict[str, int]]:
    """``certified``, its one-line verdict, and for each undecided class about how many more labels decide it."""
    rates = {"yes": ("true-positive rate", tpr), "no": ("true-negative rate", tnr)}
    if all(e.low is not None and e.low >= bar for _, e in rates.values()):
        return True, f"certified: both rates' 95% lower bounds ≥ {bar:g}", {}
    failed = [
        f"{name} {estimate_text(e)} is below {bar:g}"
        for name, e in rates.values()
        if e.high is not None and e.high < bar
    ]
    if failed:
        return False, "not certified: " + "; ".join(failed), {}
    more: dict[str, int] = {}
    undecided = []
    for cls, (name, e) in rates.items():
        if e.low is not None and e.low >= bar:
            continue
        needed = labels_to_decide(*counts[cls], bar)
        if needed is None:
            undecided.append(f"the {name} sits at {bar:g}: no number of labels decides it")
        else:
            more[cls] = needed
            undecided.append(f"about {needed} more label{'' if needed == 1 else 's'} of class '{cls}' would decide it")
    return False, "not certified: " + "; ".join(undecided), more


def align_metric(
    metric: str,
    labelled: Sequence[tuple[float, int]],
    all_scores: Sequence[float],
    *,
    threshold: float = VERDICT_THRESHOLD,
    certify_at: float = CERTIFY_AT,
    draws: int = BOOTSTRAP_DRAWS,
    seed: int = SEED,
) -> MetricAlignment:
    """The alignment of one metric: ``labelled`` (judge score, label) pairs (at least one),
    ``all_scores`` every defined judge score of the session (the judged mean and ``q``). See the module doc."""
    rng = np.random.default_rng(seed)
    s = np.array([p[0] for p in labelled], dtype=float)
    y = np.array([p[1] for p in labelled], dtype=int)
    v = s >= threshold
    tp, fn = int((v & (y == 1)).sum()), int((~v & (y == 1)).sum())
    fp, tn = int((v & (y == 0)).sum()), int((~v & (y == 0)).sum())
    tpr, tnr = rate(tp, tp + fn, "yes"), rate(tn, tn + fp, "no")
    boot = _bootstrap(s, y, threshold, rng, draws)
    ba_value = None if tpr.value is None or tnr.value is None else (tpr.value + tnr.value) / 2
    ba = (
        Estimate(ba_value, *_percentile(boot["ba"]))
        if ba_value is not None
        else Estimate(None, why="needs both classes")
    )
    k_value = kappa(tp, fn, fp, tn)
    k = Estimate(k_value, *_percentile(boot["kappa"])) if k_value is not None else Estimate(None, why="one class only")
    auc_value = roc_auc(s, y)
    auc = (
        Estimate(auc_value, *_percentile(boot["auc"]))
        if auc_value is not None
        else Estimate(None, why="needs both classes")
    )
    best_t, best_ba = _best_threshold(s, y)
    certified, verdict, more = _verdict(tpr, tnr, {"yes": (tp, tp + fn), "no": (tn, tn + fp)}, certify_at)
    corrected = correct(metric, s, y, np.array(all_scores, dtype=float), tpr, tnr, threshold, rng, draws)
    return MetricAlignment(
        metric,
        len(s),
        tp + fn,
        tn + fp,
        threshold,
        {"tp": tp, "fn": fn, "fp": fp, "tn": tn},
        tpr,
        tnr,
        ba,
        k,
        auc,
        _calibration(s, y),
        best_t,
        best_ba,
        certify_at,
        certified,
        verdict,
        corrected,
        more,
    )


def correct(
    metric: str,
    s: np.ndarray,
    y: np.ndarray,
    scores: np.ndarray,
    tpr: Estimate,
    tnr: Estimate,
    threshold: float,
    rng: np.random.Generator,
    draws: int,
) -> Corrected:
    """The Rogan–Gladen corrected share of ``scores`` people would pass, with its bootstrap interval."""
    mean = float(scores.mean()) if len(scores) else None
    q = float((scores >= threshold).mean()) if len(scores) else None
    if q is None:
        return Corrected(metric, mean, q, 0, Estimate(None, why="no item scored"))
    if tpr.value is None or tnr.value is None:
        return Corrected(metric, mean, q, len(scores), Estimate(None, why=f"{tpr.why or tnr.why}: no correction yet"))
    point = rogan_gladen(q, tpr.value, tnr.value)
    if point is None:
        return Corrected(
            metric,
            mean,
            q,
            len(scores),
            Estimate(
                None,
                why=f"the judge does no better than chance on the labels (TPR + TNR = {tpr.value + tnr.value:.3f} ≤ 1)",
            ),
        )
    pos, neg = s[y == 1] >= threshold, s[y == 0] < threshold
    tpr_b = pos[rng.integers(0, len(pos), size=(draws, len(pos)))].mean(1)
    tnr_b = neg[rng.integers(0, len(neg), size=(draws, len(neg)))].mean(1)
    q_b = (scores >= threshold)[rng.integers(0, len(scores), size=(draws, len(scores)))].mean(1)
    youden = tpr_b + tnr_b - 1
    defined = youden > 1e-12
    with np.errstate(divide="ignore", invalid="ignore"):
        p_b = np.where(defined, np.clip((q_b + tnr_b - 1) / youden, 0, 1), np.nan)
    low, high = _percentile(p_b)
    return Corrected(metric, mean, q, len(scores), Estimate(point, low, high), int((~defined).sum()))


# ------------------------------------------------------------------ a session


@dataclass(frozen=True)
class Alignment:
    """Every labelled judged metric of a session."""

    metrics: list[MetricAlignment]
    labels: int
    unmatched: int  # labels on items with no judge score for that metric (failed, undefined, not done)

    def to_dict(self) -> JsonObject:
        return {
            "labels": self.labels,
            "unmatched_labels": self.unmatched,
            "certify_at": self.certify_at,
            "seed": SEED,
            "bootstrap_draws": BOOTSTRAP_DRAWS,
            "verdict_threshold": VERDICT_THRESHOLD,
            "metrics": {m.metric: m.to_dict() for m in self.metrics},
        }

    @property
    def certify_at(self) -> float:
        return self.metrics[0].certify_at if self.metrics else CERTIFY_AT

    def of(self, metric: str) -> MetricAlignment | None:
        return next((m for m in self.metrics if m.metric == metric), None)


def align(
    scores: Mapping[str, Mapping[str, float | None]],
    labels: Sequence[tuple[str, str, int]],
    *,
    certify_at: float = CERTIFY_AT,
) -> Alignment:
    """``scores``: question id → {metric: judge score or None} of the done items; ``labels``:
    (question id, metric, 0 / 1). One :class:`MetricAlignment` per labelled metric, in name order."""
    by_metric: dict[str, list[tuple[float, int]]] = {}
    unmatched = 0
    for qid, metric, label in labels:
        score = (scores.get(qid) or {}).get(metric)
        if isinstance(score, (int, float)) and math.isfinite(score):
            by_metric.setdefault(metric, []).append((float(score), int(label)))
        else:
            unmatched += 1
    out = []
    for metric in sorted(by_metric):
        every = [float(v) for item in scores.values() if isinstance(v := item.get(metric), (int, float))]
        out.append(align_metric(metric, by_metric[metric], every, certify_at=certify_at))
    return Alignment(out, len(labels), unmatched)
