"""``ragcov lint``: test-set lint as a job.

Reads the inputs as ``analyze`` does, embeds (through the cache), lints (:mod:`ragcov_tui.testlint`,
:mod:`.lint_section`) and stores no session: the session database is read only for the baseline's
content hashes (stale gold).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import sqlite_utils

from ragcov_tui.coverage.redundancy import near_duplicate_pairs
from ragcov_tui.embeddings.factory import embed_items, make_embedder
from ragcov_tui.services.analysis_job import AnalyzeOptions, chunk_vectors, load_inputs
from ragcov_tui.services.lint_section import lint_section
from ragcov_tui.shared.progress import Progress
from ragcov_tui.store.lint_contract import LintSection


def run_lint(
    opts: AnalyzeOptions,
    db: sqlite_utils.Database,
    progress: Progress | None = None,
    warn: Callable[[str], None] | None = None,
) -> LintSection:
    """``ragcov lint``: the lint section of ``opts`` (an ``AnalyzeOptions``); no session is stored."""
    params = opts.coverage_params()
    opts, testset, loaded = load_inputs(opts, progress, warn)
    embedder = make_embedder(opts.embedder, db=None if opts.no_cache else db, concurrency=opts.concurrency)
    chunk_vecs = chunk_vectors(embedder, loaded.chunks, loaded.store, None, progress)
    question_vecs = embed_items(
        embedder,
        [q.text for q in testset.questions],
        [q.vector for q in testset.questions],
        what=Path(opts.questions).name,
        progress=progress,
        labels=[q.id for q in testset.questions],
    )
    ids = [q.id for q in testset.questions]
    pairs = [(ids[a], ids[b], d) for a, b, d in near_duplicate_pairs(question_vecs, params.redundancy_threshold)]
    section, _ = lint_section(
        db,
        None,
        opts.baseline,
        testset,
        loaded.documents,
        loaded.chunks,
        loaded.chunks,
        chunk_vecs,
        question_vecs,
        embedder,
        pairs,
        progress,
    )
    return section
