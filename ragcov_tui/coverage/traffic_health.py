"""Traffic health: how the logged queries were served, overall, per traffic cluster and per time window.

From the log's :class:`~ragcov_tui.traffic.reader.ServedRows` (each row weighted by its count w):

* **volume**: Σ w of the rows;
* **latency p50 / p95** (ms) over the rows that log one, with a distribution-free order-statistic
  95 % interval: for the p-quantile of n weighted values the ranks n·p ∓ 1.96·√(n·p·(1−p)) (the
  normal approximation to the binomial count below the quantile), read off the sorted values;
* **zero-results rate**: rows with an empty result list / rows that log their results;
* **low-relevance rate**: rows whose best retrieval score is below τ_low / rows that log a score.
  τ_low is calibrated on the log itself, once for the whole log (so windows compare): the
  median of the rows' best scores − 2 robust spreads (1.4826 · MAD), the rule every other
  calibrated cut of the project uses — a score that far below the log's typical best match is
  retrieval that found nothing close, whatever scale the retriever's scores have;
* **negative / positive-feedback rate**: rows with negative (positive) feedback / rows with feedback
  (neutral ratings count in the denominator only);

each rate with its Wilson 95 % interval over the counts. **Hotspots** are the clusters where
unhappy traffic concentrates: a cluster whose negative-feedback, low-relevance or zero-results rate
has a Wilson interval wholly above the whole log's rate, ranked by the excess it contributes
(share × (rate − overall rate), its worst metric; share = its part of the selected traffic),
joined with its test coverage and named by its unhappiest queries: those with the most asks that
were unhappy (negative feedback, low relevance or zero results). Undefined
figures are None, never NaN.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import numpy as np

from ragcov_tui.coverage.calibration import robust_spread
from ragcov_tui.shared.intervals import Z95, wilson
from ragcov_tui.store.traffic_contract import (
    HealthEntry,
    Hotspot,
    LatencyFigures,
    QueryCount,
    RateFigure,
    RateName,
    TrafficClusterEntry,
    WindowEntry,
)
from ragcov_tui.traffic.reader import ServedRows

CUT_SPREADS = 2.0
UNHAPPY: tuple[RateName, ...] = (
    "negative_feedback",
    "low_relevance",
    "zero_results",
)  # the rates a hotspot is named for
RATE_NAMES: dict[RateName, str] = {
    "negative_feedback": "negative feedback",
    "positive_feedback": "positive feedback",
    "low_relevance": "low relevance",
    "zero_results": "zero results",
}
MAX_WINDOWS = 12
NEGATIVE, POSITIVE, NO_FEEDBACK = -1, 1, -2


def low_relevance_cut(rows: ServedRows) -> tuple[float | None, str]:
    """τ_low = median − 2 robust spreads of the rows' best scores (module doc), and how it was set."""
    best = rows.best_score[~np.isnan(rows.best_score)].astype(np.float64)
    if len(best) == 0:
        return None, "undefined: the log has no retrieval scores"
    median, spread = robust_spread(best)
    cut = median - CUT_SPREADS * spread
    return cut, (
        f"best retrieval score below {cut:.3f}: the median best score of the log's {len(best):,} scored "
        f"rows ({median:.3f}) − {CUT_SPREADS:g} robust spreads (1.4826·MAD = {spread:.3f})"
    )


def rate(hits: np.ndarray, known: np.ndarray, weights: np.ndarray) -> RateFigure:
    """Σw over ``hits & known`` / Σw over ``known``, with its Wilson interval (None without a row)."""
    of = int(weights[known].sum())
    count = int(weights[known & hits].sum())
    interval = wilson(count, of)
    return {
        "rate": count / of if of else None,
        "interval": None if interval is None else [interval[0], interval[1]],
        "count": count,
        "of": of,
    }


def weighted_quantile(values: np.ndarray, weights: np.ndarray, p: float) -> tuple[float, list[float]] | None:
    """The p-quantile of values each repeated ``weights`` times and its order-statistic 95 % interval."""
    if len(values) == 0:
        return None
    order = np.argsort(values, kind="stable")
    v, cw = values[order], np.cumsum(weights[order])
    n = float(cw[-1])
    half = Z95 * math.sqrt(n * p * (1.0 - p))

    def at(rank: float) -> float:
        rank = min(max(rank, 1.0), n)
        return float(v[min(int(np.searchsorted(cw, rank)), len(v) - 1)])

    return at(math.ceil(n * p)), [at(math.floor(n * p - half)), at(math.ceil(n * p + half) + 1)]


def latency(rows: ServedRows) -> LatencyFigures:
    known = ~np.isnan(rows.latency_ms)
    values, weights = rows.latency_ms[known].astype(np.float64), rows.count[known]
    p50, p95 = weighted_quantile(values, weights, 0.5), weighted_quantile(values, weights, 0.95)
    return {
        "n": int(weights.sum()),
        "p50": None if p50 is None else p50[0],
        "p50_interval": None if p50 is None else p50[1],
        "p95": None if p95 is None else p95[0],
        "p95_interval": None if p95 is None else p95[1],
    }


def health(rows: ServedRows, cut: float | None) -> HealthEntry:
    """Every figure of the module doc over ``rows``."""
    w = rows.count
    scored = ~np.isnan(rows.best_score)
    rated = rows.feedback != NO_FEEDBACK
    return {
        "queries": int(w.sum()),
        "latency_ms": latency(rows),
        "zero_results": rate(rows.zero_results == 1, rows.zero_results >= 0, w),
        "low_relevance": rate(rows.best_score < (cut if cut is not None else -math.inf), scored, w),
        "negative_feedback": rate(rows.feedback == NEGATIVE, rated, w),
        "positive_feedback": rate(rows.feedback == POSITIVE, rated, w),
    }


def cluster_health(rows: ServedRows, labels: np.ndarray, k: int, cut: float | None) -> list[HealthEntry]:
    """:func:`health` of each traffic cluster 0..k−1 (``labels`` per distinct query)."""
    row_cluster = labels[rows.query] if len(rows.query) else np.zeros(0, dtype=np.int64)
    return [health(rows.select(row_cluster == c), cut) for c in range(k)]


def unhappy_asks(rows: ServedRows, cut: float | None, distinct: int) -> np.ndarray:
    """Per distinct query, Σ w over its rows with negative feedback, low relevance or zero results."""
    low = rows.best_score < (cut if cut is not None else -math.inf)
    unhappy = (rows.feedback == NEGATIVE) | low | (rows.zero_results == 1)
    return np.bincount(rows.query[unhappy], weights=rows.count[unhappy], minlength=distinct)


def hotspots(
    overall: HealthEntry, clusters: Sequence[TrafficClusterEntry], examples: Callable[[int], list[QueryCount]]
) -> list[Hotspot]:
    """The clusters where unhappy traffic concentrates (module doc), the largest excess first;
    ``examples(cluster)`` names its unhappiest queries."""
    out: list[tuple[float, Hotspot]] = []
    for c in clusters:
        h = c.get("health")
        if h is None:
            continue
        worse: list[RateName] = []
        excess = 0.0
        share = h["queries"] / overall["queries"] if overall["queries"] else 0.0
        for metric in UNHAPPY:
            mine, base = h[metric], overall[metric]["rate"]
            if mine["interval"] is not None and base is not None and mine["interval"][0] > base:
                worse.append(metric)
                excess = max(excess, share * (float(mine["rate"] or 0.0) - base))
        if worse:
            out.append(
                (
                    excess,
                    {
                        "cluster": c["id"],
                        "share": share,
                        "coverage": c["coverage"],
                        "untested": c["untested"],
                        "worse": worse,
                        "examples": examples(c["id"]),
                    },
                )
            )
    out.sort(key=lambda pair: (-pair[0], pair[1]["cluster"]))
    return [h for _, h in out]


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


def hotspot_line(spot: Hotspot, clusters: Sequence[TrafficClusterEntry], overall: HealthEntry) -> str:
    """``cluster 7: 14% of traffic, 31% negative feedback (all traffic 8%), coverage 0.21 — untested``."""
    entry = next((c for c in clusters if c["id"] == spot["cluster"]), None)
    h = entry.get("health") if entry else None
    parts = [f"cluster {spot['cluster']}: {_pct(spot['share'])} of traffic"]
    for metric in spot["worse"]:
        mine = h[metric]["rate"] if h else None
        parts.append(f"{_pct(mine)} {RATE_NAMES[metric]} (all traffic {_pct(overall[metric]['rate'])})")
    coverage = "no answerable query" if spot["coverage"] is None else f"{spot['coverage']:.2f}"
    asked = "; ".join(f"\u201c{e['text']}\u201d \u00d7{e['count']}" for e in spot.get("examples") or [])
    return (
        ", ".join(parts)
        + f", coverage {coverage}"
        + (" — untested" if spot["untested"] else "")
        + (f"; unhappiest: {asked}" if asked else "")
    )


def windows(rows: ServedRows, span: float, cut: float | None) -> list[WindowEntry]:
    """Overall health of consecutive windows of ``span`` seconds ending at the log's last time, the
    latest first (at most :data:`MAX_WINDOWS`, none before the first time); rows without a time are left out."""
    timed = ~np.isnan(rows.time)
    if not timed.any():
        return []
    first, end = float(rows.time[timed].min()), float(rows.time[timed].max())
    out: list[WindowEntry] = []
    for i in range(MAX_WINDOWS):
        stop, start = end - i * span, end - (i + 1) * span
        if stop < first:
            break
        keep = timed & (rows.time > start) & (rows.time <= stop) if i else timed & (rows.time > start)
        out.append({"start": iso(start), "end": iso(stop), **health(rows.select(keep), cut)})
    return out


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
