"""Finding a reference-context text in the corpus: one index of word shingles, built once.

Texts are compared in a normal form: NFKC, casefolded, every run of characters that are not
letters or digits (spaces, punctuation, symbols, ``_``) made one space, stripped
(:func:`normalise`; ``"The  Team-plan: $8!"`` → ``"the team plan 8"``). Each document's normal
form is laid end to end in one string (documents apart by a ``\\0`` word that no text contains),
and every chunk's place in it is found once (chunks follow each other in their document; a chunk
not found there, or a pre-chunked one whose document has no text, gets a place of its own).

The index holds the hash of every run of :data:`SHINGLE` consecutive words (a *shingle*) with its
word position, sorted (numpy), so a lookup is a binary search, never a scan of the corpus:

- **exact**: a shingle of the context's inner words (its first and last word may be cut mid-word)
  with the fewest postings proposes start positions; one is kept where the whole normalised
  context is found at that character offset;
- **near-exact**: every shingle of the context is looked up; hits that keep the same word offset
  (± a slack of a tenth of the context's length, at least 3 words) are grouped and the best group's
  share of the context's shingles is the score, accepted at :data:`NEAR_EXACT` or more.

A span maps to every chunk that holds at least half of itself inside it or that covers a fifth
of the span, so a context across two chunks names both, and a chunk holding only its last words
does not. A context of fewer than :data:`MIN_WORDS` words, or found at more than
:data:`MAX_PLACES` places, matches nothing (it would match anywhere).
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ragcov_tui.corpus.models import Chunk, Document

SHINGLE = 4  # words per shingle
MIN_WORDS = 5  # a shorter context is too short to name a place
MAX_PLACES = 3  # found at more places than this: boilerplate, names nothing
NEAR_EXACT = 0.75  # share of the context's shingles found in one place, for a near-exact match
COMMON = 2_000  # a shingle with more postings than this is not looked up (near-exact tier)
_NOT_WORD = re.compile(r"[\W_]+")
_GAP = "\0"
_MIX = np.uint64(0x9E3779B97F4A7C15)


_ASCII = bytes(c + 32 if 65 <= c <= 90 else c if 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256))


def normalise(text: str) -> str:
    """The normal form matching compares (see the module docstring); ASCII text takes a byte
    table (the same result, several times faster than the regular expression)."""
    if text.isascii():
        return " ".join(text.encode("ascii").translate(_ASCII).decode("ascii").split())
    return _NOT_WORD.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


@dataclass(frozen=True)
class Place:
    """Where a context was found: its chunk ids and the tier that found it."""

    chunk_ids: tuple[str, ...]
    tier: str  # "exact" | "near-exact"
    score: float = 1.0


class ContextIndex:
    """The corpus's normal form with its chunks' places and a sorted shingle index."""

    def __init__(self, documents: Sequence[Document], chunks: Sequence[Chunk]) -> None:
        parts: list[str] = []
        self.offset = 0
        self._starts: list[int] = []  # chunk character spans in self.text, sorted by start
        self._ends: list[int] = []
        self._ids: list[str] = []
        by_source: dict[str, list[Chunk]] = {}
        for chunk in chunks:
            by_source.setdefault(chunk.source, []).append(chunk)
        texts = {d.source: d.text for d in documents if d.text.strip()}
        for source, members in by_source.items():
            members.sort(key=lambda c: c.position)
            self._lay_out(parts, normalise(texts.get(source, "")), members)
        self.text = "".join(parts)
        self._longest = max((e - s for s, e in zip(self._starts, self._ends, strict=True)), default=1)
        self._build_shingles()

    def _lay_out(self, parts: list[str], document: str, chunks: list[Chunk]) -> None:
        """Append ``document`` and place its chunks in it (in order); a chunk not found there
        is appended after it on its own."""
        loose: list[tuple[Chunk, str]] = []
        placed: list[tuple[int, int, str]] = []
        cursor = 0
        for chunk in chunks:
            own = normalise(chunk.text)
            at = document.find(own, cursor) if own and document else -1
            if at < 0:
                loose.append((chunk, own))
                continue
            placed.append((at, at + len(own), chunk.id))
            cursor = at + 1
        if document:
            self._append(parts, document, placed)
        for chunk, own in loose:
            if own:
                self._append(parts, own, [(0, len(own), chunk.id)])

    def _append(self, parts: list[str], text: str, spans: list[tuple[int, int, str]]) -> None:
        base = self.offset
        for start, end, cid in spans:  # in order of start: chunks follow each other
            self._starts.append(base + start)
            self._ends.append(base + end)
            self._ids.append(cid)
        parts.append(text + " " + _GAP + " ")
        self.offset += len(text) + 3

    def _build_shingles(self) -> None:
        words = self.text.split(" ")
        lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
        self.word_start = np.concatenate(([0], np.cumsum(lengths + 1)[:-1])) if len(words) else lengths
        hashes = _shingle_hashes(words)
        self.order = np.argsort(hashes, kind="stable")
        self.sorted_hashes = hashes[self.order]

    def chunks_in(self, start: int, end: int) -> tuple[str, ...]:
        """Chunks holding half of themselves inside ``[start, end)`` or a fifth of the span."""
        span = end - start
        first = bisect.bisect_left(self._starts, start - self._longest)
        out = []
        for i in range(first, bisect.bisect_left(self._starts, end)):
            overlap = min(end, self._ends[i]) - max(start, self._starts[i])
            if overlap > 0 and (2 * overlap >= self._ends[i] - self._starts[i] or 5 * overlap >= span):
                out.append(self._ids[i])
        return tuple(dict.fromkeys(out))

    def find(self, context: str) -> tuple[str, list[Place]]:
        """``(outcome, places)``: outcome ``exact`` or ``near-exact`` with the places found,
        else ``unmatched``, ``too short`` or ``ambiguous`` (more than MAX_PLACES) with none."""
        norm = normalise(context)
        words = norm.split(" ") if norm else []
        if len(words) < MIN_WORDS:
            return "too short", []
        hashes = _shingle_hashes(words)
        places = self._exact(norm, words, hashes)
        if places is None:
            places = self._near(words, hashes)
        if len(places) > MAX_PLACES:
            return "ambiguous", []
        places = [p for p in places if p.chunk_ids]
        return (places[0].tier if places else "unmatched"), places

    def _postings(self, hashes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (
            np.searchsorted(self.sorted_hashes, hashes, "left"),
            np.searchsorted(self.sorted_hashes, hashes, "right"),
        )

    def _exact(self, norm: str, words: list[str], hashes: np.ndarray) -> list[Place] | None:
        inner = hashes[1:-1] if len(hashes) > 2 else hashes
        shift = 1 if len(hashes) > 2 else 0
        left, right = self._postings(inner)
        j = int(np.argmin(right - left))
        offset = sum(len(w) + 1 for w in words[: j + shift])
        starts = []
        for pos in self.order[left[j] : right[j]][: 50 * MAX_PLACES].tolist():
            at = int(self.word_start[pos]) - offset
            if at >= 0 and self.text.startswith(norm, at):
                starts.append(at)
        if not starts:
            return None
        return [Place(self.chunks_in(at, at + len(norm)), "exact") for at in starts]

    def _near(self, words: list[str], hashes: np.ndarray) -> list[Place]:
        left, right = self._postings(hashes)
        counts = right - left
        keep = np.nonzero((counts > 0) & (counts <= COMMON))[0]
        if not len(keep):
            return []
        which = np.repeat(keep, counts[keep])
        positions = np.concatenate([self.order[left[j] : right[j]] for j in keep]).astype(np.int64)
        diagonal = positions - which
        sort = np.argsort(diagonal, kind="stable")
        diagonal, which, positions = diagonal[sort], which[sort], positions[sort]
        width = 2 * max(3, len(words) // 10)  # insertions / deletions shift the offset this much
        ends = np.searchsorted(diagonal, diagonal + width, "right")
        best, window = 0, (0, 0)
        for lo in np.argsort(ends - np.arange(len(diagonal)), kind="stable")[::-1][:5].tolist():
            hi = int(ends[lo])
            distinct = len(np.unique(which[lo:hi]))
            if distinct > best:
                best, window = distinct, (lo, hi)
        score = best / len(hashes)
        if score < NEAR_EXACT:
            return []
        hits = positions[window[0] : window[1]]
        start, end = int(self.word_start[int(hits.min())]), self._word_end(int(hits.max()) + SHINGLE - 1)
        return [Place(self.chunks_in(start, end), "near-exact", round(score, 3))]

    def _word_end(self, word: int) -> int:
        start = int(self.word_start[word])
        stop = self.text.find(" ", start)
        return len(self.text) if stop < 0 else stop


def _shingle_hashes(words: list[str]) -> np.ndarray:
    """One 64-bit hash per run of :data:`SHINGLE` words (a single hash for a shorter text)."""
    base = np.fromiter(map(hash, words), dtype=np.int64, count=len(words)).view(np.uint64)
    n = max(1, len(words) - SHINGLE + 1)
    out = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(min(SHINGLE, len(words))):
            out = out * _MIX + base[j : j + n]
    return out
