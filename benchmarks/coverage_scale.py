"""Scale benchmark of the coverage engine (prints figures; not a test).

Synthetic clustered unit vectors, 384-d: ``C`` topic centres on the unit sphere, each chunk /
question = its centre + Gaussian noise, L2-normalised; 1 % of the questions are off-topic noise.
For each size: full ``analyze`` wall time per stage (from the progress callback), and peak RSS
(``resource.getrusage``, the process high-water mark so far). For 100k × 2k also the top-1 search
against sklearn ``pairwise_distances(..., metric="cosine").min(axis=1)`` on the same vectors.

    .venv/bin/python benchmarks/coverage_scale.py [--sizes 100000x2000,1000000x10000]
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.coverage.analysis import analyze
from ragcov_tui.coverage.nearest import cross_nearest, nearest
from ragcov_tui.coverage.params import CoverageParams
from ragcov_tui.testset.models import Question

DIM, TOPICS, NOISE = 384, 200, 0.06


def peak_rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2


def clustered(n: int, centres: np.ndarray, rng: np.random.Generator, block: int = 65536) -> tuple[np.ndarray, np.ndarray]:
    """n unit vectors around the centres (float32, built block by block), and their topic."""
    topic = rng.integers(0, len(centres), n)
    out = np.empty((n, centres.shape[1]), dtype=np.float32)
    for s in range(0, n, block):
        part = centres[topic[s:s + block]] + NOISE * rng.standard_normal((min(block, n - s), centres.shape[1]), dtype=np.float32)
        out[s:s + block] = part / np.linalg.norm(part, axis=1, keepdims=True)
    return out, topic


def dataset(n: int, m: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((TOPICS, DIM), dtype=np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    C, topic = clustered(n, centres, rng)
    Q, _ = clustered(m, centres[: TOPICS // 2], rng)  # half the topics untested: real gaps
    off = rng.choice(m, max(1, m // 100), replace=False)
    noise = rng.standard_normal((len(off), DIM), dtype=np.float32)
    Q[off] = noise / np.linalg.norm(noise, axis=1, keepdims=True)
    chunks = [Chunk(f"c{i}", f"Topic t{t} covers item{i % 50} and detail{i % 7}.", f"doc{t}", i)
              for i, t in enumerate(topic.tolist())]
    questions = [Question(f"q{j}", f"question {j}") for j in range(m)]
    return C, Q, chunks, questions


class StageTimer:
    """Progress callback recording wall time per stage (first report of a stage → first of the next)."""

    def __init__(self) -> None:
        self.t0 = time.perf_counter()
        self.marks: list[tuple[str, float]] = []

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.marks or self.marks[-1][0] != stage:
            self.marks.append((stage, time.perf_counter()))

    def stages(self, end: float) -> dict[str, float]:
        out: dict[str, float] = {}
        for (stage, t), nxt in zip(self.marks, [m[1] for m in self.marks[1:]] + [end]):
            out[stage] = out.get(stage, 0.0) + nxt - t
        return out


def bench_search(C: np.ndarray, Q: np.ndarray) -> None:
    from sklearn.metrics import pairwise_distances

    t = time.perf_counter()
    ours, _ = nearest(C, Q)
    t_ours = time.perf_counter() - t
    t = time.perf_counter()
    both = cross_nearest(C, Q)
    t_cross = time.perf_counter() - t
    t = time.perf_counter()
    ref = pairwise_distances(C, Q, metric="cosine").min(axis=1)
    t_sk = time.perf_counter() - t
    assert np.allclose(ours, ref, atol=1e-5) and np.allclose(both.row_dist, ref, atol=1e-5)
    print(f"top-1 search {len(C)}x{len(Q)}: ours {t_ours:.2f} s, ours both directions + top-2 {t_cross:.2f} s, "
          f"sklearn pairwise_distances(cosine).min {t_sk:.2f} s -> {t_sk / t_ours:.1f}x "
          f"(both-direction pass {t_sk / t_cross:.1f}x); peak RSS {peak_rss_gb():.2f} GB")


def bench_analyze(n: int, m: int) -> None:
    t = time.perf_counter()
    C, Q, chunks, questions = dataset(n, m)
    print(f"\n== {n} chunks x {m} questions, {DIM}-d (data built in {time.perf_counter() - t:.1f} s, "
          f"RSS so far {peak_rss_gb():.2f} GB)")
    timer = StageTimer()
    result = analyze(C, Q, chunks, questions, CoverageParams(), progress=timer)
    end = time.perf_counter()
    for stage, secs in timer.stages(end).items():
        print(f"  {stage:<22} {secs:7.2f} s")
    cov = result.coverage
    print(f"  analyze total          {end - timer.t0:7.2f} s   peak RSS {peak_rss_gb():.2f} GB")
    print(f"  K={result.clustering.k} outliers={int(result.outliers.outlier.sum())}/{m} basic={cov['basic']:.4f} "
          f"multi_threshold={cov['multi_threshold']} gaps={len(result.gaps)} map={result.projection.method}")
    if n <= 200_000:
        bench_search(C, Q)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000x2000,1000000x10000", help="comma list of CHUNKSxQUESTIONS")
    args = parser.parse_args()
    for size in args.sizes.split(","):
        n, m = (int(v) for v in size.lower().split("x"))
        bench_analyze(n, m)


if __name__ == "__main__":
    main()
