import numpy as np
import pytest
from sklearn.neighbors import LocalOutlierFactor

from ragcov_tui.coverage.outliers import detect_outliers, flag, lof_scores, reference_set
from tests.coverage.coverage_data import topic_data, unit
from tests.support.present import present


def test_zero_offset_is_sklearn_novelty_lof():
    C, Q, *_ = topic_data(seed=3)
    ours, delta = lof_scores(C, Q, 7, 0.0)
    expected = -LocalOutlierFactor(n_neighbors=7, novelty=True, metric="cosine").fit(C).score_samples(Q)
    assert delta == 0.0
    np.testing.assert_allclose(ours, expected, rtol=1e-4)


@pytest.mark.parametrize("seed", [0, 1, 3])
def test_planted_off_topic_questions_score_highest_and_only_they_are_flagged(seed):
    C, Q, _, _, off = topic_data(seed=seed)
    found = detect_outliers(
        C, Q, neighbors=5, offset="auto", contamination="auto", lof_threshold=None, sample=10_000, seed=0
    )
    assert set(np.argsort(-present(found.scores))[: len(off)]) == set(off)
    assert set(np.flatnonzero(found.outlier)) == set(off)
    assert 0 < found.offset <= 0.25  # the asymmetry was measured and corrected


def test_asymmetry_without_offset_would_inflate_on_topic_scores():
    C, Q, _, _, off = topic_data(seed=0)
    on = np.setdiff1d(np.arange(len(Q)), off)
    raw, _ = lof_scores(C, Q, 5, 0.0)
    corrected, _ = lof_scores(C, Q, 5, "auto")
    assert raw[on].max() > 1.35 >= corrected[on].max()  # uncorrected, on-topic questions would be flagged
    assert corrected[off].min() > 2.0


def test_flag_rules():
    scores = np.array([1.0, 1.02, 1.05, 0.98, 3.0, 1.01])
    mask, threshold, rule = flag(scores, "auto", None)
    assert mask.tolist() == [False, False, False, False, True, False] and 1.35 <= threshold <= 2.0
    mask, _, rule = flag(scores, 0.34, None)
    assert mask.sum() == 3 and mask[4] and "contamination" in rule
    mask, threshold, _ = flag(scores, "auto", 1.03)
    assert mask.sum() == 2 and threshold == 1.03
    assert flag(np.full(4, 5.0), "auto", None)[0].all()  # all far: the ceiling flags them all


def test_too_few_chunks_or_duplicates():
    rng = np.random.default_rng(0)
    C = unit(rng.standard_normal((2, 8)))
    found = detect_outliers(
        C, C, neighbors=5, offset="auto", contamination="auto", lof_threshold=None, sample=100, seed=0
    )
    assert found.scores is None and not found.outlier.any() and "undefined" in found.rule
    dup = np.repeat(unit(rng.standard_normal((4, 8))), 10, axis=0)
    assert len(reference_set(dup, 1000, 0)) == 4
    found = detect_outliers(
        dup, dup[:3], neighbors=5, offset="auto", contamination="auto", lof_threshold=None, sample=1000, seed=0
    )
    assert np.all(np.isfinite(present(found.scores)))


def test_sample_bounds_the_reference():
    rng = np.random.default_rng(0)
    C = unit(rng.standard_normal((500, 8)))
    found = detect_outliers(
        C, C[:5], neighbors=5, offset=0.0, contamination="auto", lof_threshold=None, sample=100, seed=0
    )
    assert found.reference_size == 100
