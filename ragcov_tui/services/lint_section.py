"""The lint section of a run and the content hashes every analysis and eval stores (stale gold).

Shared by ``ragcov lint`` (:mod:`.lint_job`), ``analyze`` and ``eval``, which pass the vectors and
near-duplicate pairs they have already.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import sqlite_utils

from ragcov_tui.corpus.models import Chunk, Document
from ragcov_tui.coverage.gold import gold_chunk_sets
from ragcov_tui.embeddings.base import Embedder
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.progress import Progress
from ragcov_tui.store.lint import as_baseline, baseline_session, has_content_hashes, load_content_hashes
from ragcov_tui.store.lint_contract import LintSection, StaleBaseline, StaleGoldSection
from ragcov_tui.store.sessions import resolve_session
from ragcov_tui.testlint.lint import LintInputs, lint_report, stale_section
from ragcov_tui.testlint.stale import HashKey, StaleGold, content_hashes, stale_gold
from ragcov_tui.testset.models import TestSet


def lint_section(
    db: sqlite_utils.Database,
    session_id: str | None,
    baseline_ref: str | None,
    testset: TestSet,
    documents: Sequence[Document],
    all_chunks: Sequence[Chunk],
    chunks: Sequence[Chunk],
    chunk_vecs: np.ndarray,
    question_vecs: np.ndarray,
    embedder: Embedder,
    duplicate_pairs: Sequence[tuple[str, str, float]],
    progress: Progress | None = None,
) -> tuple[LintSection, dict[HashKey, str]]:
    """The lint section and the content hashes of the whole corpus (``all_chunks``; ``chunks`` are the
    ones with vectors, a sample of them under ``--sample``). Stale gold compares with
    ``baseline_ref`` or the newest earlier session of the test file (not ``session_id``)."""
    hashes = content_hashes(documents, all_chunks)
    baseline = find_baseline(db, str(Path(testset.path).resolve()), baseline_ref, session_id)
    stale = stale_against(db, baseline, testset, all_chunks, hashes)
    inputs = LintInputs(
        testset.questions,
        question_vecs,
        chunks,
        chunk_vecs,
        gold_chunk_sets(testset.questions, chunks),
        duplicate_pairs,
        stale,
        baseline,
    )
    return lint_report(inputs, embedder, progress), hashes


def eval_stale_gold(
    db: sqlite_utils.Database, session_id: str, testset: TestSet, documents: Sequence[Document], chunks: Sequence[Chunk]
) -> tuple[StaleGoldSection, dict[HashKey, str]]:
    """An eval's stale gold against the test file's last session, and the content hashes to store."""
    hashes = content_hashes(documents, chunks)
    baseline = find_baseline(db, str(Path(testset.path).resolve()), None, session_id)
    stale = stale_against(db, baseline, testset, chunks, hashes)
    return stale_section(len(testset.questions), stale, baseline), hashes


def find_baseline(
    db: sqlite_utils.Database, questions_path: str, ref: str | None, exclude: str | None
) -> StaleBaseline | None:
    """The session named by ``--baseline`` (BadInput when it stored no content hashes), else the
    newest finished session of this test file with hashes, else None."""
    if ref is None:
        return baseline_session(db, questions_path, exclude)
    session = resolve_session(db, ref)
    if not has_content_hashes(db, session["id"]):
        raise BadInput(
            f"--baseline {ref}: session {session['id']} stored no content hashes (made by an older "
            "ragcov, or not finished); name a newer analysis or eval session"
        )
    return as_baseline(session["id"], session["created_at"])


def stale_against(
    db: sqlite_utils.Database,
    baseline: StaleBaseline | None,
    testset: TestSet,
    chunks: Sequence[Chunk],
    hashes: dict[HashKey, str],
) -> StaleGold | None:
    """Stale gold against ``baseline`` (None without one); fills its changed / missing lists."""
    if baseline is None:
        return None
    since = f"session {baseline['session_id']}" + (
        f" ({baseline['created_at'][:10]})" if baseline["created_at"] else ""
    )
    stale = stale_gold(testset.questions, chunks, hashes, load_content_hashes(db, baseline["session_id"]), since)
    baseline["changed_documents"], baseline["missing_documents"] = stale.changed, stale.missing
    return stale
