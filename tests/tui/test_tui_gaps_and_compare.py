"""Issue #10 items 8 and 18 at 80x24.

8. In Gaps, a reject leaves the suggestion cursor where it was (on the row that took the rejected
   one's place), not on row 0; an edit-and-accept lists the edited text, says "edited" where the
   list shows a suggestion's origin, and records ``provenance.edited: true`` in the decision.
18. Sessions → mark two evals → ``c`` shows the paired bootstrap intervals ``ragcov compare``
   prints (the same core result, the same numbers), and says when the runs scored different
   question sets (31 vs 32).
"""

from __future__ import annotations

import io
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Input, Static

from ragcov_tui.cli.render import SafeConsole, print_compare
from ragcov_tui.evaluation.compare import compare_reports
from ragcov_tui.evaluation.compare_contract import Comparison
from ragcov_tui.store import open_db
from ragcov_tui.store.decisions import list_decisions
from ragcov_tui.store.evals import load_eval_report
from ragcov_tui.store.queries import eval_metric_keys, gap_rows
from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.modals import CompareScreen, TextPrompt, TextScreen
from ragcov_tui.tui.widgets.paged_table import PagedTable
from tests.support.screen_text import screen_text, static_text
from tests.support.synthetic_sessions import make_eval_session
from tests.support.tables import current

SIZE = (80, 24)
pytestmark = pytest.mark.anyio


async def press(pilot, *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await pilot.pause()


def folded(text: str) -> str:
    return " ".join(text.split())


# ---------------------------------------------------------------- 8. Gaps: reject, edit-and-accept


@asynccontextmanager
async def gaps_on(tui_db: Path, gap_row: int, suggestion_row: int) -> AsyncIterator[tuple[RagcovApp, Any]]:
    """Gaps at 80x24, the gap cursor on ``gap_row`` (j), tab to the suggestions, ``suggestion_row`` (j)."""
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("gaps")
        await pilot.pause()
        await press(pilot, *["j"] * gap_row, "tab", *["j"] * suggestion_row)
        assert app.focused is app.query_one("#gaps-suggestions", PagedTable)
        yield app, pilot


def suggestions(app: RagcovApp) -> PagedTable:
    return app.query_one("#gaps-suggestions", PagedTable)


def file_rows(tui_db: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (tui_db.parent / "questions.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("gap_row", [0, 1, 3])
@pytest.mark.parametrize("row", [0, 1, 2])
async def test_reject_leaves_the_cursor_where_it_was(tui_db: Path, gap_row: int, row: int) -> None:
    async with gaps_on(tui_db, gap_row, row) as (app, pilot):
        table = suggestions(app)
        before = [s.text for s in table.page.rows]
        assert len(before) == 3 and table.cursor_row == row
        await press(pilot, "d")
        after = [s.text for s in table.page.rows]
        assert after == before[:row] + before[row + 1 :]
        assert app.query_one("#gaps-table", DataTable).cursor_row == gap_row  # the same gap
        assert table.cursor_row == min(row, 1) and app.focused is table  # not row 0: the row that took its place
        screen = screen_text(app)
        assert before[row] not in screen and after[min(row, 1)] in folded(
            static_text(app.query_one("#gaps-detail", Static))
        )


async def test_two_rejects_and_an_accept_act_on_the_rows_under_the_cursor(tui_db: Path) -> None:
    async with gaps_on(tui_db, 0, 1) as (app, pilot):
        texts = [s.text for s in suggestions(app).page.rows]
        await press(pilot, "d")  # row 1 goes, row 2 moves up under the cursor
        assert current(suggestions(app)).text == texts[2]
        await press(pilot, "a")
        assert file_rows(tui_db)[-1]["question"] == texts[2]
        # the accepted row stays listed (ADDED); the cursor moves on to the open one left, above it
        assert suggestions(app).cursor_row == 0 and current(suggestions(app)).text == texts[0]
        assert "ADDED" in screen_text(app)
        await press(pilot, "d")
        assert [s.text for s in suggestions(app).page.rows] == [texts[2]] and suggestions(app).cursor_row == 0


async def edit_to(pilot, text: str) -> None:
    """``e``, the prompt's text replaced, enter."""
    await press(pilot, "e")
    assert isinstance(pilot.app.screen, TextPrompt)
    pilot.app.screen.query_one(Input).value = text
    await press(pilot, "enter")


EDITS = [
    "How does encryption cache invalidation work after a restore?",
    "What does [bold]retry[/bold] do when the [/INST] token times out?",
]


@pytest.mark.parametrize("edited", EDITS)
@pytest.mark.parametrize("row", [0, 2])
async def test_edit_and_accept_lists_the_edited_text_and_says_edited(tui_db: Path, edited: str, row: int) -> None:
    async with gaps_on(tui_db, 1, row) as (app, pilot):
        original = current(suggestions(app))
        await edit_to(pilot, edited)
        table = suggestions(app)
        assert table.cursor_row != row and current(table).status == "open"  # moved on to the next open one
        assert table.cursor_row == 1
        await press(pilot, "k" if row == 0 else "j")  # back to the edited one
        assert current(table).id == original.id
        line = " ".join(c.plain for c in table.get_row_at(row))
        assert (
            "ADDED" in line and "edited" in line and edited[:30] in line
        )  # the list: status, "edited" for its origin, the text
        assert original.text not in line
        detail = folded(static_text(app.query_one("#gaps-detail", Static)))
        assert f"edited {edited}" in detail and f"heuristic {original.text}" in detail
        written = file_rows(tui_db)[-1]
        assert written["question"] == edited and written["id"] == current(table).question_id
        db = open_db(tui_db)
        decision = list_decisions(db, "a0000001")[-1]
        assert "provenance" not in written  # the file's rows have no such field: the decision keeps it
        assert decision.payload["provenance"] == {
            "source": "ragcov:heuristic",
            "cluster": original.cluster,
            "session": "a0000001",
            "edited": True,
        }
        assert (decision.action, decision.payload["text"], decision.payload["original"]) == (
            "edit",
            edited,
            original.text,
        )
        stored = next(
            s
            for g in gap_rows(db, "a0000001", str(tui_db.parent / "questions.jsonl"))
            for s in g["suggestions"]
            if s.id == original.id
        )
        assert stored.edited and stored.text == edited and stored.suggested == original.text

        await press(pilot, "enter")  # the suggestion in full: as written, and as suggested
        assert isinstance(app.screen, TextScreen)
        body = folded(static_text(app.screen.query_one("#text-body", Static)))
        assert f"edited and accepted), as written {edited} As suggested {original.text}" in body


async def test_undo_of_an_edit_lists_the_suggestion_as_suggested_again(tui_db: Path) -> None:
    before = (tui_db.parent / "questions.jsonl").read_bytes()
    async with gaps_on(tui_db, 0, 1) as (app, pilot):
        original = current(suggestions(app))
        await edit_to(pilot, EDITS[0])
        await press(pilot, "u")
        table = suggestions(app)
        assert (tui_db.parent / "questions.jsonl").read_bytes() == before
        assert table.page.rows[1].text == original.text and not table.page.rows[1].edited
        lists = "\n".join(screen_text(app).splitlines()[1:])  # (the status line may still say what was accepted)
        assert "edited" not in lists and "ADDED" not in lists


async def test_an_edit_that_changes_nothing_is_a_plain_accept(tui_db: Path) -> None:
    async with gaps_on(tui_db, 0, 0) as (app, pilot):
        original = current(suggestions(app))
        await edit_to(pilot, f"  {original.text} ")
        written = file_rows(tui_db)[-1]
        assert written["question"] == original.text
        assert "edited" not in list_decisions(open_db(tui_db), "a0000001")[-1].payload["provenance"]
        assert not current(suggestions(app)).edited and "edited" not in screen_text(app)
        assert list_decisions(open_db(tui_db), "a0000001")[-1].action == "accept"


# ---------------------------------------------------------------- 18. compare of two evals


def add_report(db, sid: str) -> None:
    """The stored report header ``ragcov eval`` writes (its metric names are what compare pairs)."""
    keys = eval_metric_keys(db, sid)
    header = {
        "session_id": sid,
        "k": 5,
        "system": "builtin:hybrid",
        "judge": "heuristic",
        "aggregate": {group: {name: {"mean": None} for name in names} for group, names in keys.items()},
    }
    with db.conn:
        db["reports"].insert({"session_id": sid, "report": json.dumps(header)})


@pytest.fixture()
def evals_db(tmp_path: Path) -> Path:
    """Two evals of 33 questions (q00013 failed in both); the older lost q00020, so A scored 31, B 32."""
    path = tmp_path / "ragcov.db"
    db = open_db(path)
    make_eval_session(db, sid="e0000001", n_questions=33, seed=1, created_at="2025-01-02T11:00:00+00:00")
    make_eval_session(db, sid="e0000002", n_questions=33, seed=2, created_at="2025-01-03T11:00:00+00:00")
    make_eval_session(db, sid="e0000003", n_questions=33, seed=3, created_at="2025-01-04T11:00:00+00:00")
    with db.conn:
        db.execute("DELETE FROM eval_items WHERE session_id = 'e0000001' AND question_id = 'q00020'")
    for sid in ("e0000001", "e0000002", "e0000003"):
        add_report(db, sid)
    db.conn.close()
    return path


async def compare_marked(pilot, ids: tuple[str, str]) -> CompareScreen:
    """Sessions: space on each of ``ids``, ``c``, wait for the intervals."""
    app = pilot.app
    app.show_pane("sessions")
    await pilot.pause()
    table = app.query_one("#sessions-table", PagedTable)
    table.focus()
    for sid in ids:
        await press(pilot, "g", *["j"] * [r["id"] for r in table.page.rows].index(sid), "space")
    await press(pilot, "c")
    screen = app.screen
    assert isinstance(screen, CompareScreen)
    await app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.pause()
    return screen


def body(screen: TextScreen) -> str:
    return static_text(screen.query_one("#text-body", Static))


def cli_lines(result: Comparison) -> str:
    out = io.StringIO()
    print_compare(SafeConsole(file=out, width=200, color_system=None), result)
    return out.getvalue()


@pytest.mark.parametrize("order", [("e0000001", "e0000002"), ("e0000002", "e0000001")])
async def test_compare_of_two_evals_shows_the_intervals_the_cli_prints(evals_db: Path, order: tuple[str, str]) -> None:
    db = open_db(evals_db)
    result = compare_reports(load_eval_report(db, "e0000001"), load_eval_report(db, "e0000002"))  # A older, B newer
    assert result["scored"] == {"a": 31, "b": 32, "both": 31} and len(result["metrics"]) == 11
    printed = cli_lines(result)
    async with RagcovApp(evals_db).run_test(size=SIZE) as pilot:
        screen = await compare_marked(pilot, order)
        shown = body(screen)
        assert "Paired B − A (A e0000001, B e0000002): 95% bootstrap intervals, 10,000 resamples" in folded(shown)
        for m in result["metrics"]:
            interval = f"[{m['ci_low']:+.3f}, {m['ci_high']:+.3f}]"
            assert interval in printed  # the CLI's numbers …
            row = next(line for line in shown.splitlines() if line.startswith(m["metric"] + " "))
            assert interval in row and f"{m['delta']:+.3f}" in row  # … on the metric's row in the app
            assert f"{m['wins']}/{m['losses']}/{m['ties']}" in row and row.endswith(" *") == m["significant"]
        note = "the runs scored different questions: A 31, B 32, 31 both; every delta and interval is over those 31"
        assert note in folded(printed)
        await press(pilot, "g")
        for _ in range(6):  # the note is on screen once scrolled to it (j line by line)
            if note[:40] in folded(screen_text(pilot.app)):
                break
            await press(pilot, "j", "j", "j")
        assert "Note: the runs scored different questions: A 31, B 32" in folded(screen_text(pilot.app))
        await press(pilot, "G")
        assert "W/L/T" in screen_text(pilot.app) or result["metrics"][-1]["metric"] in screen_text(pilot.app)


async def test_compare_of_evals_that_scored_the_same_questions_has_no_note(evals_db: Path) -> None:
    async with RagcovApp(evals_db).run_test(size=SIZE) as pilot:
        screen = await compare_marked(pilot, ("e0000002", "e0000003"))
        shown = folded(body(screen))
        assert "Paired B − A (A e0000002, B e0000003)" in shown and "Note" not in shown
        assert "different questions" not in shown


async def test_compare_of_an_analysis_and_an_eval_has_no_intervals(tui_db: Path) -> None:
    async with RagcovApp(tui_db).run_test(size=SIZE) as pilot:
        screen = await compare_marked(pilot, ("a0000001", "e0000001"))
        shown = body(screen)
        assert "a0000001" in shown and "Paired" not in shown and "Computing" not in shown


async def test_compare_of_evals_stored_without_a_report_says_so(tui_db: Path) -> None:
    db = open_db(tui_db)
    make_eval_session(db, sid="e0000009", n_questions=10, created_at="2025-01-05T11:00:00+00:00")
    db.conn.close()
    async with RagcovApp(tui_db).run_test(size=SIZE) as pilot:
        screen = await compare_marked(pilot, ("e0000001", "e0000009"))
        assert "No metric was scored in both sessions." in folded(body(screen))
        await press(pilot, "escape")
        assert not isinstance(pilot.app.screen, CompareScreen)


def test_compare_of_two_evals_snapshot(snap_compare, evals_db: Path) -> None:
    """The paired table at 80 columns (scrolled to the end): every metric on one line, the note wrapped."""

    async def run_before(pilot) -> None:
        await compare_marked(pilot, ("e0000001", "e0000002"))
        await press(pilot, "G")

    assert snap_compare(RagcovApp(evals_db), terminal_size=SIZE, run_before=run_before)
