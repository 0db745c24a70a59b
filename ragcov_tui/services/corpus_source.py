"""Where a job's corpus comes from: files and folders (chunked here), or a vector store
(``--corpus lancedb:PATH#TABLE`` …: chunks and vectors as stored, see :mod:`ragcov_tui.vectorstores`).

:class:`StoreOptions` are the options both jobs take for a store (the field mapping, the space
check); :func:`load_corpus_source` reads either kind; :func:`verify_space` runs the space check
(or records that it was skipped) before any question is embedded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ragcov_tui.corpus import build_chunks
from ragcov_tui.corpus.models import Chunk, Document
from ragcov_tui.embeddings.base import Embedder
from ragcov_tui.embeddings.space_check import SpaceCheck, check_dimension, check_space
from ragcov_tui.shared.progress import Progress
from ragcov_tui.store.analysis_contract import VectorStoreSection
from ragcov_tui.vectorstores.base import FieldOverrides
from ragcov_tui.vectorstores.corpus import StoreCorpus, read_store_corpus
from ragcov_tui.vectorstores.registry import store_corpus_spec, store_scheme


@dataclass(kw_only=True)
class StoreOptions:
    """A vector store's field mapping (None: the store's default) and whether to skip the space check."""

    id_field: str | None = None
    text_field: str | None = None
    vector_field: str | None = None
    doc_field: str | None = None
    skip_space_check: bool = False

    def field_settings(self) -> dict[str, str]:
        """The field options that are set, as a session's parameters keep them (a rerun reads them back)."""
        return {k: v for k in ("id_field", "text_field", "vector_field", "doc_field") if (v := getattr(self, k))}

    def field_overrides(self) -> FieldOverrides:
        return FieldOverrides(id=self.id_field, text=self.text_field, vector=self.vector_field, doc=self.doc_field)


@dataclass
class LoadedCorpus:
    """The documents and chunks of a corpus; ``store`` is set (with the stored vectors) when it is a vector store."""

    documents: list[Document]
    chunks: list[Chunk]
    store: StoreCorpus | None = None


def load_corpus_source(
    corpus: list[str],
    opts: StoreOptions,
    *,
    chunk_size: int,
    chunk_overlap: int,
    warn: Callable[[str], None] | None = None,
    progress: Progress | None = None,
) -> LoadedCorpus:
    """The corpus ``--corpus`` names: a vector store read whole, else files chunked."""
    spec = store_corpus_spec(corpus)
    if spec is None:
        documents, chunks = build_chunks(
            corpus, chunk_size=chunk_size, chunk_overlap=chunk_overlap, warn=warn, progress=progress
        )
        return LoadedCorpus(documents, chunks)
    store = read_store_corpus(spec, opts.field_overrides(), progress=progress)
    if warn is not None and not store.has_text:
        warn(
            f"{spec.text}: the store holds no chunk text (no field {opts.text_field or 'text'!r}): every coverage "
            "figure is measured; themes and suggested questions need text (--text-field)"
        )
    return LoadedCorpus(store.documents, store.chunks, store)


def session_corpus(corpus: list[str]) -> list[str]:
    """The corpus as a session records it: store specs as given, paths made absolute."""
    return [c if store_scheme(c) else str(Path(c).resolve()) for c in corpus]


def store_section(store: StoreCorpus | None, space: SpaceCheck | None) -> VectorStoreSection | None:
    """The report's ``vector_store``: the store, its engine, the field mapping used and the space check
    (None when the corpus is files)."""
    if store is None or space is None:
        return None
    return {
        "spec": store.spec.text,
        "engine": store.engine,
        "fields": store.fields.shown(),
        "rows": len(store.chunks),
        "dim": int(store.vectors.shape[1]),
        "has_text": store.has_text,
        "space_check": space.as_dict(),
    }


def verify_space(
    embedder: Embedder,
    store: StoreCorpus,
    opts: StoreOptions,
    *,
    seed: int = 0,
    warn: Callable[[str], None] | None = None,
) -> SpaceCheck:
    """The space check of ``embedder`` against ``store`` (dimensions are checked even when skipped, and
    ``warn`` hears that it was; the summary shows a verified space)."""
    if opts.skip_space_check:
        check_dimension(embedder, int(store.vectors.shape[1]), store.spec.text)
        skipped = SpaceCheck(embedder=embedder.spec, checked=False)
        if warn is not None:
            warn(skipped.line())
        return skipped
    return check_space(embedder, [c.text for c in store.chunks], store.vectors, store=store.spec.text, seed=seed)
