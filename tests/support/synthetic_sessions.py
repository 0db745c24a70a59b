"""Realistic analysis and eval sessions of any size, inserted straight into the schema-v1 tables.

Used by the TUI tests (fixed seeds and timestamps, so snapshots are stable) and by
``benchmarks/tui_startup.py`` (100k chunks / 10k questions). The numbers are drawn from a seeded
generator but keep the relations the app relies on: every chunk has a cluster and a distance,
inlier questions have a nearest cluster, the report carries the ``analyze --json`` contract
without its per-item lists, and eval items carry retrieval / generation metrics with details.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import sqlite_utils

from ragcov_tui.shared.json_types import JsonObject

RADIUS = 0.3  # the answering radius of the synthetic sessions
WORDS = (
    "billing invoice refund account password login export import schema index cluster replica backup "
    "restore latency quota token webhook retry timeout region storage encryption audit role policy "
    "search ranking embedding chunk vector cache deploy rollback upgrade license pricing support"
).split()

TRICKY_TEXTS = ("Why does [/INST] appear in the reply?", "Is [bold red]this[/] shown literally?")


def _sentence(rng: np.random.Generator, n: int) -> str:
    return " ".join(rng.choice(WORDS, size=n)).capitalize()


def write_testset(path: Path, questions: list[tuple[str, str]]) -> str:
    """Write a JSONL test file of ``(id, question)`` rows; returns the sha256 of its bytes."""
    body = "".join(json.dumps({"id": qid, "question": text}) + "\n" for qid, text in questions)
    path.write_text(body, encoding="utf-8")
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _insert_session(db: sqlite_utils.Database, row: dict[str, Any]) -> None:
    base = {"status": "done", "user": "tester", "llm": "heuristic", "corpus": json.dumps(["docs/"]), "params": "{}"}
    db.table("sessions").insert({**base, **row})


def make_analysis_session(
    db: sqlite_utils.Database,
    *,
    sid: str = "a0000001",
    n_chunks: int = 200,
    n_questions: int = 40,
    n_clusters: int = 6,
    n_documents: int = 8,
    seed: int = 0,
    testset_dir: Path | None = None,
    created_at: str = "2025-01-02T10:00:00+00:00",
    name: str | None = None,
    tricky: bool = True,
) -> str:
    """Insert a finished analysis session; with ``testset_dir`` its questions also go to a real file.

    ``tricky`` makes the first questions carry markup-like text (``[/INST]``, ``[bold red]``).
    """
    rng = np.random.default_rng(seed)
    sources = [f"doc-{d:03d}.md" for d in range(n_documents)]
    chunk_cluster = rng.integers(0, n_clusters, size=n_chunks)
    chunk_source = rng.integers(0, n_documents, size=n_chunks)
    mindist = np.clip(rng.gamma(2.0, 0.15, size=n_chunks), 0.0, 1.2)
    centers = rng.normal(0, 6, size=(n_clusters, 2))
    chunk_xy = centers[chunk_cluster] + rng.normal(0, 1, size=(n_chunks, 2))
    qtexts = [_sentence(rng, 6) + "?" for _ in range(n_questions)]
    if tricky:
        qtexts[: len(TRICKY_TEXTS)] = TRICKY_TEXTS[:n_questions]
    qids = [f"q{i:05d}" for i in range(n_questions)]
    lof = rng.gamma(3.0, 0.4, size=n_questions) + 0.8
    outlier = lof > np.quantile(lof, 0.9) if n_questions else lof > 0
    q_cluster = rng.integers(0, n_clusters, size=n_questions)
    q_xy = centers[q_cluster] + rng.normal(0, 1.5, size=(n_questions, 2))

    questions_path, sha = None, None
    if testset_dir is not None:
        path = Path(testset_dir) / "questions.jsonl"
        sha = write_testset(path, list(zip(qids, qtexts, strict=True)))
        questions_path = str(path.resolve())

    shares = np.bincount(chunk_cluster, minlength=n_clusters) / max(n_chunks, 1)
    cov = np.array([1 - float(mindist[chunk_cluster == c].mean()) if shares[c] else 0.0 for c in range(n_clusters)])
    within = mindist <= RADIUS  # the calibrated figures (coverage/calibration.py), from the same distances
    covered = [round(float(within[chunk_cluster == c].mean()), 4) if shares[c] else None for c in range(n_clusters)]
    clusters: list[JsonObject] = [
        {
            "id": c,
            "size": int((chunk_cluster == c).sum()),
            "share": round(float(shares[c]), 4),
            "coverage": round(float(cov[c]), 4),
            "covered_share": covered[c],
            "themes": [str(w) for w in rng.choice(WORDS, 3, replace=False)],
        }
        for c in range(n_clusters)
    ]
    gaps: list[JsonObject] = sorted(
        (
            {
                "cluster": c["id"],
                "coverage": c["coverage"],
                "size": c["size"],
                "covered_share": c["covered_share"],
                "priority": round(c["share"] * (1 - c["coverage"]), 4),
                "themes": c["themes"],
                "suggested_questions": [f"How does {' '.join(c['themes'][:2])} work (variant {k})?" for k in range(3)],
            }
            for c in clusters
            if c["coverage"] < 0.75
        ),
        key=lambda g: -g["priority"],
    )
    documents: list[JsonObject] = []
    for d, src in enumerate(sources):
        mask = chunk_source == d
        dcov = round(1 - float(mindist[mask].mean()), 4) if mask.any() else None
        documents.append(
            {
                "source": src,
                "chunks": int(mask.sum()),
                "coverage": dcov,
                "flagged": dcov is not None and dcov < 0.6,
                "reach": round(1 - float(mindist[mask].min()), 4) if mask.any() else None,
                "covered_share": round(float(within[mask].mean()), 4) if mask.any() else None,
                "unreached": bool(mask.any() and not within[mask].any()),
                "gold_count": None,
            }
        )
    ranked = sorted(
        documents, key=lambda doc: (doc["reach"] is None, doc["reach"] or 0, doc["covered_share"] or 0, doc["source"])
    )
    for rank, doc in enumerate(ranked, 1):
        doc["rank"] = rank
    flagged = [min(documents, key=lambda doc: doc["coverage"] if doc["coverage"] is not None else 2.0)["source"]]
    next(doc for doc in documents if doc["source"] == flagged[0])["flagged"] = True
    for i, g in enumerate(gaps):  # the lowest-priority gap is mostly one (the least covered) document
        last = i == len(gaps) - 1 and bool(flagged)
        g["flagged_documents"] = flagged if last else []
        g["note"] = (
            (
                f"mostly content of flagged document(s) {', '.join(flagged)}: check whether it belongs in the "
                "corpus before adding questions"
            )
            if last
            else ""
        )
    n_out = int(outlier.sum())
    report: JsonObject = {
        "session_id": sid,
        "embedder": {"provider": "local", "model": "all-MiniLM-L6-v2", "dim": 384},
        "corpus": {"documents": n_documents, "chunks": n_chunks},
        "questions": {"total": n_questions, "inliers": n_questions - n_out, "outliers": n_out},
        "coverage": {
            "basic": round(1 - float(mindist.mean()), 4),
            "weighted": round(float((shares * cov).sum()), 4),
            "multi_threshold": 0.42,
            "multi_n": 0.38,
            "threshold": 0.6,
            "top_n": 3,
            "covered_share": round(float(within.mean()), 4) if n_chunks else None,
        },
        "clusters": clusters,
        "gaps": gaps,
        "documents": documents,
        "calibration": {
            "radius": RADIUS,
            "text": f"answering radius {RADIUS} (fixed in this synthetic session)",
            "gaps_text": f"gaps: clusters with coverage below 0.75 (synthetic) — {len(gaps)} of {n_clusters}",
        },
    }
    summary = {
        "basic": report["coverage"]["basic"],
        "weighted": report["coverage"]["weighted"],
        "multi_threshold": 0.42,
        "multi_n": 0.38,
        "chunks": n_chunks,
        "questions": n_questions,
        "outliers": n_out,
        "gaps": len(gaps),
    }
    conn = db.conn
    with conn:
        _insert_session(
            db,
            {
                "id": sid,
                "kind": "analysis",
                "name": name,
                "created_at": created_at,
                "finished_at": created_at,
                "questions_path": questions_path or "/data/questions.jsonl",
                "testset_sha256": sha,
                "embedder": "local:all-MiniLM-L6-v2-int8",
                "summary": json.dumps(summary),
                "params": json.dumps({"clusters": n_clusters, "chunk_size": 500, "chunk_overlap": 50}),
            },
        )
        db.table("reports").insert({"session_id": sid, "report": json.dumps(report)})
        conn.executemany(
            "INSERT INTO documents VALUES (?,?,?,?,?)",
            [
                (sid, s, f"/data/docs/{s}", documents[i]["chunks"], 1000 * documents[i]["chunks"])
                for i, s in enumerate(sources)
            ],
        )
        chunk_words = rng.choice(WORDS, size=(n_chunks, 12))
        conn.executemany(
            "INSERT INTO chunks VALUES (?,?,?,?,?,?,?)",
            (
                (sid, f"c{i:06d}", i, sources[chunk_source[i]], i, 120, " ".join(chunk_words[i]))
                for i in range(n_chunks)
            ),
        )
        nearest_q = rng.integers(0, max(n_questions, 1), size=n_chunks)
        conn.executemany(
            "INSERT INTO chunk_results VALUES (?,?,?,?,?,?,?,?,?)",
            (
                (
                    sid,
                    f"c{i:06d}",
                    i,
                    sources[chunk_source[i]],
                    int(chunk_cluster[i]),
                    float(mindist[i]),
                    qids[nearest_q[i]] if n_questions else None,
                    float(chunk_xy[i, 0]),
                    float(chunk_xy[i, 1]),
                )
                for i in range(n_chunks)
            ),
        )
        conn.executemany(
            "INSERT INTO questions VALUES (?,?,?,?,?)",
            (
                (sid, qids[i], i, qtexts[i], json.dumps({"id": qids[i], "question": qtexts[i]}))
                for i in range(n_questions)
            ),
        )
        nearest_c = rng.integers(0, n_chunks, size=n_questions)
        conn.executemany(
            "INSERT INTO question_results VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                (
                    sid,
                    qids[i],
                    i,
                    qtexts[i],
                    float(lof[i]),
                    int(outlier[i]),
                    None if outlier[i] else int(q_cluster[i]),
                    f"c{nearest_c[i]:06d}",
                    float(rng.uniform(0.2, 0.9)),
                    json.dumps([qids[i - 1]]) if i % 7 == 3 else None,
                    float(q_xy[i, 0]),
                    float(q_xy[i, 1]),
                )
                for i in range(n_questions)
            ),
        )
        conn.executemany(
            "INSERT INTO suggestions (session_id, cluster, text, origin) VALUES (?,?,?,?)",
            ((sid, g["cluster"], text, "heuristic") for g in gaps for text in g["suggested_questions"]),
        )
    return sid


def make_eval_session(
    db: sqlite_utils.Database,
    *,
    sid: str = "e0000001",
    n_questions: int = 40,
    k: int = 5,
    seed: int = 1,
    created_at: str = "2025-01-02T11:00:00+00:00",
    name: str | None = None,
    questions_path: str = "/data/questions.jsonl",
    tricky: bool = True,
) -> str:
    """Insert a finished eval session with ``n_questions`` scored items (a few of them errors)."""
    rng = np.random.default_rng(seed)
    rkeys = [f"precision@{k}", f"recall@{k}", f"hit@{k}", f"ndcg@{k}", "mrr", "map"]
    gkeys = ["faithfulness", "answer_relevance", "answer_correctness", "context_precision", "robustness"]
    diagnoses = ["ok", "retrieval miss", "unfaithful answer", "incomplete answer", "ok"]
    rows = []
    for i in range(n_questions):
        qtext = TRICKY_TEXTS[i] if tricky and i < len(TRICKY_TEXTS) else _sentence(rng, 7) + "?"
        error = i % 97 == 13
        retrieval = {key: round(float(rng.beta(2, 1.5)), 4) for key in rkeys}
        generation = {
            key: (None if key == "robustness" and i % 5 == 0 else round(float(rng.beta(3, 1.2)), 4)) for key in gkeys
        }
        retrieved = [
            {
                "id": f"c{int(rng.integers(0, 10**5)):06d}",
                "text": _sentence(rng, 14),
                "score": round(1 - j * 0.1, 3),
                "cited": j < 2,
            }
            for j in range(k)
        ]
        claims = [
            {"claim": _sentence(rng, 6), "verdict": v, "reason": "supported by passage [1]"}
            for v in ("supported", "not_found")
        ]
        details = {
            "paraphrases": {
                "source": "test file",
                "items": [{"question": _sentence(rng, 6) + "?", "answer": _sentence(rng, 10)}],
            },
            "spread": {"faithfulness": round(float(rng.uniform(0, 0.2)), 4)},
            "generation_details": {"faithfulness": {"claims": claims}},
            "undefined": {"robustness": "no paraphrases were run"} if generation["robustness"] is None else {},
        }
        judge = [
            {
                "metric": "faithfulness",
                "prompt": "Claims: ...[INST] check [/INST]",
                "raw": '{"verdicts": [1, 0]}',
                "error": None,
            }
        ]
        rows.append(
            (
                sid,
                f"q{i:05d}",
                i,
                "error" if error else "done",
                qtext,
                None if error else "The answer is " + _sentence(rng, 12) + " [bold]literally[/bold].",
                json.dumps(retrieved),
                None if error else json.dumps(retrieval),
                None if error else json.dumps(generation),
                json.dumps(details),
                json.dumps(judge),
                "error" if error else diagnoses[i % len(diagnoses)],
                "system timed out" if error else None,
                created_at,
            )
        )
    means = {
        "retrieval.mrr": round(float(rng.uniform(0.4, 0.9)), 4),
        "retrieval.hit@5": round(float(rng.uniform(0.5, 1)), 4),
        "generation.faithfulness": round(float(rng.uniform(0.5, 0.9)), 4),
    }
    summary = {
        "k": k,
        "system": "builtin:hybrid",
        "judge": "heuristic",
        "means": means,
        "n": {key: n_questions for key in means},
        "counts": {"done": n_questions},
    }
    with db.conn:
        _insert_session(
            db,
            {
                "id": sid,
                "kind": "eval",
                "name": name,
                "created_at": created_at,
                "finished_at": created_at,
                "questions_path": questions_path,
                "embedder": "local:all-MiniLM-L6-v2-int8",
                "system": "builtin:hybrid",
                "summary": json.dumps(summary),
                "params": json.dumps({"k": k, "paraphrases": 1, "repeats": 1}),
            },
        )
        db.conn.executemany("INSERT INTO eval_items VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
    return sid
