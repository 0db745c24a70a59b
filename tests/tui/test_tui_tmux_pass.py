"""Pilot tests for what a full triage pass in tmux at 80x24 turned up (issue #10's closing check):
toasts over pop-ups, the layout after a resize, a status line cut without a sign, the Sessions list
and detail at 80x24, drop in the pairs view, the footer while a job runs, the Jobs form's focus, and
text in the pop-ups that wrapped to the left edge."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from textual.widgets import Footer, Input, Select, Static
from textual.widgets._toast import Toast

from ragcov_tui.store import open_db
from ragcov_tui.tui.app import PANES, RagcovApp, pane_id
from ragcov_tui.tui.modals import TextScreen
from ragcov_tui.tui.panes.jobs import JobsPane
from ragcov_tui.tui.safe_app import NOTICE_HOLD
from ragcov_tui.tui.widgets.paged_table import PagedTable
from tests.support.screen_text import screen_text, static_text
from tests.support.synthetic_sessions import make_eval_session
from tests.support.tables import current

SIZE = (80, 24)
pytestmark = pytest.mark.anyio


def shown_toasts(app: RagcovApp) -> list[Toast]:
    return [t for t in app.screen.query(Toast) if t.region.area]


async def opened_detail(pilot, pane: str) -> list[str]:
    """``enter`` on the first row of ``pane``: the pop-up's text, line by line."""
    pilot.app.show_pane(pane)
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()
    return static_text(pilot.app.screen.query_one("#text-body", Static)).splitlines()


async def test_a_notification_under_a_popup_at_80x24_is_no_toast_over_it(tui_db: Path) -> None:
    """Below 100x30 a notification goes to the status line; a pop-up (a detail, help) is no exception:
    a toast there covered the pop-up's text."""
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.show_pane("documents")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TextScreen)
        app.notify("a job finished meanwhile")
        await pilot.pause()
        assert not shown_toasts(app)
        assert app.notice is not None and "a job finished meanwhile" in app.notice.plain


@pytest.mark.parametrize("under_a_popup", [False, True])
async def test_a_resize_relays_the_panes_even_under_a_popup(tui_db: Path, under_a_popup: bool) -> None:
    """80x24 → 120x40 (with a pop-up open, then closed): the panes take the wide layout (side by
    side, toasts shown); and back. The layout follows the new size, not the one before the resize."""
    app = RagcovApp(tui_db, "a0000001")

    async def resize(pilot, size: tuple[int, int]) -> None:
        if under_a_popup:
            await pilot.press("question_mark")
            await pilot.pause()
        await pilot.resize_terminal(*size)
        await pilot.pause()
        if under_a_popup:
            await pilot.press("escape")
            await pilot.pause()
        assert not isinstance(app.screen, TextScreen)

    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.show_pane("overview")
        await pilot.pause()
        narrow_width = app.query_one("#overview-left").size.width
        await resize(pilot, (120, 40))
        assert app.query_one("#overview-left").size.width == 44 < narrow_width
        app.notify("wide: a toast")
        await pilot.pause()
        assert shown_toasts(app)
        await resize(pilot, SIZE)
        assert app.query_one("#overview-left").size.width == narrow_width


async def test_a_status_line_too_long_for_the_terminal_ends_in_an_ellipsis(tui_db: Path) -> None:
    """A notice wider than 80 columns (a path at its end) says that it goes on (``?`` has it in full),
    instead of stopping after a word with nothing to show that more was cut."""
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.notify("edited and accepted: 1 suggestion → /a/rather/long/path/to/the/test/file/questions.jsonl")
        await pilot.pause()
        first = screen_text(app).splitlines()[0]
        assert first.rstrip().endswith("…") and "edited and accepted: 1 suggestion → /a/rather" in first, first
        app.notify("short")
        await pilot.pause(NOTICE_HOLD + 0.3)  # (the long one stays NOTICE_HOLD seconds first: issue #22 §5)
        assert "…" not in screen_text(app).splitlines()[0] and "short" in screen_text(app).splitlines()[0]


async def test_sessions_at_80x24_lists_more_than_three_sessions_and_t_shows_the_trend(tui_db: Path) -> None:
    """Below 30 rows the trend chart (a 5-row plot) left the session list 3 rows; like the other
    optional charts it hides there, and ``t`` (in the footer and ?) shows / hides it."""
    db = open_db(tui_db)
    for i in range(2, 12):
        make_eval_session(db, sid=f"e{i:07d}", n_questions=3, created_at=f"2025-01-03T{i:02d}:00:00+00:00")
    db.conn.close()
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("sessions")
        await pilot.pause()
        table, trend = app.query_one("#sessions-table"), app.query_one("#sessions-trend")
        assert table.scrollable_content_region.height - 1 >= 8 and not trend.region.area
        assert any("Trend" in str(k.render()) for k in app.query_one(Footer).query("FooterKey"))
        await pilot.press("t")
        await pilot.pause()
        assert trend.region.height >= 7
        await pilot.press("t")
        await pilot.pause()
        assert not trend.region.area
    tall = RagcovApp(tui_db, "a0000001")
    async with tall.run_test(size=(120, 40)) as pilot:
        tall.show_pane("sessions")
        await pilot.pause()
        assert pilot.app.query_one("#sessions-trend").region.height >= 12  # room for both: shown


async def test_the_sessions_detail_at_80x24_shows_a_stopped_evals_resume_line(tui_db: Path) -> None:
    """The detail under the list is where a stopped session says how to finish it; at 80x24 its last
    line ('finish it with: ragcov eval --resume …') was cut off, with no other place to read it."""
    db = open_db(tui_db)
    with db.conn:
        db.conn.execute(
            "UPDATE sessions SET status = 'cancelled', error = 'cancelled by the user', corpus = ? "
            "WHERE id = 'e0000001'",
            ('["/data/a/rather/long/corpus/folder", "/data/another/corpus/folder"]',),
        )
    db.conn.close()
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("sessions")
        await pilot.pause()
        table = app.query_one("#sessions-table", PagedTable)
        while current(table)["id"] != "e0000001":
            await pilot.press("j")
        await pilot.pause()
        folded = " ".join(" ".join(screen_text(app).split()).split(" "))
        assert "ragcov eval --resume e0000001 (same options)" in folded, screen_text(app)


@pytest.mark.parametrize("key", ["d", "a", "space"])
async def test_keep_drop_mark_do_nothing_in_the_pairs_view_and_leave_its_footer(tui_db: Path, key: str) -> None:
    """In the redundant-pairs view ``d`` dropped the highlighted row of the hidden outlier list (a
    question the user could not see) from the test file; there keep / drop / mark are off, and the
    footer no longer offers them; back in the outlier list they work."""
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.show_pane("outliers")
        await pilot.pause()
        pane = app.query_one("#outliers")
        path = Path(app.db.table("sessions").get("a0000001")["questions_path"])
        before = path.read_bytes()
        await pilot.press("p")
        await pilot.pause()
        footer_keys = " ".join(str(k.render()) for k in app.query_one(Footer).query("FooterKey"))
        assert "Drop" not in footer_keys and "Keep" not in footer_keys and "Pairs" in footer_keys
        await pilot.press(key)
        await pilot.pause()
        assert path.read_bytes() == before and not pane.query_one("#outliers-table", PagedTable).marked
        await pilot.press("p")
        await pilot.pause()
        footer_keys = " ".join(str(k.render()) for k in app.query_one(Footer).query("FooterKey"))
        assert "Drop" in footer_keys and "Keep" in footer_keys
        await pilot.press("d")
        await pilot.pause()
        assert path.read_bytes() != before


async def test_while_a_job_runs_the_80_column_footer_shows_cancel_job_in_full_on_every_pane(tui_db: Path) -> None:
    """``^x Cancel job`` joins the footer while a job runs; at 80 columns it fell off the right edge
    on Gaps, Outliers and Sessions (``… ? Help ^x``). Then ``^q`` / ``?`` leave the footer (``?``
    lists them, the status line names ``?``), and come back when the job ends."""
    app = RagcovApp(tui_db, "e0000001")
    async with app.run_test(size=SIZE) as pilot:
        jobs = app.query_one(JobsPane)
        for running in (True, False):
            jobs.running = running
            for cls in PANES:
                app.show_pane(pane_id(cls))
                app.refresh_bindings()
                await pilot.pause()
                await pilot.pause()
                footer = app.query_one(Footer)
                keys = " ".join(str(k.render()) for k in footer.query("FooterKey"))
                assert ("Cancel job" in keys) is running and ("Help" in keys) is not running, (cls.title, keys)
                assert footer.virtual_size.width <= footer.size.width, (cls.title, keys)


def _background_of(app: RagcovApp, row: str, text: str):
    """The background colour under ``text`` on the first screen row that starts with ``row``."""
    for strip in app.screen._compositor.render_strips():
        if "".join(segment.text for segment in strip).strip().startswith(row):
            for segment in strip:
                if text in segment.text and segment.style and segment.style.bgcolor:
                    return segment.style.bgcolor.get_truecolor()
    raise AssertionError(f"{text!r} not on screen")


async def test_the_focused_jobs_field_stands_out(tui_db: Path) -> None:
    """The Jobs form's compact fields showed focus as a 5% tint: in tmux the focused kind selector
    could not be told from the others. Focused, a field's background differs clearly."""
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("jobs")
        await pilot.pause()
        app.query_one("#job-embedder", Input).focus()
        await pilot.pause()
        blurred = _background_of(app, "kind", "analysis")
        app.query_one("#job-kind", Select).focus()
        await pilot.pause()
        focused = _background_of(app, "kind", "analysis")
        assert sum(abs(a - b) for a, b in zip(focused, blurred, strict=False)) >= 60, (focused, blurred)


async def test_the_result_detail_key_line_fits_one_line_at_80x24(tui_db: Path) -> None:
    """'… g/G top/bottom · c: retrieved chunks' text' wrapped to a second line at 80 columns,
    taking a row from the detail; the pop-up's key line is one line, and still names c."""
    app = RagcovApp(tui_db, "e0000001")
    async with app.run_test(size=SIZE) as pilot:
        await opened_detail(pilot, "results")
        keys_line = app.screen.query("Static").last()
        assert keys_line.size.height == 1 and "· c chunk text" in str(keys_line.render())


async def test_a_documents_chunk_text_wraps_under_itself_in_its_detail(tui_db: Path) -> None:
    """In the document detail a chunk's text (indented under its header line) wrapped back to the
    left edge, between the distance figures; now every wrapped line stays under the text."""
    async with RagcovApp(tui_db, "a0000001").run_test(size=SIZE) as pilot:
        lines = await opened_detail(pilot, "documents")
        start = next(i for i, line in enumerate(lines) if re.match(r"\s*\d\.\d{3}\s", line))  # the first chunk
        chunk_lines = [line for line in lines[start:] if line.strip()]
        headers = [line for line in chunk_lines if line[:8].strip()]
        assert headers and all(line.lstrip()[0].isdigit() for line in headers), headers[:5]
        assert len(headers) < len(chunk_lines)  # the text lines, all indented


async def test_a_long_claim_wraps_under_itself_in_the_result_detail(tui_db: Path) -> None:
    """A claim longer than the line wrapped back to the left edge, under the verdicts; it stays
    under its own text, and so does its reason."""
    claim = "API rate limit (per token) — Free: 60 req/min; Team: 300 req/min; Business: 1,000 req/min."
    db = open_db(tui_db)
    qid, details = db.conn.execute(
        "SELECT question_id, details FROM eval_items WHERE session_id = 'e0000001' ORDER BY question_id LIMIT 1"
    ).fetchone()
    details = json.loads(details or "{}")
    details.setdefault("generation_details", {})["faithfulness"] = {
        "claims": [{"claim": claim, "verdict": "supported", "reason": "similarity 1.00 · " + "a-long-chunk-id-" * 5}]
    }
    with db.conn:
        db.conn.execute(
            "UPDATE eval_items SET details = ? WHERE session_id = 'e0000001' AND question_id = ?",
            (json.dumps(details), qid),
        )
    db.conn.close()
    async with RagcovApp(tui_db, "e0000001").run_test(size=SIZE) as pilot:
        lines = await opened_detail(pilot, "results")
        start = next(i for i, line in enumerate(lines) if line.startswith("Claims and verdicts"))
        end = next(
            i for i, line in enumerate(lines[start + 1 :], start + 1) if line.endswith("metrics")
        )  # next heading
        block = [line for line in lines[start + 1 : end] if line.strip()]
        assert any("supported" in line for line in block) and len(block) >= 4, block
        assert all(line.startswith("  ") for line in block), block
