"""``ragcov references``: reference answers for a BEIR folder's judged queries, end to end against a
local OpenAI-compatible server (issue #30 §3)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from ragcov_tui.evaluation.references import REFERENCE
from tests.cli.conftest import run_cli
from tests.support.fake_api import FakeAPIServer, api_env

LONG = " ".join(f"word{i}" for i in range(400))


def _folder(root: Path) -> Path:
    folder = root / "bench"
    (folder / "qrels").mkdir(parents=True)
    docs = {
        "d1": "Plan prices are listed per seat.",
        "d2": "The Team plan costs eight dollars.",
        "d3": LONG,
        "d5": LONG,
    }
    (folder / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": k, "title": "", "text": v}) + "\n" for k, v in docs.items())
    )
    queries = {
        "q1": "What does the Team plan cost?",
        "q2": "Is there an answer?",
        "q3": "Nothing relevant?",
        "q4": "Only a long document?",
    }
    (folder / "queries.jsonl").write_text("".join(json.dumps({"_id": k, "text": v}) + "\n" for k, v in queries.items()))
    # q1: two grade-2 documents (d2 short, then d3 long) and a grade-1 one; q2: a document not in the corpus;
    # q3: judged not relevant only; q4: one document longer than the budget
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t2\nq1\td3\t2\nq2\td9\t1\nq3\td1\t0\nq4\td5\t1\n"
    )
    return folder


def _digest(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*") if p.is_file()
    }


@pytest.fixture()
def server(monkeypatch: pytest.MonkeyPatch):
    """The fake model answers a reference prompt with the passage ids it was given, in order."""
    with FakeAPIServer() as fake:
        api_env(monkeypatch, fake)

        def reply(messages: list[dict], body: dict) -> str:
            assert messages[0]["content"] == REFERENCE.instruction
            passages = re.findall(r"^\[([^\]]+)\] (.*)$", messages[1]["content"], flags=re.M)
            return "Answer from " + " + ".join(f"{pid} ({len(text.split())} words)" for pid, text in passages)

        fake.chat_handler = reply
        yield fake


def test_references_are_written_from_the_most_relevant_documents_into_a_new_marked_file(
    tmp_path: Path, server: FakeAPIServer, capsys
) -> None:
    folder, out, db = _folder(tmp_path), tmp_path / "refs.jsonl", tmp_path / "ragcov.db"
    before = _digest(folder)
    argv = [
        "references",
        "-q",
        "--db",
        str(db),
        "--questions",
        str(folder),
        "--llm",
        "openai:ref-model",
        "--out",
        str(out),
        "--budget",
        "100",
    ]
    assert run_cli(*argv) == 0
    said = capsys.readouterr().out
    assert "wrote 2 synthetic reference answers" in said and "2 queries left out" in said and "q2, q3" in said
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == ["q1", "q4"]
    q1, q4 = rows
    # grade order, the budget: d2 (grade 2) fits, d3 (grade 2, 400 words) does not and ends the list
    assert q1["ground_truth"] == "Answer from d2 (6 words)"
    assert q1["reference_generated"] == {
        "llm": "openai:ref-model",
        "documents": ["d2"],
        "cut": [],
        "source": str(folder),
        "split": "test",
    }
    assert (
        q1["relevant_doc_ids"] == {"d1": 1.0, "d2": 2.0, "d3": 2.0}
        and q1["question"] == "What does the Team plan cost?"
    )
    assert q4["reference_generated"]["documents"] == ["d5"] and q4["reference_generated"]["cut"] == ["d5"]
    assert re.fullmatch(r"Answer from d5 \(\d+ words\)", q4["ground_truth"])
    assert int(q4["ground_truth"].split("(")[1].split()[0]) < 100  # cut to the 100-token budget
    assert _digest(folder) == before  # the BEIR folder is never written
    asked = server.count("/chat/completions")
    assert asked == 2
    assert run_cli(*argv) == 0 and server.count("/chat/completions") == asked  # cached like every call


def test_an_eval_on_generated_references_says_they_are_synthetic_in_every_report(
    tmp_path: Path, server: FakeAPIServer, capsys
) -> None:
    folder, out, db = _folder(tmp_path), tmp_path / "refs.jsonl", tmp_path / "ragcov.db"
    assert (
        run_cli(
            "references",
            "-q",
            "--db",
            str(db),
            "--questions",
            str(folder),
            "--llm",
            "openai:ref-model",
            "--out",
            str(out),
        )
        == 0
    )
    capsys.readouterr()
    report, markdown = tmp_path / "r.json", tmp_path / "r.md"
    assert (
        run_cli(
            "eval",
            "-q",
            "--db",
            str(db),
            "--questions",
            str(out),
            "--corpus",
            str(folder / "corpus.jsonl"),
            "--system",
            "builtin:bm25",
            "--metrics",
            "recall",
            "--json",
            str(report),
            "--markdown",
            str(markdown),
        )
        == 0
    )
    line = (
        "reference answers: synthetic for 2 of 2 questions (generated by openai:ref-model from their relevant documents"
    )
    assert line in capsys.readouterr().out
    assert line in markdown.read_text()
    assert json.loads(report.read_text())["synthetic_references"] == {"questions": 2, "by": ["openai:ref-model"]}
    assert run_cli("report", "latest-eval", "--db", str(db)) == 0 and line in capsys.readouterr().out


def test_bad_uses_are_one_line_errors(tmp_path: Path, server: FakeAPIServer, capsys) -> None:
    folder, db = _folder(tmp_path), tmp_path / "ragcov.db"
    base = ["references", "-q", "--db", str(db), "--llm", "openai:m"]
    assert run_cli(*base, "--questions", str(folder), "--out", str(folder / "refs.jsonl")) == 2
    assert "inside the BEIR folder" in capsys.readouterr().err
    assert run_cli(*base, "--questions", str(folder / "queries.jsonl"), "--out", str(tmp_path / "r.jsonl")) == 2
    assert "not a BEIR folder" in capsys.readouterr().err
    assert run_cli(*base, "--questions", str(folder), "--out", str(tmp_path / "r.jsonl"), "--split", "dev") == 2
    assert "no qrels for split 'dev'" in capsys.readouterr().err
    assert (
        run_cli("references", "-q", "--db", str(db), "--questions", str(folder), "--out", str(tmp_path / "r.jsonl"))
        == 2
    )
    assert "--llm" in capsys.readouterr().err
    assert server.count("/chat/completions") == 0 and not (tmp_path / "r.jsonl").exists()
