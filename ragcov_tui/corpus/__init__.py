"""Loading source documents and cutting them into chunks.

:func:`build_chunks` is the one call the pipelines need; ``load.load_corpus`` and
``chunking.chunk_documents`` are its two steps, ``tokens.get_token_counter`` the token counter.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from ragcov_tui.corpus.chunking import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, chunk_documents, validate_chunking
from ragcov_tui.corpus.load import load_corpus
from ragcov_tui.corpus.models import Chunk, Document
from ragcov_tui.shared.progress import Progress


def build_chunks(
    paths: Sequence[str | Path],
    *,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
    warn: Callable[[str], None] | None = None,
    progress: Progress | None = None,
) -> tuple[list[Document], list[Chunk]]:
    """Load ``paths`` and chunk them: (documents, chunks).

    Chunks are those cut from the documents followed by the pre-chunked ``.jsonl`` rows; every
    source of a pre-chunked row that is not a loaded document is listed as
    ``Document(source, text="")``. Chunk settings are validated before any file is read.
    """
    validate_chunking(chunk_size, chunk_overlap)
    corpus = load_corpus(paths, warn=warn)
    chunks = chunk_documents(corpus.documents, chunk_size=chunk_size, chunk_overlap=chunk_overlap, progress=progress)
    documents = list(corpus.documents)
    known = {doc.source for doc in documents}
    for chunk in corpus.prechunked:
        if chunk.source not in known:
            known.add(chunk.source)
            documents.append(Document(source=chunk.source, text=""))
    return documents, chunks + corpus.prechunked


__all__ = ["build_chunks", "chunk_documents", "load_corpus", "Chunk", "Document"]
