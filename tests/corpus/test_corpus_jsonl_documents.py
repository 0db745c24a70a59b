"""A ``.jsonl`` corpus of whole documents (BEIR's ``corpus.jsonl``): one document per row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragcov_tui.corpus import build_chunks
from ragcov_tui.corpus.jsonl_documents import holds_documents
from ragcov_tui.shared.errors import BadInput


def write_rows(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def test_rows_are_documents_with_the_title_first_and_the_id_as_source(tmp_path: Path) -> None:
    corpus = write_rows(
        tmp_path / "corpus.jsonl",
        [
            {"_id": "4983", "title": "Microstructural development", "text": "Alterations of the brain."},
            {"_id": 5836, "title": "", "text": "Only text."},
            {"_id": "x", "title": "Only a title"},
        ],
    )
    documents, chunks = build_chunks([corpus])
    assert [(d.source, d.text) for d in documents] == [
        ("4983", "Microstructural development\n\nAlterations of the brain."),
        ("5836", "Only text."),
        ("x", "Only a title"),
    ]
    assert [c.source for c in chunks] == ["4983", "5836", "x"]  # a short abstract stays one chunk
    assert chunks[0].text == documents[0].text


def test_a_long_document_is_chunked_and_every_chunk_keeps_the_document(tmp_path: Path) -> None:
    body = " ".join(f"Sentence number {i} says something about topic {i % 7}." for i in range(400))
    corpus = write_rows(tmp_path / "corpus.jsonl", [{"_id": "long", "title": "T", "text": body}])
    _, chunks = build_chunks([corpus], chunk_size=100, chunk_overlap=10)
    assert len(chunks) > 5
    assert {c.source for c in chunks} == {"long"}
    assert all(c.n_tokens <= 100 for c in chunks)


@pytest.mark.parametrize(
    "first, documents",
    [
        ({"_id": "a", "text": "x"}, True),
        ({"id": "a", "title": "t", "text": "x"}, True),
        ({"id": "a", "text": "x"}, False),  # ready-made chunks, as before
        ({"text": "x", "source": "s.md"}, False),
        ([1, 2], False),
    ],
)
def test_which_files_hold_documents(first, documents: bool) -> None:
    assert holds_documents("\n" + json.dumps(first) + "\n") is documents
    assert holds_documents("{broken") is False


def test_chunk_rows_still_read_as_chunks(tmp_path: Path) -> None:
    corpus = write_rows(tmp_path / "chunks.jsonl", [{"id": "c1", "text": "a", "source": "s.md"}])
    _, chunks = build_chunks([corpus])
    assert [(c.id, c.source) for c in chunks] == [("c1", "s.md")]


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"_id": "a", "text": "dup"}, r"corpus.jsonl:3: duplicate document id 'a' \(first at .*corpus.jsonl:1\)"),
        ({"_id": "", "text": "x"}, "corpus.jsonl:3: a document row needs '_id'"),
        ({"_id": [1], "text": "x"}, "corpus.jsonl:3: a document row needs '_id'"),
        ({"_id": "b", "title": 3, "text": "x"}, "corpus.jsonl:3: field 'title' must be a string"),
        ({"_id": "b", "text": {"a": 1}}, "corpus.jsonl:3: field 'text' must be a string"),
        ("{oops", "corpus.jsonl:3: invalid JSON"),
        ("7", "corpus.jsonl:3: expected a JSON object"),
        ('{"_id": "b", "text": "x", "n": ' + "9" * 5000 + "}", "corpus.jsonl:3: invalid JSON"),
        ("[" * 100000, "corpus.jsonl:3: "),
    ],
)
def test_bad_document_rows_name_file_and_line(tmp_path: Path, bad, message: str) -> None:
    corpus = write_rows(tmp_path / "corpus.jsonl", [{"_id": "a", "text": "x"}, {"_id": "z", "text": "y"}, bad])
    with pytest.raises(BadInput, match=message):
        build_chunks([corpus])


def test_blank_rows_are_skipped_with_one_warning(tmp_path: Path) -> None:
    corpus = write_rows(
        tmp_path / "corpus.jsonl",
        [{"_id": "a", "text": "x"}, {"_id": "b", "title": " ", "text": ""}, {"_id": "c", "text": "  "}],
    )
    warnings: list[str] = []
    documents, _ = build_chunks([corpus], warn=warnings.append)
    assert [d.source for d in documents] == ["a"]
    assert len(warnings) == 1 and "skipped 2 document row(s)" in warnings[0]
