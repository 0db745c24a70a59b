"""Gaps, documents, redundancy, clustering, projection and themes."""

import json

import numpy as np
import pytest

from ragcov_tui.coverage.analysis import least_covered_texts
from ragcov_tui.coverage.clustering import cluster_chunks, count_distinct, default_k
from ragcov_tui.coverage.documents import document_coverage
from ragcov_tui.coverage.projection import project
from ragcov_tui.coverage.redundancy import near_duplicate_pairs, removal_impact
from ragcov_tui.coverage.themes import HEURISTIC, gap_themes, heuristic_themes
from ragcov_tui.llm.base import ChatModel, ChatReply, Message
from ragcov_tui.llm.structured import ReplySchema
from tests.coverage.coverage_data import text_for, topic_data, unit
from tests.support.present import present


def test_documents_floor_and_robust_rule():
    sources = ["a"] * 3 + ["b"] * 3 + ["c"] * 3 + ["d"] * 3
    md = np.array([0.4] * 3 + [0.42] * 3 + [0.38] * 3 + [0.7] * 3)
    docs = document_coverage(sources, md, mad_k=3, floor=0.2)
    assert [d.flagged for d in docs] == [False, False, False, True] and "robust z" in docs[3].reason
    assert docs[0].coverage == pytest.approx(0.6)
    low = document_coverage(["x", "x"], np.array([0.9, 0.85]), floor=0.2)
    assert low[0].flagged and "floor" in low[0].reason  # one document: only the floor applies
    assert document_coverage(["x"], None)[0].coverage is None


def test_removal_impact_equals_recomputed_coverage_drop():
    rng = np.random.default_rng(4)
    C, Q = unit(rng.standard_normal((80, 6))), unit(rng.standard_normal((7, 6)))
    Q = np.vstack([Q, Q[:1]])  # an exact duplicate: removing either loses nothing
    D = 1.0 - C.astype(np.float64) @ Q.T.astype(np.float64)
    order = np.argsort(D, axis=1, kind="stable")
    impact = present(removal_impact(order[:, 0], D.min(axis=1), np.sort(D, axis=1)[:, 1], len(Q)))
    base = D.min(axis=1).mean()
    for j in range(len(Q)):
        without = np.delete(D, j, axis=1).min(axis=1).mean()
        assert impact[j] == pytest.approx(without - base, abs=1e-12)
    assert impact[0] == 0.0 and impact[7] == 0.0
    pairs = near_duplicate_pairs(Q, 0.01)
    assert [(a, b) for a, b, _ in pairs] == [(0, 7)]
    assert removal_impact(np.zeros(5, int), np.zeros(5), np.zeros(5), 1) is None


def test_near_duplicate_pairs_are_exact_across_blocks():
    """Screened in float32 but decided in float64: the same pairs and distances as a float64
    brute force, for pairs just inside and just outside the threshold, with tiny blocks."""
    rng = np.random.default_rng(6)
    base = unit(rng.standard_normal((30, 24)))
    near = unit(base + 0.02 * rng.standard_normal(base.shape))
    Q = np.vstack([base, near])
    D = 1.0 - Q.astype(np.float64) @ Q.T.astype(np.float64)
    threshold = float(np.median(np.diag(D[:30, 30:])))  # half of the planted pairs fall inside
    expected = [(a, b, D[a, b]) for a in range(60) for b in range(a + 1, 60) if D[a, b] < threshold]
    assert 5 < len(expected) < 40
    for budget in (4 * 60 * 7 / 2**20, 256):
        pairs = near_duplicate_pairs(Q, threshold, budget)
        assert [(a, b) for a, b, _ in pairs] == [(a, b) for a, b, _ in expected]
        np.testing.assert_allclose([d for *_, d in pairs], [d for *_, d in expected], atol=1e-12)
    for a in range(30):  # a threshold a hair above a pair's exact distance, far below float32 resolution
        assert (a, a + 30) in [(x, y) for x, y, _ in near_duplicate_pairs(Q, D[a, a + 30] + 1e-13)]


def test_default_k_and_capping():
    assert default_k(1) == 1 and default_k(8) == 2 and default_k(200) == 10 and default_k(10**6) == 50
    rng = np.random.default_rng(0)
    dup = np.repeat(unit(rng.standard_normal((3, 5))), 4, axis=0)
    assert count_distinct(dup) == 3
    cl = cluster_chunks(dup, 10, seed=0)
    assert cl.k == 3 and "capped" in cl.method and len(np.unique(cl.labels)) == 3


def test_auto_k_picks_the_planted_topics_and_minibatch_path():
    C, *_ = topic_data(n_topics=4, per_topic=60, seed=1, chunk_noise=0.2)
    auto = cluster_chunks(C, "auto", seed=0)
    assert auto.k == 4 and auto.method == "silhouette" and auto.silhouette
    mini = cluster_chunks(C, 4, seed=0, minibatch_above=100)
    assert mini.k == 4 and len(np.unique(mini.labels)) == 4
    again = cluster_chunks(C, 4, seed=0, minibatch_above=100)
    np.testing.assert_array_equal(mini.labels, again.labels)


@pytest.mark.parametrize("max_points", [1000, 60])
def test_projection_exact_and_sampled(max_points):
    C, Q, *_ = topic_data(seed=2, per_topic=20)
    labels = np.repeat(np.arange(5), 20)
    proj = project(C, Q, labels, max_points=max_points, seed=0)
    assert proj.chunk_xy.shape == (100, 2) and proj.question_xy.shape == (len(Q), 2)
    assert np.all(np.isfinite(proj.chunk_xy)) and np.abs(proj.chunk_xy).max() <= 1.0 + 1e-9
    assert proj.method == ("tsne" if max_points == 1000 else "tsne-sample")
    tiny = project(C[:1], Q[:1], labels[:1])
    assert tiny.method == "pca" and np.all(np.isfinite(tiny.chunk_xy))


def test_heuristic_themes_and_questions():
    texts = [[text_for(0, i) for i in range(5)], [text_for(3, i) for i in range(5)]]
    themes = heuristic_themes(texts, 3, 2, {1: [(f"c{i}", t) for i, t in enumerate(texts[1])]})
    assert "billing" in " ".join(themes[0].themes).lower() and "password" in " ".join(themes[1].themes).lower()
    assert themes[0].questions == []
    assert all(q["origin"] == HEURISTIC and (q.get("chunk_id") or "").startswith("c") for q in themes[1].questions)
    empty = heuristic_themes([["the and of"], ["to be"]], 3, 2, {})
    assert [t.themes for t in empty] == [[], []]


class ScriptedChat(ChatModel):
    provider, model = "scripted", "m1"

    def __init__(self, replies):
        super().__init__()
        self.replies = list(replies)

    def chat(
        self,
        messages: list[Message],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        json_mode: bool | ReplySchema = False,
        logprobs: int = 0,
    ) -> ChatReply:
        return ChatReply(self.replies.pop(0) if self.replies else "not json")


def test_llm_themes_and_fallback():
    texts = [[text_for(0, i) for i in range(3)], [text_for(1, i) for i in range(3)]]
    good = json.dumps({"themes": ["Billing cycles", "Invoices"], "questions": ["When am I billed?"]})
    gap = {0: [(f"c{i}", t) for i, t in enumerate(texts[0])]}
    out = gap_themes(ScriptedChat([good]), texts, gap, n_themes=5, n_questions=3)
    assert out[0].themes == ["Billing cycles", "Invoices"] and out[0].origin == "llm:scripted:m1"
    assert out[0].questions == [{"text": "When am I billed?", "origin": "llm:scripted:m1"}]
    bad = gap_themes(ScriptedChat(["nonsense", "still nonsense"]), texts, gap, n_themes=5, n_questions=3)
    assert bad[0].origin == HEURISTIC and "the LLM failed" in bad[0].note and bad[0].themes
    assert bad[0].fallback.startswith("unusable JSON reply after one repair")


def test_gap_questions_come_from_the_least_covered_chunks():
    labels = np.array([0, 0, 0, 1])
    mindist = np.array([0.2, 0.9, 0.5, 0.1])
    assert least_covered_texts(["a", "b", "c", "d"], labels, mindist, 0, 2) == ["b", "c"]
    assert least_covered_texts(["a", "b", "c", "d"], labels, None, 0, 2) == []
