"""End-to-end: ``ragcov analyze`` on sample_data/ — the JSON contract, gates, determinism, bad input."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tests.cli.conftest import CORPUS, QUESTIONS, run_cli

pytestmark = pytest.mark.slow

CONTRACT = {
    "session_id": None,
    "embedder": {"provider", "model", "dim"},
    "corpus": {"documents", "chunks"},
    "questions": {"total", "inliers", "outliers"},
    "coverage": {"basic", "weighted", "multi_threshold", "multi_n", "threshold", "top_n", "covered_share"},
    "calibration": {
        "radius",
        "radius_from",
        "chunks_within_reach",
        "gap_rule",
        "gap_cut",
        "coverage_cut",
        "median_covered_share",
        "text",
        "gaps_text",
        "uneven_text",
    },
    "gold": {"questions_with_gold", "documents", "documents_named", "documents_unnamed", "unnamed"},
}
LIST_ITEMS = {
    "clusters": {
        "id",
        "size",
        "share",
        "coverage",
        "covered_share",
        "priority",
        "gap",
        "uneven",
        "unreached_documents",
        "unreached_share",
        "documents_without_gold",
        "themes",
    },
    "gaps": {
        "cluster",
        "coverage",
        "covered_share",
        "size",
        "priority",
        "themes",
        "suggested_questions",
        "advice",
        "unreached_documents",
    },
    "documents": {
        "source",
        "chunks",
        "coverage",
        "flagged",
        "reach",
        "covered_share",
        "unreached",
        "gold_count",
        "rank",
    },
    "question_details": {"id", "lof_score", "outlier", "nearest_cluster", "redundant_with"},
    "chunk_details": {"id", "source", "cluster", "mindist", "nearest_question"},
}


def no_nan(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(no_nan(v) for v in value.values())
    if isinstance(value, list):
        return all(no_nan(v) for v in value)
    return True


def test_json_report_follows_the_contract(sample_analysis: tuple[dict, Path]) -> None:
    report, _ = sample_analysis
    for key, sub in CONTRACT.items():
        assert key in report
        if sub:
            assert sub <= set(report[key]), key
    for key, fields in LIST_ITEMS.items():
        assert report[key], key
        for item in report[key]:
            assert fields <= set(item), (key, item)
    assert report["corpus"]["chunks"] == len(report["chunk_details"])
    assert report["questions"]["total"] == len(report["question_details"])
    assert 0 < report["coverage"]["basic"] <= 1
    assert no_nan(report)


def test_markdown_report_has_the_gap_table(sample_analysis: tuple[dict, Path], tmp_path: Path) -> None:
    report, db = sample_analysis
    md = tmp_path / "again.md"
    assert run_cli("report", "--quiet", "--db", str(db), report["session_id"], "--markdown", str(md)) == 0
    text = md.read_text()
    assert "| # | cluster | priority | covered | coverage | size | share | themes | advice |" in text
    assert "## Least-covered documents" in text and "## Gold coverage" in text
    assert "nan" not in text.lower().split()
    suggested = [s for g in report["gaps"] for s in g["suggested_questions"]]
    assert suggested and "| cluster | suggestion | form | from chunk |" in text
    assert all(f"| {s['form']} | {s['chunk_id']} |" in text for s in suggested)  # each with its source chunk


def test_stored_session_reexports_the_same_report(sample_analysis: tuple[dict, Path], tmp_path: Path) -> None:
    report, db = sample_analysis
    again = tmp_path / "again.json"
    assert run_cli("report", "--quiet", "--db", str(db), report["session_id"], "--json", str(again)) == 0
    stored = json.loads(again.read_text())
    for key in (
        "coverage",
        "clusters",
        "gaps",
        "documents",
        "question_details",
        "chunk_details",
        "corpus",
        "questions",
    ):
        assert stored[key] == report[key], key


def test_fail_under_gates_exit_3(sample_analysis: tuple[dict, Path], tmp_path: Path) -> None:
    _, db = sample_analysis
    base = ["analyze", "--quiet", "--db", str(db), "--corpus", str(CORPUS), "--questions", str(QUESTIONS)]
    assert run_cli(*base, "--fail-under", "basic=0.99") == 3
    assert run_cli(*base, "--fail-under", "basic=0.01", "weighted=0.01") == 0


def test_same_seed_same_results(sample_analysis: tuple[dict, Path], tmp_path: Path) -> None:
    report, db = sample_analysis
    out = tmp_path / "r.json"
    assert (
        run_cli(
            "analyze",
            "--quiet",
            "--db",
            str(db),
            "--corpus",
            str(CORPUS),
            "--questions",
            str(QUESTIONS),
            "--json",
            str(out),
        )
        == 0
    )
    again = json.loads(out.read_text())
    assert again["coverage"] == report["coverage"]
    assert again["clusters"] == report["clusters"]
    assert [q["outlier"] for q in again["question_details"]] == [q["outlier"] for q in report["question_details"]]


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["--corpus", "does/not/exist", "--questions", str(QUESTIONS)], "does/not/exist"),
        (["--corpus", str(CORPUS), "--questions", "nope.jsonl"], "nope.jsonl"),
        (["--corpus", str(CORPUS), "--questions", str(QUESTIONS), "--fail-under", "basic"], "--fail-under"),
        (["--corpus", str(CORPUS), "--questions", str(QUESTIONS), "--fail-under", "speed=1"], "unknown metric"),
        (["--corpus", str(CORPUS), "--questions", str(QUESTIONS), "--clusters", "zero"], "--clusters"),
        (
            ["--corpus", str(CORPUS), "--questions", str(QUESTIONS), "--embedder", "openai:text-embedding-3-small"],
            "OPENAI_API_KEY",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    argv: list[str], needle: str, tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    code = run_cli("analyze", "--quiet", "--db", str(tmp_path / "db.sqlite"), *argv)
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert needle in err
    assert "Traceback" not in err and len(err.splitlines()) == 1


def test_help_of_every_command_has_an_example(capsys: pytest.CaptureFixture) -> None:
    for command in ("analyze", "eval", "compare", "sessions", "report", "tui", "demo"):
        with pytest.raises(SystemExit) as exc:
            run_cli(command, "--help")
        assert exc.value.code == 0
        assert "Example" in capsys.readouterr().out


def test_unknown_session_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """(``tui`` in a terminal: tests/cli/test_cli_first_steps.py.)"""
    code = run_cli("report", "--db", str(tmp_path / "db.sqlite"), "zzz")
    err = capsys.readouterr().err.strip()
    assert code == 2 and "session 'zzz': no such session" in err and len(err.splitlines()) == 1


def test_printed_summary_names_the_flagged_document_once_and_the_outliers(
    sample_analysis: tuple[dict, Path], capsys: pytest.CaptureFixture
) -> None:
    _, db = sample_analysis
    assert run_cli("report", "--db", str(db), "latest-analysis") == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "flagged document: weekend-sourdough-country-loaf.md: coverage 0.139 is below the floor 0.2" in out
    assert "(coverage 0.139)" not in out  # the reason carries the figure; it is not said twice
    for qid in ("q008", "q020", "q030"):
        assert f"outlier question: {qid} (LOF" in out
