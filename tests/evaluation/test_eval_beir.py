"""Evaluating straight from a BEIR folder: retrieval-only runs embed nothing of the corpus, nDCG
equals pytrec_eval's, a warm dense rerun embeds zero texts, generation metrics embed only what
they score."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from ragcov_tui.services.eval_job import EvalOptions, run_eval
from ragcov_tui.store.db import open_db

TOPICS = [
    "invoice payment billing",
    "password login security",
    "install agent server",
    "export csv data",
    "webhook endpoint retry",
    "mobile app offline",
    "search index query",
    "admin role permission",
]


def make_beir(root: Path, *, docs: int = 60, queries: int = 24, seed: int = 3) -> Path:
    """A small BEIR folder whose BM25 ranking is imperfect (graded judgements, shared topic words)."""
    rng = random.Random(seed)
    filler = [f"word{i}" for i in range(300)]
    (root / "qrels").mkdir(parents=True)
    with open(root / "corpus.jsonl", "w") as f:
        for d in range(docs):
            topic = TOPICS[d % len(TOPICS)].split()
            body = rng.sample(filler, 30) + rng.sample(topic, 2) + [f"unique{d}"] * rng.choice((1, 2))
            rng.shuffle(body)
            f.write(json.dumps({"_id": f"doc{d}", "title": f"{topic[0]} notes {d}", "text": " ".join(body)}) + "\n")
    lines = ["query-id\tcorpus-id\tscore"]
    with open(root / "queries.jsonl", "w") as f:
        for q in range(queries + 4):
            target = rng.randrange(docs)
            other = (target + len(TOPICS)) % docs
            words = TOPICS[target % len(TOPICS)].split()[:2] + [f"unique{target}", rng.choice(filler)]
            f.write(json.dumps({"_id": f"q{q}", "text": " ".join(words)}) + "\n")
            if q < queries:  # the last four queries have no judgement: left out
                lines += [f"q{q}\tdoc{target}\t2", f"q{q}\tdoc{other}\t1"]
    (root / "qrels" / "test.tsv").write_text("\n".join(lines) + "\n")
    return root


@pytest.fixture()
def beir(tmp_path: Path) -> Path:
    return make_beir(tmp_path / "beir")


def _eval(folder: Path, db, **kw):
    return run_eval(
        EvalOptions(questions=str(folder), **{"system": "builtin:bm25", "k": 10, "embedder": "hash", **kw}), db
    )[1]


def test_bm25_on_a_beir_folder_embeds_nothing_and_scores_retrieval_only(beir: Path) -> None:
    report = _eval(beir, open_db(":memory:"))
    assert len(report["questions"]) == 24  # only judged queries
    assert report["aggregate"]["generation"] == {}
    assert report["usage"]["embeddings"]["texts"] == 0
    assert report["embedding"]["corpus"] == {"texts": 0, "cached": 0, "embedded": 0}
    assert "corpus: nothing (builtin:bm25 needs no corpus vectors)" in report["embedding"]["why"]
    assert report["gold_ids"]["matched"] == report["gold_ids"]["ids"] > 24 and report["gold_ids"]["unmatched"] == 0
    assert {q["level"] for q in report["questions"]} == {"document"}
    assert all(q["answer"] == "" for q in report["questions"])


def test_ndcg_equals_pytrec_eval_on_the_same_run(beir: Path) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    report = _eval(beir, open_db(":memory:"))
    qrels: dict[str, dict[str, int]] = {}
    for line in (beir / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        qid, doc, grade = line.split("\t")
        qrels.setdefault(qid, {})[doc] = int(grade)
    run = {}
    for q in report["questions"]:
        docs = list(dict.fromkeys(c["id"].split("#")[0] for c in q["retrieved"]))
        run[q["id"]] = {d: float(len(docs) - r) for r, d in enumerate(docs)}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recip_rank"}).evaluate(run)
    values = [q["retrieval"]["ndcg@10"] for q in report["questions"]]
    assert 0.2 < sum(values) / len(values) < 0.99  # an imperfect ranking, so the check means something
    for q in report["questions"]:
        assert q["retrieval"]["ndcg@10"] == pytest.approx(expected[q["id"]]["ndcg_cut_10"], abs=1e-9)
        assert q["retrieval"]["mrr"] == pytest.approx(expected[q["id"]]["recip_rank"], abs=1e-9)
    assert report["aggregate"]["retrieval"]["ndcg@10"]["mean"] == pytest.approx(
        sum(e["ndcg_cut_10"] for e in expected.values()) / len(expected), abs=1e-9
    )


@pytest.mark.parametrize("system", ["builtin:dense", "builtin:hybrid"])
def test_a_warm_dense_rerun_embeds_zero_texts(beir: Path, tmp_path: Path, system: str) -> None:
    db = open_db(tmp_path / "ragcov.db")
    cold = _eval(beir, db, system=system)
    assert cold["embedding"]["corpus"]["embedded"] == 60  # one chunk per abstract, embedded once
    assert cold["embedding"]["per_question"]["embedded"] == 24  # the queries, for dense retrieval
    warm = _eval(beir, open_db(tmp_path / "ragcov.db"), system=system)
    assert warm["usage"]["embeddings"]["embedded"] == 0
    assert warm["embedding"]["corpus"] == {"texts": 60, "cached": 60, "embedded": 0}
    assert "60 chunks for the " + system + " index (60 from the cache, 0 embedded)" in warm["embedding"]["why"]
    assert warm["aggregate"]["retrieval"] == cold["aggregate"]["retrieval"]


def test_generation_metrics_embed_only_the_texts_they_score(beir: Path) -> None:
    report = _eval(beir, open_db(":memory:"), metrics="all")
    assert report["aggregate"]["generation"]  # asked for: answers are written and scored
    assert report["embedding"]["corpus"]["texts"] == 0  # still nothing of the corpus as such
    assert report["embedding"]["per_question"]["texts"] > 0
    assert "for the generation metrics" in report["embedding"]["why"]


def test_split_and_explicit_corpus(beir: Path) -> None:
    (beir / "qrels" / "dev.tsv").write_text("q1\tdoc5\t1\n")
    report = _eval(beir, open_db(":memory:"), split="dev", corpus=[str(beir / "corpus.jsonl")])
    assert [q["id"] for q in report["questions"]] == ["q1"]
