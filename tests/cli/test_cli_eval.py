"""End-to-end: ``ragcov eval`` / ``compare`` / ``sessions`` on sample_data/ (fast `hash` embedder)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import CORPUS, QUESTIONS, run_cli

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def two_evals(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict, dict]:
    tmp = tmp_path_factory.mktemp("eval")
    db = tmp / "db.sqlite"
    reports = []
    for system in ("builtin:bm25", "builtin:dense"):
        out = tmp / f"{system.split(':')[1]}.json"
        code = run_cli(
            "eval",
            "--quiet",
            "--db",
            str(db),
            "--questions",
            str(QUESTIONS),
            "--corpus",
            str(CORPUS),
            "--system",
            system,
            "--embedder",
            "hash",
            "--json",
            str(out),
            "--markdown",
            str(tmp / "e.md"),
        )
        assert code == 0
        reports.append(json.loads(out.read_text()))
    return db, reports[0], reports[1]


def test_eval_json_follows_the_contract(two_evals) -> None:
    _, bm25, _ = two_evals
    assert bm25["k"] == 5
    retrieval = bm25["aggregate"]["retrieval"]
    assert {"precision@5", "recall@5", "hit@5", "ndcg@5", "mrr", "map"} <= set(retrieval)
    assert {"faithfulness", "keyword_coverage"} <= set(bm25["aggregate"]["generation"])
    q = bm25["questions"][0]
    assert {"id", "retrieval", "generation", "diagnosis"} <= set(q)
    assert "heuristic" in bm25["judge"]
    assert retrieval["hit@5"]["mean"] > 0.8  # BM25 finds a gold document for nearly every question


def test_gates_exit_3_and_bad_specs_exit_2(two_evals, tmp_path: Path, capsys) -> None:
    db, bm25, _ = two_evals
    base = [
        "eval",
        "--quiet",
        "--db",
        str(db),
        "--questions",
        str(QUESTIONS),
        "--corpus",
        str(CORPUS),
        "--system",
        "builtin:bm25",
        "--embedder",
        "hash",
    ]
    assert run_cli(*base, "--fail-under", "hit@5=0.5") == 0
    assert run_cli(*base, "--fail-under", "ndcg@5=0.999") == 3
    assert "ndcg@5" in capsys.readouterr().err
    assert run_cli(*base, "--fail-under", "ndcg") == 2
    assert run_cli(*base, "--fail-under", "ndcg@3=0.5") == 2  # the cut-off must match --k


def test_baseline_regression_is_listed(two_evals, capsys) -> None:
    db, bm25, dense = two_evals
    code = run_cli(
        "eval",
        "--quiet",
        "--db",
        str(db),
        "--questions",
        str(QUESTIONS),
        "--corpus",
        str(CORPUS),
        "--system",
        "builtin:dense",
        "--embedder",
        "hash",
        "--baseline",
        bm25["session_id"],
        "--max-drop",
        "0",
    )
    err = capsys.readouterr().err
    dropped = [
        m
        for m, s in bm25["aggregate"]["retrieval"].items()
        if s["mean"] is not None and dense["aggregate"]["retrieval"][m]["mean"] < s["mean"]
    ]
    assert dropped, "the hash-embedder dense system retrieves worse than BM25"
    assert code == 3
    assert f"regression {dropped[0]}" in err and "→" in err


def test_compare_two_sessions(two_evals, tmp_path: Path) -> None:
    db, bm25, dense = two_evals
    out = tmp_path / "cmp.json"
    assert (
        run_cli("compare", "--quiet", "--db", str(db), bm25["session_id"], dense["session_id"], "--json", str(out)) == 0
    )
    result = json.loads(out.read_text())
    ndcg = next(m for m in result["metrics"] if m["metric"] == "ndcg@5")
    assert ndcg["ci_low"] <= ndcg["delta"] <= ndcg["ci_high"]
    assert ndcg["wins"] + ndcg["losses"] + ndcg["ties"] == ndcg["n"]


def test_sessions_lists_both_kinds(two_evals, capsys) -> None:
    db, bm25, _ = two_evals
    assert run_cli("sessions", "--db", str(db), "--json") == 0
    sessions = json.loads(capsys.readouterr().out)
    assert bm25["session_id"] in {s["id"] for s in sessions}
    assert all(s["kind"] == "eval" for s in sessions)


def test_unknown_system_scheme_is_bad_input(tmp_path: Path, capsys) -> None:
    code = run_cli(
        "eval", "--quiet", "--db", str(tmp_path / "db"), "--questions", str(QUESTIONS), "--system", "ftp:somewhere"
    )
    assert code == 2
    assert "ftp" in capsys.readouterr().err


def test_comparing_a_session_with_itself_is_bad_input(two_evals, capsys) -> None:
    db, bm25, _ = two_evals
    sid = bm25["session_id"]
    assert run_cli("compare", "--quiet", "--db", str(db), sid, sid[:6]) == 2
    err = capsys.readouterr().err.strip()
    assert f"are the same session {sid}" in err and len(err.splitlines()) == 1


def test_failed_questions_are_reported_and_all_failed_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    (tmp_path / "flaky_rag_mod.py").write_text(
        "def some(q):\n"
        "    if 'Mars' in q:\n"
        "        raise ConnectionError('backend down')\n"
        "    return {'answer': 'It depends.', 'contexts': ['Skein bills monthly.']}\n"
        "def none(q):\n"
        "    raise ConnectionError('backend down')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    base = ["eval", "--quiet", "--db", str(tmp_path / "db"), "--questions", str(QUESTIONS), "--embedder", "hash"]
    assert run_cli(*base, "--system", "python:flaky_rag_mod:some") == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "1 of 31 questions failed (first: q030: system: ConnectionError: backend down)" in out
    assert run_cli(*base, "--system", "python:flaky_rag_mod:none") == 1
    err = capsys.readouterr().err.strip()
    assert "nothing to score: 31 of 31 questions failed" in err and "backend down" in err and "--resume" in err
    assert len(err.splitlines()) == 1
