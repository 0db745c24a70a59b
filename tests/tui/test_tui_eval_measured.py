"""Pilot tests on sessions that ``ragcov eval`` really stored (issue #22 §1): the app shows every
metric the run measured and nothing it did not.

- a records file without a row for the first question (that item fails and stores ``{}``): the
  Results columns, ``/faith<0.5``, sorting and the histograms still find the metrics;
- a retrieval-only BEIR run at k=10: successful retrievals read ``ok`` (not "unscored"), the
  column reads ``ndcg@10`` (never cut to ``ndcg@1``) and ``/ndcg@10<…`` and ``/ndcg<…`` filter
  alike, no empty faithfulness / robustness chart, and the Overview names no judge.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcov_tui.corpus import build_chunks
from ragcov_tui.store import open_db
from ragcov_tui.tui.app import RagcovApp
from ragcov_tui.tui.widgets.charts import Chart
from ragcov_tui.tui.widgets.paged_table import PagedTable
from tests.cli.conftest import CORPUS, QUESTIONS, run_cli
from tests.evaluation.test_eval_beir import make_beir
from tests.support.screen_text import screen_text

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


def _only_session(db_path: Path) -> str:
    db = open_db(db_path)
    try:
        (sid,) = [s for (s,) in db.execute("SELECT id FROM sessions")]
    finally:
        db.conn.close()
    return sid


def _records_without_the_first_question(path: Path) -> Path:
    """Each sample question's answer and the first chunks of its gold document, q001's row left out."""
    _, chunks = build_chunks([CORPUS])
    by_doc: dict[str, list] = {}
    for chunk in chunks:
        by_doc.setdefault(chunk.source, []).append(chunk)
    rows = []
    for line in QUESTIONS.read_text().splitlines()[1:]:
        q = json.loads(line)
        got = by_doc[(q.get("relevant_doc_ids") or [next(iter(by_doc))])[0]][:2]
        rows.append(
            json.dumps(
                {
                    "id": q["id"],
                    "answer": q["ground_truth"],
                    "retrieved_ids": [c.id for c in got],
                    "retrieved_contexts": [c.text for c in got],
                }
            )
        )
    path.write_text("\n".join(rows) + "\n")
    return path


async def _until(pilot, ready, what: str) -> None:
    """Pause until ``ready()`` holds (a busy machine may need more than one refresh)."""
    for _ in range(100):
        if ready():
            return
        await pilot.pause(0.05)
    raise AssertionError(f"timed out waiting for {what}")


async def _type(pilot, text: str) -> None:
    await pilot.press("slash")
    await pilot.pause()
    for ch in text:
        await pilot.press(ch)
    await pilot.press("enter")
    table = pilot.app.query_one("#results-table", PagedTable)
    await _until(pilot, lambda: f"filter '{text}'" in str(table.border_title), f"the filter {text!r}")


async def test_results_keep_every_metric_when_the_first_question_failed(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    records = _records_without_the_first_question(tmp_path / "r2.jsonl")
    assert (
        run_cli(
            "eval",
            "--quiet",
            "--db",
            str(db),
            "--questions",
            str(QUESTIONS),
            "--corpus",
            str(CORPUS),
            "--system",
            f"records:{records}",
            "--embedder",
            "hash",
        )
        == 0
    )
    app = RagcovApp(db, _only_session(db))
    async with app.run_test(size=(80, 24)) as pilot:
        app.show_pane("results")
        table = app.query_one("#results-table", PagedTable)
        await _until(pilot, lambda: table.page.total == 31, "the results")
        titles = [str(c.label) for c in table.columns.values()]
        assert titles[3:] == ["hit@5", "mrr", "faith", "corr"]  # the first row (q001) holds no metric
        assert table.page.rows[0].question_id == "q001" and table.page.rows[0].status == "error"
        await _type(pilot, "faith<0.5")
        assert "columns: none" not in screen_text(app)
        assert 0 < table.page.total < 31
        assert all(r.generation["faithfulness"] < 0.5 for r in table.page.rows)
        await pilot.press("escape")
        await _until(pilot, lambda: "filter" not in str(table.border_title), "the filter cleared")
        await pilot.press("s", "s")  # id → diagnosis → hit@5
        await _until(pilot, lambda: "Results by hit@5" in str(table.border_title), "the sort by hit@5")
        await pilot.press("h")  # histograms are hidden at 24 rows until asked for
        await _until(pilot, lambda: "faithfulness (n=30)" in screen_text(app), "the histogram")
        shown = screen_text(app)
        assert "faithfulness (n=30)" in shown and "not measured" not in shown


async def test_a_retrieval_only_beir_run_shows_what_it_measured(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite"
    folder = make_beir(tmp_path / "beir")
    assert (
        run_cli("eval", "--quiet", "--db", str(db), "--questions", str(folder), "--system", "builtin:bm25", "--k", "10")
        == 0
    )
    app = RagcovApp(db, _only_session(db))
    async with app.run_test(size=(120, 40)) as pilot:
        app.show_pane("results")
        table = app.query_one("#results-table", PagedTable)
        await _until(pilot, lambda: table.page.total == 24, "the results")
        assert [str(c.label) for c in table.columns.values()][3:] == ["hit@10", "mrr", "ndcg@10"]
        assert "ndcg@10" in screen_text(app)
        found = [r for r in table.page.rows if r.retrieval["hit@10"] == 1.0]
        assert found and {r.diagnosis for r in found} == {"ok"}
        assert "unscored" not in screen_text(app)
        assert not app.query_one("#results-charts").display
        assert all(not chart.display for chart in app.query(Chart) if chart.id and chart.id.startswith("results-"))
        await pilot.press("h")
        await pilot.pause()
        assert not app.query_one("#results-charts").display  # nothing to chart: a note, no empty frames
        await _type(pilot, "ndcg@10<0.9")
        low = table.page.total
        assert 0 < low < 24 and all(r.retrieval["ndcg@10"] < 0.9 for r in table.page.rows)
        await pilot.press("escape")
        await _until(pilot, lambda: "filter" not in str(table.border_title), "the filter cleared")
        await _type(pilot, "ndcg<0.9")  # the family name, as --fail-under reads it
        assert table.page.total == low
        app.show_pane("overview")
        await _until(pilot, lambda: "judge" in screen_text(app), "the overview")
        shown = screen_text(app)
        assert "judge   none (retrieval metrics only)" in shown and "heuristic" not in shown
        assert "not measured" not in shown
        assert not app.query_one("#overview-charts").display
