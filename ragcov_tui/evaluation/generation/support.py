"""The offline claim-support routine (labelled ``heuristic`` wherever its scores appear).

Used by offline faithfulness (answer sentences vs retrieved chunks), context recall
(ground-truth sentences vs retrieved chunks), context precision (ground truth vs each chunk) and
graded correctness. For each claim:

With ``s`` = cosine similarity of the claim to a context unit (a sentence, two adjacent
sentences of one chunk, or a JSON record's ``field: value`` line, see ``ContextIndex`` and
``claim_checks.context_units``), among the ``CANDIDATE_UNITS`` most similar units:

0. **supported** when a short claim (at most ``SPAN_WORDS`` words: an extractive answer, a bare
   name, date or figure, which embeds far from any whole sentence) occurs word for word, with its
   figures exactly, in a unit of the same polarity, however low ``s``;
1. **contradicted** when a unit with ``s >= ANTONYM_SIMILARITY`` says the opposite word
   ("decreased" vs "increased", ``claim_checks.antonym_clash``);
2. **supported** when some unit with ``s >= SUPPORT_THRESHOLD`` (a record's field holding every
   figure of the claim: ``s >= RECORD_FIGURE_SIMILARITY``, as "hours Friday: 11:0-22:0" for "open
   until 10 pm on Fridays", whose words embed far from a bare field) has the claim's polarity and holds
   the claim's facts itself (``_gap``): every figure (numbers, money, percentages, durations,
   sizes, versions, dates — see ``quantities``) in a sentence of that unit, every name in the
   unit, and, in prose, all but ``MAX_MISSING_WORDS`` of its content words
   (``MAX_MISSING_PARAPHRASE`` at ``s >= STRONG_SIMILARITY``). A figure found elsewhere in the
   passage does not count: the reason says which figure, name or words were missing;
3. **contradicted** when a figure of the claim missing from a best-matching unit's chunk differs
   from a figure of the same unit in that unit (cosine >= ``CONFLICT_SIMILARITY``, top
   ``CONFLICT_TOP_UNITS`` units: "$59" where the context says "$49"), or when only units of the
   opposite polarity hold the claim ("refunds are not available" vs "... are available");
4. **not_found** otherwise (low similarity, or a figure, name or words the unit does not have).

The thresholds were tuned on the train half of HaluEval QA (benchmarks/faithfulness_agreement.py
``--convert-halueval``; the test half is held out) under the constraint that the hand-labelled set
of tests/evaluation/generation keeps its accuracy, for the default ``local`` embedder
(all-MiniLM-L6-v2); other embedders have other similarity scales, so treat the heuristic as a
smoke alarm, not a judge.
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
from ragcov_tui.evaluation.generation.claim_checks import (
    SCALE_RE,
    antonym_clash,
    context_units,
    meta_free,
    missing_words,
    names,
)
from ragcov_tui.evaluation.generation.models import GenerationInput
from ragcov_tui.evaluation.generation.quantities import (
    Quantity,
    conflicting_pairs,
    extract_quantities,
    missing_quantities,
)
from ragcov_tui.evaluation.generation.text import contains_phrase, content_tokens, split_sentences, strip_citations

SUPPORT_THRESHOLD = 0.40
CANDIDATE_UNITS = 8
MAX_MISSING_WORDS = 0.1
STRONG_SIMILARITY = 0.8
MAX_MISSING_PARAPHRASE = 0.67
MAX_MISSING_RECORD = 0.5
CONFLICT_SIMILARITY = 0.40
ANTONYM_SIMILARITY = 0.6
CONFLICT_TOP_UNITS = 3
RECORD_FIGURE_SIMILARITY = 0.25  # a record field holding every figure of the claim is a candidate from here
SPAN_WORDS = 6  # a claim this short that occurs word for word in the context is an extractive answer
_NEGATION_RE = re.compile(
    r"\b(not|no|never|cannot|can't|won't|isn't|aren't|doesn't|don't|didn't|wasn't|weren't|hasn't|"
    r"haven't|shouldn't|without|none|nothing|neither|nor|unavailable|unsupported)\b|n't\b",
    re.I,
)
_NON_CLAIM_RE = re.compile(
    r"^(i hope (this|that) helps|let me know|feel free|happy to help|glad to help|great question|"
    r"i (do not|don't) know|i'm not sure|i am not sure|sorry\b)|"
    r"\b(not (mentioned|provided|specified|stated|covered) in the (context|documents?|passages?|sources?)|"
    r"(the )?(context|documents?|passages?) (do|does) not (say|mention|specify|contain))",
    re.I,
)


def is_negated(text: str) -> bool:
    return _NEGATION_RE.search(text) is not None


def claim_sentences(text: str) -> list[str]:
    """Candidate claims of ``text``: its sentences minus pleasantries, "I don't know" refusals and
    meta sentences, without source-attribution prefixes (``claim_checks.meta_free``)."""
    out = []
    for sentence in split_sentences(text):
        claim = None if _NON_CLAIM_RE.search(sentence) else meta_free(sentence)
        if claim and len(claim.split()) >= 2 and not _NON_CLAIM_RE.search(claim):
            out.append(claim)
    return out


@dataclass
class ContextIndex:
    """Context units of each chunk with their vectors: its sentences (``text.split_sentences``:
    the same strings the extractive answerer uses, so the embedding cache serves both) and its
    adjacent sentence pairs. A pair is not embedded: its vector is the normalised sum of its two
    sentence vectors (as good as embedding the joined text on the labelled set, at no cost).
    ``unit_parts`` holds each unit's sentences (one, or the pair's two) and ``unit_structured``
    whether it is a JSON record's field (``claim_checks.context_units``)."""

    units: list[str]
    unit_chunks: list[str]
    unit_negated: list[bool | None]
    unit_quantities: list[list[Quantity]]
    vectors: np.ndarray
    chunk_quantities: dict[str, list[Quantity]]
    unit_parts: list[list[str]]
    unit_structured: list[bool]

    @classmethod
    def build(cls, passages: Sequence[tuple[str, str]], embedder: TextEmbedder) -> ContextIndex:
        split = [(chunk_id, context_units(text)) for chunk_id, text in passages]
        per_chunk = [(chunk_id, sentences) for chunk_id, (sentences, _) in split]
        flat = [s for _, sentences in per_chunk for s in sentences]
        parts: list[list[str]] = []
        structured: list[bool] = []
        sentence_vecs = np.asarray(embedder.embed(flat)) if flat else np.zeros((0, 1), dtype=np.float32)
        units: list[str] = []
        chunks: list[str] = []
        negated: list[bool | None] = []
        blocks: list[np.ndarray] = []
        start = 0
        for chunk_id, (sentences, is_record) in split:
            vecs = sentence_vecs[start : start + len(sentences)]
            start += len(sentences)
            pairs = list(pairwise(sentences))
            units.extend(sentences + [f"{a} {b}" for a, b in pairs])
            parts.extend([[s] for s in sentences] + [[a, b] for a, b in pairs])
            structured.extend([is_record] * (len(sentences) + len(pairs)))
            chunks.extend([chunk_id] * (len(sentences) + len(pairs)))
            negated.extend([is_negated(s) for s in sentences] + [_pair_polarity(a, b) for a, b in pairs])
            blocks.extend([vecs, l2_normalise(vecs[:-1] + vecs[1:])])
        vectors = np.concatenate(blocks) if units else sentence_vecs
        quantities = [extract_quantities(u) for u in units]
        by_chunk: dict[str, list[Quantity]] = {}
        for chunk_id, text in passages:
            by_chunk.setdefault(chunk_id, []).extend(extract_quantities(text))
        return cls(units, chunks, negated, quantities, vectors, by_chunk, parts, structured)

    def restrict(self, chunk_id: str) -> ContextIndex:
        """The units of one chunk only (no re-embedding)."""
        keep = [i for i, c in enumerate(self.unit_chunks) if c == chunk_id]
        return ContextIndex(
            [self.units[i] for i in keep],
            [chunk_id] * len(keep),
            [self.unit_negated[i] for i in keep],
            [self.unit_quantities[i] for i in keep],
            self.vectors[keep] if keep else self.vectors[:0],
            {chunk_id: self.chunk_quantities.get(chunk_id, [])},
            [self.unit_parts[i] for i in keep],
            [self.unit_structured[i] for i in keep],
        )


def _pair_polarity(first: str, second: str) -> bool | None:
    """A pair's polarity when both sentences share it; None (neither) when they differ."""
    a, b = is_negated(first), is_negated(second)
    return a if a == b else None


def judge_claims(
    claims: Sequence[str], index: ContextIndex, embedder: TextEmbedder, claim_vectors: np.ndarray | None = None
) -> list[dict]:
    """One ``{claim, verdict, chunk_id, similarity, evidence, reason}`` per claim (see the module
    docstring); ``claim_vectors`` may be given when the claims were embedded already."""
    if not claims:
        return []
    claim_vecs = np.asarray(embedder.embed(list(claims)) if claim_vectors is None else claim_vectors)
    sims = claim_vecs @ index.vectors.T if len(index.units) else np.zeros((len(claims), 0))
    return [_judge_one(claim, row, index) for claim, row in zip(claims, sims, strict=True)]


def _judge_one(claim: str, sims: np.ndarray, index: ContextIndex) -> dict:
    def result(verdict: str, unit: int | None, reason: str) -> dict:
        return {
            "claim": claim,
            "verdict": verdict,
            "reason": reason,
            "chunk_id": index.unit_chunks[unit] if unit is not None and verdict == "supported" else None,
            "similarity": round(float(sims[unit]), 4) if unit is not None else None,
            "evidence": index.units[unit] if unit is not None else None,
        }

    if sims.size == 0:
        return result("not_found", None, "no context")
    order = [int(u) for u in np.argsort(-sims)]
    figures = extract_quantities(claim)
    negated = is_negated(claim)
    wording = _without_figures(claim, figures)

    def gaps(u: int) -> str | None:
        return _gap(index, u, figures, wording, float(sims[u]))

    span = claim.strip().rstrip(".")
    verbatim = (
        None
        if len(span.split()) > SPAN_WORDS
        else next(
            (
                u
                for u in order
                if index.unit_negated[u] == negated
                and contains_phrase(index.units[u], span)
                and not missing_quantities(figures, index.unit_quantities[u])
            ),
            None,
        )
    )
    if verbatim is not None:
        return result("supported", verbatim, "the claim occurs word for word in the context")
    above = [
        u
        for u in order[:CANDIDATE_UNITS]
        if sims[u] >= SUPPORT_THRESHOLD
        or (
            figures
            and index.unit_structured[u]
            and sims[u] >= RECORD_FIGURE_SIMILARITY
            and not missing_quantities(figures, index.unit_quantities[u])
        )
    ]
    reasons: dict[int, str] = {}
    for u in above:
        clash = antonym_clash(claim, index.units[u]) if sims[u] >= ANTONYM_SIMILARITY else None
        if clash is not None:
            return result("contradicted", u, f"the claim says {clash[0]!r}, the context says {clash[1]!r}")
        gap = gaps(u)
        if gap is None and index.unit_negated[u] == negated:
            return result("supported", u, f"similarity {sims[u]:.2f}")
        reasons[u] = gap or "the matching context sentence has the opposite polarity"
    for u in order[:CONFLICT_TOP_UNITS]:
        if sims[u] < CONFLICT_SIMILARITY:
            break
        missing = missing_quantities(figures, index.unit_quantities[u])
        pairs = conflicting_pairs(missing, index.unit_quantities[u]) if missing_in_chunk(figures, index, u) else []
        if pairs:
            q, c = pairs[0]
            return result("contradicted", u, f"the claim says {q.text!r}, the context says {c.text!r}")
    flipped = [
        u for u in above if index.unit_negated[u] is not None and index.unit_negated[u] != negated and gaps(u) is None
    ]
    if flipped:
        return result("contradicted", flipped[0], "the matching context sentence has the opposite polarity")
    best = order[0]
    if best in reasons:
        return result("not_found", best, reasons[best])
    return result("not_found", best, f"best similarity {sims[best]:.2f} < {SUPPORT_THRESHOLD}")


def _gap(index: ContextIndex, u: int, figures: list[Quantity], wording: str, similarity: float) -> str | None:
    """Why unit ``u`` does not hold the claim's facts (None when it does). ``wording`` is the claim
    without its figures. A figure must sit in a sentence of the unit that carries more than half
    of the claim's words (so "arrested on March 26" is not held by "arrested on Thursday. On
    March 26, she bought a ticket"); names must be in the unit (in a record: in the record); in
    prose at most ``MAX_MISSING_WORDS`` of the claim's words may be missing from the unit, or
    ``MAX_MISSING_PARAPHRASE`` when the similarity reaches ``STRONG_SIMILARITY`` (a paraphrase);
    in a record's field ``MAX_MISSING_RECORD``, not counting names and the record's subject."""
    total = len(content_tokens(wording)) or 1
    parts = index.unit_parts[u]
    if len(parts) > 1 and not index.unit_structured[u]:
        parts = [p for p in parts if len(missing_words(wording, p)) / total < 0.5]
    missing = missing_quantities(figures, [q for p in parts for q in extract_quantities(p)])
    if missing:
        return f"figure {missing[0].text!r} not in the supporting sentence"
    # a record names its subject once (its "name" field): a name is looked up in the whole record
    where = (
        index.units[u]
        if not index.unit_structured[u]
        else " ".join(
            text for text, chunk in zip(index.units, index.unit_chunks, strict=True) if chunk == index.unit_chunks[u]
        )
    )
    absent = [
        n
        for n in names(wording)  # "on Fridays" is held by "hours Friday"
        if not contains_phrase(where, n) and not (n.endswith("s") and contains_phrase(where, n[:-1]))
    ]
    if absent:
        return f"name {absent[0]!r} not in the supporting sentence"
    if index.unit_structured[u]:  # fields name their values in keys, not prose: half the words will do
        # names are checked against the record above; the record's subject ("name: Blue Cafe") is
        # what every field is about, so its words count as present in each field
        subject = [
            t
            for text, chunk in zip(index.units, index.unit_chunks, strict=True)
            if chunk == index.unit_chunks[u] and text.startswith(("name:", "title:"))
            for t in content_tokens(text)
        ]
        named = {t for n in names(wording) for t in content_tokens(n)} | set(subject)
        words, allowed = [w for w in missing_words(wording, index.units[u]) if w not in named], MAX_MISSING_RECORD
    else:
        words = missing_words(wording, index.units[u])
        allowed = MAX_MISSING_WORDS if similarity < STRONG_SIMILARITY else MAX_MISSING_PARAPHRASE
    if len(words) / total > allowed:
        return "words not in the supporting sentence: " + ", ".join(words[:4])
    return None


def _without_figures(claim: str, figures: list[Quantity]) -> str:
    """The claim with its figures' text (and their units: "120 minutes", "49 USD") removed."""
    for q in figures:
        claim = claim.replace(q.text, " ")
    return SCALE_RE.sub(" ", claim)


def missing_in_chunk(figures: list[Quantity], index: ContextIndex, unit: int) -> bool:
    """True when some figure of the claim occurs nowhere in the unit's chunk (a figure that is
    elsewhere in the chunk is a mismatch of sentence, not a conflict of values)."""
    return bool(missing_quantities(figures, index.chunk_quantities[index.unit_chunks[unit]]))


def support_share(verdicts: Sequence[dict]) -> float:
    """Mean support of the verdicts (caller guarantees at least one): a graded verdict's
    ``p_supported``, else 1 for ``supported`` and 0 for anything else."""
    return sum(
        float(v["p_supported"]) if "p_supported" in v else float(v["verdict"] == "supported") for v in verdicts
    ) / len(verdicts)


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
            wanted += [s for _, text in self.passages for s in context_units(text)[0]]
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
