"""Pilot tests of a retrieval-only eval on a BEIR folder in the app: the result detail reads the
folder's qrels as gold (as the CLI does), shows no answer or keyword section, tags the gold chunks;
the Gaps detail says plainly that a BEIR folder is read-only."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from ragcov_tui.services import triage
from ragcov_tui.services.eval_job import EvalOptions, run_eval
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store.db import open_db
from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.details.eval_item import EvalItemScreen
from tests.evaluation.test_eval_beir import make_beir
from tests.support.screen_text import static_text

SIZE = (80, 24)
pytestmark = pytest.mark.anyio


@pytest.fixture()
def beir_session(tmp_path: Path) -> tuple[Path, str, Path]:
    folder = make_beir(tmp_path / "scifact")
    path = tmp_path / "ragcov.db"
    sid, _ = run_eval(EvalOptions(questions=str(folder), system="builtin:bm25", k=10, embedder="hash"), open_db(path))
    return path, sid, folder


async def test_result_detail_of_a_beir_run_shows_qrels_gold_and_tags_gold_chunks(beir_session) -> None:
    path, sid, folder = beir_session
    app = RagcovApp(path, sid)
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("results")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, EvalItemScreen)
        body = static_text(app.screen.query_one("#text-body", Static))
        qid = app.screen.item.question_id
    gold = [
        line.split("\t")[1]
        for line in (folder / "qrels" / "test.tsv").read_text().splitlines()[1:]
        if line.split("\t")[0] == qid
    ]
    assert "not readable" not in body and "is a directory" not in body
    assert "gold ids" in body and all(f"{doc} (" in body for doc in gold)
    assert "Answer" not in body and "Missing keywords" not in body  # nothing of an answer was measured
    tagged = [line for line in body.splitlines() if "  gold  ·  score" in line]
    found = [line for line in body.splitlines() if any(f"{doc}#" in line for doc in gold)]
    assert found and tagged == found


def test_a_beir_folder_refuses_writes_in_plain_words_but_keeps_and_rejects_still_record(tui_db: Path) -> None:
    folder = make_beir(tui_db.parent / "scifact")
    db = open_db(tui_db)
    with db.conn:
        db.execute("UPDATE sessions SET questions_path = ? WHERE id = 'a0000001'", [str(folder)])
    suggestion = db.execute("SELECT id FROM suggestions WHERE session_id = 'a0000001' ORDER BY id LIMIT 2").fetchall()
    with pytest.raises(BadInput, match=r"^questions come from a BEIR folder \(read-only\): accepted questions cannot"):
        triage.accept_suggestion(db, "a0000001", suggestion[0][0])
    assert triage.reject_suggestion(db, "a0000001", suggestion[1][0]).action == "reject"  # no file change: still fine
    assert triage.keep_question(db, "a0000001", "q1").action == "keep"
