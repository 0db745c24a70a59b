"""How far the embedding ETA is from the real remaining time (issue #25 §5).

Chunks a BEIR corpus the way ``analyze`` does, marks a seeded share of the chunks as already in
the embedding cache (random unit vectors stored under the embedder's key: a cache hit is served,
whatever its vector), then embeds every chunk cold through the real cached loop
(:func:`ragcov_tui.embeddings.base.embed_with_cache`) with a recording progress callback. At the
moments the bar shows 10 / 25 / 50 / 75 % of the texts done, it prints the ETA the CLI showed —
from the work (characters, :func:`ragcov_tui.shared.progress.remaining_seconds`) and, for comparison,
from the item count (the estimate before issue #25) — against the time that really remained::

    python benchmarks/eta_error.py /work/scratch/scifact --docs 600 --cached 0.25

error = ETA / real remaining − 1 (0 is perfect; the target is within ±25 % from 10 % onward).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np

from ragcov_tui.corpus import build_chunks
from ragcov_tui.embeddings.cache import store, text_sha256
from ragcov_tui.embeddings.factory import make_embedder
from ragcov_tui.shared.progress import remaining_seconds
from ragcov_tui.store import open_db

MARKS = (0.10, 0.25, 0.50, 0.75)
STAGE = "embedding chunks"


class Recorder:
    """A progress callback keeping ``(time, texts done, texts total, work done, work total)``."""

    def __init__(self) -> None:
        self.start: float | None = None
        self.work = (0.0, 0.0)
        self.rows: list[tuple[float, int, int, float, float]] = []

    def note_work(self, stage: str, done: float, total: float) -> None:
        self.work = (done, total)

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if self.start is None:
            self.start = now
        self.rows.append((now - self.start, done, total, *self.work))


def subset_corpus(beir: Path, docs: int, out: Path) -> Path:
    """The first ``docs`` lines of ``beir/corpus.jsonl`` as a corpus file of their own."""
    lines = (beir / "corpus.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)[:docs]
    out.write_text("".join(lines), encoding="utf-8")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("beir", type=Path, help="a BEIR folder with corpus.jsonl")
    ap.add_argument("--docs", type=int, default=600, help="first N documents of the corpus (default 600)")
    ap.add_argument("--cached", type=float, default=0.25, help="share of chunks already in the cache (default 0.25)")
    ap.add_argument("--embedder", default="local")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scratch", type=Path, default=Path("/tmp"), help="where the corpus subset is written")
    args = ap.parse_args()

    corpus = subset_corpus(args.beir, args.docs, args.scratch / f"eta_corpus_{args.docs}.jsonl")
    _, chunks = build_chunks([str(corpus)])
    texts = [c.text for c in chunks]
    db = open_db(":memory:")
    embedder = make_embedder(args.embedder, db=db)
    rng = random.Random(args.seed)
    hits = rng.sample(sorted(set(texts)), int(args.cached * len(set(texts))))
    if hits:
        vecs = np.random.default_rng(args.seed).standard_normal((len(hits), embedder.dim)).astype(np.float32)
        store(
            db,
            embedder.provider,
            embedder.cache_model,
            [text_sha256(t) for t in hits],
            vecs / np.linalg.norm(vecs, axis=1, keepdims=True),
        )
    lengths = np.array([len(t) for t in texts])
    print(
        f"{args.docs} documents → {len(texts):,} chunks ({lengths.min()}–{lengths.max()} characters, "
        f"median {int(np.median(lengths))}); {len(hits):,} in the cache; embedder {embedder.spec}"
    )

    rec = Recorder()
    embedder.embed(texts, progress=rec, stage=STAGE)
    end = rec.rows[-1][0]
    total = rec.rows[-1][2]
    print(f"embedded {total:,} texts in {end:.1f} s")
    print(f"{'at':>5} {'elapsed':>8} {'real left':>10} {'ETA work':>9} {'error':>7} {'ETA items':>10} {'error':>7}")
    figures = []
    for mark in MARKS:
        t, done, n, wdone, wtotal = next(r for r in rec.rows if r[2] and r[1] >= mark * r[2])
        real = end - t
        by_work = remaining_seconds(t, wdone, wtotal) or 0.0
        by_items = remaining_seconds(t, done, n) or 0.0
        figures.append(
            {
                "mark": mark,
                "elapsed": t,
                "real_left": real,
                "eta_work": by_work,
                "eta_items": by_items,
                "error_work": by_work / real - 1,
                "error_items": by_items / real - 1,
            }
        )
        print(
            f"{mark:>5.0%} {t:>7.1f}s {real:>9.1f}s {by_work:>8.1f}s {by_work / real - 1:>+7.0%} "
            f"{by_items:>9.1f}s {by_items / real - 1:>+7.0%}"
        )
    print(json.dumps({"chunks": len(texts), "embedded": total, "seconds": end, "figures": figures}))


if __name__ == "__main__":
    main()
