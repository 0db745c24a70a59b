"""What the offline support check reads in a claim and in the context unit that should support it.

- ``meta_free(sentence)``: the sentence without a leading source attribution ("According to
  passage 1, …", "Based on the provided context, …"), or None when the whole sentence is about
  the answer rather than the world ("Here is a summary in 175 words:", "The passages do not
  provide specific information about …"): such sentences are not claims.
- ``context_units(text)``: a chunk's units. A JSON record (object or list) becomes one
  ``path: value`` line per field (``hours Monday: 10:0-16:0``, ``business stars: 4.0``,
  ``attributes Outdoor Seating: True``: the last two keys, split at ``_`` and camelCase), long
  string values split into sentences, so a claim is checked against the field that holds its
  figure, not against prose elsewhere; an object inside a list (a review) adds one unit with all
  its fields joined by ``; `` after them, so "a reviewer gave it 5 stars, praising the oysters"
  meets the stars and the text of the same review; other text is split by ``text.split_sentences``.
- ``names(claim)``: capitalised words (not the first word) and acronyms: the names a
  supporting unit must contain.
- ``missing_words(claim, unit)``: the claim's content words absent from the unit (a word matches
  on its first ``STEM`` letters, so "arrested" finds "arrest"; figures are left to ``quantities``).
- ``antonym_clash(claim, unit)``: a word pair (claim word, unit word) of opposite meaning
  ("increased" vs "decreased") when the unit has the opposite word and not the claim's word.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ragcov_tui.evaluation.generation.text import content_tokens, normalise_for_match, split_sentences

STEM = 5
LONG_VALUE_WORDS = 12
_META_PREFIX_RE = re.compile(
    r"^\s*(?:(?:according to|based on|as (?:stated|mentioned|described) in|per|from)\s+(?:the\s+)?"
    r"(?:(?:given|provided|above|following|available|structured)\s+)*"
    r"(?:passages?|context|documents?|sources?|text|article|news|data|information|reviews?|json)"
    r"(?:\s*\d+)?(?:\s+(?:and|&)\s+\d+)*\s*,\s*)",
    re.I,
)
_META_SENTENCE_RE = re.compile(
    r"^\s*(?:here(?:'s| is| are)|below is|sure[,!]|certainly[,!]|okay[,!]|in summary\s*:)|"
    r"\b(?:in|within|under)\s+\d+\s+words\b|:\s*$|"
    r"\b(?:passages?|context|documents?|text|article|data|information|sources?)\s+(?:do|does|did)\s+not\s+"
    r"(?:provide|mention|specify|contain|say|include|state|give|offer|list)|"
    r"\bthere (?:is|was) no (?:information|mention|data|details?)\b|"
    r"\b(?:not|no) (?:specific |further |additional |more )?(?:information|details?) "
    r"(?:is |are )?(?:provided|given|available|mentioned)\b",
    re.I,
)
_CAMEL_RE = re.compile(r"(?<=[a-z]{2})(?=[A-Z][a-z]{2})")
SCALE_RE = re.compile(r"\b(?:out of|/)\s*\d+(?:\.\d+)?(?:\s+(?:stars?|points?))?", re.I)
_NAME_RE = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]+(?:[A-Z][a-z]+)*|[A-Z]{2,})\b")
_ANTONYMS = [
    ("increase", "decrease"),
    ("rise", "fall"),
    ("higher", "lower"),
    ("more", "less"),
    ("win", "lose"),
    ("won", "lost"),
    ("open", "closed"),
    ("before", "after"),
    ("allow", "ban"),
    ("approve", "reject"),
    ("accept", "refuse"),
    ("support", "oppose"),
    ("guilty", "innocent"),
    ("alive", "dead"),
    ("male", "female"),
    ("husband", "wife"),
    ("father", "mother"),
    ("son", "daughter"),
    ("buy", "sell"),
    ("bought", "sold"),
    ("cheap", "expensive"),
    ("early", "late"),
    ("first", "last"),
    ("north", "south"),
    ("east", "west"),
    ("destroy", "preserve"),
    ("positive", "negative"),
    ("friendly", "rude"),
    ("clean", "dirty"),
    ("best", "worst"),
    ("good", "bad"),
    ("fast", "slow"),
    ("large", "small"),
]


def meta_free(sentence: str) -> str | None:
    """``sentence`` without a source-attribution prefix; None when it is a meta sentence."""
    head, colon, rest = sentence.partition(":")
    if colon and rest.strip() and _META_SENTENCE_RE.search(head + colon):
        sentence = rest.strip()  # "Here is a summary in 175 words: The cafe opens at 10."
    if _META_SENTENCE_RE.search(sentence):
        return None
    stripped = _META_PREFIX_RE.sub("", sentence, count=1)
    if stripped is not sentence and stripped:
        stripped = stripped[0].upper() + stripped[1:]
    return stripped


def context_units(text: str) -> tuple[list[str], bool]:
    """A chunk's units (see the module docstring) and whether they are a record's fields."""
    record = _json_record(text)
    if record is None:
        return split_sentences(text), False
    units: list[str] = []
    _flatten(record, [], units)
    return units, True


def _json_record(text: str) -> Any:
    head = text.lstrip()[:1]
    if head not in ("{", "["):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict | list) else None


def _flatten(value: Any, path: list[str], out: list[str]) -> None:
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten(inner, path + [_CAMEL_RE.sub(" ", str(key)).replace("_", " ")], out)
    elif isinstance(value, list):
        for inner in value:
            start = len(out)
            _flatten(inner, path, out)
            if isinstance(inner, dict) and len(out) - start > 1:
                out.append("; ".join(out[start:]))
    elif value is not None and str(value).strip():
        label = " ".join(path[-2:])
        text = str(value).strip()
        if len(text.split()) > LONG_VALUE_WORDS:
            out.extend(split_sentences(text))
        else:
            out.append(f"{label}: {text}" if label else text)


def names(claim: str) -> list[str]:
    """Capitalised words after the first word, and acronyms (deduplicated, in order)."""
    return list(dict.fromkeys(m.group(1) for m in _NAME_RE.finditer(claim)))


def _stems(text: str) -> set[str]:
    return {t[:STEM] for t in content_tokens(text) if not t.replace(".", "").isdigit()}


def missing_words(claim: str, unit: str) -> list[str]:
    """The claim's non-figure content words whose stem the unit lacks (first occurrence order)."""
    have = _stems(unit)
    words = [t for t in content_tokens(claim) if not t.replace(".", "").isdigit()]
    return list(dict.fromkeys(w for w in words if w[:STEM] not in have))


def antonym_clash(claim: str, unit: str) -> tuple[str, str] | None:
    """(claim word, unit word) of opposite meaning, when the unit lacks the claim's word."""
    c, u = set(normalise_for_match(claim).split()), set(normalise_for_match(unit).split())
    for a, b in _ANTONYMS:
        for x, y in ((a, b), (b, a)):
            if _has(c, x) and not _has(u, x) and _has(u, y) and not _has(c, y):
                return x, y
    return None


def _has(words: set[str], word: str) -> bool:
    return any(w == word or (w.startswith(word) and len(w) - len(word) <= 3) for w in words)
