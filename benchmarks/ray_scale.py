"""The Ray engine against the local one on the per-chunk pass (issue #25 §2; prints figures, not a test).

Synthetic clustered unit vectors as in ``coverage_scale.py`` (384-d, 200 topics), ``N`` chunks × ``M``
questions, K = 50 centroids fitted on a 20k sample. The pass ``analyze`` hands to its engine
(:mod:`ragcov_tui.coverage.engine`): every chunk's cluster (``assign``) and the both-ways nearest
search (``cross_nearest``, all questions inliers). Timed in one run: the local engine, then the Ray
engine on a fresh local instance of 1 and of 2 CPUs (each start timed apart; the chunk matrix is put in
the object store once per call, and that copy is part of the engine's time). Each Ray result is checked
equal to the local one. Wall and CPU seconds of this process (the Ray workers' CPU is not in it),
and the load average (other processes share the cores).

    cd benchmarks && ../.venv/bin/python ray_scale.py [--chunks 1000000] [--questions 10000] [--workers 1,2]

Ray's files go to a temporary folder under /tmp (``RAY_TMPDIR``), removed at the end.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time

import numpy as np
from coverage_scale import DIM, TOPICS, clustered, load

from ragcov_tui.coverage.clustering import fit_centroids
from ragcov_tui.coverage.engine import ChunkEngine, LocalEngine, make_engine


def per_chunk_pass(engine: ChunkEngine, C: np.ndarray, Q: np.ndarray, centroids: np.ndarray):
    """(labels, search result, wall s, CPU s) of the engine's pass."""
    wall, cpu = time.perf_counter(), time.process_time()
    labels = engine.assign(C, centroids)
    found = engine.cross_nearest(C, Q, n_cols_for_rows=len(Q))
    return labels, found, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chunks", type=int, default=1_000_000)
    parser.add_argument("--questions", type=int, default=10_000)
    parser.add_argument("--workers", default="1,2", help="comma list: CPUs of each local Ray instance")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    centres = rng.standard_normal((TOPICS, DIM), dtype=np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    C, _ = clustered(args.chunks, centres, rng)
    Q, _ = clustered(args.questions, centres[: TOPICS // 2], rng)
    centroids = fit_centroids(C[:20_000], 50, 0, minibatch=False)
    print(
        f"== per-chunk pass, {args.chunks:,} chunks x {args.questions:,} questions, {DIM}-d, K=50 ({load()})",
        flush=True,
    )
    labels, found, base, base_cpu = per_chunk_pass(LocalEngine(), C, Q, centroids)
    print(f"  local engine            {base:7.1f} s wall, {base_cpu:7.1f} s CPU ({load()})", flush=True)
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")
    os.environ["RAY_TMPDIR"] = temp
    try:
        for workers in (int(w) for w in args.workers.split(",")):
            t = time.perf_counter()
            engine = make_engine("ray", cpus=workers)
            started = time.perf_counter() - t
            got_labels, got, wall, cpu = per_chunk_pass(engine, C, Q, centroids)
            engine.close()
            same = (
                np.array_equal(got_labels, labels)
                and np.array_equal(got.row_index, found.row_index)
                and np.array_equal(got.col_index, found.col_index)
                and np.allclose(got.row_dist, found.row_dist, rtol=0, atol=1e-12)
            )
            print(
                f"  ray engine, {workers} CPU{'s' if workers > 1 else ' '}     {wall:7.1f} s wall, {cpu:7.1f} s CPU "
                f"(driver) -> {wall / base:.2f}x the local engine, {wall - base:+.1f} s; ray.init {started:.1f} s; "
                f"results {'equal' if same else 'DIFFERENT'} ({load()})",
                flush=True,
            )
    finally:
        shutil.rmtree(temp, ignore_errors=True)


if __name__ == "__main__":
    main()
