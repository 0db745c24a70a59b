"""Traffic coverage and health at scale: a query log of ``--rows`` rows (1M for issue #31) with many
duplicates, latency, retrieved scores and feedback, against a ~5k-chunk corpus.

The corpus and test questions are the synthetic BEIR set of ``beir_data.py`` (5,000 documents of
120-280 words: one chunk each; 300 queries as the test set). The log has ``--rows`` rows drawn from
``--distinct`` query strings with Zipf-like popularity (the k-th most popular asked ∝ 1/k), each a
test-set query with one to three words dropped or added; one row in four re-spells its query
(upper case, doubled spaces: the reader must merge them), one in ten carries a count above 1, and
every row a timestamp, a latency, three retrieved documents with scores and a session id; one row
in three has thumbs up or down (the queries of one test query in ten are served worse: slower, lower
scores, more thumbs down, some with no result). Peak RSS (``ru_maxrss``) is printed after reading
the log and after each run. Measured (seconds): reading + aggregating the log alone, then
``ragcov analyze --traffic`` twice on one database — cold (every text embedded) and warm (the
embedding cache answers) — with the pipeline's own stage timings (``traffic_read``,
``traffic_embed``, ``traffic`` = nearest search + clustering + calibration, ``store``). Offline
embedder by default (``local``: MiniLM int8 on onnxruntime).

    .venv/bin/python benchmarks/traffic_scale.py --rows 100000 --distinct 20000 --docs 5000
    .venv/bin/python benchmarks/traffic_scale.py --rows 1000000 --distinct 20000 --embedder hash --window 7d
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import tempfile
import time
import zlib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.beir_data import write_beir  # noqa: E402
from ragcov_tui.services.analysis_job import AnalyzeOptions, run_analysis  # noqa: E402
from ragcov_tui.store import open_db  # noqa: E402
from ragcov_tui.traffic.reader import read_traffic  # noqa: E402


def variants(queries: list[str], n: int, rng: random.Random) -> list[str]:
    """``n`` distinct query strings: test queries with one to three words dropped or added."""
    vocabulary = sorted({w for q in queries for w in q.split()})
    out: dict[str, None] = dict.fromkeys(queries[: min(n, len(queries))])
    while len(out) < n:
        words = rng.choice(queries).split()
        for _ in range(rng.randint(1, 3)):
            if len(words) > 3 and rng.random() < 0.5:
                words.pop(rng.randrange(len(words)))
            else:
                words.insert(rng.randrange(len(words) + 1), rng.choice(vocabulary))
        out.setdefault(" ".join(words))
    return list(out)


def served(rng: random.Random, worse: bool) -> dict:
    """Latency, three retrieved documents with scores, feedback one row in three, a session id."""
    best = rng.uniform(0.25, 0.45) if worse else rng.uniform(0.6, 0.9)
    row: dict = {
        "latency_ms": round(rng.lognormvariate(8.0 if worse else 6.8, 0.35)),
        "retrieved": []
        if worse and rng.random() < 0.1
        else [{"id": f"doc{rng.randrange(5000)}", "score": round(best - 0.05 * k, 3)} for k in range(3)],
        "session_id": f"s{rng.randrange(50_000)}",
    }
    if rng.random() < 1 / 3:
        row["feedback"] = "down" if rng.random() < (0.6 if worse else 0.08) else "up"
    return row


def write_log(path: Path, distinct: list[str], rows: int, rng: random.Random) -> None:
    weights = [1.0 / (k + 1) for k in range(len(distinct))]
    picks = rng.choices(range(len(distinct)), weights=weights, k=rows)
    worse = {
        q for q in distinct if zlib.crc32(q.split()[0].encode()) % 10 == 0
    }  # one first word in ten: a topic served worse
    with path.open("w", encoding="utf-8") as f:
        for i, k in enumerate(picks):
            text = distinct[k]
            if rng.random() < 0.25:
                text = text.upper() if rng.random() < 0.5 else "  " + text.replace(" ", "  ")
            row = {"query": text, "timestamp": 1767225600 + i * 26, **served(rng, distinct[k] in worse)}
            if rng.random() < 0.1:
                row["count"] = rng.randint(2, 20)
            f.write(json.dumps(row) + "\n")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--distinct", type=int, default=20_000)
    parser.add_argument("--docs", type=int, default=5000)
    parser.add_argument("--embedder", default="local")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--window", default=None, help="traffic health of the last window (e.g. 7d)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        beir = write_beir(Path(tmp) / "beir", docs=args.docs, queries=300, seed=args.seed)
        queries = [json.loads(line)["text"] for line in (beir / "queries.jsonl").read_text().splitlines()]
        log = Path(tmp) / "traffic.jsonl"
        write_log(log, variants(queries, args.distinct, rng), args.rows, rng)
        t = time.perf_counter()
        parsed = read_traffic(log)
        read_s = time.perf_counter() - t
        print(
            f"log: {parsed.rows:,} rows, {parsed.total:,} queries, {len(parsed.texts):,} distinct "
            f"({log.stat().st_size / 1e6:.1f} MB); read + aggregate {read_s:.2f} s; peak RSS {peak_rss_mb():,.0f} MB"
        )
        del parsed
        db = open_db(Path(tmp) / "ragcov.db")
        opts = AnalyzeOptions(
            corpus=[], questions=str(beir), embedder=args.embedder, traffic=str(log), window=args.window
        )
        for label in ("cold", "warm"):
            t = time.perf_counter()
            _, report = run_analysis(opts, db)
            wall = time.perf_counter() - t
            timings = report["timings"]
            traffic = report["traffic"]
            print(f"{label}: total {wall:.1f} s; " + ", ".join(f"{k} {v:.2f}" for k, v in timings.items()))
            print(
                f"  {report['corpus']['chunks']:,} chunks, {report['questions']['total']} questions; "
                f"{len(traffic['clusters'])} traffic clusters, {traffic['content_gap']['queries']:,} unanswerable "
                f"distinct queries, {len(traffic['unasked_questions']['questions'])} tests nobody asks; "
                f"embeddings: {report['usage']['embeddings']}; peak RSS {peak_rss_mb():,.0f} MB"
            )
            overall = traffic["health"]["overall"]
            spots = traffic["health"]["hotspots"]
            print(
                f"  health: p50 {overall['latency_ms']['p50']} ms, p95 {overall['latency_ms']['p95']} ms, "
                f"negative feedback {overall['negative_feedback']['rate']:.3f}, "
                f"{len(spots)} hotspots"
                + (f" (first: cluster {spots[0]['cluster']}, {spots[0]['worse']})" if spots else "")
            )


if __name__ == "__main__":
    main()
