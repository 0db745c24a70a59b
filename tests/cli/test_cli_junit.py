"""``--junit FILE`` on analyze and eval: the gates as JUnit test cases, valid against the Ant / Jenkins
JUnit schema CI systems read (tests/data/junit/JUnit.xsd), a failed gate naming its questions (issue #30 §2)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema

from tests.cli.conftest import CORPUS, QUESTIONS, run_cli

SCHEMA = Path(__file__).resolve().parents[1] / "data" / "junit" / "JUnit.xsd"


@pytest.fixture(scope="module")
def schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(str(SCHEMA))


def _cases(path: Path) -> dict[str, ET.Element]:
    return {case.get("name", ""): case for case in ET.parse(path).getroot().iter("testcase")}


def _failure(case: ET.Element) -> ET.Element:
    """The ``<failure>`` of a test case that must have one."""
    failure = case.find("failure")
    assert failure is not None
    return failure


def test_eval_junit_lists_each_gate_and_the_questions_a_failed_one_missed(tmp_path: Path, schema) -> None:
    db, junit = tmp_path / "ragcov.db", tmp_path / "gates.xml"
    code = run_cli(
        "eval",
        "-q",
        "--db",
        str(db),
        "--questions",
        str(QUESTIONS),
        "--corpus",
        str(CORPUS),
        "--system",
        "builtin:bm25",
        "--metrics",
        "retrieval",
        "--k",
        "3",
        "--json",
        str(tmp_path / "r.json"),
        "--fail-under",
        "hit@3=0.5",
        "mrr=0.99",
        "--junit",
        str(junit),
    )
    assert code == 3
    schema.validate(str(junit))  # raises with the reason when invalid
    root = ET.parse(junit).getroot()
    assert (root.tag, root.get("tests"), root.get("failures"), root.get("errors")) == ("testsuite", "2", "1", "0")
    cases = _cases(junit)
    assert cases["fail-under hit@3=0.5"].find("failure") is None
    failure = _failure(cases["fail-under mrr=0.99"])
    report = json.loads((tmp_path / "r.json").read_text())
    below = sorted(
        (q["retrieval"]["mrr"], q["id"])
        for q in report["questions"]
        if q["retrieval"].get("mrr") is not None and q["retrieval"]["mrr"] < 0.99
    )
    assert failure.get("type") == "fail-under" and failure.get("message", "").startswith("mrr: 0.")
    lines = (failure.text or "").splitlines()
    assert lines[1] == f"{len(below)} questions below 0.99:"
    assert [line.split()[0] for line in lines[2:]] == [qid for _, qid in below]  # lowest first, each with its reason
    assert all("  mrr=0." in line and "  retrieved: " in line for line in lines[2:])


def test_eval_junit_baseline_regressions_are_cases_too_and_control_characters_stay_valid_xml(
    tmp_path: Path, schema
) -> None:
    questions = tmp_path / "q.jsonl"
    rows = [json.loads(line) for line in QUESTIONS.read_text().splitlines()]
    rows[5]["question"] += " \x1b[31m\x07"  # q006, which BM25 ranks worst: listed under the failed gate
    questions.write_text("".join(json.dumps(r) + "\n" for r in rows))
    db = tmp_path / "ragcov.db"
    common = [
        "-q",
        "--db",
        str(db),
        "--questions",
        str(questions),
        "--corpus",
        str(CORPUS),
        "--metrics",
        "mrr",
        "--fail-under",
        "mrr=0.99",
    ]
    assert run_cli("eval", *common, "--system", "builtin:dense", "--json", str(tmp_path / "base.json")) == 3
    junit = tmp_path / "gates.xml"
    assert (
        run_cli(
            "eval",
            *common,
            "--system",
            "builtin:bm25",
            "--baseline",
            str(tmp_path / "base.json"),
            "--max-drop",
            "0",
            "--junit",
            str(junit),
        )
        == 3
    )
    schema.validate(str(junit))
    cases = _cases(junit)
    assert list(cases) == ["fail-under mrr=0.99", "regression mrr (max drop 0)"]
    regression = _failure(cases["regression mrr (max drop 0)"])
    assert regression.get("type") == "regression" and " questions fell:" in (regression.text or "")
    assert all(line.startswith("drop 0.") for line in (regression.text or "").splitlines()[2:])
    text = junit.read_text()
    assert "\x1b" not in text and "\x07" not in text and r"\x1b[31m\x07" in text  # the question quoted, escaped


def test_analyze_junit_names_the_gaps_of_a_failed_coverage_gate(tmp_path: Path, schema) -> None:
    junit = tmp_path / "coverage.xml"
    code = run_cli(
        "analyze",
        "-q",
        "--db",
        str(tmp_path / "ragcov.db"),
        "--corpus",
        str(CORPUS),
        "--questions",
        str(QUESTIONS),
        "--fail-under",
        "covered_share=0.99",
        "basic=-1",
        "--junit",
        str(junit),
        "--json",
        str(tmp_path / "a.json"),
    )
    assert code == 3
    schema.validate(str(junit))
    cases = _cases(junit)
    assert cases["fail-under basic=-1"].find("failure") is None
    failure = _failure(cases["fail-under covered_share=0.99"])
    gaps = json.loads((tmp_path / "a.json").read_text())["gaps"]
    assert (failure.text or "").splitlines()[1] == f"{len(gaps)} gaps:"
    assert [line.split()[1] for line in (failure.text or "").splitlines()[2:]] == [str(g["cluster"]) for g in gaps]


def test_junit_is_refused_over_an_input_before_any_work(tmp_path: Path, capsys) -> None:
    code = run_cli(
        "eval",
        "-q",
        "--db",
        str(tmp_path / "ragcov.db"),
        "--questions",
        str(QUESTIONS),
        "--corpus",
        str(CORPUS),
        "--system",
        "builtin:bm25",
        "--junit",
        str(QUESTIONS),
    )
    assert code == 2 and "--junit" in capsys.readouterr().err
