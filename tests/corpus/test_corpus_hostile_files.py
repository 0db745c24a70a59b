"""Hostile corpus paths and files (issue #17 groups 3, 9): a walk never hangs (FIFO), never loops
(a folder linked into itself), never crashes (link loops, dangling links, sockets, devices, damaged
HTML / PDF); each skipped entry is one warning naming it, and a named path that is not a readable
regular file or folder is one BadInput naming it. Ends with ``ragcov analyze`` / ``eval`` runs on
a corpus holding a FIFO, in a subprocess with a timeout so that a regression fails, not hangs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragcov_tui.corpus.load import load_corpus
from ragcov_tui.shared import input_files
from ragcov_tui.shared.errors import BadInput
from tests.support.deadline import call_within
from tests.support.special_files import make_socket

REPO = Path(__file__).resolve().parents[2]


def load_within(paths: list[Path], seconds: float = 10.0):
    """``load_corpus(paths)`` in a thread (a hang fails the test): (corpus, warnings)."""
    warnings: list[str] = []
    corpus = call_within(seconds, load_corpus, paths, warn=warnings.append)
    assert all("\n" not in w for w in warnings), warnings
    return corpus, warnings


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    (root / "guides").mkdir(parents=True)
    (root / "a.md").write_text("alpha text")
    (root / "guides" / "b.txt").write_text("beta text")
    return root


ENTRIES = [
    ("pipe.md", lambda p: os.mkfifo(p), "is a named pipe (FIFO), not a regular file; skipped"),
    ("guides/pipe.jsonl", lambda p: os.mkfifo(p), "is a named pipe (FIFO), not a regular file; skipped"),
    ("sock.txt", make_socket, "is a socket, not a regular file; skipped"),
    ("null.md", lambda p: os.symlink("/dev/null", p), "is a character device, not a regular file; skipped"),
    ("self.md", lambda p: os.symlink(p, p), "is a symbolic link loop (it points back to itself); skipped"),
    ("gone.md", lambda p: os.symlink(p.with_name("missing.md"), p), "is a broken symbolic link"),
    ("me", lambda p: os.symlink(".", p), "links to a folder already walked"),
    ("guides/up", lambda p: os.symlink("..", p), "links to a folder already walked"),
    ("guides/again", lambda p: os.symlink(p.parent, p), "links to a folder already walked"),
]


@pytest.mark.parametrize(("name", "make", "warning"), ENTRIES, ids=[e[0] for e in ENTRIES])
def test_a_hostile_entry_in_a_folder_is_skipped_with_one_warning(kb, name, make, warning):
    make(kb / name)
    corpus, warnings = load_within([kb])
    assert [d.source for d in corpus.documents] == ["a.md", "guides/b.txt"]
    assert len(warnings) == 1 and warnings[0].startswith(f"{kb}/{name}: ")
    assert warning in warnings[0] and warnings[0].endswith("; skipped")


def test_every_hostile_entry_at_once(kb):
    for name, make, _ in ENTRIES:
        make(kb / name)
    corpus, warnings = load_within([kb])
    assert [d.source for d in corpus.documents] == ["a.md", "guides/b.txt"]
    assert sorted(w.split(":")[0] for w in warnings) == sorted(f"{kb}/{name}" for name, _, _ in ENTRIES)


def test_a_link_to_a_folder_outside_is_followed_once(tmp_path, kb):
    outside = tmp_path / "shared"
    outside.mkdir()
    (outside / "c.md").write_text("gamma text")
    os.symlink(outside, kb / "linked")
    os.symlink(outside, kb / "linked_twice")
    corpus, warnings = load_within([kb])
    assert [d.source for d in corpus.documents] == ["a.md", "guides/b.txt", "linked/c.md"]
    assert warnings == [
        f"{kb}/linked_twice: links to a folder already walked (a link cycle, or a second link to it); skipped"
    ]


def test_a_deep_chain_of_links_ends(tmp_path):
    root = tmp_path / "kb"
    root.mkdir()
    (root / "doc.md").write_text("text")
    for i in range(30):  # each folder links to the root and to itself: a walk that followed blindly never ends
        folder = root / f"d{i}"
        folder.mkdir()
        os.symlink(root, folder / "root")
        os.symlink(folder, folder / "self")
    corpus, warnings = load_within([root])
    assert [d.source for d in corpus.documents] == ["doc.md"] and len(warnings) == 60


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any folder")
def test_an_unreadable_folder_is_skipped_with_a_warning(kb):
    (kb / "guides").chmod(0)
    try:
        corpus, warnings = load_within([kb])
    finally:
        (kb / "guides").chmod(0o755)
    assert [d.source for d in corpus.documents] == ["a.md"]
    assert warnings == [f"{kb}/guides: cannot list this folder (Permission denied); skipped"]


NAMED = [
    ("q.md", lambda p: os.mkfifo(p), "is a named pipe \\(FIFO\\), not a regular file"),
    ("chunks.jsonl", lambda p: os.mkfifo(p), "is a named pipe \\(FIFO\\), not a regular file"),
    ("self.md", lambda p: os.symlink(p, p), "is a symbolic link loop"),
    ("gone.md", lambda p: os.symlink(p.with_name("missing.md"), p), "is a broken symbolic link"),
    ("null.txt", lambda p: os.symlink("/dev/null", p), "is a character device, not a regular file"),
    ("sock.md", make_socket, "is a socket, not a regular file"),
]


@pytest.mark.parametrize(("name", "make", "pattern"), NAMED, ids=[n[0] for n in NAMED])
def test_a_named_path_that_is_no_regular_file_is_bad_input(tmp_path, name, make, pattern):
    path = tmp_path / name
    make(path)
    with pytest.raises(BadInput, match=f"^corpus path {path}: {pattern}"):
        load_within([path])


def test_a_self_linked_folder_named_is_bad_input(tmp_path):
    path = tmp_path / "loop"
    os.symlink(path, path)
    with pytest.raises(BadInput, match=f"^corpus path {path}: is a symbolic link loop"):
        load_within([path])


def test_a_file_swapped_for_a_fifo_after_the_check_is_refused_without_blocking(tmp_path, monkeypatch):
    """The fstat after the non-blocking open catches what the stat before it could not see."""
    pipe = tmp_path / "pipe.md"
    os.mkfifo(pipe)
    monkeypatch.setattr(input_files, "path_problem", lambda path: None)  # the first check "passed"
    with pytest.raises(BadInput, match=f"^{pipe}: is a named pipe \\(FIFO\\), not a regular file$"):
        call_within(10, input_files.read_input_file, pipe)


def test_html_with_an_unknown_marked_section_keeps_its_text(tmp_path):
    page = tmp_path / "page.html"
    page.write_text("<p>before</p><![foo[ hidden ]><p>after</p><![bar[ never closed")
    corpus, warnings = load_within([page])
    assert corpus.documents[0].text.startswith("before\n\nafter") and warnings == []


def test_a_damaged_pdf_is_one_warning_and_nothing_on_stderr(tmp_path, capfd):
    pytest.importorskip("pypdf")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj << /Kids [2 0 R] >>\n" + bytes(range(256)) * 4)
    (tmp_path / "ok.md").write_text("fine")
    corpus, warnings = load_within([tmp_path])
    assert [d.source for d in corpus.documents] == ["ok.md"]
    assert len(warnings) == 1 and warnings[0].startswith(f"{tmp_path}/broken.pdf: ")
    assert capfd.readouterr().err == ""


def test_nothing_usable_names_the_files(tmp_path):
    for name in ("a.md", "b.txt", "c.rst", "d.md"):
        (tmp_path / name).write_bytes(b"\0binary")
    with pytest.raises(
        BadInput,
        match=f"^corpus: no usable text in {tmp_path}/a.md, {tmp_path}/b.txt, {tmp_path}/c.rst, … \\(4 files in all\\)",
    ):
        load_within([tmp_path])
    with pytest.raises(BadInput, match=f"^corpus: no usable text in {tmp_path}/a.md \\(all empty"):
        load_within([tmp_path / "a.md"])


@pytest.mark.parametrize(
    ("row", "why"),
    [
        ('{"_id": "d2", "text": "half \\ud800 a pair"}', r"\\ud800 escape without its surrogate pair"),
        ('{"_id": NaN, "text": "x"}', "NaN is not valid JSON"),
        ('{"_id": "d2", "text": "x", "meta": ' + "[" * 200 + "]" * 200 + "}", "nested deeper than 100 levels"),
        ('{"_id": ' + "1" * 5000 + ', "text": "x"}', "a number with more than 4300 digits"),
    ],
    ids=["surrogate", "nan", "deep", "long-int"],
)
def test_document_rows_are_strict_json_at_file_and_line(tmp_path, row, why):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"_id": "d1", "title": "T", "text": "fine"}\n' + row + "\n", encoding="utf-8")
    with pytest.raises(BadInput, match=f"^{corpus}:2: invalid JSON \\({why}"):
        load_within([corpus])


# -- the CLI end to end ----------------------------------------------------------------------------
def write_inputs(tmp_path: Path) -> tuple[Path, Path]:
    kb = tmp_path / "kb"
    kb.mkdir()
    with (kb / "chunks.jsonl").open("w") as f:
        for i in range(12):
            vector = [float((i * 7 + d) % 5 + 1) for d in range(8)]
            f.write(json.dumps({"id": f"c{i}", "text": f"chunk {i} about topic {i % 3}", "vector": vector}) + "\n")
    questions = tmp_path / "q.jsonl"
    with questions.open("w") as f:
        for j in range(4):
            vector = [float((j * 3 + d) % 4 + 1) for d in range(8)]
            f.write(
                json.dumps({"id": f"q{j}", "question": f"topic {j}?", "vector": vector, "gold_chunk_ids": [f"c{j}"]})
                + "\n"
            )
    os.mkfifo(kb / "pipe.md")
    return kb, questions


def ragcov(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess:
    """``python -m ragcov_tui ARGV`` with a 60 s timeout: a hang fails the test instead of the suite."""
    env = {**os.environ, "RAGCOV_DB": str(tmp_path / "ragcov.db")}
    return subprocess.run(
        [sys.executable, "-m", "ragcov_tui", *argv], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )


@pytest.mark.slow
def test_cli_analyze_and_eval_complete_with_a_fifo_in_the_corpus(tmp_path):
    kb, questions = write_inputs(tmp_path)
    warning = f"warning: {kb}/pipe.md: is a named pipe (FIFO), not a regular file; skipped"
    analyze = ragcov(
        tmp_path,
        "analyze",
        "--corpus",
        str(kb),
        "--questions",
        str(questions),
        "--embedder",
        "precomputed",
        "--clusters",
        "2",
    )
    assert analyze.returncode == 0, analyze.stderr
    assert warning in analyze.stderr.splitlines()
    evaluate = ragcov(
        tmp_path,
        "eval",
        "--corpus",
        str(kb),
        "--questions",
        str(questions),
        "--system",
        "builtin:bm25",
        "--metrics",
        "retrieval",
    )
    assert evaluate.returncode == 0, evaluate.stderr
    assert warning in evaluate.stderr.splitlines()


@pytest.mark.slow
def test_cli_a_fifo_as_the_test_file_exits_2_at_once(tmp_path):
    kb, _ = write_inputs(tmp_path)
    pipe = tmp_path / "questions.jsonl"
    os.mkfifo(pipe)
    for command in (["analyze", "--embedder", "precomputed"], ["eval", "--system", "builtin:bm25"]):
        run = ragcov(tmp_path, *command, "--corpus", str(kb), "--questions", str(pipe))
        assert run.returncode == 2
        assert run.stderr.strip().splitlines()[-1] == f"error: {pipe}: is a named pipe (FIFO), not a regular file"
