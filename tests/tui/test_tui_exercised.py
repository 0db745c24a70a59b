"""Pilot test: the Overview of an analysis joined with an eval (``--eval-session``) shows the
exercised share and the blind spots at 80x24 (issue #27 §3)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
from textual.widgets import Static

from ragcov_tui.services.analysis_job import AnalyzeOptions, run_analysis
from ragcov_tui.services.eval_job import EvalOptions, run_eval
from ragcov_tui.store import open_db
from ragcov_tui.tui.app import RagcovApp
from tests.cli.test_cli_exercised import write_corpus
from tests.support.screen_text import static_text

pytestmark = pytest.mark.anyio


@pytest.fixture()
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def joined_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """An eval at k = 1 with probes, and an analysis joined with it and one without (hash embedder)."""
    root = write_corpus(tmp_path_factory.mktemp("exercised-app"))
    path = root / "ragcov.db"
    db = open_db(path)
    corpus, questions = [str(root / "corpus")], str(root / "questions.jsonl")
    eval_sid, _ = run_eval(
        EvalOptions(
            corpus=corpus,
            questions=questions,
            embedder="hash",
            system="builtin:bm25",
            k=1,
            metrics="retrieval",
            probes=10,
        ),
        db,
    )
    analysis = partial(AnalyzeOptions, corpus=corpus, questions=questions, embedder="hash")
    plain, _ = run_analysis(analysis(), db)
    joined, _ = run_analysis(analysis(eval_session=eval_sid), db)
    db.conn.close()
    return path, joined, plain


async def test_overview_shows_the_exercised_share_and_blind_spots(joined_db: tuple[Path, str, str]) -> None:
    path, joined, plain = joined_db
    app = RagcovApp(path, joined)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        figures = " ".join(static_text(app.query_one("#overview-figures", Static)).split())
        assert "exercised 3 of 7 chunks (43%) by eval" in figures
        assert "blind spots 0 clusters 4 documents unretrievable 1" in figures
    app = RagcovApp(path, plain)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert "exercised" not in static_text(app.query_one("#overview-figures", Static))
