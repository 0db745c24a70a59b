"""The corpus file types, one :class:`FileType` per kind of file and :data:`EXTRACTORS` by suffix: the
one place a type is listed. The loader's accepted suffixes and its reader per file
(:mod:`ragcov_tui.corpus.load`), the ``--corpus`` help (:func:`corpus_help`) and the README's table
(checked by ``tests/corpus/test_corpus_file_types.py``) all follow from it; adding a type is one
entry here and its reader (docs/architecture.md, "How to add").

A document reader takes the file's bytes, the name messages give it and ``warn``, and returns the
document's text, or None for a file to skip after telling ``warn`` why; it never raises for a
user's bad file, whatever its bytes.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from ragcov_tui.corpus.extract import Warn, decode_bytes, html_to_text, pdf_to_text

DocumentReader = Callable[[bytes, str, Warn], str | None]


@dataclass(frozen=True)
class FileType:
    """One kind of corpus file: its ``suffixes`` (lower case, with the dot), ``name`` in messages and
    the help, ``description`` how it is read (Markdown: the README's table), ``read`` its
    document reader, or None for rows of chunks or documents (``.jsonl``: read row by row by
    :mod:`~ragcov_tui.corpus.jsonl_chunks` / :mod:`~ragcov_tui.corpus.jsonl_documents`), ``needs``
    a module the reader imports and ``extra`` the package extra that installs it."""

    suffixes: tuple[str, ...]
    name: str
    description: str
    read: DocumentReader | None
    needs: str = ""
    extra: str = ""

    def available(self) -> bool:
        """True when the reader's optional module (if any) can be imported."""
        if not self.needs:
            return True
        try:
            importlib.import_module(self.needs)
        except ImportError:
            return False
        return True

    @property
    def install_hint(self) -> str:
        """Why a file of this type cannot be read here: ``reading PDF needs pypdf: pip install …``."""
        return f"reading {self.name} needs {self.needs}: pip install 'ragcov-tui[{self.extra}]'"


def read_plain(raw: bytes, display: str, warn: Warn) -> str | None:
    """The file as text (UTF-8; :func:`~ragcov_tui.corpus.extract.decode_bytes`)."""
    return decode_bytes(raw, display, warn)


def read_html(raw: bytes, display: str, warn: Warn) -> str | None:
    """The visible text of an HTML page; a page with none is skipped."""
    page = decode_bytes(raw, display, warn)
    if page is None:
        return None
    text = html_to_text(page)
    if not text:
        warn(f"{display}: HTML page has no visible text; skipped")
        return None
    return text


def read_pdf(raw: bytes, display: str, warn: Warn) -> str | None:
    """The page texts of a PDF (pypdf); an empty file is skipped."""
    if not raw.strip():
        warn(f"{display}: empty or whitespace only; skipped")
        return None
    return pdf_to_text(raw, display, warn)


FILE_TYPES: tuple[FileType, ...] = (
    FileType((".txt", ".md", ".markdown", ".rst"), "text", "as is (UTF-8)", read_plain),
    FileType((".html", ".htm"), "HTML", "the visible text (no scripts, styles or head)", read_html),
    FileType(
        (".pdf",),
        "PDF",
        "the pages' text layer (with `pip install 'ragcov-tui[pdf]'`)",
        read_pdf,
        needs="pypdf",
        extra="pdf",
    ),
    FileType(
        (".jsonl",),
        "chunks or documents",
        "one row each: ready-made chunks (`id`, `text`, `source`, optional `vector`) from your vector database, "
        "or whole documents (BEIR's `corpus.jsonl`: rows with `_id` or `title`)",
        None,
    ),
)
EXTRACTORS: dict[str, FileType] = {suffix: kind for kind in FILE_TYPES for suffix in kind.suffixes}
ACCEPTED_SUFFIXES = tuple(sorted(EXTRACTORS))


def corpus_help() -> str:
    """The file types for the ``--corpus`` help: ``text (.txt .md .markdown .rst), HTML (.html .htm), …``."""
    return ", ".join(f"{kind.name} ({' '.join(kind.suffixes)})" for kind in FILE_TYPES)


def corpus_table() -> str:
    """The README's table of corpus file types (Markdown)."""
    rows = [f"| {' '.join(f'`{s}`' for s in kind.suffixes)} | {kind.description} |" for kind in FILE_TYPES]
    return "\n".join(["| corpus file | read as |", "|---|---|", *rows])
