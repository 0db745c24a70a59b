"""Judged eval items per second against a slow local judge, and the warm-cache rerun.

A local OpenAI-compatible server (``tests.support.fake_api.FakeAPIServer``) answers every judge
prompt after ``--latency`` seconds (default 0.2) with deterministic rule-based verdicts. The
benchmark runs ``run_eval`` (``builtin:bm25`` over a synthetic corpus, the ``hash`` embedder, every
LLM-judged generation metric) at each ``--concurrency`` level on a fresh database, so every call
really goes to the server, then reruns the last level on the same database: every reply comes
from the LLM cache and the server sees 0 calls.

    .venv/bin/python benchmarks/eval_throughput.py [--latency 0.2] [--levels 1,8,32]

Items per second should grow near-linearly with concurrency until the item count or the server
becomes the limit; judge calls inside one item are sequential (a claim check needs the claims).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ragcov_tui.services.eval_job import EvalOptions, run_eval  # noqa: E402
from ragcov_tui.store.db import open_db  # noqa: E402
from tests.evaluation.generation.gen_fake_judge import RuleJudge  # noqa: E402
from tests.support.fake_api import FakeAPIServer  # noqa: E402

JUDGED = ["faithfulness", "answer_relevance", "answer_correctness", "context_precision", "context_recall"]
TIERS = 12  # up to len(TOPICS) * TIERS distinct questions
TOPICS = ["billing", "security", "setup", "search", "exports", "webhooks", "mobile", "admin"]


def write_workspace(root: Path, n_questions: int) -> tuple[str, str]:
    """A synthetic corpus (one document per topic) and ``n_questions`` questions with references."""
    corpus = root / "corpus"
    corpus.mkdir(parents=True)
    for t, topic in enumerate(TOPICS):
        facts = " ".join(f"The {topic} limit for tier {i} is {10 * (t + 1) + i} units." for i in range(TIERS))
        (corpus / f"{topic}.md").write_text(f"# {topic}\n\n{facts}\n")
    rows = []
    for q in range(n_questions):
        topic, tier = TOPICS[q % len(TOPICS)], q // len(TOPICS)  # every question distinct
        rows.append(
            {
                "id": f"q{q}",
                "question": f"What is the {topic} limit for tier {tier}?",
                "ground_truth": f"The {topic} limit for tier {tier} is {10 * (TOPICS.index(topic) + 1) + tier} units.",
                "gold_doc_ids": [f"{topic}.md"],
            }
        )
    questions = root / "questions.jsonl"
    questions.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(corpus), str(questions)


def run_level(server: FakeAPIServer, db, corpus: str, questions: str, concurrency: int) -> dict:
    before = server.count("/chat/completions")
    opts = EvalOptions(
        questions=questions,
        system="builtin:bm25",
        corpus=[corpus],
        embedder="hash",
        judge_llm="openai:bench-judge",
        metrics=["retrieval", *JUDGED],
        k=3,
        concurrency=concurrency,
        chunk_size=120,
        chunk_overlap=0,
    )
    t0 = time.perf_counter()
    _, report = run_eval(opts, db)
    seconds = time.perf_counter() - t0
    items = report["counts"]["done"]
    return {
        "concurrency": concurrency,
        "items": items,
        "seconds": seconds,
        "items_per_s": items / seconds,
        "calls": server.count("/chat/completions") - before,
        "max_in_flight": server.max_in_flight,
        "errors": len(report["errors"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the judge server waits per call")
    parser.add_argument("--levels", default="1,8,32", help="comma-separated concurrency levels")
    args = parser.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    rows = []
    with FakeAPIServer() as server, tempfile.TemporaryDirectory() as tmp:
        server.latency = args.latency
        server.chat_handler = RuleJudge()
        os.environ.update(OPENAI_API_KEY="bench", OPENAI_BASE_URL=server.base_url)
        for c in levels:
            corpus, questions = write_workspace(Path(tmp) / f"c{c}", min(len(TOPICS) * TIERS, max(8, 2 * c)))
            db = open_db(":memory:")
            rows.append(run_level(server, db, corpus, questions, c))
        warm = run_level(server, db, corpus, questions, levels[-1])
        warm["concurrency"] = f"{levels[-1]} (warm cache)"
        rows.append(warm)
    base = rows[0]["items_per_s"]
    print(f"judge latency {args.latency:.3f} s per call; metrics: {', '.join(JUDGED)}")
    print(
        f"{'concurrency':>18} {'items':>6} {'seconds':>8} {'items/s':>8} {'speed-up':>9} {'judge calls':>12} "
        f"{'errors':>7}"
    )
    for r in rows:
        print(
            f"{r['concurrency']!s:>18} {r['items']:>6} {r['seconds']:>8.2f} {r['items_per_s']:>8.2f} "
            f"{r['items_per_s'] / base:>8.1f}x {r['calls']:>12} {r['errors']:>7}"
        )


if __name__ == "__main__":
    main()
