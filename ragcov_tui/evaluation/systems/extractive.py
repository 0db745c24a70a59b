"""The offline answer of the ``builtin:*`` systems: an extractive QA baseline with citations.

Candidates are the units of the retrieved chunks (``generation.text.text_units``: real sentences
of joined paragraphs and list items, Markdown table rows rendered as ``header: value`` pairs;
headings, code lines and fragments are not candidates — see :func:`is_candidate`), each kept
once with the best-ranked chunk it occurs in. Each candidate ``u`` is scored

    relevance(u) = SEMANTIC_WEIGHT · cos(question, u) + LEXICAL_WEIGHT · lexical(u)

where ``lexical(u)`` = sum of the IDF of the question's content terms that occur in ``u`` / sum of
the IDF of all its content terms (BM25's IDF over the candidates, light plural stemming), so the
exact terms a question hinges on (a plan name, an error code) count. The answer is picked by
maximal marginal relevance: first the most relevant candidate, then repeatedly the one
maximising ``MMR_LAMBDA · relevance − (1 − MMR_LAMBDA) · max cos(u, already picked)``, while its
relevance is at least ``KEEP_RATIO`` of the best's, up to ``MAX_UNITS`` units. Each picked unit is
followed by its chunk id in [brackets], in the order picked; a unit opening with a pronoun ("It is
required before…") is preceded by the sentence it refers to. When no candidate reaches
``ABSTAIN_RELEVANCE`` (the question is off-topic for everything retrieved: 0.10–0.15 for the
off-topic sample questions under all-MiniLM-L6-v2, at least 0.30 for every on-topic one) the
answer is ``ABSTAIN_ANSWER``, which the claim metrics treat as a refusal, not a claim.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragcov_tui.embeddings.base import Embedder
from ragcov_tui.evaluation.generation.text import TextUnit, content_tokens, text_units
from ragcov_tui.evaluation.systems.base import RetrievedChunk

MAX_UNITS = 3
SEMANTIC_WEIGHT, LEXICAL_WEIGHT = 0.6, 0.4
MMR_LAMBDA = 0.7
KEEP_RATIO = 0.8
MIN_WORDS = 4
ABSTAIN_RELEVANCE = 0.2
ABSTAIN_ANSWER = "I don't know: none of the retrieved passages answers this question."
_ANAPHOR_RE = re.compile(r"^(It|Its|This|That|These|Those|They|Their|Them)\b")
_SENTENCE_START_RE = re.compile(r"^[\"'(\[]?[A-Z0-9$€£]")
_TERMINAL_RE = re.compile(r"[.!][\"')\]]*$")


@dataclass(frozen=True)
class Candidate:
    """One answer candidate: the unit's text, its section heading and the chunk it is cited from."""

    text: str
    section: str
    chunk_id: str
    lead: str = ""

    def rendered(self) -> str:
        """The text as an answer sentence, after its ``lead`` (the sentence before it, when it
        opens with a pronoun such as "It" or "These"); a list item without a final stop gets one,
        so the answer still splits into the same sentences."""
        text = self.text if _TERMINAL_RE.search(self.text) else f"{self.text}."
        return f"{self.lead} {text}" if self.lead else text


def is_candidate(unit: TextUnit) -> bool:
    """A table row, a list item of at least ``MIN_WORDS`` words, or a complete sentence of at
    least ``MIN_WORDS`` words ending with ``.`` or ``!``; each starting like a sentence (capital,
    digit or currency sign). Headings, code lines, questions, unpunctuated labels and
    chunk-boundary fragments are not."""
    text = unit.text
    if unit.kind not in ("sentence", "item", "row") or not _SENTENCE_START_RE.match(text) or text.endswith("?"):
        return False
    if unit.kind == "row":
        return True
    return len(text.split()) >= MIN_WORDS and (unit.kind == "item" or bool(_TERMINAL_RE.search(text)))


def candidates(contexts: Sequence[RetrievedChunk]) -> list[Candidate]:
    """The candidate units of ``contexts`` in rank order, each text once (overlapping chunks
    repeat sentences; the better-ranked chunk keeps it)."""
    seen: dict[str, Candidate] = {}
    for context in contexts:
        previous: TextUnit | None = None
        for unit in text_units(context.text):
            if is_candidate(unit) and unit.text not in seen:
                seen[unit.text] = Candidate(unit.text, unit.section, context.id, _lead(previous, unit))
            previous = unit
    return list(seen.values())


def _lead(previous: TextUnit | None, unit: TextUnit) -> str:
    """The sentence ``unit`` refers back to: the previous unit of the same kind and section when
    ``unit`` opens with an anaphoric pronoun, else ``""``."""
    if previous is None or not _ANAPHOR_RE.match(unit.text) or unit.kind == "row":
        return ""
    same_block = previous.kind == unit.kind and previous.section == unit.section
    return previous.text if same_block and _TERMINAL_RE.search(previous.text) else ""


def _terms(text: str) -> set[str]:
    """Content terms with a plural ``s`` dropped (``members`` → ``member``)."""
    return {t[:-1] if len(t) > 3 and t.endswith("s") and not t.endswith("ss") else t for t in content_tokens(text)}


def lexical_scores(question: str, texts: Sequence[str]) -> np.ndarray:
    """IDF-weighted share of the question's content terms found in each text (0 when the
    question has none); IDF = ln(1 + (N − df + 0.5) / (df + 0.5)) over ``texts``."""
    query = _terms(question)
    if not query or not texts:
        return np.zeros(len(texts))
    term_sets = [_terms(t) for t in texts]
    df = Counter(t for terms in term_sets for t in terms & query)
    n = len(texts)
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in query}
    total = sum(idf.values())
    return np.array([sum(idf[t] for t in terms & query) / total for terms in term_sets])


def select_mmr(relevance: np.ndarray, similarity: np.ndarray, *, limit: int = MAX_UNITS) -> list[int]:
    """Indices picked by maximal marginal relevance (see the module docstring); ``similarity``
    is the candidates' pairwise cosine matrix."""
    if relevance.size == 0:
        return []
    picked = [int(np.argmax(relevance))]
    floor = KEEP_RATIO * relevance[picked[0]]
    while len(picked) < limit:
        rest = [i for i in range(relevance.size) if i not in picked and relevance[i] >= floor]
        if not rest:
            break
        redundancy = similarity[np.ix_(rest, picked)].max(axis=1)
        marginal = MMR_LAMBDA * relevance[rest] - (1 - MMR_LAMBDA) * redundancy
        picked.append(rest[int(np.argmax(marginal))])
    return picked


def extract_answer(question: str, contexts: Sequence[RetrievedChunk], embedder: Embedder) -> str:
    """The extractive answer to ``question`` from ``contexts``: up to ``MAX_UNITS`` units, each
    followed by ``[chunk-id]``; ``""`` when the contexts hold no candidate."""
    pool = candidates(contexts)
    if not pool:
        return ""
    vectors = np.asarray(embedder.embed([question] + [c.text for c in pool]))
    units = vectors[1:]
    lexical = lexical_scores(question, [f"{c.section} {c.text}" for c in pool])
    relevance = SEMANTIC_WEIGHT * (units @ vectors[0]) + LEXICAL_WEIGHT * lexical
    picked = select_mmr(relevance, units @ units.T)
    if relevance.max() < ABSTAIN_RELEVANCE:
        return ABSTAIN_ANSWER
    return " ".join(f"{pool[i].rendered()} [{pool[i].chunk_id}]" for i in picked)
