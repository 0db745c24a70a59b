"""Text helpers for the generation metrics: citations, sentences, keyword matching, token F1.

- ``parse_citations``: chunk ids cited in ``[brackets]`` (``[a.md#0-1a2b3c4d]``, several per bracket
  separated by commas or semicolons); markdown links ``[text](url)`` and check boxes are not
  citations. ``strip_citations`` removes them so a claim reads as plain text.
- ``text_units`` / ``split_sentences``: Markdown-aware sentences. Hard-wrapped lines of a
  paragraph or list item are joined before splitting on sentence ends (never inside decimals,
  versions, file names, URLs or common abbreviations; see ``continues``); list items, headings (ATX ``#`` and
  setext underlines, markers stripped), code lines and table rows are units of their own; a
  table row is rendered readably as ``header: value`` pairs; ``**bold**`` markers are dropped.
- ``normalise_for_match`` / ``contains_phrase``: case-, space- and punctuation-insensitive phrase
  matching with figures normalised (``1,000`` → ``1000``, ``$49`` → ``49``).
- ``token_f1``: SQuAD-style F1 over content tokens (stop words dropped, figures normalised).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

_BRACKET_RE = re.compile(r"\[([^\[\]\n]+)\](?!\()")
_LINK_RE = re.compile(r"\[([^\[\]\n]+)\]\([^)\s]*\)")
_CHECKBOX = {"", " ", "x", "X"}
ABBREVIATIONS = {
    "e.g",
    "i.e",
    "etc",
    "vs",
    "mr",
    "mrs",
    "ms",
    "dr",
    "prof",
    "inc",
    "ltd",
    "co",
    "jr",
    "sr",
    "st",
    "no",
    "fig",
    "approx",
    "dept",
    "est",
    "min",
    "max",
    "cf",
    "al",
    "u.s",
    "a.m",
    "p.m",
}
_BULLET_RE = re.compile(r"^\s*(?:[-*•+]|\d+[.)]|[a-z][.)])\s+", re.I)
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
STOP_WORDS = frozenset(
    "a an the and or but if of to in on at by for with from as is are was were be been being it "
    "its this that these those there here you your we our they their he she his her i me my "
    "do does did can could will would should may might must have has had not no so than then "
    "also about into over under per via what which who whom whose when where why how all any "
    "each every some such only just very more most".split()
)


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


_HEADING_RE = re.compile(r"^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$")
_UNDERLINE_RE = re.compile(r"^ {0,3}(?:={2,}|-{2,}|\*{3,}|_{3,})\s*$")  # setext underline / rule
_FENCE_RE = re.compile(r"^\s*(?:```|~~~)")
_QUOTE_RE = re.compile(r"^\s*>\s?")
_TABLE_ROW_RE = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_RULE_RE = re.compile(r"^\s*\|(?:\s*:?-+:?\s*\|)+\s*$")
_BOLD_RE = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_TERMINAL = (".", "!", "?")
WRAPPED_LINE_MIN = 60  # a line at least this long that stops mid-sentence was hard-wrapped


@dataclass(frozen=True)
class TextUnit:
    """One unit of a passage: ``kind`` is ``sentence`` (of a paragraph), ``item`` (a sentence of a
    list item), ``row`` (a rendered table row), ``heading`` or ``code`` (a line inside a fenced
    block); ``section`` is the text of the nearest heading above it in the passage ("" if none)."""

    text: str
    kind: str
    section: str = ""


def _sentences_of(block: str) -> list[str]:
    """Sentence-end split of one joined paragraph / list item, re-gluing abbreviation splits."""
    pieces: list[str] = []
    for piece in _SENTENCE_END_RE.split(block):
        if pieces and _ends_with_abbreviation(pieces[-1]):
            pieces[-1] = f"{pieces[-1]} {piece}"
        else:
            pieces.append(piece)
    return [p.strip() for p in pieces if p.strip()]


def _cells(row: str) -> list[str]:
    return [_BOLD_RE.sub(r"\2", c).strip() for c in row.strip().strip("|").split("|")]


def continues(previous: str, line: str) -> bool:
    """Whether ``line`` continues the sentence of the line before it: it starts with no capital
    letter, or the previous line is long (hard-wrapped prose) and ends without ``.``, ``!``,
    ``?`` or ``:``. Short unpunctuated lines (table rows or list entries flattened from HTML,
    one fact per line) stay units of their own."""
    if not line[:1].isupper():
        return True
    return len(previous) >= WRAPPED_LINE_MIN and not previous.endswith((*_TERMINAL, ":"))


def render_table_row(header: list[str] | None, cells: list[str]) -> str:
    """``Plan: Team; Billed monthly: $10; Billed annually: $8.`` — each non-empty cell as
    ``header: value``; a first column without a header becomes a label (``Storage — Free: 5 GB;
    …``); without a header row the cells are joined with ``; ``. Always ends a sentence."""
    named = [(header[i] if header and i < len(header) else "", cell) for i, cell in enumerate(cells)]
    label = ""
    if header and named and not named[0][0] and named[0][1]:
        label, named = f"{named[0][1]} — ", named[1:]
    text = label + "; ".join(f"{name}: {cell}" if name else cell for name, cell in named if cell)
    return text if text.endswith(_TERMINAL) else f"{text}."


def text_units(text: str) -> list[TextUnit]:
    """The units of ``text`` in order (citations stripped first; see the module docstring)."""
    units: list[TextUnit] = []
    block: list[str] = []
    block_kind = "sentence"
    header: list[str] | None = None
    in_fence = False
    section = ""

    def flush(kind: str | None = None) -> None:
        nonlocal section
        if block:
            joined = _BOLD_RE.sub(r"\2", " ".join(block))
            kind = kind or block_kind
            pieces = [joined] if kind == "heading" else _sentences_of(joined)
            units.extend(TextUnit(piece, kind, section) for piece in pieces)
            section = joined if kind == "heading" else section
            block.clear()

    lines = strip_citations(text).splitlines()
    for i, raw in enumerate(lines):
        if _FENCE_RE.match(raw):
            flush()
            in_fence = not in_fence
        elif in_fence:
            if raw.strip():
                units.append(TextUnit(raw.strip(), "code", section))
        elif _TABLE_ROW_RE.match(line := _QUOTE_RE.sub("", raw)):
            flush()
            header = _table_line(line, lines[i + 1] if i + 1 < len(lines) else None, header, section, units)
        elif not line.strip():
            flush()
            header = None
        elif _UNDERLINE_RE.match(line):
            flush("heading")  # the paragraph above is a setext heading; a rule alone ends nothing
        elif heading := _HEADING_RE.match(line):
            flush()
            block.append(heading.group(1))
            flush("heading")
        elif _BULLET_RE.match(line):
            flush()
            block_kind = "item"
            block.append(_BULLET_RE.sub("", line).strip())
        else:
            header = None
            if block and not continues(block[-1], line.strip()):
                flush()
            if not block:
                block_kind = "sentence"
            block.append(line.strip())
    flush()
    return [u for u in units if u.text]


def _table_line(
    line: str, next_line: str | None, header: list[str] | None, section: str, units: list[TextUnit]
) -> list[str] | None:
    """One Markdown table line: a rule adds nothing; a row above a rule is the header; any other row
    is appended to ``units`` rendered against ``header``. Returns the header in force after it."""
    if _TABLE_RULE_RE.match(line):
        return header
    if next_line is not None and _TABLE_RULE_RE.match(next_line):
        return _cells(line)
    units.append(TextUnit(render_table_row(header, _cells(line)), "row", section))
    return header


def split_sentences(text: str) -> list[str]:
    """The non-heading units of ``text`` (:func:`text_units`) as plain strings."""
    return [u.text for u in text_units(text) if u.kind != "heading"]


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
