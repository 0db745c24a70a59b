"""Pilot tests of the Traffic pane (key 9) and the traffic points on the Clusters map, at 80x24."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest
from textual.widgets import DataTable, Static, TabbedContent

from ragcov_tui.services.analysis_job import AnalyzeOptions, run_analysis
from ragcov_tui.store import open_db
from ragcov_tui.store.traffic import load_traffic
from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.modals import TextScreen
from ragcov_tui.tui.panes.clusters import ClustersPane
from ragcov_tui.tui.widgets.charts import Chart
from ragcov_tui.tui.widgets.paged_table import PagedTable
from tests.support.present import present
from tests.support.screen_text import screen_text, static_text
from tests.support.stored import stored_session

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
SIZE = (80, 24)
pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def traffic_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """One analysis of sample_data with its traffic log and one without (hash embedder: fast, offline)."""
    path = tmp_path_factory.mktemp("traffic") / "ragcov.db"
    db = open_db(path)
    options = partial(
        AnalyzeOptions, corpus=[str(SAMPLE / "corpus")], questions=str(SAMPLE / "questions.jsonl"), embedder="hash"
    )
    plain, _ = run_analysis(options(name="plain"), db)
    with_traffic, _ = run_analysis(options(traffic=str(SAMPLE / "traffic.jsonl")), db)
    db.conn.close()
    return path, with_traffic, plain


@pytest.fixture()
def anyio_backend() -> str:
    return "asyncio"


def cells(table: DataTable, row: int = 0) -> list[str]:
    return [getattr(c, "plain", str(c)) for c in table.get_row_at(row)]


async def test_traffic_pane_shows_clusters_queries_gaps_and_unasked_tests(traffic_db) -> None:
    path, sid, _ = traffic_db
    section = present(load_traffic(open_db(path), sid, details=False))
    app = RagcovApp(path, sid)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert not app.query_one(TabbedContent).get_tab("tab-traffic").has_class("-hidden")
        await pilot.press("9")
        await pilot.pause()
        assert app.query_one(TabbedContent).active == "tab-traffic"
        summary = static_text(app.query_one("#traffic-summary", Static))
        assert "1,722 queries, 55 distinct · 2026-01-01 to 2026-01-31" in summary
        assert f"tests nobody asks {len(section['unasked_questions']['questions'])}" in summary
        clusters = app.query_one("#traffic-clusters", DataTable)
        assert clusters.row_count == len(section["clusters"])
        top = section["clusters"][0]
        assert cells(clusters)[0] == str(top["id"])
        assert cells(clusters)[8] == f"{top['examples'][0]['text']} ×{top['examples'][0]['count']}"
        queries = app.query_one("#traffic-list", PagedTable)
        assert queries.page.total == top["queries"]
        assert cells(queries)[3].startswith(top["examples"][0]["text"])
        assert cells(queries)[0] == f"{top['examples'][0]['count']:,}"
        assert "Traffic clusters" in screen_text(app) and "Queries of cluster" in screen_text(app)

        await pilot.press("down")  # the next cluster lists its own queries
        await pilot.pause()
        second = section["clusters"][1]
        assert queries.page.total == second["queries"] and cells(queries)[3].startswith(second["examples"][0]["text"])

        await pilot.press("v")  # the queries the corpus cannot answer
        await pilot.pause()
        gap = section["content_gap"]
        assert queries.page.total == gap["queries"]
        if gap["queries"]:
            assert cells(queries)[3] == gap["examples"][0]["text"]
        await pilot.press("v")  # the tests nobody asks
        await pilot.pause()
        unasked = section["unasked_questions"]["questions"]
        assert queries.page.total == len(unasked)
        if unasked:
            assert cells(queries)[0] == unasked[0]["id"]
        await pilot.press("v")  # back to the cluster's queries; enter opens the highlighted one
        await pilot.pause()
        queries.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TextScreen)
        detail = screen_text(app)
        assert f"asked {second['examples'][0]['count']:,} times" in detail and "nearest chunk" in detail


async def test_analysis_without_traffic_hides_the_tab_and_9_says_how(traffic_db) -> None:
    path, _, plain = traffic_db
    app = RagcovApp(path, plain)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        tabs = app.query_one(TabbedContent)
        assert tabs.get_tab("tab-traffic").has_class("-hidden")
        for _ in range(9):  # ] never lands on the hidden tab
            await pilot.press("right_square_bracket")
            assert tabs.active != "tab-traffic"
        await pilot.press("9")
        await pilot.pause()
        assert tabs.active == "tab-traffic"
        assert "This analysis has no traffic. Run `ragcov analyze … --traffic LOG`" in " ".join(
            screen_text(app).split()
        )
        assert ".jsonl, .ndjson, .csv, .tsv, .txt or .log" in " ".join(
            screen_text(app).split()
        )  # the log-format registry's list
        await pilot.press("2")
        await pilot.pause()
        assert tabs.get_tab("tab-traffic").has_class("-hidden")


async def test_clusters_map_draws_traffic_as_its_own_marker(traffic_db) -> None:
    path, sid, plain = traffic_db
    for session, expected in ((sid, True), (plain, False)):
        app = RagcovApp(path, session)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("3")
            await pilot.pause()
            pane = app.query_one(ClustersPane)
            assert bool(pane.traffic) is expected
            assert ("* traffic" in screen_text(app)) is expected


def test_rerun_of_a_traffic_session_keeps_its_log(traffic_db) -> None:
    from ragcov_tui.tui.panes.jobs import JobRequest, job_options, prefill

    path, sid, plain = traffic_db
    db = open_db(path)
    session = stored_session(db, sid)
    params = present(session["params"])
    assert params["traffic"] == str((SAMPLE / "traffic.jsonl").resolve())
    opts = job_options(JobRequest("analysis", prefill(session), base=params))
    assert isinstance(opts, AnalyzeOptions) and opts.traffic == params["traffic"]
    plain_session = stored_session(db, plain)
    plain_params = present(plain_session["params"])
    assert "traffic" not in plain_params
    plain_opts = job_options(JobRequest("analysis", prefill(plain_session), base=plain_params))
    assert isinstance(plain_opts, AnalyzeOptions) and plain_opts.traffic is None


async def test_map_key_names_traffic_at_80x24(traffic_db) -> None:
    """At 80x24 the map is 48 columns: the full key ('• chunk  + test  x outlier  o cluster 0  * traffic')
    is wider than that and plotext dropped the title, so the map had no key at all; now it falls
    back to single spaces and every marker is named."""
    path, sid, _ = traffic_db
    app = RagcovApp(path, sid)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("3", "m")
        await pilot.pause()
        assert "* traffic" in screen_text(app) and "+ test" in screen_text(app)
        chart = app.query_one("#clusters-map", Chart)
        assert chart.size.width <= 48
        names = ["chunk", "test", "outlier", "cluster 0", "traffic"]  # every group of the map, one point each
        chart.draw_scatter(
            "Map · 59 chunks",
            [
                (name, [0.1 * i], [0.1 * i], marker)
                for i, (name, marker) in enumerate(zip(names, ["dot", "+", "x", "o", "*"], strict=False))
            ],
        )
        await pilot.pause()
        text = screen_text(app)
        for entry in ("• chunk", "+ test", "x outlier", "o cluster 0", "* traffic"):
            assert entry in text, entry


async def test_tests_nobody_asks_leave_room_for_the_nearest_query_at_80x24(traffic_db) -> None:
    """The nearest query was cut to about 13 characters at 80 columns ('verify webhoo'); the question
    column now leaves it at least 24 (enter still opens both in full)."""
    path, sid, _ = traffic_db
    app = RagcovApp(path, sid)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("9", "v", "v")
        await pilot.pause()
        table = app.query_one("#traffic-list", PagedTable)
        assert table.label.startswith("Tests nobody asks")
        fixed = sum(width + 2 for _, width in table.column_spec if width is not None)
        assert SIZE[0] - fixed - 2 >= 24  # the nearest query's room (cell padding, scrollbar)
        row = table.current
        if row is not None:
            near = str(row["nearest_query"])[:20]
            assert near in screen_text(app)


@pytest.mark.parametrize(
    ("key", "title", "first"),
    [
        ("9", "Traffic", "List: cluster / unanswerable / unasked"),
        ("5", "Gaps", "Accept"),
        ("6", "Documents", "Detail"),
        ("3", "Clusters", "Map"),
    ],
)
async def test_help_opens_on_the_keys_of_the_pane_it_is_asked_from(
    traffic_db, key: str, title: str, first: str
) -> None:
    """At 80x24 the help listed every pane in tab order, so Traffic's keys were four pages down;
    now ``?`` shows the asking pane's keys first (and does not list them twice)."""
    path, sid, _ = traffic_db
    app = RagcovApp(path, sid)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(key)
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, TextScreen)
        top = screen_text(app).splitlines()[:12]  # what the help shows before any scrolling
        assert any(f"{title} (this pane)" in line for line in top) and any(first in line for line in top), top
        body = static_text(app.screen.query_one("#text-body", Static))
        assert body.count(f"\n{title}\n") == 0 and body.count(f"{title} (this pane)") == 1


async def test_traffic_pane_shows_health_columns_and_the_unhappy_cluster_at_80x24(traffic_db) -> None:
    """The pane showed coverage only; now every cluster row has its p95 latency, zero-results,
    low-relevance and negative-feedback rates, and the summary names where unhappy traffic concentrates
    (sample_data's webhook queries: slow, poorly retrieved, thumbs down)."""
    path, sid, _ = traffic_db
    section = present(load_traffic(open_db(path), sid, details=False))
    health = section["health"]
    spot = health["hotspots"][0]
    app = RagcovApp(path, sid)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("9")
        await pilot.pause()
        table = app.query_one("#traffic-clusters", DataTable)
        assert [str(c.label) for c in table.columns.values()][:7] == [
            "id",
            "share",
            "cov",
            "p95 ms",
            "zero",
            "low",
            "neg",
        ]
        row = next(i for i, c in enumerate(section["clusters"]) if c["id"] == spot["cluster"])
        mine = section["clusters"][row]["health"]
        assert cells(table, row)[6] == f"{100 * present(mine['negative_feedback']['rate']):.0f}%"
        summary = " ".join(static_text(app.query_one("#traffic-summary", Static)).split())
        assert f"unhappy: cluster {spot['cluster']} (" in summary and "webhook" in summary
        assert "health: p95" in summary
        text = screen_text(app)
        assert "p95 ms" in text and "neg" in text


def test_traffic_pane_snapshot_80x24(snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Traffic pane with its health columns at 80x24 (a fixed session id and a relative log path:
    nothing on screen depends on where the repository lives)."""
    import shutil

    monkeypatch.setattr("ragcov_tui.store.sessions.secrets.token_hex", lambda n: "7a000001")
    shutil.copy(SAMPLE / "traffic.jsonl", tmp_path / "traffic.jsonl")
    monkeypatch.chdir(tmp_path)
    db = open_db(tmp_path / "ragcov.db")
    sid, _ = run_analysis(
        AnalyzeOptions(
            corpus=[str(SAMPLE / "corpus")],
            questions=str(SAMPLE / "questions.jsonl"),
            embedder="hash",
            traffic="traffic.jsonl",
        ),
        db,
    )
    db.conn.close()

    async def show(pilot) -> None:
        await pilot.press("9")
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(RagcovApp(tmp_path / "ragcov.db", sid), terminal_size=SIZE, run_before=show)


async def test_sessions_trend_shows_the_traffic_health_of_the_log_source(traffic_db) -> None:
    """The trend chart of an analysis showed coverage only; an analysis that read a query log now adds
    that log's stored health rates, one point per analysis of the test file (None where another
    analysis read no log or another one)."""
    from ragcov_tui.store import queries
    from tests.tui.test_tui_polish import RecordingPlot

    path, sid, plain = traffic_db
    db = open_db(path)
    source = queries.traffic_source(db, sid)
    assert source == str(SAMPLE / "traffic.jsonl") and queries.traffic_source(db, plain) is None
    series = queries.trend(db, str((SAMPLE / "questions.jsonl").resolve()), "analysis", traffic=source)
    overall = present(load_traffic(db, sid, details=False))["health"]["overall"]
    assert series["neg feedback"] == [None, overall["negative_feedback"]["rate"]]  # plain first, oldest first
    assert series["zero results"][1] == overall["zero_results"]["rate"]
    app = RagcovApp(path, sid)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.show_pane("sessions")
        await pilot.pause()
        table = app.query_one("#sessions-table", PagedTable)
        while table.current is not None and table.current["id"] != sid:
            await pilot.press("j")
            await pilot.pause()
        plot = RecordingPlot()
        present(app.query_one("#sessions-trend", Chart).painter)(plot)
        title = next(args[0] for name, args, _ in plot.calls if name == "title")
        assert "neg feedback" in title and "zero results" in title, title
