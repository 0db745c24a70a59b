"""How much embedding a list of texts would take, found without embedding them (``--dry-run``).

- :func:`misses`: the distinct texts the embedding cache cannot serve (a read of ``embedder.db``;
  nothing is written).
- :func:`count_tokens`: the tokens the run would count. Exact for the ``local`` ONNX embedders (the
  model's own word pieces, window by window, as :class:`~ragcov_tui.embeddings.local.OnnxEmbedder`
  counts them: a text past the window is cut into overlapping windows and every window counts) and
  for ``openai:`` (cl100k_base, when an exact counter is installed:
  :func:`ragcov_tui.corpus.tokens.get_token_counter`); elsewhere the labelled approximation.
- :func:`calibrate`: tokens per second of an embedder that runs on this machine, measured by
  embedding a seeded sample of the texts for about ``seconds`` (straight through the model: the
  cache is neither read nor written). Remote embedders are never called: ``None``.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ragcov_tui.corpus.tokens import get_token_counter
from ragcov_tui.embeddings.base import Embedder
from ragcov_tui.embeddings.cache import lookup as cache_lookup
from ragcov_tui.embeddings.cache import text_sha256

CALIBRATION_SECONDS = 2.0
# Texts per calibration batch: small, so that two seconds hold several batches even on a slow
# machine; the local models group windows into calls of a fixed token budget whatever the batch
# size (embeddings/local.py), so the rate per token is the run's.
CALIBRATION_BATCH = 8
TOKENIZE_BLOCK = 2048  # texts tokenised at once (bounds the memory of the encodings)
OPENAI_ENCODING = "cl100k_base"  # the encoding of OpenAI's embedding models


@dataclass(frozen=True)
class TokenCount:
    """Tokens of some texts; ``exact`` when counted with the model's own tokenizer, ``tokenizer`` says which."""

    tokens: int
    exact: bool
    tokenizer: str


def misses(embedder: Embedder, texts: Sequence[str]) -> list[str]:
    """The distinct texts of ``texts`` without a cached vector of ``embedder`` (all when it has no cache)."""
    distinct = {text_sha256(t): t for t in texts}
    if embedder.db is None or not distinct:
        return list(distinct.values())
    found = cache_lookup(embedder.db, embedder.provider, embedder.cache_model, list(distinct))
    return [t for k, t in distinct.items() if k not in found]


def count_tokens(embedder: Embedder, texts: Sequence[str]) -> TokenCount:
    """The tokens of ``texts`` as the run would count them (see the module docstring)."""
    windows = getattr(embedder, "window_lengths", None)
    if windows is not None:
        total = sum(sum(windows(texts[s : s + TOKENIZE_BLOCK])) for s in range(0, len(texts), TOKENIZE_BLOCK))
        return TokenCount(total, True, f"{embedder.spec} word pieces")
    counter = get_token_counter(OPENAI_ENCODING)
    exact = embedder.provider == "openai" and counter.exact
    label = f"{OPENAI_ENCODING} ({counter.backend})" if counter.exact else "approximate"
    return TokenCount(sum(counter.count(t) for t in texts), exact, label)


def calibrate(
    embedder: Embedder, texts: Sequence[str], seconds: float = CALIBRATION_SECONDS, seed: int = 0
) -> float | None:
    """Tokens per second of ``embedder`` on ``texts`` (``None`` for a remote embedder, or no text).

    The run embeds its texts sorted by length (:func:`ragcov_tui.embeddings.base.embed_with_cache`);
    the calibration embeds batches of :data:`CALIBRATION_BATCH` texts — each one a run of
    neighbours in that order, starting at a seeded random place — until
    ``seconds`` have passed (one batch at least), after one warm-up call that loads the model. The
    batches are thus a uniform sample of the run's own, padding included.
    """
    if embedder.paid or not texts:
        return None
    ordered = sorted(texts, key=len)
    size = max(1, min(CALIBRATION_BATCH, int(embedder.batch_size)))
    rng = random.Random(seed)
    embedder._embed_batch(ordered[:1])  # load the model outside the measured time
    tokens, start = 0, time.perf_counter()
    for _ in range(max(1, -(-len(ordered) // size))):
        at = rng.randrange(max(1, len(ordered) - size + 1))
        batch = ordered[at : at + size]
        embedder._embed_batch(batch)
        tokens += count_tokens(embedder, batch).tokens
        if time.perf_counter() - start >= seconds:
            break
    elapsed = time.perf_counter() - start
    return tokens / elapsed if elapsed > 0 else None
