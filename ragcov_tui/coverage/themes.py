"""Themes and suggested questions for clusters.

Offline (``origin: "heuristic"``):

* themes — class-based TF-IDF: the texts of each cluster form one class document; with
  tf(t, k) the count of term t in class k over the class's term count, f(t) the count of t over
  all classes and A the mean term count per class, weight(t, k) = tf(t, k) · log(1 + A / f(t)).
  Terms are English-stop-word-free unigrams and bigrams; the top ``n_themes`` are kept, skipping
  a term that contains or is contained in one already kept.
* suggested questions — from the gap's least-covered chunks (largest distance to any question,
  so the suggestions target what the test set misses). First the section headings found there
  (Markdown ``#`` lines), turned into questions by their shape: a heading that already is a
  question is kept, a gerund heading ("Creating an endpoint") becomes "What are the steps for
  creating an endpoint?", a noun heading ("Rate limits") becomes "What does the documentation say
  about rate limits in <document title>?"; generic headings (Overview, FAQ…) are skipped. Then
  whole prose sentences of those chunks, scored by the summed c-TF-IDF weight of their terms, as
  "Is it true that <sentence>?". Both are template questions over corpus text and say so by
  their origin; the TUI lets a person edit one before accepting it.

With an LLM (``ChatModel``): the model reads the cluster's most representative chunks and returns
``{"themes": [...], "questions": [...]}`` (validated; cached by the LLM layer); any failure falls
back to the heuristic for that gap, never silently: the cause is kept in ``fallback`` and ``note``,
and :func:`llm_fallback` sums the gaps up for the report, the warning line and the exit code (an
``--llm`` that answered no call at all fails the run unless ``--allow-fallback``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer

from ragcov_tui.concurrency import run_bounded
from ragcov_tui.errors import ProviderError
from ragcov_tui.llm.base import ChatModel
from ragcov_tui.progress import Progress

HEURISTIC = "heuristic"
TOKEN_PATTERN = r"(?u)\b[a-zA-Z][a-zA-Z0-9_\-]+\b"
MARKUP = re.compile(r"[#*_`>|\[\]]+")
SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|\n+")
LLM_CHUNKS, LLM_CHARS = 6, 1200


@dataclass
class ClusterThemes:
    themes: list[str]
    questions: list[dict[str, str]] = field(default_factory=list)  # [{"text", "origin"}]
    origin: str = HEURISTIC
    note: str = ""
    fallback: str = ""  # why the LLM asked for this gap gave nothing usable (then the heuristic's are used)


def clean(text: str) -> str:
    """Markdown markup and runs of spaces removed."""
    return re.sub(r"\s+", " ", MARKUP.sub(" ", text)).strip()


def class_tfidf(texts_by_cluster: list[list[str]]) -> tuple[np.ndarray, np.ndarray]:
    """(weights (K, V), vocabulary (V,)) of the c-TF-IDF in the module doc."""
    docs = [" ".join(clean(t) for t in texts) for texts in texts_by_cluster]
    vectorizer = CountVectorizer(stop_words="english", ngram_range=(1, 2), token_pattern=TOKEN_PATTERN,
                                 lowercase=True)
    try:
        counts = vectorizer.fit_transform(docs).astype(np.float64).toarray()
    except ValueError:  # no term at all (empty or stop-word-only texts)
        return np.zeros((len(docs), 0)), np.array([], dtype=object)
    per_class = counts.sum(axis=1, keepdims=True)
    tf = counts / np.maximum(per_class, 1.0)
    idf = np.log(1.0 + per_class.mean() / np.maximum(counts.sum(axis=0), 1.0))
    return tf * idf, vectorizer.get_feature_names_out()


def top_terms(weights: np.ndarray, vocabulary: np.ndarray, n: int) -> list[str]:
    """The ``n`` heaviest terms, skipping ones overlapping a term already kept."""
    kept: list[str] = []
    for j in np.argsort(-weights, kind="stable"):
        if weights[j] <= 0 or len(kept) >= n:
            break
        term = str(vocabulary[j])
        if not any(term in k or k in term for k in kept):
            kept.append(term)
    return kept


def is_statement(raw: str, words: list[str]) -> bool:
    """A whole prose sentence: ends with a full stop, 6–40 words, starts with a capital, ≥ 80 %
    alphabetic words, no list / table / menu-path markup."""
    raw = raw.strip()
    if not raw.endswith(".") or not 6 <= len(words) <= 40 or not raw[:1].isupper():
        return False
    if any(mark in raw for mark in ("→", "|", "(", "`", "  ")):
        return False
    return sum(w.strip(",;:.'\"").isalpha() for w in words) >= 0.8 * len(words)


HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$", re.MULTILINE)
GENERIC_HEADINGS = {"overview", "introduction", "summary", "notes", "note", "faq", "examples", "example", "see also",
                    "contents", "table of contents", "details", "more", "other", "misc", "miscellaneous", "background"}
QUESTION_WORDS = ("how", "what", "why", "when", "where", "which", "who", "can", "do", "does", "is", "are", "should")
IMPERATIVES = {"add", "assign", "cancel", "change", "choose", "configure", "connect", "create", "delete", "disable",
               "enable", "export", "generate", "get", "import", "install", "invite", "manage", "move", "open",
               "remove", "reset", "restore", "revoke", "rotate", "set", "share", "start", "update", "upgrade", "use",
               "verify"}
NUMBERING = re.compile(r"^(?:step\s+)?\d+[.):]?\s+", re.IGNORECASE)
POSSESSIVES = {"your": "my", "you": "I", "yours": "mine"}


def heading_question(heading: str, title: str | None) -> str | None:
    """A question from a section heading (see the module doc), or None for a generic heading."""
    h = NUMBERING.sub("", clean(heading)).strip(" :.")
    words = h.split()
    if not words or h.lower() in GENERIC_HEADINGS or len(words) > 12:
        return None
    first = words[0].lower()
    if first in QUESTION_WORDS:
        return h.rstrip("?") + "?"
    lower = h[0].lower() + h[1:] if not h[:2].isupper() else h
    if first in IMPERATIVES:
        return "How do I " + " ".join(POSSESSIVES.get(w.lower(), w) for w in lower.split()) + "?"
    if first.endswith("ing") and len(first) > 4:
        return f"What are the steps for {lower}?"
    topic = title.rsplit(":", 1)[-1].strip() if title else ""
    if topic and topic.lower() != h.lower():
        return f"What does the documentation say about {lower} in {topic}?"
    return f"What does the documentation say about {lower}?"


def sentence_candidates(texts: list[str], lookup: dict[str, float]) -> list[tuple[float, str]]:
    """Whole prose sentences of ``texts`` with their summed c-TF-IDF weight, heaviest first."""
    scored: list[tuple[float, str]] = []
    seen: set[str] = set()
    for text in texts:
        for raw in SENTENCE_SPLIT.split(HEADING.sub(" ", text)):
            sentence = clean(raw).rstrip(".!?;: ")
            words = sentence.lower().split()
            if not is_statement(raw, words) or sentence.lower() in seen:
                continue
            seen.add(sentence.lower())
            grams = words + [" ".join(p) for p in zip(words, words[1:])]
            scored.append((sum(lookup.get(g.strip(",;:()\"'"), 0.0) for g in grams), sentence))
    scored.sort(key=lambda pair: -pair[0])
    return scored


def heuristic_questions(texts: list[str], weights: np.ndarray, vocabulary: np.ndarray, n: int) -> list[dict[str, str]]:
    """Up to ``n`` questions: headings of ``texts`` (least covered first), then their best sentences."""
    out: list[str] = []
    for text in texts:
        title = next((clean(m.group(2)) for m in HEADING.finditer(text) if len(m.group(1)) == 1), None)
        for m in HEADING.finditer(text):
            q = heading_question(m.group(2), title) if len(m.group(1)) > 1 else None
            if q and q.lower() not in {o.lower() for o in out}:
                out.append(q)
    lookup = {str(t): float(w) for t, w in zip(vocabulary, weights) if w > 0}
    out += [f"Is it true that {s[0].lower() + s[1:]}?" for _, s in sentence_candidates(texts, lookup)]
    return [{"text": text, "origin": HEURISTIC} for text in out[:n]]


def heuristic_themes(texts_by_cluster: list[list[str]], n_themes: int, n_questions: int,
                     question_texts: dict[int, list[str]]) -> list[ClusterThemes]:
    """c-TF-IDF themes for every cluster; heuristic questions for the clusters in ``question_texts``.

    ``texts_by_cluster[k]`` lists cluster k's texts, most central (nearest the centroid) first;
    ``question_texts[k]`` the texts to draw gap k's questions from (least covered first).
    """
    weights, vocabulary = class_tfidf(texts_by_cluster)
    out = []
    for k, texts in enumerate(texts_by_cluster):
        row = weights[k] if weights.shape[1] else np.zeros(0)
        themes = top_terms(row, vocabulary, n_themes)
        source = question_texts.get(k)
        questions = heuristic_questions(source[:LLM_CHUNKS], row, vocabulary, n_questions) if source else []
        out.append(ClusterThemes(themes, questions))
    return out


def validate_reply(data: Any) -> str | None:
    """None when ``data`` is ``{"themes": [str, ...], "questions": [str, ...]}``, else the problem."""
    if not isinstance(data, dict):
        return "expected a JSON object with 'themes' and 'questions'"
    for key in ("themes", "questions"):
        items = data.get(key)
        if not isinstance(items, list) or not items or not all(isinstance(s, str) and s.strip() for s in items):
            return f"'{key}' must be a non-empty list of strings"
    return None


def llm_themes(llm: ChatModel, central_texts: list[str], n_themes: int, n_questions: int) -> ClusterThemes | str:
    """Themes + questions from the LLM, or the error string when the reply is unusable."""
    from ragcov_tui.llm.json_reply import complete_json

    passages = "\n\n".join(f"Passage {i + 1}:\n{t[:LLM_CHARS]}" for i, t in enumerate(central_texts[:LLM_CHUNKS]))
    messages = [
        {"role": "system", "content": "You help improve the test set of a retrieval-augmented generation system. "
                                      "Reply with JSON only."},
        {"role": "user", "content": (
            f"The passages below come from one topic of a knowledge base that the test questions do not cover well "
            f"(the least covered passages first).\n"
            f"Name 3 to {n_themes} short themes (2-4 words each) and write {n_questions} distinct questions a user "
            f"would ask that these passages answer.\nReply as {{\"themes\": [...], \"questions\": [...]}}.\n\n{passages}")},
    ]
    result = complete_json(llm, messages, validate=validate_reply)
    if not result.ok:
        return result.error or "unusable reply"
    origin = f"llm:{llm.spec}"
    themes = [s.strip() for s in result.data["themes"]][:n_themes]
    questions = [{"text": s.strip(), "origin": origin} for s in result.data["questions"][:n_questions]]
    return ClusterThemes(themes, questions, origin)


def gap_themes(llm: ChatModel | None, texts_by_cluster: list[list[str]], gap_texts: dict[int, list[str]], *,
               n_themes: int, n_questions: int, progress: Progress | None = None) -> list[ClusterThemes]:
    """Themes for every cluster and suggested questions for each gap ``k`` in ``gap_texts`` (LLM when
    given, else heuristic), drawn from ``gap_texts[k]``: the gap's chunks, least covered first."""
    base = heuristic_themes(texts_by_cluster, n_themes, n_questions, gap_texts)
    gap_clusters = list(gap_texts)
    if llm is None or not gap_clusters:
        return base
    outcomes = run_bounded(lambda k: llm_themes(llm, gap_texts[k], n_themes, n_questions), gap_clusters,
                           concurrency=4, progress=progress, stage="themes")
    for k, outcome in zip(gap_clusters, outcomes):
        value = outcome.value if outcome.ok else f"{type(outcome.error).__name__}: {outcome.error}"
        if isinstance(value, ClusterThemes):
            base[k] = value
        else:
            base[k].fallback = value
            base[k].note = f"heuristic themes and questions: the LLM failed ({value})"
    return base


def llm_fallback(themes: list[ClusterThemes]) -> dict[str, Any] | None:
    """``{"gaps": failed, "asked": asked, "cause": first failure}`` when the LLM was asked for gap
    themes and failed for at least one gap (those gaps carry heuristic themes), else None."""
    failed = [t.fallback for t in themes if t.fallback]
    if not failed:
        return None
    asked = len(failed) + sum(1 for t in themes if t.origin != HEURISTIC)
    return {"gaps": len(failed), "asked": asked, "cause": failed[0]}


def check_llm_fallback(themes: list[ClusterThemes], llm_spec: str, *, allow: bool,
                       warn: Callable[[str], None] | None) -> None:
    """Say when gaps fell back to heuristic themes: one ``warn`` line naming how many and the first
    cause; a ProviderError (exit 1) instead when not one LLM call succeeded, unless ``allow``."""
    fallback = llm_fallback(themes)
    if fallback is None:
        return
    every = fallback["gaps"] == fallback["asked"]
    share = "every gap" if every else f"{fallback['gaps']} of {fallback['asked']} gaps"
    message = f"--llm {llm_spec}: themes and questions of {share} fell back to the heuristic ({fallback['cause']})"
    if every and not allow:
        raise ProviderError(f"{message}; fix the model server, or pass --allow-fallback to accept heuristic themes")
    if warn is not None:
        warn(message)
