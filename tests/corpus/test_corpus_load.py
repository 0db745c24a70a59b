"""Corpus loader: file types, directory walking, source ids, every bad input and its message."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ragcov_tui.corpus.load import load_corpus
from ragcov_tui.shared.errors import BadInput


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def make_pdf(path: Path, pages: list[str]) -> Path:
    """A minimal valid PDF with one Helvetica text line per page (correct xref offsets)."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]  # pages object filled in below
    page_ids = []
    font_id = 3
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for text in pages:
        stream = f"BT /F1 18 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        content_id = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
            b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (content_id, font_id)
        )
        page_ids.append(len(objects))
    kids = b" ".join(b"%d 0 R" % i for i in page_ids)
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(page_ids))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return write(path, bytes(out))


@pytest.fixture
def warnings_seen() -> list[str]:
    return []


def test_directory_walk_is_recursive_sorted_and_skips_hidden(tmp_path, warnings_seen):
    root = tmp_path / "kb"
    write(root / "b.md", "# B\n\nbody b")
    write(root / "a.txt", "plain a")
    write(root / "guides" / "setup.rst", "Setup\n=====\n\nsteps")
    write(root / "guides" / "page.markdown", "page")
    write(root / ".hidden.md", "secret")
    write(root / ".git" / "notes.md", "git internals")
    corpus = load_corpus([root], warn=warnings_seen.append)
    assert [d.source for d in corpus.documents] == ["a.txt", "b.md", "guides/page.markdown", "guides/setup.rst"]
    assert corpus.documents[1].text == "# B\n\nbody b"
    assert corpus.documents[0].path == str((root / "a.txt").absolute())
    assert warnings_seen == [] and corpus.prechunked == []


def test_unsupported_types_in_a_directory_give_one_summary_warning(tmp_path, warnings_seen):
    write(tmp_path / "doc.md", "text")
    write(tmp_path / "x.csv", "a,b")
    write(tmp_path / "y.csv", "a,b")
    write(tmp_path / "img.png", b"\x89PNG")
    write(tmp_path / "Makefile", "all:")
    corpus = load_corpus([tmp_path], warn=warnings_seen.append)
    assert [d.source for d in corpus.documents] == ["doc.md"]
    assert len(warnings_seen) == 1
    assert "skipped 4 file(s) of unsupported types" in warnings_seen[0]
    assert ".csv ×2" in warnings_seen[0] and ".png" in warnings_seen[0]


def test_named_files_use_their_name_and_collisions_get_parents(tmp_path):
    first = write(tmp_path / "v1" / "setup.md", "one")
    second = write(tmp_path / "v2" / "setup.md", "two")
    write(tmp_path / "dir" / "setup.md", "three")
    corpus = load_corpus([first, second, tmp_path / "dir"])
    assert [d.source for d in corpus.documents] == ["setup.md", "v2/setup.md", "dir/setup.md"]
    assert [d.text for d in corpus.documents] == ["one", "two", "three"]


def test_the_same_file_twice_is_loaded_once(tmp_path):
    doc = write(tmp_path / "a.md", "text")
    assert len(load_corpus([doc, tmp_path, str(doc)]).documents) == 1


def test_html_is_reduced_to_visible_text(tmp_path):
    write(
        tmp_path / "page.html",
        "<html><head><title>T</title><style>p{}</style></head><body><h1>Title</h1>"
        "<p>Fish &amp; chips</p><script>var x;</script></body></html>",
    )
    [doc] = load_corpus([tmp_path / "page.html"]).documents
    assert doc.source == "page.html"
    assert doc.text == "Title\n\nFish & chips"


def test_pdf_pages_are_joined(tmp_path):
    pytest.importorskip("pypdf")
    pdf = make_pdf(tmp_path / "manual.pdf", ["Hello from page one", "Second page text"])
    [doc] = load_corpus([pdf]).documents
    assert doc.source == "manual.pdf"
    assert "Hello from page one" in doc.text and "Second page text" in doc.text
    assert doc.text.index("Hello") < doc.text.index("Second")


def test_damaged_pdf_in_a_directory_is_skipped_with_a_warning(tmp_path, warnings_seen):
    pytest.importorskip("pypdf")
    write(tmp_path / "broken.pdf", b"%PDF-1.4 this is not a pdf")
    write(tmp_path / "ok.md", "fine")
    corpus = load_corpus([tmp_path], warn=warnings_seen.append)
    assert [d.source for d in corpus.documents] == ["ok.md"]
    assert any("broken.pdf" in w and "could not read PDF" in w for w in warnings_seen)


def test_without_pypdf_a_directory_warns_once_and_skips_pdfs(tmp_path, monkeypatch, warnings_seen):
    monkeypatch.setitem(sys.modules, "pypdf", None)  # makes `import pypdf` fail
    make_pdf(tmp_path / "a.pdf", ["x"])
    make_pdf(tmp_path / "b.pdf", ["y"])
    write(tmp_path / "c.md", "text")
    corpus = load_corpus([tmp_path], warn=warnings_seen.append)
    assert [d.source for d in corpus.documents] == ["c.md"]
    assert warnings_seen == ["skipped 2 PDF file(s): reading PDF needs pypdf: pip install 'ragcov-tui[pdf]'"]


def test_without_pypdf_a_named_pdf_is_bad_input(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pypdf", None)
    pdf = make_pdf(tmp_path / "a.pdf", ["x"])
    with pytest.raises(BadInput, match=r"a\.pdf: reading PDF needs pypdf: pip install 'ragcov-tui\[pdf\]'"):
        load_corpus([pdf])


def test_without_pypdf_a_directory_of_only_pdfs_is_bad_input(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pypdf", None)
    make_pdf(tmp_path / "a.pdf", ["x"])
    with pytest.raises(BadInput, match=r"only PDF files, and reading PDF needs pypdf"):
        load_corpus([tmp_path])


def test_missing_path(tmp_path):
    missing = tmp_path / "nope"
    with pytest.raises(BadInput, match=f"^corpus path {missing}: no such file or directory$"):
        load_corpus([missing])


def test_no_paths():
    with pytest.raises(BadInput, match="no corpus paths given"):
        load_corpus([])


def test_directory_without_supported_documents(tmp_path):
    write(tmp_path / "data.csv", "a,b")
    with pytest.raises(
        BadInput, match=r"no supported documents \(accepted: .htm .html .jsonl .markdown .md .pdf .rst .txt\)"
    ):
        load_corpus([tmp_path])


def test_named_file_of_unsupported_type(tmp_path):
    csv = write(tmp_path / "data.csv", "a,b")
    with pytest.raises(BadInput, match=r"data\.csv: unsupported type '\.csv' \(accepted: .*\.md"):
        load_corpus([csv])


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (b"", "empty or whitespace only; skipped"),
        (b"  \n\t\n", "empty or whitespace only; skipped"),
        (b"abc\x00\x01\x02", "looks binary"),
        ("h\u00e9llo".encode("utf-16"), "looks binary"),
    ],
)
def test_unusable_files_are_skipped_with_a_warning(tmp_path, warnings_seen, content, expected):
    write(tmp_path / "bad.txt", content)
    write(tmp_path / "good.txt", "usable")
    corpus = load_corpus([tmp_path], warn=warnings_seen.append)
    assert [d.source for d in corpus.documents] == ["good.txt"]
    assert len(warnings_seen) == 1 and "bad.txt" in warnings_seen[0] and expected in warnings_seen[0]


def test_nothing_usable_is_bad_input(tmp_path, warnings_seen):
    write(tmp_path / "empty.md", "")
    write(tmp_path / "blank.txt", "   ")
    with pytest.raises(BadInput, match=r"corpus: no usable text in .*blank\.txt, .*empty\.md \(all empty"):
        load_corpus([tmp_path], warn=warnings_seen.append)
    assert len(warnings_seen) == 2


def test_non_utf8_is_decoded_with_replacement_and_named(tmp_path, warnings_seen):
    write(tmp_path / "latin.txt", "caf\u00e9 cr\u00e8me".encode("latin-1"))
    [doc] = load_corpus([tmp_path / "latin.txt"], warn=warnings_seen.append).documents
    assert doc.text == "caf\ufffd cr\ufffdme"
    assert len(warnings_seen) == 1
    assert "latin.txt" in warnings_seen[0] and "decoded with replacement characters" in warnings_seen[0]


def test_utf8_bom_is_dropped(tmp_path):
    write(tmp_path / "bom.md", "\ufeffHello".encode("utf-8"))
    assert load_corpus([tmp_path / "bom.md"]).documents[0].text == "Hello"


def test_html_without_visible_text_is_skipped(tmp_path, warnings_seen):
    write(tmp_path / "empty.html", "<html><head><title>only a title</title></head><body></body></html>")
    write(tmp_path / "ok.htm", "<p>text</p>")
    corpus = load_corpus([tmp_path], warn=warnings_seen.append)
    assert [d.source for d in corpus.documents] == ["ok.htm"]
    assert warnings_seen == [f"{tmp_path}/empty.html: HTML page has no visible text; skipped"]
