"""End-to-end on sample_data (offline defaults): not every cluster is a gap, the covered share and the
gap rule are in the terminal, the JSON and the Markdown, and the terminal and the Markdown give the
same advice for the same gap (issue #16 item 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcov_tui.coverage.advice import gap_advice
from tests.cli.conftest import run_cli

pytestmark = pytest.mark.slow


@pytest.fixture()
def outputs(sample_analysis, tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch):
    report, db = sample_analysis
    monkeypatch.setenv("COLUMNS", "400")  # one table row per line: the cells are compared whole
    md = tmp_path / "coverage.md"
    capsys.readouterr()
    assert run_cli("report", "--quiet", "--db", str(db), report["session_id"], "--markdown", str(md)) == 0
    return report, capsys.readouterr().out, md.read_text()


def test_not_every_cluster_is_a_gap_and_the_rule_is_said(outputs) -> None:
    report, terminal, markdown = outputs
    calibration = report["calibration"]
    assert 0 < len(report["gaps"]) < len(report["clusters"])
    assert calibration["gap_rule"] == "calibrated" and report["params"]["gap_threshold"] is None
    assert calibration["gaps_text"].endswith(f"— {len(report['gaps'])} of {len(report['clusters'])}")
    for text in (terminal, markdown):
        assert calibration["gaps_text"] in text and calibration["text"] in text


def test_covered_share_is_in_every_output(outputs) -> None:
    report, terminal, markdown = outputs
    share = report["coverage"]["covered_share"]
    assert 0 < share < 1 and share == pytest.approx(
        report["calibration"]["chunks_within_reach"] / report["corpus"]["chunks"]
    )
    assert (
        f"{100 * share:.1f}%" in terminal
        and f"| covered share (chunks within the answering radius) | {100 * share:.1f}% |" in markdown
    )
    assert all(c["covered_share"] is not None for c in report["clusters"])
    assert all(d["covered_share"] is not None for d in report["documents"])


def test_terminal_and_markdown_give_the_same_advice_and_priority(outputs) -> None:
    report, terminal, markdown = outputs
    for rank, gap in enumerate(report["gaps"], 1):
        advice = gap_advice(gap)
        assert advice == gap["advice"]
        assert advice in terminal and f"| {advice} |" in markdown
        assert f"| {rank} | {gap['cluster']} | {gap['priority']:.2f} |" in markdown
    priorities = [g["priority"] for g in report["gaps"]]
    assert priorities == sorted(priorities, reverse=True)


def test_document_view_and_gold_coverage(outputs) -> None:
    report, terminal, markdown = outputs
    docs = report["documents"]
    assert [d["rank"] for d in docs] == list(range(1, len(docs) + 1))
    assert docs[0]["source"] == "weekend-sourdough-country-loaf.md" and docs[0]["unreached"]  # the off-topic one
    gold = report["gold"]
    assert gold["documents_unnamed"] == len(gold["unnamed"]) > 0
    assert {d["source"] for d in docs if d["gold_count"] == 0} == set(gold["unnamed"])
    assert "Least-covered documents" in terminal and "## Least-covered documents" in markdown
    assert f"gold: {gold['documents_unnamed']} of {gold['documents']} documents" in terminal
    assert "## Gold coverage" in markdown and gold["unnamed"][0] in markdown
