"""``H`` writes the session in view as an HTML page (issue #28 §1): the prompt offers
``ragcov-<kind>-<id>.html``, enter writes it in a worker, a notification gives its absolute path;
a session that is not done is refused with a warning, and nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcov_tui.store import open_db
from ragcov_tui.tui.app import RagcovApp
from tests.support.screen_text import screen_text
from tests.support.synthetic_sessions import make_analysis_session, make_eval_session

pytestmark = pytest.mark.anyio
SIZE = (80, 24)


@pytest.fixture()
def db_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "r.db"
    db = open_db(path)
    make_analysis_session(db, n_chunks=80, n_questions=20)
    make_eval_session(db, n_questions=8)
    db.conn.close()
    return path


async def wait_for(pilot, done, tries: int = 200) -> None:
    for _ in range(tries):
        if done():
            return
        await pilot.pause(0.05)
    raise AssertionError("timed out")


@pytest.mark.parametrize("sid, kind", [("a0000001", "analysis"), ("e0000001", "eval")])
async def test_h_writes_the_open_session_as_a_page(db_path: Path, sid: str, kind: str) -> None:
    app = RagcovApp(db_path, sid)
    target = db_path.parent / f"ragcov-{kind}-{sid}.html"
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("overview" if kind == "analysis" else "results")
        await pilot.pause()
        await pilot.press("H")
        await pilot.pause()
        assert f"ragcov-{kind}-{sid}.html" in screen_text(app)
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("wrote" in n.message for n in app._notifications))
        said = next(n.message for n in app._notifications if "wrote" in n.message)
        assert str(target) in said
    page = target.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and f"session {sid}" in page


async def test_h_on_a_session_that_is_not_done_writes_nothing(db_path: Path) -> None:
    db = open_db(db_path)
    db.execute("UPDATE sessions SET status = 'failed' WHERE id = 'e0000001'")
    db.conn.commit()
    db.conn.close()
    app = RagcovApp(db_path, "e0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("results")
        await pilot.pause()
        await pilot.press("H")
        await pilot.pause()
        assert any("only a finished session" in n.message for n in app._notifications)
    assert not list(db_path.parent.glob("*.html"))
