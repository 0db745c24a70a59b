"""The corpus data model: source documents and the chunks cut from them."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Document:
    """One source document.

    ``source`` is the document id used everywhere (gold ids, reports): the path relative to the
    corpus root that was given (``billing.md``, ``guides/setup.md``), or the file name for a file
    given directly, or the ``source`` field of a pre-chunked ``.jsonl`` row.
    """

    source: str
    text: str
    path: str = ""  # absolute path on disk ("" for pre-chunked input)


@dataclass
class Chunk:
    """One chunk of a document.

    ``id`` is stable across runs: ``f"{source}#{position}-{sha256(text)[:8]}"`` for chunks we cut,
    or the user's own id for pre-chunked input. ``vector`` is set only for pre-chunked rows that
    carried one (the ``precomputed`` embedder uses it).
    """

    id: str
    text: str
    source: str
    position: int
    n_tokens: int = 0
    vector: list[float] | None = field(default=None, repr=False)
