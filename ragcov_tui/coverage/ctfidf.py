"""Distinctive cluster themes offline: class-based TF-IDF over words and 2–3-word phrases.

Terms (:mod:`~ragcov_tui.coverage.lexicon`): within one segment, every word that is not a stop
word, and every run of 2–3 words that neither starts nor ends with a stop word (a stop word may sit
inside a 3-word phrase: "terms of service"). Terms seen in fewer than two texts are dropped.

Counts: ``n(t, k)`` — occurrences of term t in cluster k's texts, plus ``HEADING_BOOST`` times its
occurrences in their Markdown headings (a section title names what the section is about). With
``N_k`` the term count of cluster k, ``f(t) = Σ_k n(t, k)``, ``A`` the mean ``N_k``, ``K`` clusters
and ``c(t)`` the number of clusters whose ``n(t, k) > 0``:

    weight(t, k) = n(t, k) / N_k · log(1 + A / f(t)) · log(1 + K / c(t)) / log(1 + K) · len(t)^PHRASE_EXPONENT

— BERTopic's c-TF-IDF, times a spread factor that pushes down terms every cluster shares (the
product name, "page"), times a mild length bonus so a phrase competes with its own words.

Selection (:func:`select_themes`), heaviest (cluster, term) pair first over all clusters: a term
is skipped when it is contained in a theme its cluster kept, or when one of its words would then
appear in the themes of more than ``max(1, K // 3)`` clusters; a phrase replaces a kept word of
its own when it carries at least ``PHRASE_TAKES_OVER`` of that word's weight. A cluster whose
themes hold no phrase gets its heaviest admissible phrase in place of its last theme. Themes are
shown as the corpus writes them, title-cased in English ("Quick Search", "SAML"; :func:`display`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ragcov_tui.coverage.lexicon import CJK_RUN, language
from ragcov_tui.coverage.term_counts import TermCounts, count_terms

HEADING_BOOST = 2.0
PHRASE_EXPONENT = 0.5
PHRASE_TAKES_OVER = 0.5
CANDIDATES_PER_CLUSTER = 60
MINOR_WORDS = frozenset("a an and as at by for from in of on or the to via vs with".split())


@dataclass
class ClassTerms:
    """``weights`` (K × T, sparse CSR) of every term per cluster; the terms are ``counted``'s."""

    weights: sp.csr_matrix
    counted: TermCounts

    @property
    def words(self) -> list[str]:
        """Every word of the texts (stop words included)."""
        return self.counted.words

    def row(self, k: int, top: int = CANDIDATES_PER_CLUSTER, *, phrases: bool = False) -> dict[str, float]:
        """Cluster ``k``'s ``top`` heaviest terms (only phrases: ``phrases``) with their (positive) weights."""
        r = self.weights.getrow(k)
        data = np.where(self.counted.n_words[r.indices] > 1, r.data, 0.0) if phrases else r.data
        order = np.argsort(-data, kind="stable")[:top]
        return {self.counted.term(int(r.indices[j])): float(r.data[j]) for j in order if data[j] > 0}


def class_terms(texts_by_cluster: Sequence[Sequence[str]]) -> ClassTerms:
    """The weighted terms of every cluster (formula in the module doc)."""
    k = len(texts_by_cluster)
    counted = count_terms(texts_by_cluster, heading_weight=HEADING_BOOST)
    counts = counted.counts.astype(np.float64)
    per_class = np.asarray(counts.sum(axis=1)).ravel()
    f = np.asarray(counts.sum(axis=0)).ravel()
    c = np.asarray((counts > 0).sum(axis=0)).ravel()
    idf = np.log1p(per_class.mean() / np.maximum(f, 1e-9)) if k else f
    spread = np.log1p(k / np.maximum(c, 1)) / math.log1p(k) if k > 1 else np.ones_like(f)
    length = counted.n_words.astype(np.float64) ** PHRASE_EXPONENT
    weights = sp.diags(1.0 / np.maximum(per_class, 1.0)) @ counts @ sp.diags(idf * spread * length)
    return ClassTerms(sp.csr_matrix(weights), counted)


def contains(outer: str, inner: str) -> bool:
    """True when the words of ``inner`` occur, in order and adjacent, in ``outer``."""
    return f" {inner} " in f" {outer} "


def select_themes(terms: ClassTerms, n: int) -> list[list[str]]:
    """Up to ``n`` themes (lower-case terms) per cluster, chosen as the module doc says."""
    k = terms.weights.shape[0]
    cap = max(1, k // 3)
    rows = [terms.row(c) for c in range(k)]
    ranked = [sorted(r.items(), key=lambda kv: (-kv[1], kv[0])) for r in rows]
    pairs = sorted(((w, c, t) for c in range(k) for t, w in ranked[c]), key=lambda p: (-p[0], p[1], p[2]))
    kept: list[list[str]] = [[] for _ in range(k)]

    def users(word: str, skip: int) -> int:
        return sum(1 for c in range(k) if c != skip and any(word in t.split() for t in kept[c]))

    def admissible(c: int, term: str) -> bool:
        return all(users(w, c) < cap for w in term.split())

    for _, c, term in pairs:
        if len(term) < 3 and not CJK_RUN.match(term):  # "sh", "uo": fragments, not topics (CJK bigrams are words)
            continue
        if not admissible(c, term) or any(contains(t, term) for t in kept[c]):
            continue
        inside = [t for t in kept[c] if t in term.split()]
        if inside:
            if all(rows[c][term] >= PHRASE_TAKES_OVER * rows[c][t] for t in inside):
                kept[c] = [term if t == inside[0] else t for t in kept[c] if t not in inside[1:]]
            continue
        if any(contains(term, t) or len(set(t.split()) & set(term.split())) * 2 >= len(term.split()) for t in kept[c]):
            continue
        if len(kept[c]) < n:
            kept[c].append(term)
    for c in range(k):
        if kept[c] and not any(" " in t for t in kept[c]):
            phrase = next(
                (
                    t
                    for t in terms.row(c, phrases=True)
                    if admissible(c, t) and not any(contains(s, t) for s in kept[c])
                ),
                None,
            )
            if phrase is not None:
                kept[c] = [s for s in kept[c] if s not in phrase.split()][: max(0, n - 1)] + [phrase]
    return kept


def display(term: str, texts: Sequence[str], *, english: bool = True) -> str:
    """``term`` as the corpus writes it (its most frequent form in the first 50 ``texts``), then for
    English title-cased ("Quick Search", "Terms of Service") with capitals beyond a first letter
    kept ("SAML", "iOS"); in other languages only its first letter raised, since title case is not
    their custom ("Browser deines Geräts", "Работа с модификаторами")."""
    words = term.split()
    pattern = re.compile(r"(?<!\w)" + r"\W+".join(re.escape(w) for w in words) + r"(?!\w)", re.IGNORECASE)
    surfaces = [m.group(0) for t in texts[:50] for m in pattern.finditer(t)]
    seen = max(set(surfaces), key=lambda s: (surfaces.count(s), s)).split() if surfaces else []
    seen = seen if len(seen) == len(words) else words
    if not english:
        out = " ".join(seen)
        return out[:1].upper() + out[1:]
    shown = []
    for i, (low, word) in enumerate(zip(words, seen, strict=True)):
        if any(ch.isupper() for ch in word[1:]) and not word.isupper() or word.isupper() and len(word) <= 5:
            shown.append(word)
        elif 0 < i < len(words) - 1 and low in MINOR_WORDS:
            shown.append(low)
        else:
            shown.append(low[:1].upper() + low[1:])
    return " ".join(shown)


def cluster_themes(texts_by_cluster: Sequence[Sequence[str]], n: int) -> tuple[list[list[str]], ClassTerms]:
    """(displayed themes per cluster, the weighted terms) for ``texts_by_cluster`` (most central first)."""
    terms = class_terms(texts_by_cluster)
    chosen = select_themes(terms, n)
    return [
        [display(t, texts, english=language(" ".join(texts[:20])) in ("en", "und")) for t in ts]
        for ts, texts in zip(chosen, texts_by_cluster, strict=True)
    ], terms
