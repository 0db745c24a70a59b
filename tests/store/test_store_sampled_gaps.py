"""A ``--sample N`` analysis (issue: figures that disagree between the CLI and the app): the rows the
app reads for its Gaps and Clusters panes carry the report's figures, and the stored chunk rows are
the sampled chunks, whose covered shares are the report's per-cluster covered shares."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils

from ragcov_tui.services.analysis_job import AnalyzeOptions, run_analysis
from ragcov_tui.store import open_db, queries

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
SIZE = 30
Sampled = tuple[sqlite_utils.Database, str, Any]


@pytest.fixture()
def sampled(tmp_path: Path) -> Iterator[Sampled]:
    db = open_db(tmp_path / "ragcov.db")
    sid, report = run_analysis(
        AnalyzeOptions(
            corpus=[str(SAMPLE / "corpus")],
            questions=str(SAMPLE / "questions.jsonl"),
            embedder="hash",
            sample=SIZE,
            no_cache=True,
        ),
        db,
    )
    yield db, sid, report
    db.conn.close()


def test_the_app_gap_and_cluster_rows_carry_the_sampled_report_figures(sampled: Sampled) -> None:
    db, sid, report = sampled
    assert report["sample"]["chunks"] == SIZE and report["gaps"]
    figures = ("cluster", "priority", "covered_share", "coverage", "size")
    assert [{k: dict(g)[k] for k in figures} for g in queries.gap_rows(db, sid, None)] == [
        {k: g[k] for k in figures} for g in report["gaps"]
    ]
    by_id = {c["id"]: c for c in queries.cluster_rows(db, sid)}
    for c in report["clusters"]:
        assert {k: by_id[c["id"]].get(k) for k in ("covered_share", "priority", "coverage", "size")} == {
            k: c.get(k) for k in ("covered_share", "priority", "coverage", "size")
        }


def test_the_stored_chunk_rows_are_the_sample_and_give_the_report_covered_shares(sampled: Sampled) -> None:
    db, sid, report = sampled
    rows = list(db.query("SELECT cluster, mindist FROM chunk_results WHERE session_id = ?", [sid]))
    assert len(rows) == SIZE
    radius = report["calibration"]["radius"]
    for c in report["clusters"]:
        members = [r["mindist"] for r in rows if r["cluster"] == c["id"]]
        assert len(members) == c["size"]
        assert c["covered_share"] == pytest.approx(sum(m <= radius for m in members) / len(members))
