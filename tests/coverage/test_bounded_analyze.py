"""``analyze`` over a memory-mapped chunk matrix (issue #25 §1): every pass reads it block by block and
hands the pages back, and the report equals the in-memory one on 100k chunks (float tolerance)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragcov_tui.corpus.models import Chunk
from ragcov_tui.coverage.analysis import analyze
from ragcov_tui.coverage.params import CoverageParams
from ragcov_tui.shared.row_blocks import blocks, take
from ragcov_tui.testset.models import Question
from tests.vectorstores.test_store_corpus import difference

N, M, DIM, TOPICS = 100_000, 300, 32, 40


def rss_file_mb() -> float:
    """This process's resident pages of mapped files (RssFile), in MB."""
    with open("/proc/self/status") as status:
        return int(next(r for r in status if r.startswith("RssFile:")).split()[1]) / 1024


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    centres = rng.standard_normal((TOPICS, DIM))
    C = centres[rng.integers(0, TOPICS, N)] + 0.3 * rng.standard_normal((N, DIM))
    Q = centres[rng.integers(0, TOPICS // 2, M)] + 0.3 * rng.standard_normal((M, DIM))
    Q[:3] = rng.standard_normal((3, DIM))  # off-topic questions: LOF outliers
    chunks = [Chunk(f"c{i}", f"topic words item{i % 50} detail{i % 7}", f"doc{i // 25}", i % 25) for i in range(N)]
    questions = [Question(f"q{j}", f"question {j}", gold={f"c{j * 300}": 1} if j % 2 else {}) for j in range(M)]
    # precomputed embeddings of length 2 (not unit): the memory map is normalised in place, block by block
    return (2 * C).astype(np.float32), Q.astype(np.float32), chunks, questions


@pytest.mark.slow
def test_analyze_on_a_memory_map_equals_analyze_in_memory_on_100k_chunks(data, tmp_path: Path) -> None:
    C, Q, chunks, questions = data
    params = CoverageParams(max_projection_points=400)
    in_memory = analyze(C.copy(), Q, chunks, questions, params).to_report()
    path = tmp_path / "chunks.npy"
    np.save(path, C)
    mapped = np.load(path, mmap_mode="r+")
    on_disk = analyze(mapped, Q, chunks, questions, params).to_report()
    assert in_memory["clusters"] and in_memory["gold"] and in_memory["questions"]["outliers"]
    assert difference(on_disk, in_memory) is None
    assert np.allclose(np.linalg.norm(np.load(path)[:1000], axis=1), 1.0, atol=1e-6)  # normalised in the file


def test_a_pass_over_a_memory_map_keeps_one_block_resident(tmp_path: Path) -> None:
    path = tmp_path / "big.npy"
    np.save(path, np.ones((200_000, 256), dtype=np.float32))  # 205 MB
    mapped = np.load(path, mmap_mode="r")
    before = rss_file_mb()
    total = sum(float(block.sum()) for _, block in blocks(mapped, 16384))  # 16 MB blocks
    picked = take(mapped, np.arange(0, 200_000, 7))
    assert total == 200_000 * 256 and len(picked) == 28572
    assert rss_file_mb() - before < 40
    mapped.sum()  # the same pass by plain reading: the whole file stays resident (the measure works)
    assert rss_file_mb() - before > 150
