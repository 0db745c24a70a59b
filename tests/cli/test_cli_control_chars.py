"""No control character reaches the terminal or a report from the CLI (issue #17).

A corpus with a document whose NAME and content hold every C0/C1 control code, DEL, the bidi
controls and OSC 0 / 8 / 52 sequences, a question and a session name holding them, an eval whose
``records:`` system answers with them, and error messages quoting such values: stdout, stderr and
the Markdown reports carry none of them raw (they read ``␛]0;…``), the JSON keeps the exact text.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ragcov_tui.cli.main import main
from tests.cli.conftest import CORPUS, QUESTIONS
from tests.support.hostile import HOSTILE, HOSTILE_NO_NUL, leaked

pytestmark = pytest.mark.slow
SHOWN = "␛]0;PWNTITLE␇"
DOC_NAME = "evil" + HOSTILE_NO_NUL.replace("/", "") + ".md"


@pytest.fixture(scope="module")
def hostile_inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("hostile")
    corpus = tmp / "corpus"
    shutil.copytree(CORPUS, corpus)
    body = f"# Hostile {HOSTILE_NO_NUL}\n\nThe quick brown fox {HOSTILE_NO_NUL} jumps.\n"  # a NUL byte reads as binary
    (corpus / DOC_NAME).write_text(body * 4, encoding="utf-8")
    rows = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    rows.append({"id": "q-hostile", "question": f"What does {HOSTILE} mean?", "relevant_doc_ids": [DOC_NAME]})
    questions = tmp / f"questions [link=evil.example]x[red]y {HOSTILE_NO_NUL.replace('/', '')}.jsonl"
    questions.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    few = rows[:3] + rows[-1:]
    eval_questions = tmp / "eval_questions.jsonl"
    eval_questions.write_text("".join(json.dumps(r) + "\n" for r in few), encoding="utf-8")
    records = tmp / "records.jsonl"
    records.write_text(
        "".join(
            json.dumps(
                {"id": r["id"], "answer": f"{HOSTILE} says the system", "retrieved_contexts": [f"{HOSTILE} context"]}
            )
            + "\n"
            for r in few
        ),
        encoding="utf-8",
    )
    return {
        "tmp": tmp,
        "corpus": corpus,
        "questions": questions,
        "eval_questions": eval_questions,
        "records": records,
        "db": tmp / "ragcov.db",
    }


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``ragcov`` in-process; the exit code and what it wrote to stdout and to stderr."""
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_analyze_prints_and_reports_no_control_character(hostile_inputs, capsys, monkeypatch) -> None:
    monkeypatch.setenv("RAGCOV_PROGRESS_EVERY", "0.05")  # log lines as often as allowed
    h = hostile_inputs
    md = h["tmp"] / "analysis.md"
    code, out, err = run(
        capsys,
        "analyze",
        "--db",
        str(h["db"]),
        "--corpus",
        str(h["corpus"]),
        "--questions",
        str(h["questions"]),
        "--embedder",
        "hash",
        "--name",
        f"run {HOSTILE}",
        "--markdown",
        str(md),
        "--json",
        str(h["tmp"] / "analysis.json"),
    )
    assert code == 0, err
    report_md = md.read_text(encoding="utf-8")
    assert leaked(out) == leaked(err) == leaked(report_md) == []
    # stderr is no terminal here, so progress comes as log lines (tests/cli/test_cli_progress_lines.py
    # pins that their stage names are made visible); any that were written show the file name visible
    assert all(
        "embedding questions [link=evil.example]x[red]y ␛]0;PWNTITLE␇" in line
        for line in err.splitlines()
        if line.startswith("embedding questions")
    )
    report = json.loads((h["tmp"] / "analysis.json").read_text(encoding="utf-8"))
    assert DOC_NAME in {d["source"] for d in report["documents"]}  # the JSON keeps the exact text
    assert any(q["text"] == f"What does {HOSTILE} mean?" for q in report.get("question_details", []))

    code, listed, err = run(capsys, "sessions", "--db", str(h["db"]))
    assert code == 0 and leaked(listed + err) == [] and SHOWN in listed  # the session name, visible

    code, again, err = run(capsys, "report", "latest-analysis", "--db", str(h["db"]), "--markdown", "-")
    assert code == 0 and leaked(again + err) == []


def test_eval_with_a_hostile_system_answer(hostile_inputs, capsys) -> None:
    h = hostile_inputs
    md = h["tmp"] / "eval.md"
    code, out, err = run(
        capsys,
        "eval",
        "--db",
        str(h["db"]),
        "--questions",
        str(h["eval_questions"]),
        "--corpus",
        str(h["corpus"]),
        "--system",
        f"records:{h['records']}",
        "--embedder",
        "hash",
        "--markdown",
        str(md),
        "--json",
        "-",
    )
    assert code == 0, err
    assert leaked(out) == leaked(err) == leaked(md.read_text(encoding="utf-8")) == []
    report = json.loads(out)  # --json - prints only the JSON, with \uXXXX for what a terminal would obey
    answers = [q.get("answer") for q in report["questions"]]
    assert f"{HOSTILE} says the system" in answers


@pytest.mark.parametrize(
    "argv",
    [
        ("analyze", "--corpus", f"/nonexistent/{HOSTILE_NO_NUL}", "--questions", "q.jsonl"),
        ("analyze", "--corpus", ".", "--questions", f"/nonexistent/{HOSTILE_NO_NUL}.jsonl"),
        ("analyze", "--corpus", ".", "--questions", "q.jsonl", "--clusters", HOSTILE_NO_NUL),
        ("report", HOSTILE_NO_NUL),
        ("sessions", "--kind", HOSTILE_NO_NUL),
        ("eval", "--questions", "q.jsonl", "--system", HOSTILE_NO_NUL),
        ("analyze", "--corpus", ".", "--questions", "q.jsonl", "--chunk-size", HOSTILE_NO_NUL),
    ],
    ids=[
        "corpus path",
        "questions path",
        "clusters value",
        "session ref",
        "argparse choice",
        "system spec",
        "argparse int",
    ],
)
def test_errors_quoting_a_value_show_it_visible(argv, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.jsonl").write_text('{"id": "q1", "question": "What?"}\n', encoding="utf-8")
    code, out, shown = run(capsys, *argv[:1], "--db", str(tmp_path / "db.sqlite"), *argv[1:])
    assert code != 0
    assert leaked(out + shown) == []
    assert SHOWN in shown or "\\x1b]0;PWNTITLE\\x07" in shown, shown  # the value is quoted: visible or repr-escaped
    assert len([line for line in shown.splitlines() if "error" in line]) == 1
