"""``--resume`` continues a session only with the test file it ran on, and only an eval session;
``compare`` takes eval sessions only, and ``latest-analysis`` means an analysis wherever it is used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcov_tui.cli.main import main
from ragcov_tui.evaluation.compare import compare
from ragcov_tui.services.eval_job import run_eval
from ragcov_tui.shared.errors import BadInput, Cancelled
from ragcov_tui.store.sessions import create_session, finish_session, resolve_session
from tests.evaluation.eval_integrity import QUESTIONS, database, options, write_questions
from tests.support.stored import stored_session

MORE = {"id": "q4", "question": "Which app does two-factor login use?", "gold_doc_ids": ["security.md"]}
VARIANTS = {  # the interrupted session below evaluated q1 only
    "different file": ([MORE], r"1 evaluated question is not in this file: 'q1'"),
    "changed text": (
        [{**QUESTIONS[0], "question": "When do invoices go out?"}, *QUESTIONS[1:]],
        r"1 evaluated question has another text in this file: 'q1'",
    ),
    "changed ids": (
        [{**q, "id": q["id"].upper()} for q in QUESTIONS],
        r"1 evaluated question is not in this file: 'q1'",
    ),
    "subset": (QUESTIONS[1:], r"1 evaluated question is not in this file: 'q1'"),
    "smaller subset": (QUESTIONS[:2], r"the file's content differs"),
    "superset": ([*QUESTIONS, MORE], r"the file's content differs"),
    "changed gold": ([{**QUESTIONS[0], "gold_doc_ids": ["setup.md"]}, *QUESTIONS[1:]], r"the file's content differs"),
    "changed later text": (
        [*QUESTIONS[:2], {**QUESTIONS[2], "question": "Restart what?"}],
        r"the file's content differs",
    ),
    "reordered": (QUESTIONS[::-1], r"the file's content differs"),
}


class _System:
    name = "fake"

    def answer(self, question: str):
        return {"answer": "a", "contexts": [{"id": "billing.md", "text": "t"}]}


@pytest.fixture()
def interrupted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A session cancelled after its first question (so it holds one done item)."""
    from ragcov_tui.evaluation.systems.base import output_from_value

    class System(_System):
        def answer(self, question: str):
            return output_from_value(super().answer(question), self.name)

    monkeypatch.setattr("ragcov_tui.services.eval_job.make_system", lambda *a, **k: System())
    db, path = database(tmp_path)

    def stop(stage: str, done: int, total: int) -> None:
        if stage == "evaluating" and done >= 1:
            raise Cancelled("stopped")

    with pytest.raises(Cancelled):
        run_eval(options(write_questions(tmp_path), "python:x:y", concurrency=1), db, progress=stop)
    sid = next(iter(db.query("SELECT id FROM sessions")))["id"]
    return db, path, sid, tmp_path


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_resume_with_other_questions_is_refused(interrupted, variant: str) -> None:
    db, _, sid, tmp = interrupted
    rows, reason = VARIANTS[variant]
    other = write_questions(tmp, rows, name="other.jsonl")
    with pytest.raises(
        BadInput,
        match=rf"--resume {sid}: .*other\.jsonl is not the test file session {sid} "
        rf"was run on \({reason}.*; it ran on .*questions\.jsonl\)",
    ) as caught:
        run_eval(options(other, "python:x:y", concurrency=1, resume=sid), db)
    assert "\n" not in str(caught.value)
    assert stored_session(db, sid)["status"] == "cancelled"  # untouched: still resumable with its own file
    assert [r["question_id"] for r in db.query("SELECT question_id FROM eval_items")] == ["q1"]


def test_resume_with_the_same_content_at_another_path_goes_on(interrupted) -> None:
    db, _, sid, tmp = interrupted
    copy = write_questions(tmp, QUESTIONS, name="copy.jsonl")
    sid2, report = run_eval(options(copy, "python:x:y", concurrency=1, resume=sid), db)
    assert sid2 == sid and report["skipped_done"] == 1
    assert report["counts"]["questions"] == report["counts"]["done"] == 3


def test_resume_of_an_analysis_session_is_refused(interrupted) -> None:
    db, _, _, tmp = interrupted
    analysis = create_session(db, "analysis", questions_path=str(tmp / "questions.jsonl"))
    finish_session(db, analysis, "done")
    for ref in (analysis, analysis[:6], "latest-analysis"):
        with pytest.raises(
            BadInput, match=rf"session '{ref}' \({analysis}\) is an analysis session; an eval session is needed"
        ):
            run_eval(options(write_questions(tmp), "python:x:y", resume=ref), db)


def test_resolve_session_kinds(interrupted) -> None:
    db, _, sid, tmp = interrupted
    finish_session(db, sid, "done")
    analysis = create_session(db, "analysis", name="cov")
    finish_session(db, analysis, "done")
    assert resolve_session(db, "latest-analysis", kind="analysis")["id"] == analysis
    assert resolve_session(db, "latest-eval")["id"] == sid and resolve_session(db, "latest", kind="eval")["id"] == sid
    assert resolve_session(db, "latest-analysis")["id"] == analysis
    with pytest.raises(BadInput, match="is an analysis session; an eval session is needed"):
        resolve_session(db, "latest-analysis", kind="eval")
    with pytest.raises(BadInput, match="'cov'.*is an analysis session"):
        resolve_session(db, "cov", kind="eval")
    with pytest.raises(BadInput, match="is an eval session; an analysis session is needed"):
        resolve_session(db, sid, kind="analysis")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("ANALYSIS", "EVAL"),
        ("EVAL", "ANALYSIS"),
        ("latest-analysis", "latest-eval"),
        ("latest-eval", "latest-analysis"),
        ("ANALYSIS", "ANALYSIS"),
    ],
)
def test_compare_refuses_an_analysis(interrupted, a: str, b: str) -> None:
    db, db_path, sid, tmp = interrupted
    finish_session(db, sid, "done")
    analysis = create_session(db, "analysis")
    finish_session(db, analysis, "done")
    refs = {"ANALYSIS": analysis, "EVAL": sid}
    a, b = refs.get(a, a), refs.get(b, b)
    with pytest.raises(BadInput, match=rf"\({analysis}\) is an analysis session; an eval session is needed"):
        compare(db, a, b)
    assert main(["compare", "--db", str(db_path), "--quiet", a, b]) == 2


def test_compare_refuses_an_analysis_report_file(interrupted) -> None:
    db, _, sid, tmp = interrupted
    finish_session(db, sid, "done")
    path = tmp / "analysis.json"
    path.write_text(json.dumps({"session_id": "x", "coverage": {}}))
    with pytest.raises(BadInput, match="not an eval report"):
        compare(db, sid, str(path))
