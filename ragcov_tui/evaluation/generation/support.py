"""The offline claim-support routine (labelled ``heuristic`` wherever its scores appear).

Used by offline faithfulness (answer sentences vs retrieved chunks), context recall
(ground-truth sentences vs retrieved chunks), context precision (ground truth vs each chunk) and
graded correctness. For each claim:

With ``s`` = cosine similarity of the claim to a context unit (a sentence, or two adjacent
sentences of one chunk, see ``ContextIndex``):

1. **supported** when some unit with ``s >= SUPPORT_THRESHOLD`` has the claim's polarity (negated
   or not) and every figure of the claim (numbers, money, percentages, durations, sizes,
   versions, dates — see ``quantities``) appears in that unit's chunk. A made-up figure fails.
2. **contradicted** when a figure of the claim missing from a best-matching unit's chunk differs
   from a figure of the same unit in that unit (cosine >= ``CONFLICT_SIMILARITY``, top
   ``CONFLICT_TOP_UNITS`` units: "$59" where the context says "$49"), or when only units of the
   opposite polarity reach the threshold ("refunds are not available" vs "... are available").
3. **not_found** otherwise (low similarity, or a figure the context does not have).

``SUPPORT_THRESHOLD`` was calibrated for the default ``local`` embedder (all-MiniLM-L6-v2) on a
development set of claim / context pairs kept apart from the labelled test set; other embedders
have other similarity scales, so treat the heuristic as a smoke alarm, not a judge.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import pairwise
from typing import Protocol

import numpy as np

from ragcov_tui.embeddings.base import Embedder, l2_normalise
from ragcov_tui.evaluation.generation.models import GenerationInput
from ragcov_tui.evaluation.generation.quantities import (
    Quantity,
    conflicting_pairs,
    extract_quantities,
    missing_quantities,
)
from ragcov_tui.evaluation.generation.text import split_sentences, strip_citations

SUPPORT_THRESHOLD = 0.62
CONFLICT_SIMILARITY = 0.40
CONFLICT_TOP_UNITS = 3
_NEGATION_RE = re.compile(
    r"\b(not|no|never|cannot|can't|won't|isn't|aren't|doesn't|don't|didn't|wasn't|weren't|hasn't|"
    r"haven't|shouldn't|without|none|nothing|neither|nor|unavailable|unsupported)\b|n't\b", re.I)
_NON_CLAIM_RE = re.compile(
    r"^(i hope (this|that) helps|let me know|feel free|happy to help|glad to help|great question|"
    r"i (do not|don't) know|i'm not sure|i am not sure|sorry\b)|"
    r"\b(not (mentioned|provided|specified|stated|covered) in the (context|documents?|passages?|sources?)|"
    r"(the )?(context|documents?|passages?) (do|does) not (say|mention|specify|contain))", re.I)


def is_negated(text: str) -> bool:
    return _NEGATION_RE.search(text) is not None


def claim_sentences(text: str) -> list[str]:
    """Candidate claims of ``text``: its sentences minus pleasantries and "I don't know" refusals."""
    return [s for s in split_sentences(text) if len(s.split()) >= 2 and not _NON_CLAIM_RE.search(s)]


@dataclass
class ContextIndex:
    """Context units of each chunk with their vectors: its sentences (``text.split_sentences``:
    the same strings the extractive answerer uses, so the embedding cache serves both) and its
    adjacent sentence pairs. A pair is not embedded: its vector is the normalised sum of its two
    sentence vectors (as good as embedding the joined text on the labelled set, at no cost)."""

    units: list[str]
    unit_chunks: list[str]
    unit_negated: list[bool | None]
    unit_quantities: list[list[Quantity]]
    vectors: np.ndarray
    chunk_quantities: dict[str, list[Quantity]]

    @classmethod
    def build(cls, passages: Sequence[tuple[str, str]], embedder: TextEmbedder) -> ContextIndex:
        per_chunk = [(chunk_id, split_sentences(text)) for chunk_id, text in passages]
        flat = [s for _, sentences in per_chunk for s in sentences]
        sentence_vecs = np.asarray(embedder.embed(flat)) if flat else np.zeros((0, 1), dtype=np.float32)
        units: list[str] = []
        chunks: list[str] = []
        negated: list[bool | None] = []
        blocks: list[np.ndarray] = []
        start = 0
        for chunk_id, sentences in per_chunk:
            vecs = sentence_vecs[start:start + len(sentences)]
            start += len(sentences)
            pairs = list(pairwise(sentences))
            units.extend(sentences + [f"{a} {b}" for a, b in pairs])
            chunks.extend([chunk_id] * (len(sentences) + len(pairs)))
            negated.extend([is_negated(s) for s in sentences] + [_pair_polarity(a, b) for a, b in pairs])
            blocks.extend([vecs, l2_normalise(vecs[:-1] + vecs[1:])])
        vectors = np.concatenate(blocks) if units else sentence_vecs
        quantities = [extract_quantities(u) for u in units]
        by_chunk: dict[str, list[Quantity]] = {}
        for chunk_id, text in passages:
            by_chunk.setdefault(chunk_id, []).extend(extract_quantities(text))
        return cls(units, chunks, negated, quantities, vectors, by_chunk)

    def restrict(self, chunk_id: str) -> ContextIndex:
        """The units of one chunk only (no re-embedding)."""
        keep = [i for i, c in enumerate(self.unit_chunks) if c == chunk_id]
        return ContextIndex([self.units[i] for i in keep], [chunk_id] * len(keep),
                            [self.unit_negated[i] for i in keep], [self.unit_quantities[i] for i in keep],
                            self.vectors[keep] if keep else self.vectors[:0],
                            {chunk_id: self.chunk_quantities.get(chunk_id, [])})


def _pair_polarity(first: str, second: str) -> bool | None:
    """A pair's polarity when both sentences share it; None (neither) when they differ."""
    a, b = is_negated(first), is_negated(second)
    return a if a == b else None


def judge_claims(claims: Sequence[str], index: ContextIndex, embedder: TextEmbedder,
                 claim_vectors: np.ndarray | None = None) -> list[dict]:
    """One ``{claim, verdict, chunk_id, similarity, evidence, reason}`` per claim (see the module
    docstring); ``claim_vectors`` may be given when the claims were embedded already."""
    if not claims:
        return []
    claim_vecs = np.asarray(embedder.embed(list(claims)) if claim_vectors is None else claim_vectors)
    sims = claim_vecs @ index.vectors.T if len(index.units) else np.zeros((len(claims), 0))
    return [_judge_one(claim, row, index) for claim, row in zip(claims, sims, strict=True)]


def _judge_one(claim: str, sims: np.ndarray, index: ContextIndex) -> dict:
    def result(verdict: str, unit: int | None, reason: str) -> dict:
        return {"claim": claim, "verdict": verdict, "reason": reason,
                "chunk_id": index.unit_chunks[unit] if unit is not None and verdict == "supported" else None,
                "similarity": round(float(sims[unit]), 4) if unit is not None else None,
                "evidence": index.units[unit] if unit is not None else None}

    if sims.size == 0:
        return result("not_found", None, "no context")
    order = [int(u) for u in np.argsort(-sims)]
    figures = extract_quantities(claim)
    negated = is_negated(claim)

    def missing_in_chunk(u: int) -> list[Quantity]:
        return missing_quantities(figures, index.chunk_quantities[index.unit_chunks[u]])

    above = [u for u in order if sims[u] >= SUPPORT_THRESHOLD]
    for u in above:
        if index.unit_negated[u] == negated and not missing_in_chunk(u):
            return result("supported", u, f"similarity {sims[u]:.2f}")
    for u in order[:CONFLICT_TOP_UNITS]:
        if sims[u] < CONFLICT_SIMILARITY:
            break
        pairs = conflicting_pairs(missing_in_chunk(u), index.unit_quantities[u])
        if pairs:
            q, c = pairs[0]
            return result("contradicted", u, f"the claim says {q.text!r}, the context says {c.text!r}")
    flipped = [u for u in above if index.unit_negated[u] is not None and not missing_in_chunk(u)]
    if flipped:
        return result("contradicted", flipped[0], "the matching context sentence has the opposite polarity")
    best = order[0]
    missing = missing_in_chunk(best)
    if missing:
        return result("not_found", best, "figure(s) not in the matching context: "
                      + ", ".join(repr(q.text) for q in missing))
    return result("not_found", best, f"best similarity {sims[best]:.2f} < {SUPPORT_THRESHOLD}")


def support_share(verdicts: Sequence[dict]) -> float:
    """Share of verdicts that are ``supported`` (caller guarantees at least one)."""
    return sum(v["verdict"] == "supported" for v in verdicts) / len(verdicts)


def rescale(x: float, lo: float, hi: float) -> float:
    """``(x - lo) / (hi - lo)`` clipped to [0, 1]."""
    return float(min(1.0, max(0.0, (x - lo) / (hi - lo))))


def cosine(embedder: TextEmbedder, a: str, b: str) -> float:
    """Cosine similarity of two texts (rows are L2-normalised, so a dot product)."""
    va, vb = np.asarray(embedder.embed([a, b]))
    return float(va @ vb)


class TextEmbedder(Protocol):
    """Anything with ``embed(texts) -> rows``: an :class:`Embedder` or an item's :class:`Evidence`."""

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


class Evidence:
    """One item's retrieved passages, its text vectors and, built on first use, its heuristic
    context index. ``embed`` embeds each distinct text once per item; ``prefetch`` asks the
    embedder once for every text the offline metrics will compare, instead of once per metric."""

    def __init__(self, item: GenerationInput, embedder: Embedder) -> None:
        self.item = item
        self.embedder = embedder
        self.passages = [(c.id, c.text) for c in item.contexts]
        self._vectors: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Rows for ``texts`` (L2-normalised); only texts not seen before by this item reach the embedder."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            self._vectors.update(zip(missing, np.asarray(self.embedder.embed(missing)), strict=True))
        if not texts:
            return np.zeros((0, self.embedder.dim), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts])

    def prefetch(self, metrics: set[str]) -> None:
        """Embed, in one call, the texts the offline forms of ``metrics`` use (nothing for an
        empty answer's answer metrics: they are decided without a vector)."""
        item = self.item
        answer = strip_citations(item.answer or "")
        reference = (item.ground_truth or "").strip()
        wanted: list[str] = []
        if metrics & {"faithfulness", "context_recall", "context_precision"} and self.passages:
            wanted += [s for _, text in self.passages for s in split_sentences(text)]
        if answer and "faithfulness" in metrics:
            wanted += claim_sentences(answer)
        if answer and "answer_relevance" in metrics:
            wanted += [item.question, answer]
        if answer and reference and metrics & {"answer_correctness", "answer_correctness_graded"}:
            wanted += [answer, reference]
        if reference and metrics & {"context_recall", "context_precision"}:
            wanted += claim_sentences(reference) or [reference]
        if item.paraphrase_outputs and "robustness" in metrics:
            wanted += [answer] + [strip_citations(o.answer or "") for o in item.paraphrase_outputs]
        self.embed(wanted)

    @cached_property
    def index(self) -> ContextIndex:
        return ContextIndex.build(self.passages, self)
