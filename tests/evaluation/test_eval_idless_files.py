"""Issue #14 item 6 through eval and compare: two runs of a test file without ids, a row dropped by
hand between them, pair their common questions by content id; a session stored by an older ragcov
(rows known as ``row-<n>``) is compared without a crash and says the runs scored different questions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcov_tui.cli.main import main
from ragcov_tui.evaluation.compare import compare, question_set_note
from ragcov_tui.services.eval_job import run_eval
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.testset.ids import content_id
from tests.evaluation.eval_integrity import database, options
from tests.support.present import present

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"
DROPPED = 3  # the row a teammate drops by hand between the runs


def _idless(tmp: Path) -> tuple[Path, list[dict]]:
    """sample_data's questions without their ids (as Ragas / DeepEval / LlamaIndex files come)."""
    rows = [
        {k: v for k, v in json.loads(line).items() if k != "id"}
        for line in (SAMPLE / "questions.jsonl").read_text().splitlines()
        if line.strip()
    ]
    path = tmp / "questions.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path, rows


def _per_question(db, sid: str) -> dict[str, tuple[str, str]]:
    """question id -> (question text, its retrieval scores as JSON)."""
    return {
        r["question_id"]: (r["question"], r["retrieval"])
        for r in db.query("SELECT question_id, question, retrieval FROM eval_items WHERE session_id = ?", [sid])
    }


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("idless")
    path, rows = _idless(tmp)
    db, db_path = database(tmp)
    run = dict(corpus=[str(SAMPLE / "corpus")], metrics=["retrieval"], k=3, concurrency=1)
    sid_a, _ = run_eval(options(str(path), "builtin:bm25", name="before", **run), db)
    path.write_text("".join(json.dumps(r) + "\n" for i, r in enumerate(rows) if i != DROPPED))
    sid_b, _ = run_eval(options(str(path), "builtin:bm25", name="after", **run), db)
    return db, db_path, sid_a, sid_b, rows, tmp


def test_both_runs_know_the_questions_by_content_id(two_runs) -> None:
    db, _, sid_a, sid_b, rows, _ = two_runs
    a, b = _per_question(db, sid_a), _per_question(db, sid_b)
    assert set(a) == {content_id(r["question"]) for r in rows}
    assert set(b) == set(a) - {content_id(rows[DROPPED]["question"])}
    assert all(b[qid][0] == a[qid][0] for qid in b)  # one id, one question text in both runs
    assert all(b[qid][1] == a[qid][1] for qid in b)  # a deterministic system: the same scores


def test_compare_pairs_the_common_questions(two_runs) -> None:
    db, _, sid_a, sid_b, rows, _ = two_runs
    out = compare(db, sid_a, sid_b, resamples=200)
    n = len(rows)
    assert out["scored"] == {"a": n, "b": n - 1, "both": n - 1} and out["shared_questions"] == n - 1
    with_gold = sum(1 for i, r in enumerate(rows) if i != DROPPED and r.get("relevant_doc_ids"))
    assert {m["n"] for m in out["metrics"]} == {with_gold}  # retrieval metrics need gold ids
    for metric in out["metrics"]:  # the same system on the same questions: every pair ties
        assert (metric["wins"], metric["losses"], metric["ties"]) == (0, 0, metric["n"]) and metric["n"] > 0, metric
        assert metric["delta"] == pytest.approx(0.0)
    assert present(question_set_note(out)).startswith(
        f"the runs scored different questions: A {n}, B {n - 1}, {n - 1} both"
    )


def test_ragcov_compare_on_the_two_runs(two_runs, capsys: pytest.CaptureFixture[str]) -> None:
    _, db_path, sid_a, sid_b, rows, tmp = two_runs
    out = tmp / "compare.json"
    assert main(["compare", "--db", str(db_path), "--quiet", sid_a, sid_b, "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["scored"]["both"] == len(rows) - 1
    assert all(m["ties"] == m["n"] > 0 and m["wins"] == m["losses"] == 0 for m in data["metrics"])


def test_a_session_from_an_older_ragcov_compares_without_a_crash(two_runs, capsys: pytest.CaptureFixture[str]) -> None:
    """Sessions stored before content ids know id-less rows as ``row-<n>``: no question pairs
    with a new run's, and compare says so instead of failing."""
    db, db_path, sid_a, sid_b, rows, _ = two_runs
    old = _as_older_ragcov(db, sid_a)
    try:
        out = compare(db, old, sid_b, resamples=200)
        assert out["scored"] == {"a": len(rows), "b": len(rows) - 1, "both": 0}
        assert all(m["n"] == 0 and m["delta"] is None for m in out["metrics"])
        assert present(question_set_note(out)).startswith("the runs scored different questions")
        capsys.readouterr()
        assert main(["compare", "--db", str(db_path), old, sid_b]) == 0
        shown = capsys.readouterr()
        assert "the runs scored different questions" in shown.out + shown.err
        assert "Traceback" not in shown.out + shown.err and "nan" not in shown.out.lower()
    finally:
        _as_older_ragcov(db, old, undo=True)


def test_resuming_a_session_from_an_older_ragcov_is_refused(two_runs) -> None:
    """Its ids are not this file's any more: resuming would evaluate every question again
    beside the old items (``done 62 of 31``), so it is refused in one line."""
    db, _, sid_a, _, rows, tmp = two_runs
    (tmp / "again").mkdir(exist_ok=True)
    path, _ = _idless(tmp / "again")  # the bytes session A ran on, at another path
    old = _as_older_ragcov(db, sid_a)
    try:
        db.execute("UPDATE sessions SET status = 'cancelled' WHERE id = ?", [old])
        with pytest.raises(
            BadInput,
            match=r"--resume .*: session .* knows the questions of .* by ids this "
            r"ragcov no longer gives them: 'row-1', 'row-2', 'row-3', \+28 more \(rows without ids",
        ):
            run_eval(
                options(
                    str(path),
                    "builtin:bm25",
                    corpus=[str(SAMPLE / "corpus")],
                    metrics=["retrieval"],
                    k=3,
                    concurrency=1,
                    resume=old,
                ),
                db,
            )
        assert len(_per_question(db, old)) == len(rows)
    finally:
        db.execute("UPDATE sessions SET status = 'done' WHERE id = ?", [old])
        _as_older_ragcov(db, old, undo=True)


def _as_older_ragcov(db, sid: str, undo: bool = False) -> str:
    """Rename the session's item ids to ``row-<n>`` (n = seq + 1), as an older ragcov stored them,
    or back to the content ids."""
    with db.conn:
        for seq, text in list(db.execute("SELECT seq, question FROM eval_items WHERE session_id = ?", [sid])):
            db.execute(
                "UPDATE eval_items SET question_id = ? WHERE session_id = ? AND seq = ?",
                [content_id(text) if undo else f"row-{seq + 1}", sid, seq],
            )
    return sid
