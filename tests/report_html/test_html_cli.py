"""``--html FILE`` end to end: ``report`` of an analysis and an eval session, ``compare``, ``analyze``
and ``eval`` right after a run; bad targets are one-line errors (exit 2) and nothing is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcov_tui.cli.main import main
from tests.report_html.conftest import SAMPLE

HEAD = '<meta http-equiv="Content-Security-Policy"'


def page_of(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!doctype html>") and HEAD in text and text.rstrip().endswith("</html>")
    return text


@pytest.mark.parametrize("which", ["analysis", "hybrid"])
def test_report_writes_the_session_page(
    sample_db: tuple[Path, dict[str, str]], tmp_path: Path, which: str, capsys: pytest.CaptureFixture
) -> None:
    db, sessions = sample_db
    out = tmp_path / "sub" / "page.html"
    assert main(["report", sessions[which], "--db", str(db), "--html", str(out)]) == 0
    page = page_of(out)
    assert f"session {sessions[which]}" in page
    assert ("Coverage report" if which == "analysis" else "Evaluation report") in page
    assert f"wrote {out}" in capsys.readouterr().err
    assert oct(out.stat().st_mode & 0o777) == oct(0o644)  # a page to share, readable by others
    assert not list(out.parent.glob(".*.tmp"))


def test_compare_writes_the_comparison_page(sample_db: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    db, sessions = sample_db
    out = tmp_path / "compare.html"
    assert main(["compare", sessions["bm25"], sessions["hybrid"], "--db", str(db), "--quiet", "--html", str(out)]) == 0
    page = page_of(out)
    assert f"Comparison — {sessions['bm25']} vs {sessions['hybrid']}" in page and 'id="diff-table"' in page


def test_analyze_and_eval_write_their_page_after_the_run(tmp_path: Path) -> None:
    common = [
        "--quiet",
        "--db",
        str(tmp_path / "r.db"),
        "--embedder",
        "hash",
        "--questions",
        str(SAMPLE / "questions.jsonl"),
        "--corpus",
        str(SAMPLE / "corpus"),
    ]
    assert main(["analyze", *common, "--html", str(tmp_path / "a.html")]) == 0
    assert main(["eval", *common, "--system", "builtin:bm25", "--html", str(tmp_path / "e.html")]) == 0
    assert 'id="doc-table"' in page_of(tmp_path / "a.html") and 'id="item-table"' in page_of(tmp_path / "e.html")


@pytest.mark.parametrize(
    "target, said",
    [
        ("{tmp}", "is a folder; name a file"),
        ("{tmp}/same.json", "the same file as --json"),
        ("{sample}/questions.jsonl", "one of the inputs"),  # the session's own test file
    ],
)
def test_bad_html_target_is_one_line_and_writes_nothing(
    sample_db: tuple[Path, dict[str, str]], tmp_path: Path, capsys: pytest.CaptureFixture, target: str, said: str
) -> None:
    db, sessions = sample_db
    html = target.format(tmp=tmp_path, sample=SAMPLE)
    before = sorted(tmp_path.iterdir())
    code = main(
        ["report", sessions["analysis"], "--db", str(db), "--json", str(tmp_path / "same.json"), "--html", html]
    )
    err = capsys.readouterr().err
    assert code == 2 and said in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert sorted(tmp_path.iterdir()) == before
