"""Chunks per second of the offline ``local`` embedder (and sentence-transformers when installed).

Usage: ``python benchmarks/embed_throughput.py [CORPUS_DIR] [--runs 3] [--min-chunks 50]``

Chunks come from ``ragcov_tui.corpus.build_chunks`` on ``sample_data/corpus`` (500-token chunks,
the analysis default), or from synthetic paragraphs when the corpus is absent. The chunk list is
repeated up to ``--min-chunks`` (copies made distinct: embedders dedupe). Every run uses a fresh
embedder without a cache (the model load is timed separately); the figure is the median of
``--runs`` runs. sentence-transformers all-MiniLM-L6-v2 is timed on the same texts when it is
importable (it truncates at 256 word pieces where ``local`` windows the whole chunk). The load
average is printed because a busy machine halves the figures.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ragcov_tui.embeddings.factory import make_embedder  # noqa: E402

WORDS = ("invoice refund plan seat billing account admin token login password export search page editor "
         "permission team workspace api limit request error security audit policy").split()


def load_texts(corpus: Path) -> tuple[list[str], str]:
    """Chunk texts and where they came from."""
    if corpus.is_dir():
        try:
            from ragcov_tui.corpus import build_chunks
        except ImportError:
            build_chunks = None
        if build_chunks is not None:
            _, chunks = build_chunks([str(corpus)])
            return [c.text for c in chunks], f"{corpus} via build_chunks (500-token chunks)"
        paragraphs = [p.strip() for f in sorted(corpus.rglob("*.md")) for p in f.read_text().split("\n\n")]
        return [p for p in paragraphs if p], f"{corpus} split into paragraphs"
    rng = random.Random(0)
    texts = [" ".join(rng.choice(WORDS) for _ in range(350)) + "." for _ in range(60)]
    return texts, "synthetic paragraphs (corpus not found)"


def median_rate(embed: Callable[[list[str]], object], texts: list[str], runs: int) -> float:
    rates = []
    for _ in range(runs):
        start = time.perf_counter()
        embed(texts)
        rates.append(len(texts) / (time.perf_counter() - start))
    return statistics.median(rates)


def bench_local(texts: list[str], runs: int) -> tuple[float, float]:
    start = time.perf_counter()
    make_embedder("local").embed(["warm up"])
    load_s = time.perf_counter() - start
    return median_rate(lambda t: make_embedder("local").embed(t), texts, runs), load_s


def bench_sentence_transformers(texts: list[str], runs: int) -> tuple[float, float] | None:
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        return None
    start = time.perf_counter()
    model = SentenceTransformer("all-MiniLM-L6-v2", device="cpu")
    model.encode(["warm up"])
    load_s = time.perf_counter() - start
    rate = median_rate(lambda t: model.encode(t, batch_size=64, normalize_embeddings=True), texts, runs)
    return rate, load_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", nargs="?", default=str(ROOT / "sample_data" / "corpus"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--min-chunks", type=int, default=50)
    args = parser.parse_args()

    texts, origin = load_texts(Path(args.corpus))
    base = len(texts)
    copy = 1
    while len(texts) < args.min_chunks:  # distinct copies: the embedder dedupes identical texts
        texts = texts + [f"{t} (copy {copy})" for t in texts[:base]]
        copy += 1
    avg_chars = sum(map(len, texts)) / len(texts)
    print(f"texts: {len(texts)} chunks from {origin} ({base} distinct, {avg_chars:.0f} chars on average)")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cpu cores: {os.cpu_count()} (load average {load:.1f} at start); median of {args.runs} runs, no cache\n")
    print(f"{'embedder':<44} {'chunks/s':>9} {'load s':>7}")
    rate, load_s = bench_local(texts, args.runs)
    print(f"{'local (MiniLM-L6 int8 ONNX, 256-piece windows)':<44} {rate:>9.1f} {load_s:>7.2f}")
    st = bench_sentence_transformers(texts, args.runs)
    if st is None:
        print(f"{'sentence-transformers all-MiniLM-L6-v2':<44} {'not installed':>17}")
    else:
        print(f"{'sentence-transformers all-MiniLM-L6-v2':<44} {st[0]:>9.1f} {st[1]:>7.2f}")


if __name__ == "__main__":
    main()
