"""Test sets and corpora for pytest, read by ragcov's own readers (imported when first used).

``question_ids(path)`` is for ``@pytest.mark.parametrize("qid", question_ids(DATA))`` at collection
time: the ids of a test file's questions, or of a BEIR folder's judged queries, in file order.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragcov_tui.services.corpus_source import LoadedCorpus
    from ragcov_tui.testset.models import TestSet


def load_testset(questions: str | Path, *, split: str = "test", qrels: str | Path | None = None) -> TestSet:
    """The test set ``ragcov eval --questions`` would read: a test file or a BEIR folder at ``split``."""
    from ragcov_tui.testset.beir import read_questions

    return read_questions(questions, split=split, qrels=qrels)


def question_ids(questions: str | Path, *, split: str = "test") -> list[str]:
    """The ids of ``questions``' questions in file order (one pytest id each)."""
    return [q.id for q in load_testset(questions, split=split).questions]


def load_corpus(corpus: str | Path | list[str], **options: Any) -> LoadedCorpus:
    """The documents and chunks of ``corpus`` (files, folders, a BEIR ``corpus.jsonl`` or a vector
    store such as ``lancedb:PATH#TABLE``), chunked as ``ragcov eval`` does; ``options``: the store's
    field mapping (``id_field``, …) and ``chunk_size`` / ``chunk_overlap``."""
    from ragcov_tui.corpus import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE
    from ragcov_tui.services.corpus_source import StoreOptions, load_corpus_source

    paths = [str(corpus)] if isinstance(corpus, (str, Path)) else [str(c) for c in corpus]
    size = options.pop("chunk_size", DEFAULT_CHUNK_SIZE)
    overlap = options.pop("chunk_overlap", DEFAULT_CHUNK_OVERLAP)
    return load_corpus_source(paths, StoreOptions(**options), chunk_size=size, chunk_overlap=overlap)
