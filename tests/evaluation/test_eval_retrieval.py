"""Retrieval metrics agree with trec_eval (via pytrec_eval) to 1e-9 on random runs."""

from __future__ import annotations

import math
import random

import pytest
import pytrec_eval

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.evaluation.retrieval import (
    GoldIndex,
    aggregate,
    evaluate_retrieval,
    score_ranking,
)

K_VALUES = (1, 3, 5, 10)


def _random_case(rng: random.Random, graded: bool) -> tuple[dict[str, int], list[str]]:
    pool = [f"d{i}" for i in range(40)]
    judged = rng.sample(pool, rng.randint(1, 12))
    qrel = {d: (rng.randint(0, 3) if graded else rng.randint(0, 1)) for d in judged}
    if not any(qrel.values()):
        qrel[judged[0]] = 1
    ranking = rng.sample(pool, rng.randint(0, 25))
    return qrel, ranking


@pytest.mark.parametrize("graded", [False, True])
def test_metrics_match_pytrec_eval_on_random_runs(graded: bool) -> None:
    rng = random.Random(7 if graded else 3)
    qrels, runs, rankings = {}, {}, {}
    for q in range(300):
        qrel, ranking = _random_case(rng, graded)
        qid = f"q{q}"
        qrels[qid] = qrel
        rankings[qid] = ranking
        # distinct descending scores make trec_eval's order the given order
        runs[qid] = {d: float(len(ranking) - r) for r, d in enumerate(ranking)}
    measures = {"map", "recip_rank"} | {f"{m}.{','.join(map(str, K_VALUES))}" for m in ("P", "recall", "ndcg_cut")}
    trec = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(runs)
    for qid, ranking in rankings.items():
        got_map = None
        for k in K_VALUES:
            ours = score_ranking(ranking, qrels[qid], k)
            expected = trec.get(qid, {})
            if not ranking:  # trec_eval drops queries with an empty run; every score is 0 then
                assert set(ours.values()) == {0.0}
                continue
            assert ours[f"precision@{k}"] == pytest.approx(expected[f"P_{k}"], abs=1e-9)
            assert ours[f"recall@{k}"] == pytest.approx(expected[f"recall_{k}"], abs=1e-9)
            assert ours[f"ndcg@{k}"] == pytest.approx(expected[f"ndcg_cut_{k}"], abs=1e-9)
            assert ours["mrr"] == pytest.approx(expected["recip_rank"], abs=1e-9)
            assert ours["map"] == pytest.approx(expected["map"], abs=1e-9)
            got_map = ours["map"]
            hits = any(d in ranking[:k] and qrels[qid][d] >= 1 for d in qrels[qid])
            assert ours[f"hit@{k}"] == (1.0 if hits else 0.0)
        if ranking:
            assert got_map is not None


def test_no_relevant_gold_gives_undefined_not_zero() -> None:
    scores = score_ranking(["a", "b"], {"a": 0}, 5)
    assert set(scores.values()) == {None}
    assert set(score_ranking(["a"], {}, 5).values()) == {None}


def test_graded_ndcg_uses_linear_gains() -> None:
    # ranking: b (grade 1), a (grade 3); ideal: a, b
    scores = score_ranking(["b", "a"], {"a": 3, "b": 1}, 2)
    dcg = 1 / 1 + 3 / math.log2(3)
    idcg = 3 / 1 + 1 / math.log2(3)
    assert scores["ndcg@2"] == pytest.approx(dcg / idcg, abs=1e-12)


def _chunks() -> list[Chunk]:
    return [
        Chunk(id="billing.md#0", text="t", source="billing.md", position=0),
        Chunk(id="billing.md#1", text="t", source="billing.md", position=1),
        Chunk(id="setup.md#0", text="t", source="setup.md", position=0),
    ]


def test_document_level_maps_chunks_to_documents_keeping_first_rank() -> None:
    index = GoldIndex(_chunks())
    result = evaluate_retrieval(["billing.md#1", "billing.md#0", "setup.md#0"], {"setup.md": 1}, 2, index)
    assert result.level == "document"
    assert result.ranking == ["billing.md", "setup.md"]
    assert result.values["mrr"] == 0.5
    assert result.values["hit@2"] == 1.0
    assert result.relevant_ranks == [2]


def test_chunk_level_when_gold_names_chunks() -> None:
    index = GoldIndex(_chunks())
    result = evaluate_retrieval(["billing.md#1", "billing.md#1", "setup.md#0"], {"setup.md#0": 1}, 5, index)
    assert result.level == "chunk"
    assert result.ranking == ["billing.md#1", "setup.md#0"]  # repeat dropped
    assert result.values["mrr"] == 0.5


def test_aggregate_counts_only_defined_values() -> None:
    agg = aggregate([{"mrr": 1.0}, {"mrr": None}, {"mrr": 0.0}])
    assert agg["mrr"] == {"mean": 0.5, "n": 2, "std": 0.5}
    assert aggregate([{"mrr": None}])["mrr"] == {"mean": None, "n": 0, "std": None}
