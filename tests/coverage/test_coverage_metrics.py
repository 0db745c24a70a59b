"""Every coverage formula against a direct O(n·m) reference, to 1e-9."""

import numpy as np
import pytest

from ragcov_tui.coverage import metrics
from ragcov_tui.coverage.analysis import analyze
from ragcov_tui.coverage.params import CoverageParams
from tests.coverage.coverage_data import topic_data, unit
from tests.support.present import present


def reference(C, Q_in, labels, centroids, threshold, top_n):
    """The paper's definitions written the slow, obvious way."""
    n, k = len(C), len(centroids)
    D = 1.0 - C.astype(np.float64) @ Q_in.T.astype(np.float64)
    mindist = D.min(axis=1)
    basic = 1.0 - mindist.mean()
    per = [1.0 - mindist[labels == c].mean() for c in range(k)]
    weighted = sum((labels == c).sum() / n * per[c] for c in range(k))
    qc = 1.0 - Q_in.astype(np.float64) @ centroids.T.astype(np.float64)

    def multi(covers):  # covers[c] = list of question indices covering cluster c
        total = 0.0
        for c in range(k):
            if covers[c]:
                rows = np.flatnonzero(labels == c)
                total += len(rows) / n * (1.0 - D[np.ix_(rows, covers[c])].min(axis=1).mean())
        return total

    by_t = [[j for j in range(len(Q_in)) if qc[j, c] < threshold] for c in range(k)]
    nearest = np.argsort(qc, axis=1, kind="stable")[:, :top_n]
    by_n = [[j for j in range(len(Q_in)) if c in nearest[j]] for c in range(k)]
    return basic, weighted, per, multi(by_t), multi(by_n)


@pytest.mark.parametrize("seed,threshold,top_n", [(0, 0.5, 2), (1, 0.8, 1), (2, 0.3, 3)])
def test_analyze_matches_reference(seed, threshold, top_n):
    C, Q, chunks, questions, off = topic_data(seed=seed, dim=24, per_topic=30)
    params = CoverageParams(
        clusters=6,
        threshold=threshold,
        top_n=top_n,
        seed=seed,
        memory_budget_mb=0.01,  # type: ignore[arg-type]  # deliberately a fraction: a budget below any block
        max_projection_points=40,
    )
    result = analyze(C, Q, chunks, questions, params)
    inliers = np.flatnonzero(~result.outliers.outlier)
    cl = result.clustering
    basic, weighted, per, multi_t, multi_n = reference(C, Q[inliers], cl.labels, cl.unit_centroids, threshold, top_n)
    cov = result.coverage
    assert cov["basic"] == pytest.approx(basic, abs=1e-9)
    assert cov["weighted"] == pytest.approx(weighted, abs=1e-9)
    assert cov["multi_threshold"] == pytest.approx(multi_t, abs=1e-9)
    assert cov["multi_n"] == pytest.approx(multi_n, abs=1e-9)
    np.testing.assert_allclose(np.array(result.cluster_coverage, dtype=float), per, atol=1e-9)
    D = 1.0 - C.astype(np.float64) @ Q[inliers].T.astype(np.float64)
    np.testing.assert_allclose(present(result.mindist), D.min(axis=1), atol=1e-9)


def test_formulas_on_random_arrays():
    rng = np.random.default_rng(5)
    C, Q = unit(rng.standard_normal((120, 10))), unit(rng.standard_normal((15, 10)))
    labels = rng.integers(0, 4, 120)
    centroids = unit(np.vstack([C[labels == c].mean(axis=0) for c in range(4)]))
    md = (1.0 - C.astype(np.float64) @ Q.T.astype(np.float64)).min(axis=1)
    nn = (C @ Q.T).argmax(axis=1)
    basic, weighted, per, multi_t, multi_n = reference(C, Q, labels, centroids, 0.9, 2)
    assert metrics.basic_coverage(md) == pytest.approx(basic, abs=1e-9)
    assert metrics.weighted_coverage(md, labels, 4) == pytest.approx(weighted, abs=1e-9)
    np.testing.assert_allclose(np.array(metrics.cluster_coverage(md, labels, 4), dtype=float), per, atol=1e-9)
    for cover, expected in (
        (metrics.cover_by_threshold(Q, centroids, 0.9), multi_t),
        (metrics.cover_by_top_n(Q, centroids, 2), multi_n),
    ):
        multidist = metrics.multi_mindist(C, Q, labels, cover, nn, md)
        assert metrics.multi_coverage(multidist, labels, cover) == pytest.approx(expected, abs=1e-9)


def test_uncovered_clusters_contribute_zero_and_undefined_is_none():
    rng = np.random.default_rng(6)
    C, Q = unit(rng.standard_normal((40, 6))), unit(rng.standard_normal((3, 6)))
    labels = np.repeat([0, 1], 20)
    cover = np.zeros((2, 3), dtype=bool)
    md = (1.0 - C @ Q.T).min(axis=1).astype(np.float64)
    assert (
        metrics.multi_coverage(metrics.multi_mindist(C, Q, labels, cover, np.zeros(40, int), md), labels, cover) == 0.0
    )
    assert metrics.basic_coverage(None) is None and metrics.weighted_coverage(None, labels, 2) is None
    assert metrics.cluster_coverage(None, labels, 2) == [None, None]
    assert metrics.multi_coverage(None, labels, cover) is None
