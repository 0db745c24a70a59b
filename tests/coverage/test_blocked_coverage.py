"""The blocked path (issue #25 §1) gives the in-memory analysis's figures, from a memory-mapped
file read block by block: the same K-means (same seeded sample, MiniBatchKMeans past
``minibatch_above``), the same LOF outliers, and per chunk the same nearest question, so the same
basic / weighted / per-cluster / covered-share / per-document figures (float tolerance)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.coverage.analysis import analyze
from ragcov_tui.coverage.blocked import array_blocks, blocked_coverage, fit_blocks
from ragcov_tui.coverage.documents import source_codes
from ragcov_tui.coverage.outliers import outliers_against
from ragcov_tui.coverage.params import CoverageParams
from ragcov_tui.testset.models import Question
from tests.support.present import present

N, M, DIM, TOPICS = 24_000, 240, 24, 30  # past minibatch_above (20k): the sampled MiniBatchKMeans fit


def clustered(rng: np.random.Generator, centres: np.ndarray, n: int) -> np.ndarray:
    v = centres[rng.integers(0, len(centres), n)] + 0.25 * rng.standard_normal((n, centres.shape[1]))
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory):
    rng = np.random.default_rng(7)
    centres = rng.standard_normal((TOPICS, DIM))
    C, Q = clustered(rng, centres, N), clustered(rng, centres[: TOPICS // 2], M)
    Q[:3] = rng.standard_normal((3, DIM)).astype(np.float32)  # off-topic: LOF outliers
    Q[:3] /= np.linalg.norm(Q[:3], axis=1, keepdims=True)
    path = tmp_path_factory.mktemp("blocked") / "chunks.npy"
    np.save(path, C)
    chunks = [Chunk(f"c{i}", f"chunk {i}", f"doc{i // 40}", i % 40) for i in range(N)]
    questions = [Question(f"q{j}", f"question {j}") for j in range(M)]
    return path, C, Q, chunks, questions


def test_blocked_figures_equal_the_in_memory_ones(data) -> None:
    path, C, Q, chunks, questions = data
    params = CoverageParams().validated()
    memory = analyze(C, Q, chunks, questions, params)

    on_disk = np.load(path, mmap_mode="r")
    fit = fit_blocks(
        array_blocks(on_disk, 5000),
        N,
        None,
        seed=params.seed,
        minibatch_above=params.minibatch_above,
        lof_sample=params.lof_sample,
    )
    outliers = outliers_against(
        fit.reference,
        Q,
        neighbors=params.lof_neighbors,
        offset=params.lof_query_offset,
        contamination=params.contamination,
        lof_threshold=params.lof_threshold,
    )
    np.testing.assert_array_equal(outliers.outlier, memory.outliers.outlier)
    inliers = np.flatnonzero(~outliers.outlier)
    names, codes = source_codes([c.source for c in chunks])
    radius = memory.calibration["radius"]
    blocked = blocked_coverage(
        array_blocks(on_disk, 5000),
        Q[inliers],
        fit.centroids,
        doc_codes=(codes[s : s + 5000] for s in range(0, N, 5000)),
        n_docs=len(names),
        radius=radius,
        total=N,
    )

    cov = memory.coverage
    assert blocked.basic == pytest.approx(cov["basic"], abs=1e-9)
    assert blocked.weighted == pytest.approx(cov["weighted"], abs=1e-9)
    assert blocked.covered_share == pytest.approx(cov["covered_share"], abs=1e-12)
    used = blocked.cluster_sizes > 0  # the in-memory path drops a centroid that won no chunk
    assert used.sum() == memory.clustering.k
    np.testing.assert_array_equal(blocked.cluster_sizes[used], memory.clustering.sizes)
    np.testing.assert_allclose(
        np.array([v for v, u in zip(blocked.cluster_coverage(), used, strict=True) if u], dtype=float),
        np.array(memory.cluster_coverage, dtype=float),
        atol=1e-9,
    )
    by_doc = {d.source: d for d in memory.documents}
    for i, name in enumerate(names):
        assert blocked.document_coverage()[i] == pytest.approx(by_doc[name].coverage, abs=1e-9)
        assert present(blocked.doc_within)[i] / blocked.doc_sizes[i] == pytest.approx(
            by_doc[name].covered_share, abs=1e-12
        )
    np.testing.assert_array_equal(blocked.question_nearest, memory.nearest_chunk[inliers])
    np.testing.assert_allclose(blocked.question_dist, memory.nearest_chunk_dist[inliers], atol=1e-12)


def test_memory_mapped_blocks_are_copies_and_leave_the_file_as_it_was(data) -> None:
    path, C, *_ = data
    blocks = list(array_blocks(np.load(path, mmap_mode="r"), 7000))
    assert [len(b) for b in blocks] == [7000, 7000, 7000, 3000]
    np.testing.assert_array_equal(np.concatenate(blocks), C)
    assert all(b.flags.c_contiguous and b.dtype == np.float32 for b in blocks)


RSS_PROBE = """
import sys
import numpy as np
from ragcov_tui.coverage.blocked import array_blocks

def peak_mb():  # this process's own high-water mark (ru_maxrss keeps the parent's across exec)
    line = next(row for row in open("/proc/self/status") if row.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024

vectors = np.load(sys.argv[1], mmap_mode="r")
before = peak_mb()
total = sum(float(block[:, 0].sum()) for block in array_blocks(vectors, 8192))
print(peak_mb() - before)
"""


def test_reading_a_memory_map_keeps_about_one_block_resident(tmp_path: Path) -> None:
    """100 MB on disk read in 4 MB blocks: the peak grows by a few blocks, not by the file (the
    pages of each block are handed back once it is copied)."""
    import subprocess
    import sys

    if not Path("/proc/self/status").is_file():
        pytest.skip("needs Linux's /proc to read the peak resident memory")
    path = tmp_path / "big.npy"
    np.save(path, np.ones((200_000, 128), dtype=np.float32))
    run = subprocess.run(
        [sys.executable, "-c", RSS_PROBE, str(path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert float(run.stdout) < 40  # MB; without the release it is ~100
