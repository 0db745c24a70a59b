"""Pilot tests of the 80x24 polish pass: eval detail, gap notes and full suggestion text, offline
``g``, the ``/`` filter with ``n`` / ``N`` in every list pane, the Jobs form's hints and prefill."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.binding import Binding
from textual.widgets import DataTable, Input, Static

from ragcov_tui.services.analysis_job import AnalyzeOptions
from ragcov_tui.services.eval_job import EvalOptions
from ragcov_tui.store import open_db
from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.details.eval_item import EvalItemScreen
from ragcov_tui.tui.panes.jobs import JobsPane
from ragcov_tui.tui.widgets.charts import Chart
from ragcov_tui.tui.widgets.paged_table import PagedTable
from tests.support.present import present
from tests.support.screen_text import focused_input, static_text
from tests.support.stored import stored_session
from tests.support.tables import current

SIZE = (80, 24)
pytestmark = pytest.mark.anyio


def cells(table: DataTable, row: int = 0) -> list[str]:
    return [getattr(c, "plain", str(c)) for c in table.get_row_at(row)]


def shown(app: RagcovApp, selector: str) -> str:
    return static_text(app.screen.query_one(selector, Static))


async def test_result_detail_formats_scores_and_shows_reasons_claims_paraphrases_and_judge(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "e0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("results")
        await pilot.pause()
        await pilot.press("enter")  # q00000: robustness undefined
        await pilot.pause()
        assert isinstance(app.screen, EvalItemScreen)
        await pilot.press("c")  # the retrieved chunks' text is folded until c
        await pilot.pause()
        body = shown(app, "#text-body")
        assert "score 1.000\n" in body and "score 0.900\n" in body and "score 1.0 " not in body
        assert "robustness" in body and "undefined: no paraphrases were run" in body
        assert (
            "supported" in body and "not_found" in body and "Paraphrases and their answers (from the test file)" in body
        )
        assert "Judge call · faithfulness" in body and "[INST] check [/INST]" in body and '{"verdicts": [1, 0]}' in body
        lines = body.splitlines()
        chunk_line = next(i for i, line in enumerate(lines) if "score 1.000" in line)
        assert lines[chunk_line + 1].startswith("   │ ")  # the chunk text on its own line
        await pilot.press("pagedown")
        await pilot.pause()
        assert app.screen.query_one("VerticalScroll").scroll_y > 0


async def test_gaps_show_note_flagged_docs_full_suggestion_and_g_adds_heuristic_ones_in_a_worker(tui_db: Path) -> None:
    db = open_db(tui_db)
    long_text = "How does " + " ".join(f"word{i}" for i in range(40)) + " end here?"
    cluster = db.execute("SELECT cluster FROM suggestions ORDER BY id LIMIT 1").fetchone()[0]
    chunk_ids = [
        c
        for (c,) in db.execute(
            "SELECT chunk_id FROM chunk_results WHERE session_id = 'a0000001' AND cluster = ?", [cluster]
        )
    ]
    with db.conn:
        db.table("suggestions").insert(
            {"session_id": "a0000001", "cluster": cluster, "text": long_text, "origin": "heuristic"}
        )
        for i, cid in enumerate(chunk_ids):  # Markdown the offline heuristic can turn into questions
            db.execute(
                "UPDATE chunks SET text = ? WHERE chunk_id = ?",
                [
                    f"# Admin guide\n\n## Rotating key set {i}\n\nEvery key of set {i} can be rotated from the console.",
                    cid,
                ],
            )
    db.conn.close()
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("gaps")
        await pilot.pause()
        gaps = app.query_one("#gaps-table", DataTable)
        suggestions = app.query_one("#gaps-suggestions", PagedTable)
        assert "! = mostly flagged documents" in (gaps.border_title or "")
        await pilot.press("tab", "j", "j", "j")  # the long suggestion, 4th of the first gap
        await pilot.pause()
        detail_lines = shown(app, "#gaps-detail").rstrip().splitlines()
        assert long_text in " ".join(" ".join(detail_lines).split())
        wrapped = detail_lines[-2:]  # the long suggestion wraps under itself, not under its label
        assert all(line.startswith(" " * 13) and line.strip() for line in wrapped), detail_lines

        before = suggestions.page.total
        await pilot.press("m")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert suggestions.page.total == before + 3
        added = suggestions.page.rows[before:]
        assert {r.origin for r in added} == {"heuristic"}
        assert all(r.text.startswith("How do I rotate key set") for r in added)
        await pilot.press("m")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert len({r.text for r in suggestions.page.rows}) == before + 6

        await pilot.press("shift+tab", "N")  # back to the gap table; N wraps to the last gap
        await pilot.pause()
        assert cells(gaps, gaps.cursor_row)[1] == "!"
        detail = " ".join(shown(app, "#gaps-detail").split())
        assert "note mostly content of flagged document(s) doc-" in detail
        assert "check whether it belongs in the corpus" in detail


FILTERED_PANES = [  # pane, its main table, the column whose first word is searched for (None: a fixed needle)
    ("sessions", "#sessions-table", 1, "e0000001"),
    ("clusters", "#clusters-table", 5, None),
    ("outliers", "#outliers-table", 5, None),
    ("gaps", "#gaps-table", 8, None),
]


async def test_filter_and_next_match_in_every_list_pane(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        for pane, table_id, column, needle in FILTERED_PANES:
            app.show_pane(pane)
            await pilot.pause()
            table = app.query_one(table_id, DataTable)
            total = table.row_count
            word = needle or cells(table, 0)[column].split(",")[0].split()[0].lower()
            await pilot.press("slash")
            focused_input(app).value = word
            await pilot.press("enter")
            await pilot.pause()
            assert 0 < table.row_count <= total and repr(word) in (table.border_title or ""), pane
            assert all(word in " ".join(cells(table, r)).lower() for r in range(table.row_count)) or pane == "gaps"
            await pilot.press("n")
            assert table.cursor_row == (1 if table.row_count > 1 else 0), pane
            await pilot.press("N")
            assert table.cursor_row == 0, pane
            await pilot.press("slash", "escape")
            await pilot.pause()
            assert table.row_count == total and not app.query_one(f"#{pane}-filter", Input).display, pane
            assert {"slash", "n", "N"} <= {b.key for b in app.active_pane().BINDINGS if isinstance(b, Binding)}


async def test_jobs_form_says_what_empty_means_and_prefills_round_trip(tui_db: Path) -> None:
    from ragcov_tui.embeddings.factory import make_embedder
    from ragcov_tui.tui.panes.jobs import job_options

    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("jobs")
        await pilot.pause()
        clusters = app.query_one("#job-clusters", Input)
        assert "auto: best silhouette" in clusters.placeholder and "by corpus size" in clusters.placeholder
        assert "(empty: auto)" not in str(app.query_one("#row-clusters").query_one("Label").render())
        assert clusters.value == "6"
        pane = app.query_one("#jobs", JobsPane)
        opts = job_options(pane.request())
        session = stored_session(app.db, "a0000001")
        assert isinstance(opts, AnalyzeOptions)
        assert (
            opts.clusters == 6 and opts.embedder == session["embedder"] and opts.questions == session["questions_path"]
        )
        assert make_embedder(opts.embedder).spec == session["embedder"]
        pane.fill("eval", stored_session(app.db, "e0000001"))
        eval_opts = job_options(pane.request())
        assert isinstance(eval_opts, EvalOptions) and eval_opts.k == 5 and eval_opts.system == "builtin:hybrid"


async def test_clipped_text_has_a_way_out_sessions_detail_outlier_full_text_and_map_key(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("sessions")
        await pilot.pause()
        table = app.query_one("#sessions-table", PagedTable)
        assert [title for title, _ in table.column_spec][-2:] == ["cov/MRR", "w/faith"]  # the figures fit in 80 columns
        assert sum((width or 0) + 2 for _, width in table.column_spec) <= 80
        detail = " ".join(shown(app, "#sessions-detail").split())
        assert (
            "e0000001" in detail
            and "embedder local:all-MiniLM-L6-v2-int8" in detail
            and "system builtin:hybrid" in detail
        )

        app.show_pane("outliers")
        await pilot.pause()
        row = current(app.query_one("#outliers-table", PagedTable))
        await pilot.press("enter")
        await pilot.pause()
        body = shown(app, "#text-body")
        flat = " ".join(body.split())  # the chunk text wraps at the dialog's width
        assert (
            row.text in body
            and " ".join(row.chunk_text.split()) in flat
            and f"nearest chunk {row.nearest_chunk}" in flat
        )
        await pilot.press("escape")

        app.show_pane("jobs")
        await pilot.pause()
        assert not app.query_one("#job-progress").display  # no idle progress animation

        app.show_pane("clusters")
        await pilot.press("m")
        await pilot.pause()
        chart = app.query_one("#clusters-map", Chart)
        assert chart.display
        plot = RecordingPlot()
        present(chart.painter)(plot)
        titles = [args[0] for name, args, _ in plot.calls if name == "title"]
        assert "o cluster 0" in titles[-1] and "+ test" in titles[-1]  # the key, not a legend box over the points


async def test_results_diagnosis_short_in_the_table_full_in_detail_help_and_filter(tui_db: Path) -> None:
    from ragcov_tui.tui.app import help_text
    from ragcov_tui.tui.panes.results import DIAGNOSIS_LABELS

    failures = (
        open_db(tui_db).execute("SELECT count(*) FROM eval_items WHERE diagnosis = 'generation_failure'").fetchone()[0]
    )
    app = RagcovApp(tui_db, "e0000001")
    async with app.run_test(size=SIZE) as pilot:
        app.show_pane("results")
        await pilot.pause()
        table = app.query_one("#results-table", PagedTable)
        shown_labels = {cells(table, r)[2] for r in range(table.row_count)}
        assert {"gen fail", "rank fail", "retr fail", "ok"} <= shown_labels
        assert shown_labels <= set(DIAGNOSIS_LABELS.values()) | {"error"}  # nothing cut with an ellipsis
        for typed in ("generation_failure", "gen fail"):  # the stored name, or the label as shown
            await pilot.press("slash")
            focused_input(app).value = typed
            await pilot.press("enter")
            assert table.page.total == failures > 0 and all(
                r.diagnosis == "generation_failure" for r in table.page.rows
            )
        await pilot.press("enter")
        assert "diagnosis: generation_failure" in shown(app, "#text-body")
    assert "gen fail    generation_failure" in help_text().plain


class RecordingPlot:
    """Stands in for plotext: records every call with its arguments."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple, dict]] = []

    def __getattr__(self, name: str):
        return lambda *args, **kwargs: self.calls.append((name, args, kwargs))


async def test_trend_key_is_in_the_title_not_a_legend_over_the_plot(tui_db: Path) -> None:
    app = RagcovApp(tui_db, "a0000001")
    async with app.run_test(size=(120, 40)) as pilot:
        app.show_pane("sessions")
        await pilot.pause()
        plot = RecordingPlot()
        present(app.query_one("#sessions-trend", Chart).painter)(plot)
        titles = [args[0] for name, args, _ in plot.calls if name == "title"]
        lines = [kwargs for name, _, kwargs in plot.calls if name == "plot"]
        assert titles == ["eval trend of this test file, oldest → newest · • mrr  + hit@5  x faithfulness"]
        assert len(lines) == 3 and not any("label" in kwargs for kwargs in lines)

        await pilot.press("j")  # the analysis session: coverage figures under readable names
        await pilot.pause()
        plot = RecordingPlot()
        present(app.query_one("#sessions-trend", Chart).painter)(plot)
        title = next(args[0] for name, args, _ in plot.calls if name == "title")
        assert title.startswith("analysis trend") and "multi thr" in title and "multi top-n" in title, title
        assert "multi_n" not in title


async def test_footer_fits_80_and_120_columns_on_every_pane_and_help_lists_what_it_leaves_out(tui_db: Path) -> None:
    from textual.widgets import Footer

    from ragcov_tui.tui.app import PANES, pane_id

    for size, full in ((SIZE, False), ((120, 40), True)):
        app = RagcovApp(tui_db, "e0000001")
        async with app.run_test(size=size) as pilot:
            for cls in PANES:
                app.show_pane(pane_id(cls))
                await pilot.pause()
                await pilot.pause()
                footer = app.query_one(Footer)
                keys = [str(k.render()) for k in footer.query("FooterKey")]
                assert any("Help" in k for k in keys) and any("Quit" in k for k in keys), (cls.title, keys)
                assert any("Next tab" in k for k in keys) == full and any("palette" in k for k in keys) == full, keys
                assert footer.virtual_size.width <= footer.size.width, (size, cls.title, keys)
            if not full:
                assert "[ ] tabs" in shown(app, "#status-line") and "? keys" in shown(app, "#status-line")
                await pilot.press("question_mark")
                await pilot.pause()
                text = shown(app, "#text-body")
                assert "Next tab" in text and "Rerun" in text and "Command palette" in text
                await pilot.press("escape")
                await pilot.resize_terminal(130, 40)  # widening the terminal brings the keys back
                await pilot.pause()
                await pilot.pause()
                assert any("Next tab" in str(k.render()) for k in app.query_one(Footer).query("FooterKey"))
