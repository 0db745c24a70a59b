"""Pilot tests of issue #10's interaction model at 80x24: filters that say what they did, pop-ups
that scroll with every key, ``enter`` / ``tab`` / ``1``–``8`` / ``g`` / ``G`` the same in every
pane, toasts that stay off the list, formatted numbers, a Sessions cursor that follows its session,
jobs that do not pull the user away, a Jobs form that keeps what was typed, ``R`` per pane."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.widgets import DataTable, Input, Select, Static
from textual.widgets._toast import Toast

from ragcov_tui.store import open_db
from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.details.eval_item import EvalItemScreen
from ragcov_tui.tui.modals import TextScreen
from ragcov_tui.tui.panes.jobs import JobsPane
from ragcov_tui.tui.panes.outliers import OutliersPane
from ragcov_tui.tui.widgets.filter_bar import Filterable, FilterBar
from ragcov_tui.tui.widgets.paged_table import PagedTable
from tests.support.screen_text import screen_text, static_text
from tests.support.stored import stored_session
from tests.support.synthetic_sessions import make_eval_session
from tests.support.tables import current

SIZE = (80, 24)
pytestmark = pytest.mark.anyio


async def filter_with(pilot, pane: str, text: str) -> None:
    """``/`` on ``pane``, the text set directly, enter."""
    pilot.app.show_pane(pane)
    await pilot.pause()
    await pilot.press("slash")
    pilot.app.query_one(f"#{pane}-filter", FilterBar).value = text
    await pilot.press("enter")
    await pilot.pause()
    await pilot.pause()


# ---------------------------------------------------------------- 10. filters


@pytest.mark.parametrize(
    "typed, full",
    [
        ("faith<0.5", "faithfulness"),
        ("corr>=0.8", "answer_correctness"),
        ("faithfulness<0.5", "faithfulness"),
        ("mrr=1", "mrr"),
    ],
)
async def test_filter_accepts_the_column_titles_shown(tui_db: Path, typed: str, full: str) -> None:
    app = RagcovApp(tui_db, "e0000001")
    async with app.run_test(size=SIZE) as pilot:
        await filter_with(pilot, "results", typed)
        table = app.query_one("#results-table", PagedTable)
        assert f"filter {typed!r}" in (table.border_title or "")
        op, value = (">=", 0.8) if ">=" in typed else ("<", 0.5) if "<" in typed else ("=", 1.0)
        for row in table.page.rows:
            v = {**row.retrieval, **row.generation}[full]
            assert {"<": v < value, ">=": v >= value, "=": v == value}[op]
        assert not app.query(".filter-error")


@pytest.mark.parametrize(
    "typed, says",
    [
        ("fidelity<0.5", "unknown column 'fidelity'"),
        ("faith<", "malformed filter"),
        ("faith<0.5.1", "malformed filter"),
        ("<0.5", "malformed filter"),
        ("faith<<0.5", "malformed filter"),
    ],
)
async def test_a_bad_filter_is_an_error_in_the_filter_line_and_no_filter_is_claimed(
    tui_db: Path, typed: str, says: str
) -> None:
    app = RagcovApp(tui_db, "e0000001")
    async with app.run_test(size=SIZE) as pilot:
        await filter_with(pilot, "results", typed)
        table = app.query_one("#results-table", PagedTable)
        assert "filter" not in (table.border_title or "") and table.page.total == 60
        screen = " ".join(screen_text(app).split())  # the error line wraps at 80 columns
        assert says in screen and "columns: hit@5, mrr, faith, corr" in screen
        bar = app.query_one("#results-filter", FilterBar)
        assert bar.display and bar.value == typed and app.focused is bar
        bar.value = "faith<0.5"  # fixed: the error line goes, the filter is on
        await pilot.press("enter")
        await pilot.pause()
        assert "filter 'faith<0.5'" in (table.border_title or "") and not app.query(".filter-error")


@pytest.mark.parametrize("pane", ["sessions", "clusters", "outliers", "gaps", "documents", "results"])
async def test_esc_on_a_filtered_list_clears_the_filter(tui_db: Path, pane: str) -> None:
    app = RagcovApp(tui_db, "e0000001" if pane == "results" else "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        await filter_with(pilot, pane, "zzzz-no-such-thing")
        assert "filter 'zzzz-no-such-thing'" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        shown = app.active_pane()
        assert shown.id == pane and isinstance(shown, Filterable) and shown.query_text == ""
        assert "filter '" not in screen_text(app) and not app.query_one(f"#{pane}-filter").display
        await pilot.press("escape")  # no filter: esc backs out one level (to the pane shown before)
        await pilot.pause()
        assert app.active_pane().id != pane


# ---------------------------------------------------------------- 11. scrolling pop-ups, the result detail


def with_ground_truth(tui_db: Path) -> None:
    """Point the eval session at a test file holding a ground truth and keywords for q00000."""
    path = tui_db.parent / "eval_questions.jsonl"
    rows = [
        {
            "id": "q00000",
            "question": "Why?",
            "ground_truth": "Because the index was rebuilt overnight.",
            "expected_keywords": ["index", "zebra"],
        }
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    db = open_db(tui_db)
    with db.conn:
        db.execute("UPDATE sessions SET questions_path = ? WHERE id = 'e0000001'", [str(path)])
        details = json.loads(db.execute("SELECT details FROM eval_items WHERE question_id = 'q00000'").fetchone()[0])
        details["generation_details"]["keyword_coverage"] = {"found": ["index"], "missing": ["zebra"]}
        db.execute("UPDATE eval_items SET details = ? WHERE question_id = 'q00000'", [json.dumps(details)])
    db.conn.close()


async def test_result_detail_leads_with_truth_answer_keywords_verdicts_and_folds_chunks(tui_db: Path) -> None:
    with_ground_truth(tui_db)
    app = RagcovApp(tui_db, "e0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("results")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        body = static_text(app.screen.query_one("#text-body", Static))
        order = [
            body.index(s)
            for s in (
                "Question",
                "Ground truth",
                "Because the index was rebuilt overnight.",
                "Answer",
                "Missing keywords  zebra",
                "Claims and verdicts",
                "Retrieval metrics",
                "Retrieved: 5 chunks, 2 cited (*) · c: show their text",
            )
        ]
        assert order == sorted(order), body
        top = screen_text(app)
        assert "Ground truth" in top and "Answer" in top  # on the first screen at 80x24
        assert isinstance(app.screen, EvalItemScreen)
        chunk_text = app.screen.item.retrieved[0]["text"]
        assert chunk_text[:30] not in body  # folded
        await pilot.press("c")
        await pilot.pause()
        unfolded = static_text(app.screen.query_one("#text-body", Static))
        assert " ".join(chunk_text.split()[:3]) in unfolded and "c: fold their text" in unfolded


@pytest.mark.parametrize("opener", ["question_mark", "results-enter"])
async def test_scrolling_popups_take_every_key(tui_db: Path, opener: str) -> None:
    app = RagcovApp(tui_db, "e0000001")
    async with app.run_test(size=SIZE) as pilot:
        if opener == "results-enter":
            app.show_pane("results")
            await pilot.pause()
            await pilot.press("enter", "c")
        else:
            await pilot.press(opener)
        await pilot.pause()
        scroller = app.screen.query_one(VerticalScroll)
        await pilot.press(*["j"] * 10)
        await pilot.pause()
        assert scroller.scroll_y == 10
        await pilot.press("k", "k")
        assert scroller.scroll_y == 8
        page = scroller.scrollable_content_region.height - 1
        await pilot.press("space")
        assert scroller.scroll_y == 8 + page
        await pilot.press("b")
        assert scroller.scroll_y == 8
        await pilot.press("G")
        assert scroller.scroll_y == scroller.max_scroll_y > 20
        await pilot.press("g")
        assert scroller.scroll_y == 0
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, TextScreen)


# ---------------------------------------------------------------- 12. enter opens the row's detail; tab cycles the lists


async def open_with_enter(pilot, pane: str, *keys: str) -> str:
    pilot.app.show_pane(pane)
    await pilot.pause()
    await pilot.press(*keys, "enter")
    await pilot.pause()
    assert isinstance(pilot.app.screen, TextScreen), pane
    return static_text(pilot.app.screen.query_one("#text-body", Static))


async def test_a_documents_detail_shows_each_chunk_in_full(tui_db: Path) -> None:
    """The detail is the document, chunk by chunk: a long chunk is not cut, its line breaks kept."""
    long_text = "first line of a long chunk\n" + "word " * 150 + "THE-VERY-END"
    with sqlite3.connect(tui_db) as conn:
        conn.execute(
            "UPDATE chunks SET text = ? WHERE source = 'doc-000.md' AND seq = "
            "(SELECT MIN(seq) FROM chunks WHERE source = 'doc-000.md')",
            (long_text,),
        )
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        body = await open_with_enter(pilot, "documents", "slash", *"doc-000", "enter")  # not first: least covered first
        assert "first line of a long chunk" in body and "THE-VERY-END" in body and "…" not in body


async def test_enter_on_a_document_shows_its_chunks_coverage_and_why_flagged(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        body = await open_with_enter(pilot, "documents", "slash", *"doc-000", "enter")
        assert isinstance(app.screen, TextScreen) and app.screen.title_text == "Document doc-000.md"
        assert "coverage  0.683" in body and "chunks    47" in body and "flagged as misaligned" in body
        assert "reach" in body and "covered" in body and "no gold ids in the test file" in body
        assert "Chunks in document order" in body and body.count(" c0") >= 40


async def test_enter_on_an_outlier_pair_shows_both_questions_in_full(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        body = await open_with_enter(pilot, "outliers", "p")
        pair = app.query_one("#outliers", OutliersPane).pairs[0]
        assert pair["a_text"] in body and pair["b_text"] in body


@pytest.mark.parametrize(
    "pane, keys, title",
    [
        ("clusters", (), "Cluster "),
        ("clusters", ("tab",), "Chunk "),
        ("gaps", (), "Gap: cluster "),
        ("gaps", ("tab",), "Gap: cluster "),
        ("outliers", (), "Outlier "),
    ],
)
async def test_enter_opens_the_detail_in_every_list(tui_db: Path, pane: str, keys: tuple[str, ...], title: str) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        await open_with_enter(pilot, pane, *keys)
        assert isinstance(app.screen, TextScreen) and app.screen.title_text.startswith(title)
        await pilot.press("escape")
        await pilot.pause()
        assert app.active_pane().id == pane and not isinstance(app.screen, TextScreen)


async def test_tab_cycles_the_lists_of_a_pane_and_help_lists_it(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("gaps")
        await pilot.pause()
        seen = []
        for _ in range(3):
            seen.append(app.focused.id if app.focused else None)
            await pilot.press("tab")
            await pilot.pause()
        assert seen == ["gaps-table", "gaps-suggestions", "gaps-table"]
        assert app.focused is not None and app.focused.id == "gaps-suggestions"
        await pilot.press("shift+tab")
        assert app.focused is not None and app.focused.id == "gaps-table"
        await pilot.press("question_mark")
        await pilot.pause()
        help_body = static_text(app.screen.query_one("#text-body", Static))
        assert "tab         Next list" in help_body and "enter       Open the row's detail" in help_body


# ---------------------------------------------------------------- 13. 1-8 jump to the panes


async def test_number_keys_jump_to_the_panes_in_tab_order_and_are_in_help(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        names = ["sessions", "overview", "clusters", "outliers", "gaps", "documents", "results", "jobs"]
        for n, name in reversed(list(enumerate(names, 1))):
            await pilot.press(str(n))
            await pilot.pause()
            assert app.active_pane().id == name
        app.show_pane("jobs")
        await pilot.pause()
        app.query_one("#job-k", Input).focus()
        await pilot.press("3")  # typed into a field, not a jump
        assert app.active_pane().id == "jobs" and app.query_one("#job-k", Input).value.endswith("3")
        app.screen.set_focus(None)
        await pilot.press("question_mark")
        await pilot.pause()
        help_body = static_text(app.screen.query_one("#text-body", Static))
        assert "1           Go to Sessions" in help_body and "8           Go to Jobs" in help_body


# ---------------------------------------------------------------- 14. g / G, home / end


@pytest.mark.parametrize(
    "pane, table_id, first, last",
    [
        ("results", "#results-table", "q00000", "q00059"),
        ("sessions", "#sessions-table", None, None),
        ("gaps", "#gaps-table", None, None),
    ],
)
async def test_g_and_G_and_home_end_jump_to_first_and_last_row(
    tui_db: Path, pane: str, table_id: str, first, last
) -> None:
    app = RagcovApp(tui_db, "e0000001" if pane == "results" else "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane(pane)
        await pilot.pause()
        table = app.query_one(table_id, DataTable)
        if isinstance(table, PagedTable):
            table.page_size = 25  # the last row is on another page
            table.reload()
        for key_last, key_first in (("G", "g"), ("end", "home")):
            await pilot.press(key_last)
            await pilot.pause()
            if isinstance(table, PagedTable):
                assert table.page.offset + table.cursor_row == table.page.total - 1
                assert last is None or current(table).question_id == last
            else:
                assert table.cursor_row == table.row_count - 1
            assert str(table.get_row_at(table.cursor_row)[0]) in screen_text(app) or pane == "sessions"
            await pilot.press(key_first)
            await pilot.pause()
            paged = table if isinstance(table, PagedTable) else None
            assert (table.cursor_row == 0 and paged is None) or (paged is not None and paged.page.offset == 0)
            assert first is None or (paged is not None and current(paged).question_id == first)


# ---------------------------------------------------------------- 15. notifications stay off the list at 80x24


@pytest.mark.parametrize("size, on_status_line", [((80, 24), True), ((120, 40), False)])
async def test_notifications_at_80x24_go_to_the_status_line_not_over_the_list(
    tui_db: Path, size, on_status_line: bool
) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=size, notifications=True) as pilot:
        app.show_pane("sessions")
        await pilot.pause()
        before = screen_text(app).splitlines()[3:-2]
        for _ in range(3):
            await pilot.press("c")  # nothing marked: a warning each time
        await pilot.pause()
        lines = screen_text(app).splitlines()
        says = "! Mark exactly two sessions with space, then press c."
        assert (says in lines[0]) is on_status_line
        toasts = [t for t in app.screen.query(Toast) if t.region.area]
        if on_status_line:
            assert not toasts and lines[3:-2] == before  # the list is untouched
            app.notice = None  # (the timer would clear it after its timeout)
            app._update_status()
            await pilot.pause()
            assert "ragcov · ? keys" in screen_text(app).splitlines()[0]
            await pilot.press("question_mark")  # ? lists the recent messages in full
            await pilot.pause()
            assert "Recent messages" in static_text(app.screen.query_one("#text-body", Static))
        else:
            assert toasts


# ---------------------------------------------------------------- 16. numbers, indents, Sessions on resize


async def test_chunk_and_outlier_details_show_formatted_distances(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        body = await open_with_enter(pilot, "clusters", "tab")
        distance = current(app.query_one("#clusters-chunks", PagedTable)).mindist
        assert f"distance {distance:.3f} " in body and str(distance) not in body
        await pilot.press("escape")
        body = await open_with_enter(pilot, "outliers")
        assert re.search(r"distance \d\.\d{3}\s*\n", body) and not re.search(r"\d\.\d{5}", body)


async def test_wrapped_stored_text_keeps_its_indent(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "e0000001")
    async with app.run_test(size=SIZE) as pilot:
        await open_with_enter(pilot, "results", "c")  # c unfolds the chunks; the first enter opens
        await pilot.press("c")
        await pilot.pause()
        lines = static_text(app.screen.query_one("#text-body", Static)).splitlines()
        after_gutter = [
            lines[i + 1]
            for i, line in enumerate(lines[:-1])
            if line.startswith("   │ ")
            and lines[i + 1].strip()
            and not lines[i + 1].startswith("   │ ")
            and lines[i + 1].startswith(" ")
        ]
        assert after_gutter and all(line.startswith(" " * 5) for line in after_gutter)


async def test_sessions_table_re_lays_out_on_resize(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=(120, 40)) as pilot:
        app.show_pane("sessions")
        await pilot.pause()
        table = app.query_one("#sessions-table", PagedTable)
        assert "embedder/sys" in screen_text(app)
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.pause()
        assert [t for t, _ in table.column_spec][-3] == "name" and "embedder/sys" not in screen_text(app)
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        await pilot.pause()
        assert "embedder/sys" in screen_text(app) and table.row_count == 2


# ---------------------------------------------------------------- 5. the Sessions cursor follows the session


def add_eval_sessions(tui_db: Path, count: int, start: int = 2, day: int = 3) -> list[str]:
    db = open_db(tui_db)
    sids = [
        make_eval_session(db, sid=f"e{i:07d}", n_questions=3, created_at=f"2025-01-{day:02d}T{i % 24:02d}:00:00+00:00")
        for i in range(start, start + count)
    ]
    db.conn.close()
    return sids


def highlighted_and_visible(app: RagcovApp) -> str:
    """The id of the highlighted Sessions row, asserting the row is inside the table's visible part."""
    table = app.query_one("#sessions-table", PagedTable)
    shown_rows = table.scrollable_content_region.height - 1  # less the header
    assert table.scroll_y <= table.cursor_row < table.scroll_y + shown_rows, (table.scroll_y, table.cursor_row)
    return current(table)["id"]


@pytest.mark.parametrize("change", ["new session", "rename", "job finished"])
async def test_the_sessions_cursor_follows_its_session(tui_db: Path, change: str) -> None:
    add_eval_sessions(tui_db, 12)
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("sessions")
        await pilot.pause()
        table = app.query_one("#sessions-table", PagedTable)
        await pilot.press(*["j"] * 9)
        await pilot.pause()
        target = highlighted_and_visible(app)
        if change == "new session":
            add_eval_sessions(tui_db, 3, start=40, day=9)  # newest: listed above it
            app.sessions_changed()
        elif change == "rename":
            await pilot.press("r")
            await pilot.pause()
            app.screen.query_one(Input).value = "renamed"
            await pilot.press("enter")
        else:
            add_eval_sessions(tui_db, 1, start=50, day=9)
            app.query_one("#jobs", JobsPane)._finished("done", "e0000050", "eval finished: session e0000050")
        await pilot.pause()
        await pilot.pause()
        assert app.active_pane().id == "sessions"
        assert highlighted_and_visible(app) == target and table.cursor_row >= 9
        await pilot.press("enter")
        await pilot.pause()
        assert app.eval_sid == target and app.active_pane().id == "overview"


# ---------------------------------------------------------------- 7. a finished job notifies, it does not pull the user away


async def test_a_job_finishing_while_the_user_triages_elsewhere_only_notifies(tui_db: Path) -> None:
    add_eval_sessions(tui_db, 1, start=50, day=9)
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("gaps")
        await pilot.pause()
        app.query_one("#jobs", JobsPane)._finished("done", "e0000050", "eval finished: session e0000050")
        await pilot.pause()
        assert app.active_pane().id == "gaps" and app.current_sid == "a0000001"
        assert (
            "✓ Job done: eval finished: session e0000050; open it in Sessions (1)" in screen_text(app).splitlines()[0]
        )
        await pilot.press("1")
        await pilot.pause()
        assert "e0000050" in screen_text(app)  # listed


# ---------------------------------------------------------------- 9. switching the job kind keeps what was typed


async def test_switching_the_job_kind_keeps_the_fields_already_typed(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("8")
        await pilot.pause()
        field = lambda key: app.query_one(f"#job-{key}", Input)  # noqa: E731
        field("questions").focus()
        field("questions").value = ""
        await pilot.press(*"mine.jsonl")
        field("name").value = "nightly"
        field("clusters").value = "12"
        kind = app.query_one("#job-kind", Select)
        kind.value = "eval"
        await pilot.pause()
        assert field("questions").value == "mine.jsonl" and field("name").value == "nightly"
        assert field("system").value == "builtin:hybrid"  # untouched: prefilled from the newest eval
        kind.value = "analysis"
        await pilot.pause()
        assert (field("questions").value, field("name").value, field("clusters").value) == (
            "mine.jsonl",
            "nightly",
            "12",
        )
        app.show_pane("sessions")  # away and back: still there
        app.mark_stale()
        await pilot.press("8")
        await pilot.pause()
        assert field("questions").value == "mine.jsonl"


# ---------------------------------------------------------------- 6. R reruns the session of the pane in use


@pytest.mark.parametrize(
    "pane, expected",
    [
        ("gaps", "a0000001"),
        ("outliers", "a0000001"),
        ("results", "e0000001"),
        ("overview", "e0000001"),
        ("sessions", "a0000001"),
    ],
)
async def test_R_reruns_the_session_of_the_pane_in_use(tui_db: Path, pane: str, expected: str) -> None:
    started = []
    app = RagcovApp(tui_db, "e0000001")  # the eval is the session opened last
    async with app.run_test(size=SIZE) as pilot:
        jobs = app.query_one("#jobs", JobsPane)
        jobs.action_start = lambda **_: started.append(jobs.request())  # type: ignore[method-assign]  # deliberately: what would run, without running it
        app.show_pane(pane)
        await pilot.pause()
        if pane == "sessions":
            await pilot.press("G")  # the analysis, below the newer eval
        await pilot.press("R", "y")
        await pilot.pause()
        assert app.active_pane().id == "jobs" and started
        assert started[0].kind == ("analysis" if expected.startswith("a") else "eval")
        assert started[0].fields["questions"] == stored_session(open_db(tui_db), expected)["questions_path"]
