"""Calibrated gaps, covered share, gap ordering, uneven clusters, the document view and gold coverage
(issue #16 items 3 and 4): unit batteries against brute-force references."""

from __future__ import annotations

from itertools import pairwise
from typing import cast

import numpy as np
import pytest

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.coverage.advice import gap_advice, named, unreached_text
from ragcov_tui.coverage.calibration import GOLD, NEAREST, answering_radius, covered_shares, reach_line, robust_cut
from ragcov_tui.coverage.documents import document_coverage, source_codes
from ragcov_tui.coverage.gaps import CALIBRATED, THRESHOLD, UNDEFINED, rank_gaps
from ragcov_tui.coverage.gold import gold_chunk_sets, gold_coverage, gold_distances
from ragcov_tui.coverage.reach import UNEVEN_SHARE, ClusterReach, cluster_reach, mark_uneven
from ragcov_tui.store.analysis_contract import AnalysisReport
from ragcov_tui.testset.models import Question
from tests.coverage.coverage_data import unit
from tests.support.present import present


def test_robust_cut_is_median_minus_two_floored_mads():
    cut = robust_cut(np.array([0.6, 0.7, 0.68, 0.66, 0.1]))
    assert cut.median == pytest.approx(0.66)
    assert cut.spread == pytest.approx(1.4826 * 0.04)  # deviations 0.06 0.04 0.02 0 0.56
    assert cut.value == pytest.approx(0.66 - 2 * cut.spread)
    assert robust_cut(np.array([0.5, 0.5, 0.5])).spread == 0.05  # identical values: the floor
    wide = robust_cut(np.array([0.0, 0.2, 0.4, 0.6, 0.8]))
    assert wide.spread == pytest.approx(1.4826 * 0.2) and wide.value == pytest.approx(0.4 - 2 * 1.4826 * 0.2)
    assert robust_cut(np.array([0.1, 0.2, 0.3]), below=False).value == pytest.approx(0.2 + 2 * 1.4826 * 0.1)


def test_answering_radius_prefers_gold_and_takes_a_high_quantile():
    nearest = np.array([0.1, 0.2, 0.3, 0.4, 0.9])
    gold = np.array([0.3, np.inf, 0.5, 0.7, 0.2])
    inliers = np.array([0, 1, 2, 3])  # question 4 is an outlier: never counts
    r = present(answering_radius(nearest, gold, inliers))
    assert r.source == GOLD and r.questions == 3 and r.value == pytest.approx(np.quantile([0.3, 0.5, 0.7], 0.75))
    r = present(answering_radius(nearest, None, inliers))
    assert r.source == NEAREST and r.questions == 4 and r.value == pytest.approx(np.quantile(nearest[:4], 0.9))
    assert "9 in 10 of 4 questions are this close to their nearest chunk" in reach_line(r, 1, 2)
    r = present(answering_radius(nearest, np.full(5, np.inf), inliers))
    assert r.source == NEAREST  # no inlier question's gold id matched the corpus
    assert answering_radius(nearest, gold, np.array([], dtype=int)) is None
    assert "3 in 4 of 3 questions" in reach_line(answering_radius(nearest, gold, inliers), 5, 20)
    assert "25% of chunks (5 of 20)" in reach_line(answering_radius(nearest, gold, inliers), 5, 20)
    assert "undefined" in reach_line(None, 0, 20)


@pytest.mark.parametrize("seed", range(20))
def test_covered_share_and_document_figures_match_a_loop(seed):
    rng = np.random.default_rng(seed)
    n, docs = int(rng.integers(1, 200)), int(rng.integers(1, 30))
    sources = [f"d{int(i)}" for i in rng.integers(0, docs, n)]
    mindist = rng.uniform(0, 1, n)
    within = mindist <= np.quantile(mindist, rng.uniform(0, 1))
    gold_counts_by_name = {s: int(rng.integers(0, 3)) for s in dict.fromkeys(sources)}
    order, codes = source_codes(sources)
    out = document_coverage(
        sources, mindist, within=within, gold_counts=np.array([gold_counts_by_name[s] for s in order])
    )
    assert [d.source for d in out] == order
    for d in out:
        mine = [i for i, s in enumerate(sources) if s == d.source]
        assert d.chunks == len(mine)
        assert d.coverage == pytest.approx(1 - mindist[mine].mean())
        assert d.reach == pytest.approx(1 - mindist[mine].min())
        assert d.covered_share == pytest.approx(within[mine].mean())
        assert d.unreached == (not within[mine].any())
        assert d.gold_count == gold_counts_by_name[d.source]
    ranked = sorted(out, key=lambda d: d.rank)
    assert [d.rank for d in ranked] == list(range(1, len(out) + 1))
    keys = [(present(d.gold_count) > 0, d.reach, d.covered_share, d.coverage, d.source) for d in ranked]
    assert keys == sorted(keys)  # unnamed by gold first, then reach, covered share, coverage, name
    no_gold = sorted(document_coverage(sources, mindist, within=within), key=lambda d: d.rank)
    plain = [(d.reach, d.covered_share, d.coverage, d.source) for d in no_gold]
    assert plain == sorted(plain)  # without gold ids: by distance alone
    labels = rng.integers(0, 4, n)
    np.testing.assert_allclose(
        covered_shares(within, labels, 4)[np.bincount(labels, minlength=4) > 0],
        [within[labels == k].mean() for k in range(4) if (labels == k).any()],
    )


def test_documents_without_inliers_have_no_reach_and_still_a_rank():
    out = document_coverage(["b", "a", "b"], None, gold_counts=np.array([0, 2]))
    assert all(d.reach is None and d.covered_share is None and not d.unreached for d in out)
    assert [(d.source, d.rank, d.gold_count) for d in out] == [("b", 2, 0), ("a", 1, 2)]


def reach_of(shares: list[float], priorities: list[float] | None = None) -> list[ClusterReach]:
    priorities = priorities or [0.0] * len(shares)
    return [ClusterReach(s, p) for s, p in zip(shares, priorities, strict=True)]


def test_calibrated_gaps_are_the_clusters_far_below_the_median_or_unreached():
    shares = [0.7, 0.66, 0.68, 0.3, 0.0, 0.72, 0.64]
    cut = robust_cut(np.array(shares))
    gaps, rule = rank_gaps([0.6] * 7, [10] * 7, reach_of(shares, [0, 0, 0, 0.56, 1, 0, 0]), cut, None)
    assert [g.cluster for g in gaps] == [4, 3] and rule.mode == CALIBRATED
    assert rule.text.startswith(
        f"gaps: clusters with covered share below {cut.value:.0%} (calibrated: median 66% − 2×MAD)"
    )
    assert rule.text.endswith("— 2 of 7")
    assert gaps[0].covered_share == 0.0 and gaps[1].covered_share == 0.3


def test_an_even_test_set_has_no_gap_whatever_the_scale():
    for scale in (0.3, 0.5, 0.9):  # the paper's absolute coverage would call all or none of these gaps
        shares = [scale, scale + 0.01, scale - 0.01, scale + 0.02]
        gaps, rule = rank_gaps([scale] * 4, [5] * 4, reach_of(shares), robust_cut(np.array(shares)), None)
        assert gaps == [] and rule.text.endswith("— 0 of 4")


def test_the_paper_threshold_is_used_as_before_when_given():
    shares = [0.7, 0.66, 0.0, 0.3]
    gaps, rule = rank_gaps(
        [0.9, 0.5, None, 0.69], [10, 50, 10, 5], reach_of(shares, [0, 0, 1, 0.5]), robust_cut(np.array(shares)), 0.7
    )
    assert {g.cluster for g in gaps} == {1, 2, 3} and rule.mode == THRESHOLD and rule.cut == 0.7
    assert [g.cluster for g in gaps] == [2, 3, 1]  # still least covered first
    assert rule.text == "gaps: clusters with coverage below 0.7 (--gap-threshold) — 3 of 4"


def test_without_inliers_every_cluster_is_a_gap_largest_first():
    reach = [ClusterReach(None, 1.0) for _ in range(3)]
    gaps, rule = rank_gaps([None] * 3, [2, 9, 5], reach, None, None)
    assert [g.cluster for g in gaps] == [1, 2, 0] and rule.mode == UNDEFINED and "every cluster" in rule.text


@pytest.mark.parametrize("seed", range(40))
def test_an_unreached_small_cluster_always_outranks_a_reached_large_one(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 15))
    sizes = rng.integers(1, 500, k).tolist()
    shares = np.where(rng.random(k) < 0.3, 0.0, rng.uniform(0, 1, k))
    coverage = rng.uniform(0.2, 0.8, k).tolist()
    labels = np.repeat(np.arange(k), sizes)
    within = np.concatenate([rng.random(s) < sh for s, sh in zip(sizes, shares, strict=True)])
    names = [f"d{i}" for i in range(k)]
    reach, cut = cluster_reach(labels, k, labels, names, np.where(within, 0.1, 0.9), within, None)
    gaps, _ = rank_gaps(coverage, sizes, reach, cut, 1.0)  # every cluster a gap: the order alone is tested
    priorities = [g.priority for g in gaps]
    assert priorities == sorted(priorities, reverse=True)
    seen_reached = False
    for g in gaps:
        if g.covered_share == 0:
            assert not seen_reached, "a cluster no question reaches came after a reached one"
        else:
            seen_reached = True
    for a, b in pairwise(gaps):  # equal priority: the larger cluster first
        if a.priority == b.priority:
            assert a.size >= b.size


def test_cluster_reach_names_the_unreached_part_and_the_documents_without_gold():
    # cluster 0: a.md reached, b.md (3 chunks) unreached; cluster 1: c.md reached; d.md split over both clusters
    sources = ["a.md", "a.md", "b.md", "b.md", "b.md", "d.md", "c.md", "c.md", "d.md"]
    labels = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1])
    mindist = np.array([0.1, 0.2, 0.8, 0.9, 0.7, 0.3, 0.1, 0.1, 0.9])
    within = mindist <= 0.3
    names, codes = source_codes(sources)
    gold = np.array([2, 0, 1, 0])  # a, b, d, c in first-seen order
    reach, maybe_cut = cluster_reach(labels, 2, codes, names, mindist, within, gold)
    cut = present(maybe_cut)
    assert reach[0].unreached_documents == ["b.md"] and reach[0].unreached_share == pytest.approx(3 / 6)
    assert reach[1].unreached_documents == []  # d.md has a chunk within reach in cluster 0
    assert reach[0].covered_share == pytest.approx(3 / 6) and reach[1].covered_share == pytest.approx(2 / 3)
    assert cut.median == pytest.approx((0.5 + 2 / 3) / 2)
    assert reach[0].priority == pytest.approx(1 - 0.5 / cut.median) and reach[1].priority == 0.0
    assert reach[0].documents_without_gold == ["b.md"] and reach[1].documents_without_gold == ["c.md"]
    text = mark_uneven(reach, set(), cut.median)
    assert reach[0].uneven and not reach[1].uneven and text.endswith("— 1 of 2")
    mark_uneven(reach, {0}, cut.median)
    assert not reach[0].uneven  # a gap is not also "uneven"


def test_uneven_needs_a_fifth_of_the_chunks_and_a_well_covered_rest():
    small = ClusterReach(0.9, unreached_documents=["x"], unreached_share=UNEVEN_SHARE - 0.01, priority=0.0)
    big_but_poor = ClusterReach(0.1, unreached_documents=["y"], unreached_share=0.5, priority=0.0)
    big_and_rich = ClusterReach(0.45, unreached_documents=["z"], unreached_share=0.5, priority=0.0)
    mark_uneven([small, big_but_poor, big_and_rich], set(), 0.8)
    assert (small.uneven, big_but_poor.uneven, big_and_rich.uneven) == (False, False, True)


def chunks_of(spec: dict[str, int]) -> list[Chunk]:
    return [Chunk(f"{src}#{i}-0000000{i}", f"text {src} {i}", src, i) for src, n in spec.items() for i in range(n)]


def test_gold_ids_resolve_to_chunks_documents_and_normalised_paths():
    chunks = chunks_of({"a.md": 2, "guides/b.md": 3, "c.md": 1})
    questions = [
        Question("q1", "x", gold={"a.md": 1.0}),
        Question("q2", "y", gold={"./guides/b.md": 2.0}),
        Question("q3", "z", gold={chunks[3].id: 1.0, "nowhere.md": 1.0}),
        Question("q4", "w", gold={"c.md": 0.0}),
        Question("q5", "v"),
    ]
    sets = gold_chunk_sets(questions, chunks)
    assert [s.tolist() for s in sets] == [[0, 1], [2, 3, 4], [3], [], []]
    names, codes = source_codes([c.source for c in chunks])
    gold = present(gold_coverage(questions, sets, codes, names))
    assert gold.counts.tolist() == [1, 2, 0] and gold.unnamed == ["c.md"]  # a grade-0 judgement names nothing
    assert gold.as_report() | {} == {
        "questions_with_gold": 3,
        "questions_matched": 3,
        "documents": 3,
        "documents_named": 2,
        "documents_unnamed": 1,
        "unnamed": ["c.md"],
    }
    assert gold_coverage([Question("q", "t")], [np.zeros(0, int)], codes, names) is None


@pytest.mark.parametrize("seed", range(10))
def test_gold_distances_match_brute_force(seed):
    rng = np.random.default_rng(seed)
    C, Q = unit(rng.standard_normal((50, 8))), unit(rng.standard_normal((12, 8)))
    sets = [np.unique(rng.integers(0, 50, int(rng.integers(0, 6)))) for _ in range(12)]
    got = gold_distances(C, Q, sets)
    for j, s in enumerate(sets):
        expected = (1 - C[s].astype(np.float64) @ Q[j].astype(np.float64)).min() if len(s) else np.inf
        assert got[j] == pytest.approx(expected, abs=1e-6)


def test_one_advice_text_per_gap():
    assert (
        gap_advice({"flagged_documents": ["loaf.md"], "suggested_questions": [{"text": "How?"}]})
        == "review flagged loaf.md before adding questions"
    )
    assert (
        gap_advice({"suggested_questions": [{"text": "How do refunds work?", "origin": "heuristic"}]})
        == "add questions such as: How do refunds work?"
    )
    assert gap_advice({"suggested_questions": ["Plain?"]}) == "add questions such as: Plain?"
    assert (
        gap_advice({"themes": ["billing", "refunds", "plans", "tax"]}) == "add questions about billing, refunds, plans"
    )
    assert gap_advice({}) == "add questions about this cluster's content"
    assert named(["a", "b", "c", "d", "e"]) == "a, b, c (+2 more)" and named(["a"]) == "a"
    assert unreached_text({"unreached_documents": []}) == ""
    assert (
        unreached_text({"unreached_documents": ["x.md"], "unreached_share": 0.25})
        == "unreached: 1 document (25% of its chunks) with no chunk within reach: x.md"
    )


def test_covered_share_can_gate_ci():
    from ragcov_tui.coverage.gates import check_coverage_gates, parse_coverage_gates

    gates = parse_coverage_gates(["covered_share=0.5", "basic=0.3"])
    failed = check_coverage_gates(cast(AnalysisReport, {"coverage": {"covered_share": 0.39, "basic": 0.45}}), gates)
    assert [f.metric for f in failed] == ["covered_share"]
    assert check_coverage_gates(cast(AnalysisReport, {"coverage": {"covered_share": 0.6, "basic": 0.45}}), gates) == []


def test_a_cluster_far_below_the_others_coverage_is_a_gap_even_when_within_reach():
    shares = [0.7, 0.68, 0.66, 0.72, 0.69]  # every cluster reached about equally…
    coverage: list[float | None] = [
        0.58,
        0.6,
        0.59,
        0.61,
        0.45,
    ]  # …but cluster 4's chunks sit further out than the others'
    gaps, rule = rank_gaps(coverage, [10] * 5, reach_of(shares), robust_cut(np.array(shares)), None)
    assert [g.cluster for g in gaps] == [4]
    cut = present(rule.coverage_cut)
    assert cut.median == pytest.approx(0.59) and cut.value == pytest.approx(0.55)  # MAD 0.01: floor
    assert "coverage below 0.550 (calibrated: median 0.590 − 2×MAD)" in rule.text and rule.text.endswith("— 1 of 5")
    _, no_reach = rank_gaps([0.5, 0.3], [5, 5], reach_of([0.0, 0.0]), robust_cut(np.array([0.0, 0.0])), None)
    assert "covered share below" not in no_reach.text  # a cut below 0 is not quoted
