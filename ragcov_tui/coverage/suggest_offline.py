"""Offline suggested questions for a gap: shaped from its least-covered chunks, never a repeat.

Candidates, per chunk (least covered first): an English chunk gives the questions its headings and
sentences shape into (:mod:`~ragcov_tui.coverage.question_forms`), best shape first, each one
:func:`~ragcov_tui.coverage.question_forms.well_formed` (a malformed one is not offered); a chunk in
another language (:func:`~ragcov_tui.coverage.lexicon.language`) gives one passage to ask about —
``Ask about: «…»`` around its first heading or sentence — because an English template around
foreign text is no question anyone would type. The candidates are taken round-robin over the
chunks (one per chunk, then a second per chunk…), so the suggestions spread over the gap.

Every suggestion carries the ``chunk_id`` it came from and its ``form`` (``question`` or
``passage``). It is dropped when it repeats a test question or an earlier suggestion: the same
:func:`~ragcov_tui.testset.ids.text_key`, content words overlapping by a Jaccard index of at least
:data:`LEXICAL_DUPLICATE`, or — when the run's embedder can embed text — a cosine of at least
:data:`COSINE_DUPLICATE` between the embedded suggestion and the test question.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import zip_longest

import numpy as np

from ragcov_tui.coverage import lexicon
from ragcov_tui.coverage.question_forms import (
    GENERIC_HEADINGS,
    heading_question,
    plain,
    sentence_question,
    well_formed,
)
from ragcov_tui.shared.errors import BadInput, RagcovError
from ragcov_tui.store.analysis_contract import SuggestedQuestion
from ragcov_tui.testset.ids import text_key

COSINE_DUPLICATE = 0.95
LEXICAL_DUPLICATE = 0.8
PASSAGE_CHARS = 90
POOL_PER_QUESTION = 4
TABLE_ROW = re.compile(r"^\s*\|")
FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
SENTENCE_END = re.compile(r"(?<=[.!?])[*_`\"”]*\s+|(?<=[。！？])")
Embed = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class Candidate:
    text: str
    chunk_id: str
    form: str  # "question" | "passage"

    def as_dict(self, origin: str) -> SuggestedQuestion:
        return {"text": self.text, "origin": origin, "chunk_id": self.chunk_id, "form": self.form}


def prose_sentences(text: str) -> list[str]:
    """The sentences of ``text``'s paragraphs and list items (hard-wrapped lines joined); headings,
    table rows, fenced code and URLs left out."""
    body = lexicon.ADMONITION.sub("", lexicon.URL.sub(" ", lexicon.FENCED.sub(" ", FRONT_MATTER.sub("", text))))
    blocks: list[list[str]] = []
    for para in re.split(r"\n\s*\n", body):
        current: list[str] = []
        for line in para.split("\n"):
            if lexicon.HEADING.match(line) or TABLE_ROW.match(line) or re.match(r"^\s*[-*+•]|\s*\d+[.)]\s", line):
                blocks.append(current)
                current = [] if lexicon.HEADING.match(line) or TABLE_ROW.match(line) else [line]
            else:
                current.append(line)
        blocks.append(current)
    joined = (" ".join(x.strip() for x in b).strip() for b in blocks)
    return [s.strip() for block in joined if block for s in SENTENCE_END.split(block) if s.strip()]


def shorten(text: str, limit: int = PASSAGE_CHARS) -> str:
    """``text`` cut at a word boundary to at most ``limit`` characters, with an ellipsis when cut."""
    if len(text) <= limit:
        return text
    cut = text[:limit]
    if text[limit] != " " and " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "…"


def passage(text: str) -> str | None:
    """What to ask about in a chunk no template can turn into a question: its first specific
    heading, else its first sentence of four or more words (or one CJK sentence)."""
    for _, h in lexicon.headings(text):
        if h.lower() not in GENERIC_HEADINGS and len(h) >= 3:
            return shorten(plain(h))
    for s in prose_sentences(text):
        clean = plain(s)
        letters = sum(c.isalpha() or c.isspace() for c in clean)
        if letters >= 0.85 * len(clean) and (
            len(clean.split()) >= 4 or lexicon.CJK_RUN.search(clean) and len(clean) >= 8
        ):
            return shorten(clean)
    return None


def chunk_candidates(chunk_id: str, text: str, known: frozenset[str] = frozenset()) -> list[Candidate]:
    """The suggestions one chunk gives, best first (see the module doc)."""
    if lexicon.language(text) != "en":
        found = passage(text)
        return [Candidate(f"Ask about: «{found}»", chunk_id, "passage")] if found else []
    shaped: list[tuple[int, int, str]] = []
    for i, (level, h) in enumerate(lexicon.headings(text)):
        if (q := heading_question(h, known, level=level, source=text)) is not None:
            shaped.append((q[1], i, q[0]))
    for i, s in enumerate(prose_sentences(text), start=100):
        if lexicon.language(s) in ("en", "und") and (q := sentence_question(s, known, text)) is not None:
            shaped.append((q[1], i, q[0]))
    seen: set[str] = set()
    out = []
    for _, _, question in sorted(shaped):
        if well_formed(question) and text_key(question) not in seen:
            seen.add(text_key(question))
            out.append(Candidate(question, chunk_id, "question"))
    return out


def content_words(text: str) -> frozenset[str]:
    """The words and numbers of ``text`` that are not stop words (what a near-repeat shares)."""
    return frozenset(w for w in re.findall(r"\w+", text.lower()) if w not in lexicon.ALL_STOP_WORDS)


def lexical_duplicate(words: frozenset[str], others: Sequence[frozenset[str]]) -> bool:
    """Jaccard overlap of content words ≥ LEXICAL_DUPLICATE with any of ``others``."""
    return bool(words) and any(len(words & o) >= LEXICAL_DUPLICATE * len(words | o) for o in others if o)


def without_repeats(pool: list[Candidate], existing: Sequence[str], n: int) -> list[Candidate]:
    """The first ``POOL_PER_QUESTION · n`` candidates that repeat neither a test question nor an
    earlier candidate by text key or content words."""
    keys = {text_key(q) for q in existing}
    words = [content_words(q) for q in existing]
    out: list[Candidate] = []
    for c in pool:
        w = content_words(c.text)
        if text_key(c.text) in keys or lexical_duplicate(w, words):
            continue
        keys.add(text_key(c.text))
        words.append(w)
        out.append(c)
        if len(out) >= POOL_PER_QUESTION * n:
            break
    return out


def semantic_filter(pool: list[Candidate], question_vecs: np.ndarray, embed: Embed, n: int) -> list[Candidate]:
    """Up to ``n`` candidates whose cosine to every test question and every kept candidate is below
    COSINE_DUPLICATE (rows of both unit length)."""
    vecs = np.asarray(embed([c.text for c in pool]), dtype=np.float32)
    if vecs.shape[1:] != question_vecs.shape[1:]:
        raise BadInput(f"{vecs.shape[1]}-d vectors against {question_vecs.shape[1]}-d test questions")
    to_tests = (vecs @ question_vecs.T).max(axis=1) if len(question_vecs) else np.full(len(pool), -1.0)
    kept: list[int] = []
    for i in range(len(pool)):
        if to_tests[i] >= COSINE_DUPLICATE or any(float(vecs[i] @ vecs[j]) >= COSINE_DUPLICATE for j in kept):
            continue
        kept.append(i)
        if len(kept) == n:
            break
    return [pool[i] for i in kept]


def offline_suggestions(
    chunks: Sequence[tuple[str, str]],
    n: int,
    *,
    existing: Sequence[str] = (),
    question_vecs: np.ndarray | None = None,
    embed: Embed | None = None,
    known: frozenset[str] = frozenset(),
) -> tuple[list[Candidate], str]:
    """Up to ``n`` suggestions from ``chunks`` ((chunk id, text), least covered first) that repeat
    no question of ``existing`` (whose unit vectors are ``question_vecs``); returns (suggestions,
    a note — non-empty when the embedder could not check for paraphrases)."""
    per_chunk = [chunk_candidates(cid, text, known) for cid, text in chunks]
    pool = [c for layer in zip_longest(*per_chunk) for c in layer if c is not None]
    pool = without_repeats(pool, existing, n)
    if embed is None or question_vecs is None or not pool:
        return pool[:n], ""
    try:
        return semantic_filter(pool, question_vecs, embed, n), ""
    except RagcovError as exc:  # an embedder that cannot embed new text (precomputed vectors)
        return pool[:n], f"suggestions checked for repeats by wording only: the embedder cannot embed them ({exc})"
