"""``eval --resume`` with other gold or another corpus (issue #23 §5): the judgements of ``--qrels``
and the corpus are part of what a session is, so resuming it against others is refused with one line
naming what differs; the same content at another path resumes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ragcov_tui.cli.main import main
from ragcov_tui.store.db import open_db
from ragcov_tui.store.sessions import list_sessions

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_data"


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    lines = (SAMPLE / "questions.jsonl").read_text().splitlines()[:3]
    (tmp_path / "questions.jsonl").write_text("\n".join(lines) + "\n")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in ("billing-and-plans.md", "sso-and-scim.md", "api-authentication-and-rate-limits.md"):
        shutil.copy(SAMPLE / "corpus" / name, corpus / name)
    (tmp_path / "a.tsv").write_text("q001\tbilling-and-plans.md\t1\nq002\tsso-and-scim.md\t1\n")
    (tmp_path / "b.tsv").write_text("q001\tsso-and-scim.md\t1\nq002\tbilling-and-plans.md\t1\n")
    return tmp_path


def _eval(work: Path, *extra: str, corpus: str = "corpus") -> int:
    return main(
        [
            "eval",
            "--quiet",
            "--db",
            str(work / "r.db"),
            "--questions",
            str(work / "questions.jsonl"),
            "--corpus",
            str(work / corpus),
            "--system",
            "builtin:hybrid",
            "--embedder",
            "hash",
            "--metrics",
            "retrieval",
            *extra,
        ]
    )


def _sid(work: Path) -> str:
    [session] = list_sessions(open_db(work / "r.db"))
    return session["id"]


def test_resume_with_other_qrels_is_refused_naming_both(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _eval(work, "--qrels", str(work / "a.tsv")) == 0
    sid = _sid(work)
    capsys.readouterr()
    assert _eval(work, "--qrels", str(work / "b.tsv"), "--resume", sid) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"error: --resume {sid}: session {sid} was scored against other gold ids (--qrels {work / 'a.tsv'} "
        f"then, --qrels {work / 'b.tsv'} now); resume with the same gold, or start a new run"
    )


def test_resume_with_the_same_qrels_file_changed_is_refused(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _eval(work, "--qrels", str(work / "a.tsv")) == 0
    sid = _sid(work)
    (work / "a.tsv").write_text("q001\tbilling-and-plans.md\t2\nq002\tsso-and-scim.md\t1\n")  # one grade changed
    capsys.readouterr()
    assert _eval(work, "--qrels", str(work / "a.tsv"), "--resume", sid) == 2
    assert f"other gold ids (--qrels {work / 'a.tsv'}, changed since)" in capsys.readouterr().err


def test_resume_on_another_corpus_is_refused_and_the_same_one_elsewhere_resumes(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _eval(work) == 0
    sid = _sid(work)
    shutil.copytree(work / "corpus", work / "moved")
    assert _eval(work, "--resume", sid, corpus="moved") == 0  # the same content at another path
    with (work / "moved" / "billing-and-plans.md").open("a") as handle:
        handle.write("\nA new paragraph about refunds.\n")
    capsys.readouterr()
    assert _eval(work, "--resume", sid, corpus="moved") == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"error: --resume {sid}: session {sid} was run on another corpus (--corpus {work / 'corpus'} "
        f"then, --corpus {work / 'moved'} now: the files, their content or the chunking differ); resume with the same corpus, "
        "or start a new run"
    )
    assert _eval(work, "--resume", sid, "--chunk-size", "120") == 2  # the same files cut otherwise
    assert "was run on another corpus" in capsys.readouterr().err
