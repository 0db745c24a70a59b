"""Text helpers for the generation metrics: citations, sentences, keyword matching, token F1.

- ``parse_citations``: chunk ids cited in ``[brackets]`` (``[a.md#0-1a2b3c4d]``, several per bracket
  separated by commas or semicolons); markdown links ``[text](url)`` and check boxes are not
  citations. ``strip_citations`` removes them so a claim reads as plain text.
- ``split_sentences``: splits on sentence ends and line breaks (list items are sentences), and
  does not split inside decimals, versions, file names, URLs or common abbreviations.
- ``normalise_for_match`` / ``contains_phrase``: case-, space- and punctuation-insensitive phrase
  matching with figures normalised (``1,000`` → ``1000``, ``$49`` → ``49``).
- ``token_f1``: SQuAD-style F1 over content tokens (stop words dropped, figures normalised).
"""

from __future__ import annotations

import re
from collections import Counter

_BRACKET_RE = re.compile(r"\[([^\[\]\n]+)\](?!\()")
_LINK_RE = re.compile(r"\[([^\[\]\n]+)\]\([^)\s]*\)")
_CHECKBOX = {"", " ", "x", "X"}
ABBREVIATIONS = {
    "e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "prof", "inc", "ltd", "co", "jr", "sr",
    "st", "no", "fig", "approx", "dept", "est", "min", "max", "cf", "al", "u.s", "a.m", "p.m",
}
_BULLET_RE = re.compile(r"^\s*(?:[-*•+]|\d+[.)]|[a-z][.)])\s+", re.I)
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
STOP_WORDS = frozenset(
    "a an the and or but if of to in on at by for with from as is are was were be been being it "
    "its this that these those there here you your we our they their he she his her i me my "
    "do does did can could will would should may might must have has had not no so than then "
    "also about into over under per via what which who whom whose when where why how all any "
    "each every some such only just very more most".split())


def parse_citations(answer: str) -> list[str]:
    """Distinct ids cited in ``[brackets]`` in order of first appearance.

    ``"See [a.md#0-1a2b, b.md#2-9f9f] and [a.md#0-1a2b]"`` → ``["a.md#0-1a2b", "b.md#2-9f9f"]``.
    """
    seen: dict[str, None] = {}
    for m in _BRACKET_RE.finditer(_LINK_RE.sub("", answer or "")):
        if m.group(1) in _CHECKBOX:
            continue
        for part in re.split(r"[,;]", m.group(1)):
            cid = part.strip()
            if cid:
                seen.setdefault(cid, None)
    return list(seen)


def strip_citations(text: str) -> str:
    """``text`` without citation brackets (markdown links keep their label)."""
    text = _LINK_RE.sub(lambda m: m.group(1), text or "")
    text = _BRACKET_RE.sub("", text)
    text = re.sub(r"[ \t]+([.,;:!?])", r"\1", text)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def _ends_with_abbreviation(fragment: str) -> bool:
    words = fragment.rstrip().split()
    if not words:
        return False
    last = words[-1].rstrip(".").lower().lstrip("(\"'")
    return last in ABBREVIATIONS or (len(last) == 1 and last.isalpha())


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (citations stripped, bullets removed, empty pieces dropped)."""
    out: list[str] = []
    for line in strip_citations(text).splitlines():
        line = _BULLET_RE.sub("", line).strip()
        if not line:
            continue
        pieces: list[str] = []
        for piece in _SENTENCE_END_RE.split(line):
            if pieces and _ends_with_abbreviation(pieces[-1]):
                pieces[-1] = f"{pieces[-1]} {piece}"
            else:
                pieces.append(piece)
        out.extend(p.strip() for p in pieces if p.strip())
    return out


def _normalise_numbers(text: str) -> str:
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    return re.sub(r"(\d)\.0+\b", r"\1", text)


def normalise_for_match(text: str) -> str:
    """Lower case, figures normalised, punctuation (but decimal points) → spaces, spaces collapsed."""
    text = _normalise_numbers((text or "").lower())
    text = re.sub(r"(?<!\d)\.|\.(?!\d)", " ", text)
    text = re.sub(r"[^\w.]+", " ", text)
    return " ".join(text.split())


def contains_phrase(haystack: str, phrase: str) -> bool:
    """True when ``phrase`` occurs in ``haystack`` as whole words after normalisation; a plural
    ``s``/``es`` after it is tolerated (``refund`` matches ``refunds``). A phrase containing
    separators (``log-in``, ``e mail``) also matches its closed form (``login``, ``email``).
    """
    needle = normalise_for_match(phrase)
    if not needle:
        return False
    hay = normalise_for_match(haystack)
    forms = [needle, needle.replace(" ", "")] if " " in needle else [needle]
    return any(re.search(rf"(?<![\w.]){re.escape(form)}(?:e?s)?(?!\w|\.\d)", hay) for form in forms)


def content_tokens(text: str) -> list[str]:
    """Normalised word tokens without stop words (figures kept)."""
    return [t for t in normalise_for_match(text).split() if t not in STOP_WORDS]


def token_f1(prediction: str, reference: str) -> float:
    """F1 of the bag-of-content-tokens overlap; 0.0 when either side has no content token."""
    pred, ref = Counter(content_tokens(prediction)), Counter(content_tokens(reference))
    common = sum((pred & ref).values())
    if common == 0:
        return 0.0
    precision = common / sum(pred.values())
    recall = common / sum(ref.values())
    return 2 * precision * recall / (precision + recall)
