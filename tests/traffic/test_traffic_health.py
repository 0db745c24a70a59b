"""Traffic health (issue #31): the served fields of a log line, the figures and their intervals,
hotspots, windows and the traffic gates."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import cast

import numpy as np
import pytest

from ragcov_tui.coverage.gates import check_coverage_gates, parse_coverage_gates
from ragcov_tui.coverage.sampling import wilson
from ragcov_tui.coverage.traffic_health import (
    cluster_health,
    health,
    hotspot_line,
    hotspots,
    low_relevance_cut,
    weighted_quantile,
    windows,
)
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store.analysis_contract import AnalysisReport
from ragcov_tui.store.traffic_contract import TrafficClusterEntry
from ragcov_tui.traffic.reader import read_traffic
from ragcov_tui.traffic.served import NEGATIVE, NEUTRAL, NO_FEEDBACK, POSITIVE
from ragcov_tui.traffic.windows import parse_window


def jsonl(tmp_path: Path, rows: list, name: str = "log.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# ---------------------------------------------------------------- the whole log line


@pytest.mark.parametrize(
    ("field", "value", "ms"),
    [
        ("latency_ms", 850, 850.0),
        ("duration_ms", "120", 120.0),
        ("latency", 1.25, 1250.0),
        ("duration", "2", 2000.0),
        ("latency", "850ms", 850.0),
        ("latency_ms", "1.5s", 1500.0),
        ("elapsed", 0, 0.0),
    ],
)
def test_latency_aliases_and_units(tmp_path: Path, field: str, value: object, ms: float) -> None:
    log = read_traffic(jsonl(tmp_path, [{"query": "q", field: value}]))
    assert log.served is not None and log.served.latency_ms[0] == pytest.approx(ms)
    assert log.fields["latency"] == field


def test_retrieved_documents_scores_feedback_and_sessions(tmp_path: Path) -> None:
    rows = [
        {
            "query": "a",
            "retrieved": [{"id": "d1", "score": 0.8}, {"id": "d2", "score": 0.9}],
            "feedback": "up",
            "session_id": "s1",
        },
        {"query": "b", "documents": [], "thumbs": "thumbs_down", "session_id": "s1"},
        {
            "query": "c",
            "retrieval.documents": [{"document.id": "x", "document.score": 0.4}],
            "rating": 3,
            "session_id": 7,
        },
        {"query": "d", "contexts": ["plain text, no score"], "feedback": {"key": "user", "score": 0}},
        {"query": "e", "scores": [0.2, 0.35], "rating": 5, "answer": {"content": "yes"}},
        {"query": "f", "vote": 1, "output": "hi"},
    ]
    log = read_traffic(jsonl(tmp_path, rows))
    s = log.served
    assert s is not None
    order = [log.texts[i] for i in s.query]
    assert order == ["a", "b", "c", "d", "e", "f"]  # one entry per row, in file order
    assert s.zero_results.tolist() == [0, 1, 0, 0, 0, -1]
    best = s.best_score.tolist()
    assert best[0] == pytest.approx(0.9) and math.isnan(best[1]) and best[2] == pytest.approx(0.4)
    assert math.isnan(best[3]) and best[4] == pytest.approx(0.35) and math.isnan(best[5])
    assert s.feedback.tolist() == [POSITIVE, NEGATIVE, NEUTRAL, NEGATIVE, POSITIVE, POSITIVE]
    assert s.sessions == 2 and s.answered == 2


def test_csv_cells_hold_json_lists(tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    path.write_text(
        'question,latency_ms,retrieved,feedback\n"reset password",900,"[{""score"": 0.7}]",down\nexport,,[],\n',
        encoding="utf-8",
    )
    s = read_traffic(path).served
    assert s is not None
    assert s.latency_ms[0] == 900 and math.isnan(s.latency_ms[1])
    assert s.zero_results.tolist() == [0, 1] and s.feedback.tolist() == [NEGATIVE, NO_FEEDBACK]


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ({"latency_ms": -3}, "latency_ms"),
        ({"latency": "fast"}, "latency"),
        ({"latency_ms": 1e12}, "latency_ms"),
        ({"retrieved": {"id": 1}}, "retrieved"),
        ({"retrieved": [{"score": "high"}]}, "retrieved[].score"),
        ({"retrieved": [3]}, "retrieved"),
        ({"scores": [0.1, None]}, "scores"),
        ({"feedback": "meh"}, "feedback"),
        ({"rating": 6}, "rating"),
        ({"rating": 4.5}, "rating"),
        ({"answer": 3}, "answer"),
        ({"session_id": [1]}, "session_id"),
    ],
)
def test_a_bad_value_names_file_line_and_field(tmp_path: Path, row: dict, field: str) -> None:
    path = jsonl(tmp_path, [{"query": "fine"}, {"query": "bad", **row}])
    with pytest.raises(BadInput) as err:
        read_traffic(path)
    assert str(err.value).startswith(f"{path}:2: field '{field}'"), str(err.value)


# ---------------------------------------------------------------- the figures


def served_log(tmp_path: Path, rows: list) -> tuple:
    log = read_traffic(jsonl(tmp_path, rows))
    assert log.served is not None
    return log, log.served


def test_rates_are_count_weighted_with_wilson_intervals(tmp_path: Path) -> None:
    _, s = served_log(
        tmp_path,
        [
            {"query": "a", "count": 30, "feedback": "down", "retrieved": []},
            {"query": "b", "count": 70, "feedback": "up", "retrieved": [{"score": 0.9}]},
            {"query": "c", "count": 5},
        ],
    )
    h = health(s, None)
    assert h["queries"] == 105
    neg = h["negative_feedback"]
    assert (neg["count"], neg["of"]) == (30, 100) and neg["rate"] == pytest.approx(0.3)
    assert neg["interval"] == pytest.approx(list(wilson(30, 100) or ()))
    assert h["zero_results"]["rate"] == pytest.approx(0.3) and h["positive_feedback"]["rate"] == pytest.approx(0.7)
    assert h["low_relevance"]["rate"] == 0.0 and h["low_relevance"]["of"] == 70
    assert h["latency_ms"]["p50"] is None and h["latency_ms"]["n"] == 0  # nothing measured: None, not 0


def test_latency_percentiles_and_their_order_statistic_intervals() -> None:
    values = np.arange(1, 1001, dtype=np.float64)
    median = weighted_quantile(values, np.ones(1000), 0.5)
    assert median is not None
    p50, (low, high) = median
    assert p50 == 500 and low < 500 < high and low >= 460 and high <= 540  # ±1.96·√250 ≈ 31 ranks
    top = weighted_quantile(values, np.ones(1000), 0.95)
    assert top is not None
    p95, (low95, high95) = top
    assert p95 == 950 and low95 < 950 < high95
    # a value asked 9 times weighs 9: the median of [10 ×1, 20 ×9] is 20
    assert (weighted_quantile(np.array([10.0, 20.0]), np.array([1, 9]), 0.5) or (None,))[0] == 20


def test_low_relevance_is_calibrated_on_the_log_itself(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    rows = [{"query": f"q{i}", "scores": [float(rng.uniform(0.7, 0.8))]} for i in range(40)]
    rows += [{"query": f"bad{i}", "scores": [0.3]} for i in range(4)]
    _, s = served_log(tmp_path, rows)
    cut, rule = low_relevance_cut(s)
    assert cut is not None and 0.3 < cut < 0.7 and "median best score" in rule and "44 scored rows" in rule
    assert health(s, cut)["low_relevance"]["count"] == 4


def test_the_unhappy_cluster_is_named_with_its_coverage(tmp_path: Path) -> None:
    rows = [{"query": f"ok {i}", "count": 10, "feedback": "up" if i % 10 else "down"} for i in range(40)]
    rows += [{"query": f"webhook {i}", "count": 10, "feedback": "down" if i % 4 else "up"} for i in range(12)]
    log, s = served_log(tmp_path, rows)
    labels = np.array([1 if t.startswith("webhook") else 0 for t in log.texts])
    overall = health(s, None)
    per = cluster_health(s, labels, 2, None)
    clusters = [
        cast(
            TrafficClusterEntry,
            {
                "id": c,
                "share": per[c]["queries"] / overall["queries"],
                "coverage": cov,
                "untested": c == 1,
                "health": per[c],
            },
        )
        for c, cov in ((0, 0.6), (1, 0.21))
    ]
    spots = hotspots(overall, clusters, lambda c: [{"text": "webhook 1", "count": 10}] if c == 1 else [])
    assert [h["cluster"] for h in spots] == [1] and spots[0]["worse"] == ["negative_feedback"]
    line = hotspot_line(spots[0], clusters, overall)
    assert line.startswith("cluster 1: 23% of traffic, 75% negative feedback (all traffic 25%")
    assert "coverage 0.21 — untested" in line and "“webhook 1” ×10" in line


# ---------------------------------------------------------------- windows


def test_windows_compare_the_last_span_with_the_ones_before(tmp_path: Path) -> None:
    day = 86400
    rows = [
        {"query": f"q{d}", "timestamp": 1767225600 + d * day, "feedback": "down" if d >= 7 else "up"} for d in range(14)
    ]
    rows.append({"query": "timeless", "feedback": "down"})
    _, s = served_log(tmp_path, rows)
    spans = windows(s, 7 * day, None)
    assert [w["queries"] for w in spans] == [7, 7]  # the timeless row is in no window
    assert spans[0]["negative_feedback"]["rate"] == 1.0 and spans[1]["negative_feedback"]["rate"] == 0.0
    assert spans[0]["end"] == "2026-01-14T00:00:00Z"
    chosen = parse_window("7d", None, None, traffic="log").selected(s)
    assert int(chosen.sum()) == 7
    since = parse_window(None, "2026-01-03", "2026-01-04T00:00:00Z", traffic="log").selected(s)
    assert int(since.sum()) == 2


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("7x", None, None, "log"), "--window '7x': expected a positive number and a unit"),
        (("0d", None, None, "log"), "--window '0d'"),
        ((None, "yesterday", None, "log"), "--since 'yesterday': expected an ISO 8601 time"),
        ((None, "2026-02-01", "2026-01-01", "log"), "--since '2026-02-01' is after --until '2026-01-01'"),
        (("7d", None, None, None), "--window / --since / --until select rows of a query log"),
    ],
)
def test_bad_window_options_are_refused_up_front(args: tuple, message: str) -> None:
    window, since, until, traffic = args
    with pytest.raises(BadInput, match=message.replace("(", r"\(").replace("[", r"\[")):
        parse_window(window, since, until, traffic=traffic)


# ---------------------------------------------------------------- gates


def test_traffic_gates_minimums_and_maximums() -> None:
    report = {
        "coverage": {"basic": 0.5},
        "traffic": {
            "health": {
                "overall": {
                    "positive_feedback": {"rate": 0.7},
                    "zero_results": {"rate": 0.05},
                    "low_relevance": {"rate": None},
                    "latency_ms": {"p95": 2500.0, "p50": 900.0},
                }
            }
        },
    }
    floors = parse_coverage_gates(["positive_feedback=0.8", "basic=0.4"], traffic=True)
    ceilings = parse_coverage_gates(
        ["zero_results=0.02", "latency_p95_ms=3000", "low_relevance=0.1"], "--max", traffic=True
    )
    failed = [str(f) for f in check_coverage_gates(cast(AnalysisReport, report), floors, ceilings)]
    assert failed == [
        "positive_feedback: 0.7000 < required 0.8",
        "zero_results: 0.0500 > allowed 0.02",
        "low_relevance: not measured > allowed 0.1",
    ]


@pytest.mark.parametrize(
    ("specs", "option", "traffic", "message"),
    [
        (
            ["positive_feedback=0.8"],
            "--fail-under",
            False,
            "is a traffic health figure: give a query log with --traffic",
        ),
        (
            ["zero_results=2"],
            "--max",
            True,
            "--max 'zero_results=2': zero_results lies in [0, 1], so a maximum of 2 always passes",
        ),
        (["happiness=1"], "--max", True, "--max 'happiness=1': unknown metric 'happiness'"),
        (["zero_results"], "--max", True, "--max 'zero_results': expected METRIC=VALUE, e.g. zero_results=0.02"),
    ],
)
def test_bad_gates_name_the_option(specs: list[str], option: str, traffic: bool, message: str) -> None:
    with pytest.raises(BadInput) as err:
        parse_coverage_gates(specs, option, traffic=traffic)
    assert message in str(err.value)


def test_the_log_is_read_line_by_line_not_held_whole(tmp_path: Path) -> None:
    """The reader held the whole file (bytes and text) in memory; a month of a busy service is
    gigabytes. Now memory grows with the distinct queries and 30 bytes a row, not with the text."""
    import tracemalloc

    answer = "x" * 2000
    path = tmp_path / "big.jsonl"
    with path.open("w", encoding="utf-8") as f:
        for i in range(20_000):
            f.write(
                json.dumps({"query": f"query {i % 50}", "answer": answer, "latency_ms": i % 900, "feedback": "up"})
                + "\n"
            )
    size = path.stat().st_size
    tracemalloc.start()
    try:
        log = read_traffic(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert log.rows == 20_000 and len(log.texts) == 50 and log.served is not None and log.served.answered == 20_000
    assert size > 40_000_000 and peak < size / 8, (size, peak)


# ---------------------------------------------------------------- eval --sample of a log


def test_places_are_proportional_by_largest_remainder() -> None:
    from ragcov_tui.services.stratified_sample import allocate

    assert allocate([20, 10, 5], 7) == [4, 2, 1]
    assert allocate([1, 1, 1], 2) == [1, 1, 0] and sum(allocate([7, 3, 11, 2], 9)) == 9


def test_the_sample_follows_the_topics_and_the_seed() -> None:
    from ragcov_tui.services.stratified_sample import stratified_sample

    groups = [0] * 20 + [1] * 10 + [2] * 5  # three topics, one vector each
    texts = [f"q{i}" for i in range(len(groups))]

    jitter = np.random.default_rng(1).normal(0, 0.01, (len(groups), 3))

    def embed(batch: list[str]) -> np.ndarray:
        rows = [int(t[1:]) for t in batch]
        return np.eye(3)[[groups[i] for i in rows]] + jitter[rows]

    rows, clusters = stratified_sample(texts, 7, embed, seed=0)
    per_topic = np.bincount(np.asarray(groups)[rows], minlength=3).tolist()
    assert clusters >= 3 and len(rows) == 7 and per_topic[0] >= per_topic[2] >= 1 and per_topic[1] >= 1, per_topic
    assert stratified_sample(texts, 7, embed, seed=0)[0].tolist() == rows.tolist()


def test_eval_scores_a_stratified_sample_of_a_logs_answers(tmp_path: Path) -> None:
    """``ragcov eval --questions LOG --system records:LOG`` scored every row; ``--sample N`` now scores
    a seeded sample of N, stratified by topic, and says how it was drawn."""
    from ragcov_tui.cli.main import main

    topics = ["how do webhooks retry", "price of the team plan", "reset my password"]
    path = jsonl(
        tmp_path,
        [
            {
                "query": f"{topics[i % 3]} {i}",
                "answer": f"about {topics[i % 3]}",
                "contexts": [f"a context on {topics[i % 3]}"],
                "feedback": "up",
            }
            for i in range(30)
        ],
    )
    ids = []
    for run in ("a", "b"):
        out = tmp_path / f"{run}.json"
        assert (
            main(
                [
                    "eval",
                    "--quiet",
                    "--db",
                    str(tmp_path / "r.db"),
                    "--questions",
                    str(path),
                    "--system",
                    f"records:{path}",
                    "--join",
                    "order",
                    "--embedder",
                    "hash",
                    "--sample",
                    "6",
                    "--json",
                    str(out),
                ]
            )
            == 0
        )
        report = json.loads(out.read_text())
        assert report["sample"]["size"] == 6 and report["sample"]["of"] == 30 and report["counts"]["questions"] == 6
        assert report["counts"]["done"] == 6 and "stratified" in report["sample"]["rule"]
        ids.append([q["id"] for q in report["questions"]])
    assert ids[0] == ids[1]
