"""End-to-end: ``ragcov eval`` / ``analyze`` on a BEIR folder, --qrels, --split, and gold ids that
need normalising (the path-prefix case) or match nothing (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import QUESTIONS, REPO, run_cli
from tests.evaluation.test_eval_beir import make_beir


def test_eval_reads_a_beir_folder_and_says_what_it_embedded(tmp_path: Path, capsys) -> None:
    folder = make_beir(tmp_path / "beir")
    out = tmp_path / "r.json"
    code = run_cli(
        "eval",
        "--db",
        str(tmp_path / "db"),
        "--questions",
        str(folder),
        "--system",
        "builtin:bm25",
        "--k",
        "10",
        "--json",
        str(out),
    )
    printed = " ".join(capsys.readouterr().out.split())  # lines wrap at the terminal width
    assert code == 0
    report = json.loads(out.read_text())
    assert len(report["questions"]) == 24 and report["aggregate"]["generation"] == {}
    n = report["gold_ids"]["ids"]
    assert f"gold ids: {n} of {n} distinct ids matched the corpus" in printed
    assert "embedded — corpus: nothing (builtin:bm25 needs no corpus vectors); per question: nothing" in printed
    assert "Generation: not scored (retrieval metrics only; --metrics all scores answers too)" in printed


def test_split_flag_picks_the_qrels_file(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "beir")
    (folder / "qrels" / "dev.tsv").write_text("q3\tdoc1\t1\nq4\tdoc2\t1\n")
    out = tmp_path / "r.json"
    assert (
        run_cli(
            "eval",
            "--quiet",
            "--db",
            str(tmp_path / "db"),
            "--questions",
            str(folder),
            "--split",
            "dev",
            "--system",
            "builtin:bm25",
            "--json",
            str(out),
        )
        == 0
    )
    assert [q["id"] for q in json.loads(out.read_text())["questions"]] == ["q3", "q4"]
    assert (
        run_cli(
            "eval",
            "--quiet",
            "--db",
            str(tmp_path / "db"),
            "--questions",
            str(folder),
            "--split",
            "train",
            "--system",
            "builtin:bm25",
        )
        == 2
    )


def test_analyze_takes_the_corpus_from_the_folder(tmp_path: Path) -> None:
    folder = make_beir(tmp_path / "beir")
    out = tmp_path / "a.json"
    assert (
        run_cli(
            "analyze",
            "--quiet",
            "--db",
            str(tmp_path / "db"),
            "--questions",
            str(folder),
            "--embedder",
            "hash",
            "--json",
            str(out),
        )
        == 0
    )
    report = json.loads(out.read_text())
    assert report["corpus"]["documents"] == 60 and report["questions"]["total"] == 24


def test_analyze_without_corpus_on_a_test_file_is_exit_2(tmp_path: Path, capsys) -> None:
    assert run_cli("analyze", "--quiet", "--db", str(tmp_path / "db"), "--questions", str(QUESTIONS)) == 2
    assert "--corpus: required" in capsys.readouterr().err


def _prefixed_questions(tmp_path: Path, prefix: str) -> Path:
    rows = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    for row in rows:
        for key in ("relevant_doc_ids", "gold_doc_ids"):
            if key in row:
                row[key] = [prefix + d for d in row[key]]
    path = tmp_path / "questions.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_gold_ids_with_the_corpus_folder_prefix_match_and_say_so(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(REPO)
    questions = _prefixed_questions(tmp_path, "sample_data/corpus/")
    out = tmp_path / "r.json"
    code = run_cli(
        "eval",
        "--db",
        str(tmp_path / "db"),
        "--questions",
        str(questions),
        "--corpus",
        "sample_data/corpus",
        "--system",
        "builtin:bm25",
        "--metrics",
        "retrieval",
        "--json",
        str(out),
    )
    captured = capsys.readouterr()
    assert code == 0
    notes = [line for line in captured.err.splitlines() if "gold ids:" in line]
    assert len(notes) == 1 and "after normalisation: path relative to the corpus root" in notes[0]
    assert "'sample_data/corpus/" in notes[0]
    report = json.loads(out.read_text())
    assert report["aggregate"]["retrieval"]["hit@5"]["mean"] > 0.8  # not the silent 0.000 of before
    assert report["gold_ids"]["unmatched"] == 0 and report["gold_ids"]["normalised"] == {
        "relative": report["gold_ids"]["ids"]
    }
    assert "after normalisation" in " ".join(captured.out.split())


def test_gold_ids_that_match_nothing_exit_2_with_one_line(tmp_path: Path, capsys) -> None:
    questions = _prefixed_questions(tmp_path, "nowhere/")
    rows = [json.loads(line) for line in questions.read_text().splitlines()]
    for row in rows:
        row["relevant_doc_ids"] = [f"nowhere/missing-{n}.pdf" for n, _ in enumerate(row.get("relevant_doc_ids", []))]
    questions.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code = run_cli(
        "eval",
        "--quiet",
        "--db",
        str(tmp_path / "db"),
        "--questions",
        str(questions),
        "--corpus",
        str(REPO / "sample_data" / "corpus"),
        "--system",
        "builtin:bm25",
        "--metrics",
        "retrieval",
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and err[0].startswith("error: gold ids: only 0 of ")
    assert "e.g. 'nowhere/" in err[0] and "corpus ids: 'admin-console.md'" in err[0] and "tried exact, then" in err[0]


@pytest.mark.parametrize("layout", ["trec", "tsv"])
def test_qrels_flag_attaches_gold_ids(tmp_path: Path, layout: str) -> None:
    qrels = tmp_path / "qrels.txt"
    lines = (
        ["q001 0 billing-and-plans.md 2", "q002 0 sso-and-scim.md 1"]
        if layout == "trec"
        else ["query-id\tcorpus-id\tscore", "q001\tbilling-and-plans.md\t2", "q002\tsso-and-scim.md\t1"]
    )
    qrels.write_text("\n".join(lines) + "\n")
    out = tmp_path / "r.json"
    assert (
        run_cli(
            "eval",
            "--quiet",
            "--db",
            str(tmp_path / "db"),
            "--questions",
            str(QUESTIONS),
            "--qrels",
            str(qrels),
            "--corpus",
            str(REPO / "sample_data" / "corpus"),
            "--system",
            "builtin:bm25",
            "--metrics",
            "retrieval",
            "--json",
            str(out),
        )
        == 0
    )
    first = json.loads(out.read_text())["questions"][0]
    assert first["id"] == "q001" and first["retrieval"]["hit@5"] == 1.0
