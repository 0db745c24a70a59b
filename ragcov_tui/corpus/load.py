"""Loading a corpus from files and directories.

Accepted: the file types of :data:`~ragcov_tui.corpus.file_types.EXTRACTORS`, each read by its
reader (``.txt .md .markdown .rst`` as is, ``.html .htm`` visible text, ``.pdf`` when pypdf is
installed), and ``.jsonl`` files of ready-made chunks (see ``jsonl_chunks``) or of whole
documents, one per row, as BEIR's ``corpus.jsonl`` (see ``jsonl_documents``).
Directories are walked recursively in sorted order, skipping hidden files and folders, following
symbolic links but walking each folder once, and skipping with a warning what is not a regular
file (a FIFO, socket, device, broken link, link loop: see ``walk``); no file is opened before
its kind is checked, so a named pipe never blocks the load.

A document's source id is its posix path relative to the directory given (``guides/setup.md``)
or its file name when the file was given directly; when two files claim the same id, the later
one gets more of its parent folders (``v2/setup.md``). Problems that lose nothing a user asked
for by name are warnings through ``warn`` (empty, blank, binary or undecodable files, unknown
types inside a directory, unreadable or non-regular files inside a directory); everything else,
a named path that is not a readable regular file or directory included, is a one-line
:class:`BadInput`.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ragcov_tui.corpus.extract import decode_bytes
from ragcov_tui.corpus.file_types import ACCEPTED_SUFFIXES, EXTRACTORS, FileType
from ragcov_tui.corpus.jsonl_chunks import ChunkRowReader
from ragcov_tui.corpus.jsonl_documents import DocumentRowReader, holds_documents
from ragcov_tui.corpus.models import Chunk, Document
from ragcov_tui.corpus.tokens import get_token_counter
from ragcov_tui.corpus.walk import walk_files
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.shared.input_files import path_problem, read_input_file
from ragcov_tui.shared.number_text import count


@dataclass
class CorpusInput:
    """What a corpus holds: whole documents to chunk, and pre-chunked rows from ``.jsonl``."""

    documents: list[Document] = field(default_factory=list)
    prechunked: list[Chunk] = field(default_factory=list)


@dataclass(frozen=True)
class _CorpusFile:
    """One file to load: where it is, the id it asks for, and how messages name it."""

    path: Path
    relative: str
    display: str

    @property
    def kind(self) -> FileType:
        return EXTRACTORS[self.path.suffix.lower()]


def _ignore(message: str) -> None:
    """The default ``warn``: drop the message."""


def _accepted_list() -> str:
    return " ".join(ACCEPTED_SUFFIXES)


class _FileCollector:
    """Turns the given paths into the ordered list of files to load."""

    def __init__(self, warn: Callable[[str], None]) -> None:
        self.warn = warn
        self.files: list[_CorpusFile] = []
        self.seen: set[Path] = set()
        self.unsupported: Counter[str] = Counter()
        self.unreadable: Counter[FileType] = Counter()  # files whose reader's module is missing

    def add(self, given: str | Path) -> None:
        path = Path(given).expanduser()
        if os.path.isdir(path):
            self._add_directory(path, str(given))
            return
        problem = path_problem(path)
        if problem == "no such file":
            raise BadInput(f"corpus path {given}: no such file or directory")
        if problem is not None:
            raise BadInput(f"corpus path {given}: {problem}")
        self._add_named_file(path, str(given))

    def _add_named_file(self, path: Path, display: str) -> None:
        suffix = path.suffix.lower()
        kind = EXTRACTORS.get(suffix)
        if kind is None:
            raise BadInput(
                f"corpus file {display}: unsupported type '{suffix or path.name}' (accepted: {_accepted_list()})"
            )
        if not kind.available():
            raise BadInput(f"corpus file {display}: {kind.install_hint}")
        self._append(_CorpusFile(path, path.name, display))

    def _add_directory(self, root: Path, display: str) -> None:
        supported = 0
        unreadable: Counter[FileType] = Counter()
        for path in walk_files(root, display, self.warn):
            suffix = path.suffix.lower()
            kind = EXTRACTORS.get(suffix)
            if kind is None:
                self.unsupported[suffix or "(no extension)"] += 1
            elif not kind.available():
                unreadable[kind] += 1
            else:
                relative = path.relative_to(root).as_posix()
                self._append(_CorpusFile(path, relative, f"{display.rstrip('/')}/{relative}"))
                supported += 1
        self.unreadable.update(unreadable)
        if not supported and unreadable:
            names = " and ".join(kind.name for kind in unreadable)
            hints = "; ".join(kind.install_hint for kind in unreadable)
            raise BadInput(f"corpus directory {display}: only {names} files, and {hints}")
        if not supported:
            raise BadInput(f"corpus directory {display}: no supported documents (accepted: {_accepted_list()})")

    def _append(self, file: _CorpusFile) -> None:
        key = Path(os.path.realpath(file.path))
        if key not in self.seen:
            self.seen.add(key)
            self.files.append(file)

    def report_skipped(self) -> None:
        """One summary warning for skipped unknown types, one for PDFs without pypdf."""
        if self.unsupported:
            kinds = ", ".join(f"{suffix} ×{n}" if n > 1 else suffix for suffix, n in sorted(self.unsupported.items()))
            total = sum(self.unsupported.values())
            self.warn(f"skipped {count(total)} file(s) of unsupported types ({kinds}); accepted: {_accepted_list()}")
        for kind, n in self.unreadable.items():
            self.warn(f"skipped {n} {kind.name} file(s): {kind.install_hint}")


class _SourceIds:
    """Hands out unique source ids: the asked-for id, else longer and longer path suffixes."""

    def __init__(self) -> None:
        self.taken: set[str] = set()

    def assign(self, file: _CorpusFile) -> str:
        parts = file.path.absolute().parts[1:]
        shortest = len(file.relative.split("/"))
        candidates = [file.relative] + ["/".join(parts[-n:]) for n in range(shortest + 1, len(parts) + 1)]
        for candidate in candidates:
            if candidate not in self.taken:
                self.taken.add(candidate)
                return candidate
        raise AssertionError(f"two distinct files share the path {file.path}")


def load_corpus(paths: Sequence[str | Path], *, warn: Callable[[str], None] | None = None) -> CorpusInput:
    """Load every document and chunk file under ``paths`` (files or directories).

    Raises BadInput for a missing path, a named file of an unsupported type (or a named PDF
    without pypdf), a directory with no supported documents, a malformed ``.jsonl`` chunk row,
    and when no usable text remains at all. ``warn`` receives one-line warnings.
    """
    warn = warn or _ignore
    if isinstance(paths, (str, Path)):
        paths = [paths]
    if not paths:
        raise BadInput("no corpus paths given")
    collector = _FileCollector(warn)
    for given in paths:
        collector.add(given)
    collector.report_skipped()

    ids = _SourceIds()
    rows = ChunkRowReader(get_token_counter())
    document_rows = DocumentRowReader()
    corpus = CorpusInput()
    for file in collector.files:
        source = ids.assign(file)
        try:
            raw = read_input_file(file.path, file.display)
        except BadInput as exc:
            warn(f"{exc}; skipped")
            continue
        read = file.kind.read
        if read is None:  # rows of chunks or of documents
            text = decode_bytes(raw, file.display, warn)
            if text is not None and holds_documents(text):
                corpus.documents.extend(document_rows.read(text, file.display, str(file.path.absolute()), warn))
            elif text is not None:
                corpus.prechunked.extend(rows.read(text, file.display, source, warn))
            continue
        text = read(raw, file.display, warn)
        if text is not None:
            corpus.documents.append(Document(source=source, text=text, path=str(file.path.absolute())))
    if not corpus.documents and not corpus.prechunked:
        names = ", ".join(file.display for file in collector.files[:3])
        more = f", … ({count(len(collector.files))} files in all)" if len(collector.files) > 3 else ""
        raise BadInput(f"corpus: no usable text in {names}{more} (all empty, binary or unreadable; see warnings)")
    return corpus
