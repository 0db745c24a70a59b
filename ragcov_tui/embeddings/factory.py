"""Building an embedder from a spec string, and embedding items that may carry their own vectors.

Specs: ``local`` (default: all-MiniLM-L6-v2 int8 on onnxruntime), ``local:/dir`` (any ONNX dir
with ``model.onnx`` + ``tokenizer.json``), ``openai:MODEL``, ``voyage:MODEL``, ``st:MODEL``,
``precomputed`` (vectors from the input files), ``hash`` / ``hash:DIM`` (test-only bag of words),
``llamacpp:PATH.gguf`` (a GGUF embedding model run in process by llama.cpp, the ``local-llm`` extra).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ragcov_tui.concurrency import DEFAULT_CONCURRENCY
from ragcov_tui.embeddings.base import Embedder
from ragcov_tui.embeddings.precomputed import PrecomputedEmbedder
from ragcov_tui.errors import BadInput
from ragcov_tui.input_values import is_ascii_whole
from ragcov_tui.progress import Progress

if TYPE_CHECKING:
    import sqlite_utils

DEFAULT_EMBEDDER = "local"  # the offline MiniLM int8 model shipped with the package
SPECS = "local, local:/dir, openai:MODEL, voyage:MODEL, st:MODEL, llamacpp:PATH.gguf, precomputed, hash"
PROVIDERS = ("local", "precomputed", "hash", "openai", "voyage", "st", "llamacpp")


def parse_spec(spec: str) -> tuple[str, str]:
    """``(provider, argument)`` of an embedder spec; BadInput for a spec no provider takes. Builds
    nothing (no model loaded, no key read), so settings can check a spec before any work."""
    provider, _, arg = spec.strip().partition(":")
    provider, arg = provider.strip().lower(), arg.strip()
    if provider not in PROVIDERS or (provider == "precomputed" and arg not in ("", "given")):
        raise BadInput(f"unknown embedder {spec!r}; expected one of: {SPECS}")
    if provider in ("openai", "voyage", "st", "llamacpp") and not arg:
        raise BadInput(f"embedder {spec!r}: name the model, e.g. {provider}:MODEL")
    if provider == "hash":
        arg = arg.removeprefix("test-hash-")
        if arg and not (is_ascii_whole(arg) and 2 <= int(arg) <= 65536):
            raise BadInput(f"embedder {spec!r}: hash:DIM needs a whole number of dimensions")
    return provider, arg


def _build(spec: str, concurrency: int) -> Embedder:
    """Every ``Embedder.spec`` builds the same embedder again (``local:all-MiniLM-L6-v2-int8``,
    ``hash:test-hash-256``), so a stored session's embedder can be rerun as it was."""
    provider, arg = parse_spec(spec)
    if provider == "local":
        from ragcov_tui.embeddings.local import MINILM_NAME, OnnxEmbedder

        return OnnxEmbedder.from_dir(arg) if arg and arg != MINILM_NAME else OnnxEmbedder.minilm()
    if provider == "precomputed":
        return PrecomputedEmbedder()
    if provider == "hash":
        from ragcov_tui.embeddings.hashing import HashEmbedder

        return HashEmbedder(int(arg)) if arg else HashEmbedder()
    if provider == "openai":
        from ragcov_tui.embeddings.remote import OpenAIEmbedder

        return OpenAIEmbedder(arg, concurrency=concurrency)
    if provider == "voyage":
        from ragcov_tui.embeddings.remote import VoyageEmbedder

        return VoyageEmbedder(arg, concurrency=concurrency)
    if provider == "llamacpp":
        from ragcov_tui.embeddings.llamacpp import LlamaCppEmbedder

        return LlamaCppEmbedder(arg, concurrency=concurrency)
    from ragcov_tui.embeddings.st import SentenceTransformerEmbedder  # st: the one provider left

    return SentenceTransformerEmbedder(arg)


def make_embedder(spec: str = DEFAULT_EMBEDDER, *, db: sqlite_utils.Database | None = None,
                  concurrency: int = DEFAULT_CONCURRENCY) -> Embedder:
    """The embedder for ``spec``, caching into ``db``'s ``embedding_cache`` when a db is given."""
    embedder = _build(spec or DEFAULT_EMBEDDER, concurrency)
    embedder.db = db
    return embedder


def embed_items(embedder: Embedder, texts: list[str], vectors: list[list[float] | None], *, what: str,
                progress: Progress | None = None, labels: Sequence[str] | None = None) -> np.ndarray:
    """Vectors for items: the given ones for ``precomputed`` (BadInput naming the first item
    without one, or with another dimension), else ``embedder.embed(texts)``.

    ``what`` names the items in messages (``chunks``, ``questions.jsonl``); ``labels`` (e.g. the
    item ids) names each row, else rows are numbered from 1.
    """
    if isinstance(embedder, PrecomputedEmbedder):
        return embedder.take(vectors, what=what, labels=labels)
    return embedder.embed(texts, progress=progress, stage=f"embedding {what}")
