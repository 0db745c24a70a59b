"""Scale benchmark of the coverage engine (prints figures; not a test).

Synthetic clustered unit vectors, 384-d: ``C`` topic centres on the unit sphere, each chunk /
question = its centre + Gaussian noise, L2-normalised; 1 % of the questions are off-topic noise.
For each size: full ``analyze`` wall time per stage (from the progress callback), and peak RSS
(``resource.getrusage``, the process high-water mark so far; sizes run smallest first). Then, for
sizes up to 200k chunks, the top-1 search against sklearn
``pairwise_distances(..., metric="cosine").min(axis=1)`` on the same vectors, in the same run,
next to a bare float32 GEMM of the same shape: an exact search cannot beat that GEMM, so
``sklearn time / GEMM time`` is the ceiling of the ratio for any exact method. The load average
is printed with each figure (other processes share the 2 cores).

    .venv/bin/python benchmarks/coverage_scale.py [--sizes 100000x2000,1000000x10000] [--repeat N]

``--on-disk 1000000x10000,10000000x10000 --scratch DIR`` (issue #25 §1): the chunk vectors are
written to ``DIR/chunks_N.npy`` block by block, then a fresh process (so its peak RSS is its own)
runs the blocked path on ``np.load(path, mmap_mode="r")``: pass 1 (samples, K-means), LOF on the
questions, pass 2 (nearest question, cluster, per-cluster and per-document sums) — and a bare float32
GEMM of the same shape (C @ Qᵀ block by block from the same file, nothing else) for the ratio.
``--gemm-up-to N`` runs that GEMM on the first N chunks only and scales its time by the number of chunks
(the GEMM is linear in the rows; the line says "projected").
Each line gives wall time, the process's peak RSS (VmHWM) and the load average.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path

import numpy as np

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.coverage.analysis import analyze
from ragcov_tui.coverage.nearest import cross_nearest, nearest
from ragcov_tui.coverage.params import CoverageParams
from ragcov_tui.shared.row_blocks import release
from ragcov_tui.testset.models import Question

DIM, TOPICS, NOISE = 384, 200, 0.06


def peak_rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2


def load() -> str:
    return "load " + "/".join(f"{v:.1f}" for v in os.getloadavg())


def timed(fn):
    """(result, wall seconds, CPU seconds of this process)."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def bare_gemm(C: np.ndarray, Q: np.ndarray, rows: int = 8192) -> None:
    """C @ Q.T block by block into one buffer, nothing else: the floor of any exact search."""
    out = np.empty((min(rows, len(C)), len(Q)), dtype=np.float32)
    for s in range(0, len(C), rows):
        np.matmul(C[s : s + rows], Q.T, out=out[: min(rows, len(C) - s)])


def clustered(
    n: int, centres: np.ndarray, rng: np.random.Generator, block: int = 65536
) -> tuple[np.ndarray, np.ndarray]:
    """n unit vectors around the centres (float32, built block by block), and their topic."""
    topic = rng.integers(0, len(centres), n)
    out = np.empty((n, centres.shape[1]), dtype=np.float32)
    for s in range(0, n, block):
        part = centres[topic[s : s + block]] + NOISE * rng.standard_normal(
            (min(block, n - s), centres.shape[1]), dtype=np.float32
        )
        out[s : s + block] = part / np.linalg.norm(part, axis=1, keepdims=True)
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
    chunks = [
        Chunk(f"c{i}", f"Topic t{t} covers item{i % 50} and detail{i % 7}.", f"doc{t}", i)
        for i, t in enumerate(topic.tolist())
    ]
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
        for (stage, t), nxt in zip(self.marks, [m[1] for m in self.marks[1:]] + [end], strict=True):
            out[stage] = out.get(stage, 0.0) + nxt - t
        return out


def bench_search(C: np.ndarray, Q: np.ndarray, repeat: int) -> None:
    from sklearn.metrics import pairwise_distances

    flops = 2.0 * len(C) * len(Q) * C.shape[1]
    for _ in range(repeat):
        ours, t_ours, c_ours = timed(lambda: nearest(C, Q))
        both, t_cross, _ = timed(lambda: cross_nearest(C, Q))
        _, t_gemm, c_gemm = timed(lambda: bare_gemm(C, Q))
        ref, t_sk, c_sk = timed(lambda: pairwise_distances(C, Q, metric="cosine").min(axis=1))
        assert np.allclose(ours[0], ref, atol=1e-5) and np.allclose(both.row_dist, ref, atol=1e-5)
        print(
            f"top-1 search {len(C)}x{len(Q)} ({load()}): ours {t_ours:.2f} s (cpu {c_ours:.2f}), "
            f"both directions + top-2 {t_cross:.2f} s, sklearn pairwise_distances(cosine).min {t_sk:.2f} s "
            f"(cpu {c_sk:.2f}) -> {t_sk / t_ours:.1f}x wall, {c_sk / c_ours:.1f}x cpu; "
            f"bare float32 GEMM {t_gemm:.2f} s = {flops / t_gemm / 1e9:.0f} GFLOPS "
            f"-> exact-search ceiling {t_sk / t_gemm:.1f}x"
        )


def bench_analyze(n: int, m: int) -> tuple[np.ndarray, np.ndarray] | None:
    t = time.perf_counter()
    C, Q, chunks, questions = dataset(n, m)
    print(
        f"\n== {n} chunks x {m} questions, {DIM}-d (data built in {time.perf_counter() - t:.1f} s, "
        f"RSS so far {peak_rss_gb():.2f} GB; {load()})"
    )
    timer = StageTimer()
    result = analyze(C, Q, chunks, questions, CoverageParams(), progress=timer)
    end = time.perf_counter()
    for stage, secs in timer.stages(end).items():
        print(f"  {stage:<22} {secs:7.2f} s")
    cov = result.coverage
    print(f"  analyze total          {end - timer.t0:7.2f} s   peak RSS {peak_rss_gb():.2f} GB   ({load()})")
    print(
        f"  K={result.clustering.k} outliers={int(result.outliers.outlier.sum())}/{m} basic={cov['basic']:.4f} "
        f"multi_threshold={cov['multi_threshold']} gaps={len(result.gaps)} map={result.projection.method}"
    )
    return (C, Q) if n <= 200_000 else None


def peak_hwm_gb() -> float:
    """This process's own peak resident memory (VmHWM; ru_maxrss would keep the parent's across exec)."""
    with open("/proc/self/status") as status:
        line = next(row for row in status if row.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024**2


GEN_ROWS = 16384  # rows generated at a time: 24 MB of 384-d float32, in place in the file's pages


def fill_clustered(out: np.ndarray, centres: np.ndarray, rng: np.random.Generator) -> None:
    """``out`` (rows, d) filled in place with unit vectors around random centres: noise drawn
    straight into ``out``, scaled, its centre added, then each row divided by its norm (no temporary
    larger than one row of norms)."""
    rng.standard_normal(dtype=np.float32, out=out)
    out *= NOISE
    out += centres[rng.integers(0, len(centres), len(out))]
    out /= np.sqrt(np.einsum("ij,ij->i", out, out))[:, None]


def write_on_disk(path: Path, n: int, m: int, seed: int = 0, threads: int = 2) -> np.ndarray:
    """``n`` clustered chunk vectors written straight into ``path`` (an ``open_memmap`` .npy),
    ``GEN_ROWS`` rows at a time, by ``threads`` threads each with its own seeded generator
    (numpy's generators release the GIL while filling); returns the questions."""
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((TOPICS, DIM), dtype=np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    if not path.exists():
        partial = path.with_suffix(".partial.npy")
        out = np.lib.format.open_memmap(partial, mode="w+", dtype=np.float32, shape=(n, DIM))
        spans = np.array_split(np.arange(0, n, GEN_ROWS), threads)

        def fill(span: np.ndarray, child: np.random.Generator) -> None:
            for s in span.tolist():
                fill_clustered(out[s : s + GEN_ROWS], centres, child)
                if s // GEN_ROWS % 64 == 63:
                    release(out, s - 63 * GEN_ROWS, s + GEN_ROWS)  # written pages go back once on disk

        children = [np.random.default_rng(c) for c in np.random.SeedSequence(seed).spawn(threads)]
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(fill, spans, children))
        out.flush()
        del out
        partial.rename(path)
    Q, _ = clustered(m, centres[: TOPICS // 2], np.random.default_rng(seed + 1))
    return Q


class LoadSampler:
    """The 1-minute load average sampled every ``every`` seconds in a thread, for one phase."""

    def __init__(self, every: float = 15.0) -> None:
        import threading

        self.samples = [os.getloadavg()[0]]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(every,), daemon=True)
        self.thread.start()

    def _run(self, every: float) -> None:
        while not self.stop.wait(every):
            self.samples.append(os.getloadavg()[0])

    def done(self) -> str:
        self.stop.set()
        self.thread.join()
        self.samples.append(os.getloadavg()[0])
        return (
            f"load 1-min mean {np.mean(self.samples):.1f}, max {max(self.samples):.1f} over {len(self.samples)} samples"
        )


def pass2_slice(
    vectors: np.ndarray, inliers: np.ndarray, centroids: np.ndarray, *, second: bool
) -> tuple[float, float]:
    """(wall, CPU) seconds of pass 2's per-block work on ``vectors`` (a slice of the file): the
    cross search with or without the second-nearest, and the cluster assignment."""
    from ragcov_tui.coverage.blocked import array_blocks, unit_rows
    from ragcov_tui.coverage.clustering import assign

    wall, cpu = time.perf_counter(), time.process_time()
    for raw in array_blocks(vectors):
        block = unit_rows(raw)
        cross_nearest(block, inliers, n_cols_for_rows=len(inliers), second=second)
        assign(block, centroids)
    return time.perf_counter() - wall, time.process_time() - cpu


def measure_on_disk(path: Path, m: int, gemm_rows: int, compare_rows: int) -> None:
    """The blocked path on the memory-mapped file (this process is fresh: its VmHWM is the run's).
    With ``compare_rows``, first pass 2's block work on that many rows with the second-nearest
    search (before) and without it (after), twice each, alternating."""
    from ragcov_tui.coverage.blocked import array_blocks, blocked_coverage, fit_blocks
    from ragcov_tui.coverage.outliers import outliers_against

    Q = write_on_disk(path, 0, m)  # the same questions (the file exists)
    vectors = np.load(path, mmap_mode="r")
    n = len(vectors)
    params = CoverageParams().validated()
    docs = 1000  # chunk i belongs to document i % 1000
    t0 = time.perf_counter()
    loads = LoadSampler()
    fit = fit_blocks(
        array_blocks(vectors),
        n,
        None,
        seed=params.seed,
        minibatch_above=params.minibatch_above,
        lof_sample=params.lof_sample,
    )
    t1 = time.perf_counter()
    out = outliers_against(
        fit.reference,
        Q,
        neighbors=params.lof_neighbors,
        offset=params.lof_query_offset,
        contamination=params.contamination,
        lof_threshold=params.lof_threshold,
    )
    inliers = Q[~out.outlier]
    t2, c2 = time.perf_counter(), time.process_time()
    print(f"  pass 1 (samples + K-means) {t1 - t0:.1f} s, LOF {t2 - t1:.1f} s ({loads.done()})", flush=True)
    if compare_rows:
        rows = vectors[: min(n, compare_rows)]
        pass2_slice(rows, inliers, fit.centroids, second=False)  # warm the slice's pages
        for run in (1, 2):
            for label, second in (("before: with the second-nearest", True), ("after: without it", False)):
                loads = LoadSampler()
                w, c = pass2_slice(rows, inliers, fit.centroids, second=second)
                print(
                    f"  pass 2 block work on the first {len(rows):,} rows, {label} (run {run}): {w:.1f} s wall, "
                    f"{c:.1f} s CPU ({loads.done()})",
                    flush=True,
                )
        t2, c2 = time.perf_counter(), time.process_time()
    loads = LoadSampler()
    codes = (np.arange(s, min(n, s + 65536)) % docs for s in range(0, n, 65536))
    result = blocked_coverage(array_blocks(vectors), inliers, fit.centroids, doc_codes=codes, n_docs=docs, radius=0.5)
    t3, c3 = time.perf_counter(), time.process_time()
    print(
        f"  blocked {n:,} x {m:,} on disk: pass 2 {t3 - t2:.1f} s wall, {c3 - c2:.1f} s CPU ({loads.done()}); "
        f"pass 1 + LOF + pass 2 {t1 - t0 + t3 - t2 + (t2 - t1 if not compare_rows else 0):.1f} s; "
        f"peak RSS {peak_hwm_gb():.2f} GB",
        flush=True,
    )
    print(
        f"  K={len(fit.centroids)} outliers={int(out.outlier.sum())}/{m} basic={result.basic:.4f} "
        f"covered_share={result.covered_share:.4f}",
        flush=True,
    )
    if gemm_rows:
        rows_n = min(n, gemm_rows)
        loads = LoadSampler()
        t, c = time.perf_counter(), time.process_time()
        Qt = np.ascontiguousarray(inliers.T)
        buf = np.empty((65536, len(inliers)), dtype=np.float32)
        for block in array_blocks(vectors[:rows_n]):
            np.matmul(block, Qt, out=buf[: len(block)])
        g, gc = (time.perf_counter() - t) * n / rows_n, (time.process_time() - c) * n / rows_n
        flops = 2.0 * n * len(inliers) * DIM
        how = "of the same shape" if rows_n == n else f"projected x{n / rows_n:.0f} from the first {rows_n:,} rows"
        print(
            f"  bare GEMM {how} from the same file: {g:.1f} s wall, {gc:.1f} s CPU ({flops / g / 1e9:.0f} GFLOPS; "
            f"{loads.done()}) -> pass 2 / GEMM = {(t3 - t2) / g:.2f} wall, {(c3 - c2) / gc:.2f} CPU",
            flush=True,
        )


def bench_on_disk(sizes: list[tuple[int, int]], scratch: Path, gemm_up_to: int, compare_rows: int) -> None:
    import subprocess
    import sys

    for n, m in sizes:
        scratch.mkdir(parents=True, exist_ok=True)
        path = scratch / f"chunks_{n}.npy"
        t, c, loads = time.perf_counter(), time.process_time(), LoadSampler()
        write_on_disk(path, n, m)
        print(
            f"\n== on disk: {n:,} chunks x {m:,} questions, {DIM}-d, {path.stat().st_size / 1e9:.1f} GB "
            f"(written in {time.perf_counter() - t:.0f} s wall, {time.process_time() - c:.0f} s CPU; {loads.done()})",
            flush=True,
        )
        subprocess.run(
            [sys.executable, __file__, "--measure", str(path), str(m), str(min(n, gemm_up_to)), str(compare_rows)],
            check=True,
        )


def main() -> None:
    import sys

    if len(sys.argv) == 6 and sys.argv[1] == "--measure":
        measure_on_disk(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000x2000,1000000x10000", help="comma list of CHUNKSxQUESTIONS")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the search comparison (report the median)")
    parser.add_argument("--on-disk", help="comma list of CHUNKSxQUESTIONS run by the blocked path from a memory map")
    parser.add_argument("--scratch", type=Path, default=Path("/tmp"), help="where --on-disk writes its .npy files")
    parser.add_argument(
        "--gemm-up-to",
        type=int,
        default=10**12,
        help="run the bare GEMM on at most this many chunks (projected beyond)",
    )
    parser.add_argument(
        "--compare-rows",
        type=int,
        default=0,
        help="time pass 2's block work with and without the second-nearest on this many rows first",
    )
    args = parser.parse_args()
    if args.on_disk:
        bench_on_disk(
            sorted(tuple(int(v) for v in size.lower().split("x")) for size in args.on_disk.split(",")),
            args.scratch,
            args.gemm_up_to,
            args.compare_rows,
        )
        return
    sizes = sorted(tuple(int(v) for v in size.lower().split("x")) for size in args.sizes.split(","))
    kept = [vecs for n, m in sizes if (vecs := bench_analyze(n, m)) is not None]
    print()
    for C, Q in kept:  # after every analyze, so sklearn's n x m float64 matrix never counts in their peak RSS
        bench_search(C, Q, args.repeat)


if __name__ == "__main__":
    main()
