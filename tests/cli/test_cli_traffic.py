"""``ragcov analyze --traffic`` end to end on a copy of sample_data/ (the bundled traffic.jsonl)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.conftest import SAMPLE, run_cli


@pytest.fixture(scope="module")
def traffic_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, Path, Path]:
    tmp = tmp_path_factory.mktemp("traffic")
    data = tmp / "sample_data"
    shutil.copytree(SAMPLE, data)
    db, out, md = tmp / "ragcov.db", tmp / "report.json", tmp / "report.md"
    code = run_cli(
        "analyze",
        "--quiet",
        "--db",
        str(db),
        "--corpus",
        str(data / "corpus"),
        "--questions",
        str(data / "questions.jsonl"),
        "--traffic",
        str(data / "traffic.jsonl"),
        "--json",
        str(out),
        "--markdown",
        str(md),
    )
    assert code == 0
    return json.loads(out.read_text()), db, md


@pytest.mark.slow
def test_sample_traffic_finds_untested_topics_content_gaps_and_unasked_tests(traffic_run) -> None:
    report, _, _ = traffic_run
    traffic = report["traffic"]
    assert traffic["source"]["rows"] == 80 and traffic["source"]["distinct"] == 55
    assert traffic["source"]["queries"] == 1722 and traffic["source"]["first"].startswith("2026-01-01")
    top = traffic["clusters"][0]
    assert top["untested"] and top["examples"][0] == {"text": "how do I restore a deleted page", "count": 114}
    billing = next(
        c for c in traffic["clusters"] if any(e["text"] == "how much does the team plan cost" for e in c["examples"])
    )
    assert not billing["untested"] and billing["coverage"] > top["coverage"]
    assert [c["priority"] for c in traffic["clusters"]] == sorted(
        (c["priority"] for c in traffic["clusters"]), reverse=True
    )
    gap = {e["text"] for e in traffic["content_gap"]["examples"]}
    assert {
        "what is the weather in berlin tomorrow",
        "who won the champions league",
        "write a poem about my cat",
    } <= gap
    assert not gap & {"how much does the team plan cost", "how do I restore a deleted page", "API rate limit"}
    unasked = [q["id"] for q in traffic["unasked_questions"]["questions"]]
    assert {"q019", "q024", "q017"} <= set(unasked) and not {"q001", "q003", "q009"} & set(unasked)
    assert not {"q008", "q020", "q030"} & set(unasked)  # outliers are not listed again
    assert len(traffic["details"]) == 55 and report["timings"]["traffic"] >= 0


@pytest.mark.slow
def test_markdown_and_stored_report_carry_the_traffic_section(traffic_run, tmp_path: Path) -> None:
    report, db, md = traffic_run
    text = md.read_text()
    assert "## Traffic coverage" in text and "### Queries the corpus cannot answer" in text
    assert "### Tests nobody asks" in text and "\u201chow do I restore a deleted page\u201d \u00d7114" in text
    assert "nan" not in text.lower().split()
    again = tmp_path / "again.json"
    assert run_cli("report", "--quiet", "--db", str(db), report["session_id"], "--json", str(again)) == 0
    assert json.loads(again.read_text())["traffic"] == report["traffic"]


def test_a_bad_row_in_the_log_stops_before_any_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text('{"query": "fine", "count": 2}\n{"query": "bad \\u001b[31m", "count": -4}\n')
    code = run_cli(
        "analyze",
        "--quiet",
        "--db",
        str(tmp_path / "r.db"),
        "--embedder",
        "hash",
        "--corpus",
        str(SAMPLE / "corpus"),
        "--questions",
        str(SAMPLE / "questions.jsonl"),
        "--traffic",
        str(log),
    )
    err = capsys.readouterr().err
    assert code == 2 and f"{log}:2: field 'count' must be a whole number" in err and "\x1b" not in err
    assert len(err.strip().splitlines()) == 1


def test_the_report_may_not_overwrite_the_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.txt"
    log.write_text("a query\n")
    code = run_cli(
        "analyze",
        "--quiet",
        "--db",
        str(tmp_path / "r.db"),
        "--embedder",
        "hash",
        "--corpus",
        str(SAMPLE / "corpus"),
        "--questions",
        str(SAMPLE / "questions.jsonl"),
        "--traffic",
        str(log),
        "--json",
        str(log),
    )
    assert code == 2 and "one of the inputs" in capsys.readouterr().err
    assert log.read_text() == "a query\n"


def test_precomputed_embedder_cannot_embed_the_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "log.txt"
    log.write_text("a query\n")
    code = run_cli(
        "analyze",
        "--quiet",
        "--db",
        str(tmp_path / "r.db"),
        "--embedder",
        "precomputed",
        "--corpus",
        str(SAMPLE / "corpus"),
        "--questions",
        str(SAMPLE / "questions.jsonl"),
        "--traffic",
        str(log),
    )
    assert code == 2 and "the precomputed embedder has no vectors" in capsys.readouterr().err


def test_traffic_with_the_hash_embedder_prints_a_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run_cli(
        "analyze",
        "--db",
        str(tmp_path / "r.db"),
        "--embedder",
        "hash",
        "--corpus",
        str(SAMPLE / "corpus"),
        "--questions",
        str(SAMPLE / "questions.jsonl"),
        "--traffic",
        str(SAMPLE / "traffic.jsonl"),
    )
    out = " ".join(capsys.readouterr().out.split())  # lines wrap at the terminal width, after a path of any length
    assert code == 0 and "Traffic " in out and "1,722 queries (55 distinct)" in out
    assert "traffic the corpus cannot answer:" in out and "tests nobody asks:" in out


def test_ragcov_toml_may_name_the_log(tmp_path: Path) -> None:
    config = tmp_path / "ragcov.toml"
    config.write_text(f'[analyze]\ntraffic = "{SAMPLE / "traffic.jsonl"}"\n')
    out = tmp_path / "r.json"
    code = run_cli(
        "analyze",
        "--quiet",
        "--config",
        str(config),
        "--db",
        str(tmp_path / "r.db"),
        "--embedder",
        "hash",
        "--corpus",
        str(SAMPLE / "corpus"),
        "--questions",
        str(SAMPLE / "questions.jsonl"),
        "--json",
        str(out),
    )
    assert code == 0 and json.loads(out.read_text())["traffic"]["source"]["distinct"] == 55
    config.write_text("[analyze]\ntraffic = 3\n")
    assert (
        run_cli(
            "analyze",
            "--quiet",
            "--config",
            str(config),
            "--db",
            str(tmp_path / "r.db"),
            "--corpus",
            str(SAMPLE / "corpus"),
            "--questions",
            str(SAMPLE / "questions.jsonl"),
        )
        == 2
    )


@pytest.mark.slow
def test_sample_traffic_health_names_the_webhook_topic_with_its_coverage(traffic_run) -> None:
    """sample_data's webhook queries were served slowly, retrieved poorly and thumbed down, and no test
    question asks about webhooks: the report names their cluster with its figures and its coverage."""
    report, _, md = traffic_run
    health = report["traffic"]["health"]
    overall = health["overall"]
    assert overall["queries"] == 1722 and health["sessions"] > 1
    assert overall["latency_ms"]["p50"] < overall["latency_ms"]["p95"]
    spot = health["hotspots"][0]
    assert {"negative_feedback", "low_relevance"} <= set(spot["worse"]) and spot["untested"]
    assert all("webhook" in e["text"] for e in spot["examples"])
    cluster = next(c for c in report["traffic"]["clusters"] if c["id"] == spot["cluster"])
    mine = cluster["health"]
    assert mine["negative_feedback"]["interval"][0] > overall["negative_feedback"]["rate"]
    assert mine["latency_ms"]["p95"] > 2 * overall["latency_ms"]["p50"]
    assert "median best score" in health["low_relevance"]["rule"]
    text = md.read_text()
    assert "### Traffic health" in text and f"- cluster {spot['cluster']}: " in text and "— untested" in text
    assert "webhook" in text.split("### Traffic health")[1]


def test_window_and_traffic_gates_exit_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    common = [
        "analyze",
        "--quiet",
        "--db",
        str(tmp_path / "r.db"),
        "--embedder",
        "hash",
        "--corpus",
        str(SAMPLE / "corpus"),
        "--questions",
        str(SAMPLE / "questions.jsonl"),
        "--traffic",
        str(SAMPLE / "traffic.jsonl"),
        "--window",
        "7d",
    ]
    out = tmp_path / "r.json"
    assert (
        run_cli(
            *common,
            "--json",
            str(out),
            "--fail-under",
            "positive_feedback=0.5",
            "--max",
            "zero_results=0.5",
            "latency_p95_ms=60000",
        )
        == 0
    )
    health = json.loads(out.read_text())["traffic"]["health"]
    assert health["selection"]["window"] == "7d" and len(health["windows"]) == 5
    assert health["overall"]["queries"] == health["windows"][0]["queries"] < 1722
    capsys.readouterr()
    assert run_cli(*common, "--fail-under", "positive_feedback=0.99", "--max", "zero_results=0.001") == 3
    err = capsys.readouterr().err
    assert "gate failed: fail-under positive_feedback:" in err and "gate failed: max zero_results:" in err


def test_traffic_gate_without_a_log_stops_before_any_work(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = run_cli(
        "analyze",
        "--quiet",
        "--db",
        str(tmp_path / "r.db"),
        "--embedder",
        "hash",
        "--corpus",
        str(SAMPLE / "corpus"),
        "--questions",
        str(SAMPLE / "questions.jsonl"),
        "--max",
        "zero_results=0.1",
    )
    assert code == 2 and "give a query log with --traffic" in capsys.readouterr().err
    assert not (tmp_path / "r.db").exists()
