"""Figures in text — numbers, money, percentages, durations, sizes, versions, dates — normalised.

The offline faithfulness heuristic needs "every figure in a claim appears in the context" and
"a claim whose figure differs from the context's figure for the same unit is contradicted". So
``extract_quantities`` turns ``$1,000``, ``1000 USD`` and ``1k dollars`` into the same
``Quantity(kind="number", value=1000.0, unit="usd")``, ``2 hours`` and ``120 minutes`` into
``value=7200.0, unit="s"``, ``15%`` and ``15 percent`` into ``unit="%"``, ``v2.3.1`` and
``version 2.3.1`` into ``Quantity(kind="version", value="2.3.1")``, and ``March 1, 2024`` /
``1 March 2024`` / ``2024-03-01`` into ``Quantity(kind="date", value="2024-03-01")``, and times of
day ``4 pm`` / ``4:00 p.m.`` / ``16:00`` / ``16:0`` (a business record's hours) into
``Quantity(kind="time", value="16:00")``, so "opens at 10:00 am" is held by "10:0-16:0" and "closes at
6 pm" conflicts with it instead of with a star rating.

Number words count only when a unit follows (``thirty days``), so "one of the plans" is not a
figure. An unknown trailing word leaves ``unit=None`` (compatible with any unit) and is kept as
``noun`` (``12 regions`` → ``noun="region"``): two unitless figures conflict only when their nouns
agree or one has none, so "12 regions" does not contradict "100 requests". Digits glued to letters
(``abc123``, ``1a2b``, ``4G``) are identifiers, not figures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ragcov_tui.evaluation.generation.text import STOP_WORDS

MONTHS = {
    m: i + 1
    for i, m in enumerate(
        [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ]
    )
}
MONTHS.update({m[:3]: i for m, i in list(MONTHS.items())})
MONTHS["sept"] = 9

CURRENCY_SYMBOLS = {"$": "usd", "€": "eur", "£": "gbp", "¥": "jpy", "₹": "inr"}
CURRENCY_WORDS = {
    "usd": "usd",
    "dollar": "usd",
    "dollars": "usd",
    "eur": "eur",
    "euro": "eur",
    "euros": "eur",
    "gbp": "gbp",
    "pound": "gbp",
    "pounds": "gbp",
    "jpy": "jpy",
    "yen": "jpy",
    "inr": "inr",
    "rupees": "inr",
    "chf": "chf",
    "cad": "cad",
    "aud": "aud",
}
# unit word -> (canonical unit, factor to the canonical unit)
UNIT_WORDS: dict[str, tuple[str, float]] = {
    "%": ("%", 1.0),
    "percent": ("%", 1.0),
    "pct": ("%", 1.0),
    "ms": ("s", 0.001),
    "millisecond": ("s", 0.001),
    "milliseconds": ("s", 0.001),
    "s": ("s", 1.0),
    "sec": ("s", 1.0),
    "secs": ("s", 1.0),
    "second": ("s", 1.0),
    "seconds": ("s", 1.0),
    "min": ("s", 60.0),
    "mins": ("s", 60.0),
    "minute": ("s", 60.0),
    "minutes": ("s", 60.0),
    "h": ("s", 3600.0),
    "hr": ("s", 3600.0),
    "hrs": ("s", 3600.0),
    "hour": ("s", 3600.0),
    "hours": ("s", 3600.0),
    "day": ("s", 86400.0),
    "days": ("s", 86400.0),
    "week": ("s", 604800.0),
    "weeks": ("s", 604800.0),
    "month": ("month", 1.0),
    "months": ("month", 1.0),
    "year": ("year", 1.0),
    "years": ("year", 1.0),
    "b": ("byte", 1.0),
    "byte": ("byte", 1.0),
    "bytes": ("byte", 1.0),
    "kb": ("byte", 1e3),
    "mb": ("byte", 1e6),
    "gb": ("byte", 1e9),
    "tb": ("byte", 1e12),
    "kib": ("byte", 2.0**10),
    "mib": ("byte", 2.0**20),
    "gib": ("byte", 2.0**30),
    "tib": ("byte", 2.0**40),
    "kilobytes": ("byte", 1e3),
    "megabytes": ("byte", 1e6),
    "gigabytes": ("byte", 1e9),
    "terabytes": ("byte", 1e12),
    "mm": ("m", 0.001),
    "cm": ("m", 0.01),
    "m": ("m", 1.0),
    "meter": ("m", 1.0),
    "meters": ("m", 1.0),
    "metre": ("m", 1.0),
    "metres": ("m", 1.0),
    "km": ("m", 1000.0),
    "kilometers": ("m", 1000.0),
    "g": ("g", 1.0),
    "gram": ("g", 1.0),
    "grams": ("g", 1.0),
    "kg": ("g", 1000.0),
    "kilograms": ("g", 1000.0),
    "x": ("x", 1.0),
    "times": ("x", 1.0),
}
MULTIPLIERS = {
    "k": 1e3,
    "thousand": 1e3,
    "m": 1e6,
    "mm": 1e6,
    "million": 1e6,
    "bn": 1e9,
    "b": 1e9,
    "billion": 1e9,
    "trillion": 1e12,
}
NUMBER_WORDS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "fifteen": 15,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "ninety": 90,
    "hundred": 100,
    "a hundred": 100,
    "a thousand": 1000,
}
MONEY_UNITS = frozenset(CURRENCY_SYMBOLS.values()) | frozenset(CURRENCY_WORDS.values())

_MONTH_RE = "|".join(sorted(MONTHS, key=len, reverse=True))
_DATE_PATTERNS = [
    (re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b"), ("y", "m", "d")),
    (re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I), ("m", "d", "y")),
    (re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\.?,?\s+(\d{{4}})\b", re.I), ("d", "m", "y")),
    (re.compile(rf"\b({_MONTH_RE})\.?\s+(\d{{4}})\b", re.I), ("m", "y")),
]
_TIME_RE = re.compile(
    r"\b(?P<h>\d{1,2})(?::(?P<m>\d{1,2}))?\s?(?P<half>[ap])\.?m\b\.?|\b(?P<h24>\d{1,2}):(?P<m24>\d{1,2})\b(?!:\d)", re.I
)
_VERSION_RE = re.compile(r"(?:\bversion\s+v?|\bv)(\d+(?:\.\d+)*)\b|\b(\d+\.\d+\.\d+(?:\.\d+)*)\b", re.I)
_NUMBER = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_AMOUNT_RE = re.compile(
    rf"(?P<cur>[$€£¥₹])?\s?(?P<num>{_NUMBER})(?:\s?(?P<mult>k|mm|m|bn|b|thousand|million|billion|trillion)\b)?"
    rf"(?:\s?-?\s?(?P<unit>%|[a-z]+\b))?",
    re.I,
)
_SCALE_RE = re.compile(r"(?:\bout of|\d/)\s*$", re.I)
_WORD_AMOUNT_RE = re.compile(
    r"\b(?P<word>a hundred|a thousand|"
    + "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
    + r")[\s-]+(?P<unit>[a-z%]+)\b",
    re.I,
)


@dataclass(frozen=True)
class Quantity:
    """One normalised figure: ``kind`` number|version|date|time, ``value``, ``unit`` (None = unitless),
    the ``noun`` that follows a unitless number, and the ``text`` it was read from."""

    kind: str
    value: float | str
    unit: str | None = None
    text: str = ""
    noun: str | None = None

    def same_figure(self, other: Quantity) -> bool:
        """True when both denote the same figure: same kind, equal value, compatible unit.

        Dates match at the coarser granularity (``2024-03`` matches ``2024-03-01``).
        """
        if self.kind != other.kind:
            return False
        if self.kind == "date":
            a, b = sorted((str(self.value), str(other.value)), key=len)
            return b == a or b.startswith(a + "-")
        if self.kind in ("version", "time"):
            return self.value == other.value
        if not units_compatible(self.unit, other.unit):
            return False
        x, y = float(self.value), float(other.value)
        return abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))

    def conflicts_with(self, other: Quantity) -> bool:
        """True when both measure the same unit (both set and equal, or both unitless) but differ."""
        if self.kind != other.kind or self.same_figure(other):
            return False
        if self.kind == "date":
            return len(str(self.value)) == len(str(other.value))
        if self.kind in ("version", "time"):
            return True
        if self.unit is None and other.unit is None:
            if _year_like(self) != _year_like(other):
                return False  # a year is not another count: "4.0 stars" vs "2013"
            return self.noun is None or other.noun is None or self.noun == other.noun
        return _dimension(self.unit) == _dimension(other.unit)


def _year_like(q: Quantity) -> bool:
    """A unitless whole number between 1800 and 2100: probably a year."""
    value = float(q.value)
    return q.unit is None and value.is_integer() and 1800 <= value <= 2100


def _dimension(unit: str | None) -> str | None:
    """Currencies share the dimension ``money`` ($49 vs €49 conflict); other units are their own."""
    return "money" if unit in MONEY_UNITS else unit


def units_compatible(a: str | None, b: str | None) -> bool:
    """Units match when equal or when either side has none."""
    return a is None or b is None or a == b


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def _unit(word: str | None) -> tuple[str | None, float]:
    if not word:
        return None, 1.0
    w = word.lower()
    if w in CURRENCY_WORDS:
        return CURRENCY_WORDS[w], 1.0
    if w in UNIT_WORDS:
        return UNIT_WORDS[w]
    return None, 1.0


def _dates(text: str, taken: list[tuple[int, int]]) -> list[Quantity]:
    out = []
    for pattern, order in _DATE_PATTERNS:
        for m in pattern.finditer(text):
            if _overlaps(m.span(), taken):
                continue
            parts = dict(zip(order, m.groups(), strict=True))
            month = parts["m"]
            month_no = int(month) if month.isdigit() else MONTHS[month.lower().rstrip(".")]
            value = f"{int(parts['y']):04d}-{month_no:02d}"
            if "d" in parts:
                value += f"-{int(parts['d']):02d}"
            taken.append(m.span())
            out.append(Quantity("date", value, None, m.group(0)))
            out.append(Quantity("number", float(parts["y"]), None, parts["y"]))
    return out


def _times(text: str, taken: list[tuple[int, int]]) -> list[Quantity]:
    """Times of day as ``HH:MM`` (24 h); impossible ones (``25:00``, ``13 pm``) are left to the numbers."""
    out = []
    for m in _TIME_RE.finditer(text):
        hour, minute = int(m.group("h") or m.group("h24")), int(m.group("m") or m.group("m24") or 0)
        half = (m.group("half") or "").lower()
        if half:
            if not 1 <= hour <= 12:
                continue
            hour = hour % 12 + (12 if half == "p" else 0)
        if hour > 24 or minute > 59 or _overlaps(m.span(), taken):
            continue
        taken.append(m.span())
        out.append(Quantity("time", f"{hour % 24:02d}:{minute:02d}", None, m.group(0).strip()))
    return out


def _overlaps(span: tuple[int, int], taken: list[tuple[int, int]]) -> bool:
    return any(span[0] < e and s < span[1] for s, e in taken)


def extract_quantities(text: str) -> list[Quantity]:
    """Every figure in ``text``, normalised (see the module docstring), in no particular order."""
    taken: list[tuple[int, int]] = []
    out = _dates(text, taken)
    out += _times(text, taken)
    for m in _VERSION_RE.finditer(text):
        if not _overlaps(m.span(), taken):
            taken.append(m.span())
            out.append(Quantity("version", m.group(1) or m.group(2), None, m.group(0)))
    for m in _AMOUNT_RE.finditer(text):
        if _overlaps(m.span(), taken) or _glued(text, m.start("num"), m.end()):
            continue
        unit_word = m.group("unit")
        if unit_word and len(unit_word) == 1 and unit_word.isupper() and m.end("num") == m.start("unit"):
            continue  # 4G, 3D: an identifier
        if _SCALE_RE.search(text, 0, m.start()):
            continue  # "4.0 out of 5 stars", "8/10": the 5 and the 10 are the scale, not a figure
        value = _num(m.group("num"))
        mult = (m.group("mult") or "").lower()
        if mult in ("m", "b") and unit_word is None and not m.group("cur"):
            unit_word, mult = mult, ""  # "5 m" is metres, "8 b" bytes, unless money
        value *= MULTIPLIERS.get(mult, 1.0)
        unit, factor = _unit(unit_word)
        if m.group("cur"):
            unit, factor = CURRENCY_SYMBOLS[m.group("cur")], 1.0
        noun = _noun(unit_word) if unit is None else None
        end = (
            m.start("unit")
            if unit_word and (unit is None or m.group("cur")) and unit_word.lower() not in CURRENCY_WORDS
            else m.end()
        )
        taken.append(m.span())
        out.append(Quantity("number", value * factor, unit, text[m.start() : end].strip(), noun))
    for m in _WORD_AMOUNT_RE.finditer(text):
        unit, factor = _unit(m.group("unit"))
        if unit is not None and not _overlaps(m.span(), taken):
            out.append(Quantity("number", NUMBER_WORDS[m.group("word").lower()] * factor, unit, m.group(0)))
    return out


def _noun(word: str | None) -> str | None:
    """The crude singular of a word following a unitless number, or None for stop words."""
    if not word or not word.isalpha() or word.lower() in STOP_WORDS:
        return None
    w = word.lower()
    return w[:-1] if w.endswith("s") and len(w) > 3 else w


def _glued(text: str, start: int, end: int) -> bool:
    """Digits glued to letters or an id (``abc123``, ``1a2b3c``, ``#0``) are not a figure."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return before.isalpha() or before in "#_" or after.isalnum() or after == "_"


def missing_quantities(claim: list[Quantity], context: list[Quantity]) -> list[Quantity]:
    """The claim's figures that appear nowhere in ``context``."""
    return [q for q in claim if not any(q.same_figure(c) for c in context)]


def conflicting_pairs(claim: list[Quantity], context: list[Quantity]) -> list[tuple[Quantity, Quantity]]:
    """(claim figure, context figure) pairs that measure the same unit with different values."""
    return [(q, c) for q in claim for c in context if q.conflicts_with(c)]
