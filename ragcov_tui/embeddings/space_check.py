"""The space check: does ``--embedder`` reproduce the vectors a store holds?

A seeded sample of stored chunk texts (``SPACE_SAMPLE``, default 16, among rows with text) is
embedded again and compared with the stored vectors by cosine similarity. Every cosine ≥
``SPACE_MIN_COS`` (0.99) → verified; otherwise BadInput (exit 2) with the median cosine and the
likely cause. The dimension is compared first, from what the embedder knows without embedding
(a remote model's known size, a loaded local model), so a wrong model costs no call.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragcov_tui.embeddings.base import Embedder, l2_normalise
from ragcov_tui.embeddings.precomputed import PrecomputedEmbedder
from ragcov_tui.shared.errors import BadInput
from ragcov_tui.store.analysis_contract import SpaceCheckEntry

SPACE_SAMPLE = 16
SPACE_MIN_COS = 0.99
NEAR_COS = 0.9  # below 0.99 but above this: the same model used differently (prefix, normalisation, quantisation)


@dataclass(frozen=True)
class SpaceCheck:
    """The outcome: ``checked`` False when skipped (``--skip-space-check``), else the cosines' min and median."""

    embedder: str
    checked: bool
    sample: int = 0
    min_cos: float | None = None
    median_cos: float | None = None

    def line(self) -> str:
        """The one line every summary and report shows."""
        if not self.checked:
            return (
                f"embedding space NOT verified (--skip-space-check): questions embedded by {self.embedder} are "
                "compared with the store's vectors as they are"
            )
        return (
            f"embedding space verified: {self.embedder} reproduces the store's vectors "
            f"(min cos {self.min_cos:.3f} over {self.sample} chunks)"
        )

    def as_dict(self) -> SpaceCheckEntry:
        return {
            "embedder": self.embedder,
            "checked": self.checked,
            "sample": self.sample,
            "min_cos": self.min_cos,
            "median_cos": self.median_cos,
            "line": self.line(),
        }


def check_dimension(embedder: Embedder, store_dim: int, store: str) -> None:
    """BadInput when the embedder's vectors cannot be the store's (another dimension)."""
    if isinstance(embedder, PrecomputedEmbedder):
        raise BadInput(
            f"{store}: --embedder precomputed cannot embed the questions in the store's space; name "
            "the model that made the store's vectors (e.g. --embedder openai:text-embedding-3-small)"
        )
    dim = embedder.dim
    if dim != store_dim:
        raise BadInput(
            f"{store}: the store's vectors have {store_dim} dimensions but {embedder.spec} makes {dim}; "
            "name the model that made them with --embedder"
        )


def check_space(
    embedder: Embedder,
    texts: Sequence[str],
    stored: np.ndarray,
    *,
    store: str,
    seed: int = 0,
    sample: int = SPACE_SAMPLE,
) -> SpaceCheck:
    """Re-embed ``sample`` seeded texts of ``texts`` (rows of ``stored``) and compare; BadInput when
    any cosine is under ``SPACE_MIN_COS``, when the store has no text, or when dimensions differ."""
    check_dimension(embedder, int(stored.shape[1]), store)
    with_text = np.flatnonzero([bool(t.strip()) for t in texts])
    if not len(with_text):
        raise BadInput(
            f"{store}: no chunk text to check the embedding space with; map the text field with "
            "--text-field, or pass --skip-space-check"
        )
    rng = np.random.default_rng(seed)
    picked = np.sort(rng.choice(with_text, size=min(sample, len(with_text)), replace=False))
    fresh = embedder.embed([texts[i] for i in picked], stage="checking the embedding space")
    cos = np.einsum("ij,ij->i", l2_normalise(np.asarray(stored[picked], dtype=np.float32)), fresh)
    low, median = float(cos.min()), float(np.median(cos))
    if low < SPACE_MIN_COS:
        cause = (
            "the same model used differently: a query/document prefix, another normalisation or pooling, "
            "or a quantised copy"
            if median >= NEAR_COS
            else "another model made the store's vectors (or the text field is not the text that was embedded)"
        )
        raise BadInput(
            f"{store}: {embedder.spec} does not reproduce the store's vectors (median cos {median:.3f}, "
            f"min {low:.3f} over {len(picked)} chunks; need ≥ {SPACE_MIN_COS}): likely {cause}; name the "
            "right model with --embedder, or pass --skip-space-check"
        )
    return SpaceCheck(embedder=embedder.spec, checked=True, sample=len(picked), min_cos=low, median_cos=median)
