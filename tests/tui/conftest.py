"""A session database with one analysis (over a real test file) and one eval session, fixed data.

The eval items carry the pipeline's own diagnosis names (``generation_failure``…), so the Results
pane is tested and snapshotted with what ``ragcov eval`` stores.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcov_tui.store import open_db
from tests.support.synthetic_sessions import make_analysis_session, make_eval_session

REAL_DIAGNOSES = {
    "retrieval miss": "retrieval_failure",
    "unfaithful answer": "generation_failure",
    "incomplete answer": "ranking_failure",
}


@pytest.fixture()
def tui_db(tmp_path: Path) -> Path:
    path = tmp_path / "ragcov.db"
    db = open_db(path)
    make_analysis_session(db, testset_dir=tmp_path, n_chunks=400, n_questions=40)
    make_eval_session(db, n_questions=60)
    with db.conn:
        db.conn.executemany(
            "UPDATE eval_items SET diagnosis = ? WHERE diagnosis = ?",
            [(real, synthetic) for synthetic, real in REAL_DIAGNOSES.items()],
        )
    db.conn.close()
    return path


@pytest.fixture()
def anyio_backend() -> str:
    return "asyncio"
