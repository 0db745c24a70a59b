"""End-to-end: ``ragcov lint`` and stale gold (issue #27 §1, §2) on a copy of sample_data/.

Stale gold is pinned by editing one gold document and deleting another between two runs: the second
``analyze`` names the baseline session, the questions whose gold changed and the missing document,
in the JSON, the Markdown and the terminal; ``eval`` and ``lint`` say the same.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.conftest import SAMPLE, run_cli

pytestmark = pytest.mark.slow


def gold_questions(questions: Path, source: str) -> list[str]:
    rows = [json.loads(line) for line in questions.read_text().splitlines() if line.strip()]
    return [r["id"] for r in rows if source in (r.get("relevant_doc_ids") or [])]


@pytest.fixture()
def data(tmp_path: Path) -> Path:
    shutil.copytree(SAMPLE / "corpus", tmp_path / "corpus")
    shutil.copy(SAMPLE / "questions.jsonl", tmp_path / "questions.jsonl")
    return tmp_path


def test_editing_a_gold_document_between_two_runs_is_reported_as_stale_gold(data: Path, capsys) -> None:
    db, questions, corpus = data / "r.db", data / "questions.jsonl", data / "corpus"
    base = ["--quiet", "--db", str(db), "--corpus", str(corpus), "--questions", str(questions), "--embedder", "hash"]
    assert run_cli("analyze", *base, "--json", str(data / "a1.json")) == 0
    first = json.loads((data / "a1.json").read_text())
    assert first["lint"]["baseline"] is None  # the first run has nothing to compare with
    billing = corpus / "billing-and-plans.md"
    billing.write_text(billing.read_text().replace("$8", "$9"))
    (corpus / "sso-and-scim.md").unlink()
    capsys.readouterr()
    assert run_cli("analyze", *base, "--json", str(data / "a2.json"), "--markdown", str(data / "a2.md")) == 0
    lint = json.loads((data / "a2.json").read_text())["lint"]
    assert lint["baseline"]["session_id"] == first["session_id"]
    assert lint["baseline"]["changed_documents"] == ["billing-and-plans.md"]
    assert lint["baseline"]["missing_documents"] == ["sso-and-scim.md"]
    stale = [f["question_id"] for f in lint["findings"] if f["kind"] == "stale_gold"]
    missing = [f["question_id"] for f in lint["findings"] if f["kind"] == "gold_missing"]
    assert stale == gold_questions(questions, "billing-and-plans.md") and stale
    assert missing == gold_questions(questions, "sso-and-scim.md") and missing
    texts = {k["kind"]: k["text"] for k in lint["kinds"]}
    assert texts["stale_gold"].startswith(f"stale_gold: 1 gold document changed since session {first['session_id']} (")
    assert f"{stale[0]}" in texts["stale_gold"] and "may have stale reference answers" in texts["stale_gold"]
    assert texts["gold_missing"].startswith("gold_missing: 1 gold document no longer exists (since session ")
    printed = capsys.readouterr().out
    assert texts["stale_gold"] in printed and texts["gold_missing"] in printed
    markdown = (data / "a2.md").read_text()
    assert "## Test-set lint" in markdown and f"Stale gold compared with session {first['session_id']}." in markdown
    # eval compares with the test file's last session (the second analysis): nothing changed since
    assert (
        run_cli("eval", *base, "--system", "builtin:bm25", "--metrics", "retrieval", "--json", str(data / "e.json"))
        == 0
    )
    section = json.loads((data / "e.json").read_text())["stale_gold"]
    assert section["baseline"]["changed_documents"] == [] and section["findings"] == []
    billing.write_text(billing.read_text().replace("$9", "$7"))
    assert run_cli("lint", *base, "--json", str(data / "l.json")) == 0  # lint against the eval session
    again = json.loads((data / "l.json").read_text())
    assert again["baseline"]["changed_documents"] == ["billing-and-plans.md"]
    assert [f["question_id"] for f in again["findings"] if f["kind"] == "stale_gold"] == stale


def test_lint_flags_an_added_foreign_and_an_unanswerable_question_and_gates(data: Path, capsys) -> None:
    questions = data / "questions.jsonl"
    with questions.open("a") as f:
        f.write(
            json.dumps(
                {
                    "id": "x-de",
                    "question": "Wie viel kostet der Team-Tarif bei jährlicher Zahlung?",
                    "ground_truth": "8 Dollar pro Mitglied und Monat.",
                }
            )
            + "\n"
        )
        f.write(
            json.dumps(
                {
                    "id": "x-moon",
                    "question": "How far is the Moon from the Earth?",
                    "ground_truth": "The Moon is about 384,400 kilometres from the Earth on average.",
                }
            )
            + "\n"
        )
        f.write(json.dumps({"id": "x-noref", "question": "Does Skein have a dark mode on Android?"}) + "\n")
    base = ["--quiet", "--db", str(data / "r.db"), "--corpus", str(data / "corpus"), "--questions", str(questions)]
    assert run_cli("lint", *base, "--json", str(data / "l.json"), "--markdown", str(data / "l.md")) == 0
    section = json.loads((data / "l.json").read_text())
    kinds = {(f["question_id"], f["kind"]) for f in section["findings"]}
    assert ("x-de", "wrong_language") in kinds and ("x-moon", "unanswerable") in kinds
    assert not any(q == "x-noref" and k in ("unanswerable", "answer_in_question") for q, k in kinds)
    unanswerable = next(k for k in section["kinds"] if k["kind"] == "unanswerable")
    assert unanswerable["not_checked"] >= 1 and "not checked (no reference answer)" in unanswerable["text"]
    assert section["corpus_language"] == "en"
    assert (data / "l.md").read_text().startswith("# Test-set lint\n")
    assert run_cli("lint", *base, "--fail-under", "unanswerable=1") == 3
    assert "gate failed: fail-under unanswerable:" in capsys.readouterr().err
    assert run_cli("lint", *base, "--fail-under", "lint=0.9") == 2
    assert "unknown lint gate 'lint'" in capsys.readouterr().err
    assert run_cli("lint", *base, "--baseline", "nosuch") == 2
