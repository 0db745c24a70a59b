"""``--sample N`` (issue #25 §3): a seeded uniform sample of the chunks, every share with its 95%
Wilson interval and every coverage with its normal interval, per cluster too; exact by default."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from ragcov_tui.coverage.sampling import mean_interval, sample_rows, wilson
from tests.cli.conftest import CORPUS, QUESTIONS, run_cli
from tests.support.present import present


@pytest.mark.parametrize(
    ("x", "n", "low", "high"),
    [(0, 10, 0.0, 0.2775), (5, 10, 0.2366, 0.7634), (10, 10, 0.7225, 1.0), (380, 1000, 0.3504, 0.4105)],
)
def test_wilson_interval(x: int, n: int, low: float, high: float) -> None:
    lo, hi = present(wilson(x, n))
    assert lo == pytest.approx(low, abs=1e-4) and hi == pytest.approx(high, abs=1e-4)


def test_mean_interval_and_the_undefined_cases() -> None:
    lo, hi = present(mean_interval(np.array([0.2, 0.4, 0.6, 0.8])))
    assert (lo + hi) / 2 == pytest.approx(0.5) and hi - lo == pytest.approx(2 * 1.96 * 0.2582 / 2, abs=1e-3)
    assert wilson(0, 0) is None and mean_interval(np.array([0.5])) is None


def test_the_sample_is_seeded_uniform_and_none_when_it_would_be_everything() -> None:
    rows = sample_rows(1000, 100, seed=3)
    assert rows is not None and len(set(rows.tolist())) == 100 and list(rows) == sorted(rows)
    assert np.array_equal(rows, present(sample_rows(1000, 100, seed=3)))
    assert sample_rows(50, 50, seed=3) is None and sample_rows(50, None, seed=3) is None


class ZeroEmbedder:
    """Vectors of nothing: enough to count the units a context index splits texts into."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.zeros((len(texts), 4), dtype=np.float32)


def lint_units(db_path: Path, sid: str) -> int:
    """The units (sentences, sentence pairs, record fields) of a session's chunks, as the lint embeds them."""
    from ragcov_tui.evaluation.generation.support import ContextIndex
    from ragcov_tui.store import open_db

    rows = open_db(db_path).execute("SELECT chunk_id, text FROM chunks WHERE session_id = ?", [sid]).fetchall()
    return len(ContextIndex.build([(c, t) for c, t in rows], ZeroEmbedder()).units)


def analyze(tmp_path: Path, *extra: str) -> dict:
    out = tmp_path / f"r{len(extra)}.json"
    assert (
        run_cli(
            "analyze",
            "--quiet",
            "--db",
            str(tmp_path / "db"),
            "--corpus",
            str(CORPUS),
            "--questions",
            str(QUESTIONS),
            "--embedder",
            "hash",
            "--json",
            str(out),
            *extra,
        )
        == 0
    )
    return json.loads(out.read_text())


def test_analyze_sample_embeds_the_sample_and_gives_intervals_around_the_exact_figures(tmp_path: Path) -> None:
    exact = analyze(tmp_path)
    assert "sample" not in exact  # exact stays the default
    sampled = analyze(tmp_path, "--sample", "40")
    sample = sampled["sample"]
    assert sampled["corpus"]["chunks"] == 40 and sample["chunks"] == 40 and sample["of"] == exact["corpus"]["chunks"]
    assert sample["text"] == f"estimated from 40 of {exact['corpus']['chunks']} chunks"
    # not the whole corpus: the 40 chunks, the questions, and what the test-set lint reads of the sampled
    # chunks (their sentences and sentence pairs, and each reference answer's claims)
    assert sampled["usage"]["embeddings"]["texts"] <= 40 + 3 * exact["questions"]["total"] + 5 + lint_units(
        tmp_path / "db", sampled["session_id"]
    )
    low, high = sample["basic"]
    assert low <= exact["coverage"]["basic"] <= high
    low, high = sample["covered_share"]
    assert 0.0 <= low <= sampled["coverage"]["covered_share"] <= high <= 1.0
    assert len(sample["clusters"]) == len(sampled["clusters"])
    assert sum(c["chunks"] for c in sample["clusters"]) == 40
    assert all(c["covered_share"] is None or c["covered_share"][0] <= c["covered_share"][1] for c in sample["clusters"])


def test_a_sample_of_every_chunk_is_the_exact_run(tmp_path: Path) -> None:
    assert "sample" not in analyze(tmp_path, "--sample", "100000")
