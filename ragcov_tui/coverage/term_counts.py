"""Term counts per cluster for the offline themes, vectorised: words and 2–3-word phrases.

The texts are cut into segments once (:func:`ragcov_tui.coverage.lexicon.segments`: the only
Python loop) and laid end to end as one array of word ids with a ``-1`` between segments. With
``ok`` marking the words that are not stop words, the terms are, by array arithmetic:

* a word at ``i`` when ``ok[i]``;
* a 2-word phrase at ``i`` when ``ok[i] & ok[i+1]``;
* a 3-word phrase at ``i`` when ``ok[i] & (ok[i+1] | connector[i+1]) & ok[i+2]`` — inside, a
  stop word only if it links two nouns ("terms of service", "flour and water", "Verwaltung der
  Benutzer": :data:`~ragcov_tui.coverage.lexicon.CONNECTORS`).

A phrase never spans a ``-1``, so never a segment boundary. Terms found in fewer than
``min_df`` texts are dropped; the counts are summed per cluster into a sparse K × T matrix.
Headings are laid down a second time with weight ``heading_weight`` (counted, not in the text
frequency). Stop words: one-letter words, the built-in lists (:data:`~ragcov_tui.coverage.lexicon.STOP_WORDS`)
and the corpus's own — words in at least ``CORPUS_STOP_SHARE`` of the texts, from the same arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ragcov_tui.coverage import lexicon


@dataclass
class TermCounts:
    """``counts`` (K × T, CSR) of each term per cluster; term j is ``words`` at ``term_words[j]``
    (word ids, ``-1`` padded to 3)."""

    counts: sp.csr_matrix
    words: list[str]
    term_words: np.ndarray

    def term(self, j: int) -> str:
        return " ".join(self.words[i] for i in self.term_words[j] if i >= 0)

    @property
    def n_words(self) -> np.ndarray:
        """Words per term (1–3)."""
        return (self.term_words >= 0).sum(axis=1)


def word_stream(texts: Sequence[str], vocab: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """(word ids with -1 after each segment, how many stream items each text took)."""
    stream: list[int] = []
    lengths = np.zeros(len(texts), dtype=np.int64)
    for t, text in enumerate(texts):
        start = len(stream)
        toks, cjk = lexicon.tokens(text)
        if cjk:  # bigrams, each its own segment
            for seg in lexicon.segments(text):
                stream += [vocab.setdefault(w, len(vocab)) for w in seg]
                stream.append(-1)
        else:  # the fast path: a break token is a -1 (several in a row change nothing)
            stream += [vocab.setdefault(w, len(vocab)) if w[0].isalpha() else -1 for w in toks]
            stream.append(-1)
        lengths[t] = len(stream) - start
    return np.asarray(stream, dtype=np.int64), lengths


def ahead(mask: np.ndarray, k: int) -> np.ndarray:
    """``mask`` shifted ``k`` places to the left (``out[i] = mask[i + k]``), False past the end."""
    return np.concatenate((mask[k:], np.zeros(min(k, len(mask)), dtype=bool)))


def text_frequency(doc: np.ndarray, ids: np.ndarray, size: int) -> np.ndarray:
    """How many distinct texts hold each id (``doc`` and ``ids`` parallel, ids < ``size``)."""
    if not len(ids):
        return np.zeros(size, dtype=np.int64)
    pairs = np.sort(doc * size + ids)  # sorting beats numpy's hashed unique on these int64 keys
    pairs = pairs[np.concatenate(([True], pairs[1:] != pairs[:-1]))]
    return np.bincount(pairs % size, minlength=size)


def count_terms(
    texts_by_cluster: Sequence[Sequence[str]], *, heading_weight: float = 2.0, min_df: int = 2
) -> TermCounts:
    """The term counts of the module doc for clusters of texts."""
    k = len(texts_by_cluster)
    texts = [t for ts in texts_by_cluster for t in ts]
    owner = np.repeat(np.arange(k), [len(ts) for ts in texts_by_cluster])
    heads = ["\n".join(h for _, h in lexicon.headings(t)) for t in texts]
    vocab: dict[str, int] = {}
    tok, lengths = word_stream(texts + heads, vocab)
    words = list(vocab)
    n = len(texts)
    item = np.repeat(np.arange(2 * n), lengths)
    doc = np.where(item >= n, item - n, item)
    in_heading = item >= n
    valid = tok >= 0
    v = max(len(words), 1)
    df_words = text_frequency(doc[valid & ~in_heading], tok[valid & ~in_heading], v)
    stop_words = lexicon.ALL_STOP_WORDS
    if n >= lexicon.CORPUS_STOP_MIN_TEXTS:
        stop_words = stop_words | {
            w for w, d in zip(words, df_words, strict=True) if d >= lexicon.CORPUS_STOP_SHARE * n
        }
    stop = np.array([len(w) < 2 or w in stop_words for w in words] + [True], dtype=bool)  # index -1: the separator
    ok = valid & ~stop[tok]
    link = np.array([w in lexicon.CONNECTORS for w in words] + [False], dtype=bool)[tok]
    starts = [
        np.flatnonzero(ok),
        np.flatnonzero(ok & ahead(ok, 1)),
        np.flatnonzero(ok & ahead(ok | link, 1) & ahead(ok, 2)),
    ]
    keys = [tok[starts[0]], tok[starts[1]] * v + tok[starts[1] + 1]]
    pair = np.unique(tok[starts[2]] * v + tok[starts[2] + 1], return_inverse=True)[1].ravel()
    keys.append(pair * v + tok[starts[2] + 2])
    term_ids, term_words, offset = [], [], 0
    for order, (pos, key) in enumerate(zip(starts, keys, strict=True), start=1):
        uniq, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        term_ids.append(inverse.ravel() + offset)
        spans = np.full((len(uniq), 3), -1, dtype=np.int64)
        for j in range(order):
            spans[:, j] = tok[pos[first] + j]
        term_words.append(spans)
        offset += len(uniq)
    at = np.concatenate(starts)
    term = np.concatenate(term_ids)
    table = np.concatenate(term_words) if term_words else np.zeros((0, 3), dtype=np.int64)
    body = ~in_heading[at]
    df = text_frequency(doc[at][body], term[body], max(offset, 1))[:offset]
    keep = df >= (min_df if n > 2 else 1)
    remap = np.cumsum(keep) - 1
    sel = keep[term]
    weight = np.where(in_heading[at][sel], heading_weight, 1.0)
    counts = sp.coo_matrix((weight, (owner[doc[at][sel]], remap[term[sel]])), shape=(k, int(keep.sum()))).tocsr()
    return TermCounts(counts, words, table[keep])
