"""Scale benchmark of ``--corpus lancedb:…`` (prints figures; not a test).

Builds (in a child process, so its memory never counts) a LanceDB table of N synthetic 384-d
chunk vectors with text and documents (the clustered data of ``coverage_scale.py``: chunk c{i} of
document doc{topic}), then in this process: reads it through the vector-store reader (rows/s,
RSS after reading), runs the coverage engine on the stored vectors against M synthetic questions
(wall time per stage) and stores the session as ``ragcov analyze`` does (documents, vectors,
results into a SQLite file), printing the peak RSS (the process high-water mark). The questions
are vectors drawn around half the topics, as an ``--embedder`` would give them.

    .venv/bin/python benchmarks/store_scale.py [--chunks 100000] [--questions 10000] [--dir /tmp/x]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from coverage_scale import DIM, TOPICS, StageTimer, clustered, load, peak_rss_gb

from ragcov_tui.coverage.analysis import analyze
from ragcov_tui.coverage.params import CoverageParams
from ragcov_tui.store import open_db
from ragcov_tui.store.analysis import save_analysis
from ragcov_tui.store.sessions import create_session
from ragcov_tui.store.vectors import save_documents, save_vectors
from ragcov_tui.testset.models import Question
from ragcov_tui.vectorstores.corpus import read_store_corpus
from ragcov_tui.vectorstores.registry import parse_store_spec

BLOCK = 65536
TABLE = "chunks"


def centres(seed: int = 0) -> tuple[np.ndarray, np.random.Generator]:
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((TOPICS, DIM), dtype=np.float32)
    return c / np.linalg.norm(c, axis=1, keepdims=True), rng


def build(where: Path, n: int) -> None:
    """The table, written block by block (never the whole data set in memory)."""
    import lancedb
    import pyarrow as pa

    centre, rng = centres()
    table = None
    for s in range(0, n, BLOCK):
        vecs, topic = clustered(min(BLOCK, n - s), centre, rng)
        rows = range(s, s + len(vecs))
        batch = pa.table(
            {
                "id": [f"c{i}" for i in rows],
                "text": [
                    f"Topic t{t} covers item{i % 50} and detail{i % 7}."
                    for i, t in zip(rows, topic.tolist(), strict=True)
                ],
                "document": [f"doc{t}" for t in topic.tolist()],
                "vector": pa.FixedSizeListArray.from_arrays(pa.array(vecs.ravel(), type=pa.float32()), DIM),
            }
        )
        if table is None:
            table = lancedb.connect(str(where)).create_table(TABLE, batch)
        else:
            table.add(batch)


def questions(m: int) -> tuple[np.ndarray, list[Question]]:
    centre, _ = centres()
    rng = np.random.default_rng(1)
    Q, _ = clustered(m, centre[: TOPICS // 2], rng)  # half the topics untested: real gaps
    return Q, [Question(f"q{j}", f"question {j}") for j in range(m)]


def run(where: Path, m: int) -> None:
    spec = parse_store_spec(f"lancedb:{where}#{TABLE}")
    t = time.perf_counter()
    store = read_store_corpus(spec)
    read = time.perf_counter() - t
    n = len(store.chunks)
    print(
        f"read {n} rows in {read:.2f} s = {n / read:,.0f} rows/s; RSS after reading {peak_rss_gb():.2f} GB ({load()})"
    )
    Q, qs = questions(m)
    timer = StageTimer()
    result = analyze(store.vectors, Q, store.chunks, qs, CoverageParams(), progress=timer)
    end = time.perf_counter()
    for stage, secs in timer.stages(end).items():
        print(f"  {stage:<22} {secs:7.2f} s")
    print(f"  analyze total          {end - timer.t0:7.2f} s   peak RSS {peak_rss_gb():.2f} GB   ({load()})")
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        db = open_db(str(Path(tmp) / "ragcov.db"), writable=True)
        sid = create_session(
            db,
            "analysis",
            corpus=[spec.text],
            questions_path="synthetic",
            testset_sha256="",
            embedder="synthetic",
            llm="heuristic",
            params={},
        )
        save_documents(db, sid, store.documents, store.chunks)
        save_vectors(db, sid, "chunk", [c.id for c in store.chunks], store.vectors)
        save_vectors(db, sid, "question", [q.id for q in qs], Q)
        save_analysis(db, sid, result, store.chunks, qs)
    stored = time.perf_counter() - t
    total = read + (end - timer.t0) + stored
    cov = result.coverage
    print(f"  store (SQLite)         {stored:7.2f} s")
    print(
        f"read + analyze + store   {total:7.2f} s   peak RSS {peak_rss_gb():.2f} GB   K={result.clustering.k} "
        f"basic={cov['basic']:.4f} gaps={len(result.gaps)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--dir", help="where to build the table (default: a temporary folder; a table there is reused)")
    parser.add_argument("--build-only", action="store_true", help=argparse.SUPPRESS)  # the child process
    args = parser.parse_args()
    if args.build_only:
        build(Path(args.dir), args.chunks)
        return
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(args.dir or tmp) / "lance"
        t = time.perf_counter()
        if not (where / f"{TABLE}.lance").exists():  # a --dir built before is read again as it is
            subprocess.run(
                [sys.executable, __file__, "--build-only", "--dir", str(where), "--chunks", str(args.chunks)],
                check=True,
            )
        print(
            f"== {args.chunks} chunks x {args.questions} questions, {DIM}-d: table built in "
            f"{time.perf_counter() - t:.1f} s ({load()})"
        )
        run(where, args.questions)


if __name__ == "__main__":
    main()
