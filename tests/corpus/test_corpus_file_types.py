"""The corpus file-type registry is the one list of what ``--corpus`` reads (issue #29 §3): every
registered suffix is read from a walked folder and as a named file, the help and the README list
exactly the registry, and a type whose reader's module is missing is skipped with its install hint."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ragcov_tui.corpus.file_types import EXTRACTORS, FILE_TYPES, corpus_help, corpus_table
from ragcov_tui.corpus.load import load_corpus
from ragcov_tui.shared.errors import BadInput
from tests.corpus.test_corpus_load import make_pdf, write
from tests.support.cli_help import option_help

README = Path(__file__).resolve().parents[2] / "README.md"


def _sample(suffix: str, path: Path, word: str) -> Path:
    """A small file of the type ``suffix`` whose text holds ``word``."""
    if suffix == ".pdf":
        return make_pdf(path, [f"manual {word}"])
    if suffix in (".html", ".htm"):
        return write(path, f"<html><head><title>t</title></head><body><p>page {word}</p></body></html>")
    if suffix == ".jsonl":
        return write(path, json.dumps({"id": f"c-{word}", "text": f"chunk {word}", "source": "kb"}) + "\n")
    return write(path, f"plain {word}\n")


SAMPLED = (".txt", ".md", ".markdown", ".rst", ".html", ".htm", ".pdf", ".jsonl")


def test_every_registered_suffix_has_a_sample_here() -> None:
    """A new type must add its sample to ``_sample`` (and so to the walker test below)."""
    assert set(SAMPLED) == set(EXTRACTORS)


def test_every_registered_suffix_is_read_by_the_walker(tmp_path: Path) -> None:
    pytest.importorskip("pypdf")
    root = tmp_path / "kb"
    for n, suffix in enumerate(SAMPLED):
        _sample(suffix, root / f"f{n}{suffix.upper() if n % 2 else suffix}", f"word{n}")  # suffixes: any case
    warnings: list[str] = []
    corpus = load_corpus([root], warn=warnings.append)
    texts = [d.text for d in corpus.documents] + [c.text for c in corpus.prechunked]
    assert not warnings
    for n, suffix in enumerate(SAMPLED):
        assert sum(f"word{n}" in text for text in texts) == 1, suffix


@pytest.mark.parametrize("suffix", SAMPLED)
def test_every_registered_suffix_is_read_as_a_named_file(tmp_path: Path, suffix: str) -> None:
    if EXTRACTORS[suffix].needs:
        pytest.importorskip(EXTRACTORS[suffix].needs)
    corpus = load_corpus([_sample(suffix, tmp_path / f"one{suffix}", "named")])
    assert any("named" in t for t in [d.text for d in corpus.documents] + [c.text for c in corpus.prechunked])


def test_an_unregistered_suffix_is_refused_naming_every_registered_one(tmp_path: Path) -> None:
    with pytest.raises(BadInput) as caught:
        load_corpus([write(tmp_path / "data.csv", "a,b\n")])
    assert all(suffix in str(caught.value) for suffix in EXTRACTORS)


@pytest.mark.parametrize("kind", [k for k in FILE_TYPES if k.needs], ids=lambda k: k.name)
def test_a_type_whose_module_is_missing_is_skipped_with_its_install_hint(tmp_path, monkeypatch, kind) -> None:
    monkeypatch.setitem(sys.modules, kind.needs, None)  # makes `import NEEDS` fail
    root = tmp_path / "kb"
    write(root / "a.txt", "plain text")
    _sample(kind.suffixes[0], root / f"b{kind.suffixes[0]}", "x")
    warnings: list[str] = []
    load_corpus([root], warn=warnings.append)
    assert warnings == [
        f"skipped 1 {kind.name} file(s): reading {kind.name} needs {kind.needs}: pip install 'ragcov-tui[{kind.extra}]'"
    ]


@pytest.mark.parametrize("command", ["analyze", "lint"])
def test_the_corpus_help_lists_the_registry(command: str) -> None:
    shown = option_help(command, "--corpus")
    assert corpus_help() in shown
    assert all(suffix in shown for suffix in EXTRACTORS)


def test_the_readme_table_is_the_registry() -> None:
    assert corpus_table() in README.read_text(encoding="utf-8"), (
        "README's corpus table differs from the registry; paste corpus_table()'s output:\n" + corpus_table()
    )
