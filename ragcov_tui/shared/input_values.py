"""Strict JSON for users' files, and the number and vector checks every reader shares.

Python's ``json`` accepts more than JSON and fails in ways a reader must not pass on: it reads
``NaN`` / ``Infinity`` / ``-Infinity`` literals and numbers that overflow to ``inf`` (``1e400``),
raises ``RecursionError`` on deep nesting and a bare ``ValueError`` on integers of more than 4300
digits, and accepts ``\\ud800`` escapes that give strings no UTF-8 encoder can write.
:func:`parse_json` refuses all of these, and nesting deeper than :data:`MAX_DEPTH`, with one
:class:`InvalidJson` carrying a message and the 1-based line and column in the text given.
Valid input costs about 1.2 times ``json.loads`` (a Python hook checks each float); text with
more than 100 brackets also gets a depth scan at C / numpy speed (about 0.3 times ``json.loads``).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import numpy as np

from ragcov_tui.shared.errors import BadInput

MAX_DEPTH = 100
EMBED_TEXT_CHARS = 8_000  # one text's share of an embedder: ~2k word pieces, ~9 windows of the local model
MAX_GRADE = 1e6  # far above any real judgement scale (0-3, 0-100); keeps every DCG sum finite
FLOAT32_MAX = float(np.finfo(np.float32).max)

_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_STRINGS = re.compile(_STRING)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")
_BRACKETS = re.compile(_STRING + r"|[\[\]{}]")
_CONSTANTS = re.compile(_STRING + r"|(-?Infinity|NaN)")
_LONG_INTEGER = re.compile(r"[0-9]{4301}")
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_HIGH, _LOW = re.compile(r"\\u[dD][89abAB]"), re.compile(r"\\u[dD][c-fC-F]")


class InvalidJson(ValueError):
    """Text that is not (strict) JSON: ``message`` at 1-based ``line`` / ``column``."""

    def __init__(self, message: str, line: int, column: int) -> None:
        message = message.removesuffix(" at")  # json's "Unterminated string starting at": no "at at column"
        super().__init__(f"{message} at line {line} column {column}")
        self.message, self.line, self.column = message, line, column


class _Refused(Exception):
    """Raised from a decoder hook: the literal that is not allowed."""


def _refuse_constant(name: str) -> Any:
    raise _Refused(name)


def _finite_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise _Refused(literal)
    return value


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)


def position(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of ``offset`` in ``text``."""
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


def _fail(text: str, message: str, offset: int) -> InvalidJson:
    return InvalidJson(message, *position(text, max(offset, 0)))


def parse_json(text: str) -> Any:
    """The JSON value in ``text``; InvalidJson for anything but strict, finite, shallow JSON."""
    if text.count("[") + text.count("{") > MAX_DEPTH and _depth(text) > MAX_DEPTH:
        _check_depth(text)
    try:
        value = _DECODER.decode(text)
    except json.JSONDecodeError as exc:
        raise InvalidJson(exc.msg, exc.lineno, exc.colno) from None
    except _Refused as exc:
        literal, field = str(exc), _non_finite_field(text)
        if literal in ("NaN", "Infinity", "-Infinity"):
            found = next((m for m in _CONSTANTS.finditer(text) if m.group(1)), None)
            raise _fail(
                text, f"{literal} is not valid JSON (numbers must be finite){field}", found.start() if found else 0
            ) from None
        raise _fail(
            text, f"number {literal[:30]} is too large (not a finite number){field}", text.find(literal)
        ) from None
    except RecursionError:
        raise InvalidJson(f"nested deeper than {MAX_DEPTH} levels", 1, 1) from None
    except ValueError:  # int() refusing a literal of more than 4300 digits
        found = _LONG_INTEGER.search(text)
        raise _fail(text, "a number with more than 4300 digits", found.start() if found else 0) from None
    if _SURROGATE.search(text):
        _check_surrogates(text, value)
    return value


def _non_finite_field(text: str) -> str:
    """`` in field 'x'``: the outermost object key above the first non-finite number of ``text``
    (read leniently, as Python's ``json`` does: ``NaN`` and ``1e400`` become floats), so a
    message names ``relevant_doc_ids`` or ``vector``, not only a column; empty when none."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return ""
    stack: list[tuple[Any, str | None]] = [(value, None)]
    while stack:
        item, key = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return f" in field {quoted(key)}" if key is not None else ""
        if isinstance(item, dict):
            stack.extend((v, k if key is None else key) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((v, key) for v in reversed(item))
    return ""


def _depth(text: str) -> int:
    """The deepest nesting of brackets outside strings (vectorised: strings and other characters
    are dropped by regex, the running depth is a numpy cumulative sum)."""
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub("", text))
    codes = np.frombuffer(brackets.encode("ascii"), dtype=np.uint8)
    return int(np.where((codes == ord("[")) | (codes == ord("{")), 1, -1).cumsum().max(initial=0))


def parse_json_line(line: str, where: str) -> Any:
    """:func:`parse_json` of one line of a file; BadInput ``<where>: invalid JSON (<why> at column <n>)``."""
    try:
        return parse_json(line)
    except InvalidJson as exc:
        raise BadInput(f"{where}: invalid JSON ({exc.message} at column {exc.column})") from None


def _check_depth(text: str) -> None:
    """InvalidJson at the first bracket nested deeper than MAX_DEPTH (a token by token scan)."""
    depth = 0
    for match in _BRACKETS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise _fail(text, f"nested deeper than {MAX_DEPTH} levels", match.start())
        elif token in "]}":
            depth -= 1


def _check_surrogates(text: str, value: Any) -> None:
    """InvalidJson when a string of ``value`` holds half a surrogate pair (from a lone escape).

    The parsed value decides; the reported position is that of the first escape the text
    does not pair (best effort: the start of the text when none is found).
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                break
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
    else:
        return
    lone = next(
        (m for m in _SURROGATE.finditer(text) if _is_escape(text, m.start()) and not _paired(text, m.start())), None
    )
    escape = lone.group() if lone else "\\uD800-\\uDFFF"
    raise _fail(
        text, f"{escape} escape without its surrogate pair (not valid Unicode text)", lone.start() if lone else 0
    )


def _is_escape(text: str, at: int) -> bool:
    """The backslash at ``at`` starts an escape (an even number of backslashes precede it)."""
    before = at
    while before and text[before - 1] == "\\":
        before -= 1
    return (at - before) % 2 == 0


def _paired(text: str, at: int) -> bool:
    if _HIGH.match(text, at):
        return _LOW.match(text, at + 6) is not None
    return at >= 6 and _HIGH.match(text, at - 6) is not None and _is_escape(text, at - 6)


def quoted(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to about ``limit`` characters (``…`` marks a cut): for messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def is_ascii_whole(text: str, max_digits: int = 18) -> bool:
    """``text`` is 1 to ``max_digits`` ASCII digits, which ``int(text)`` always reads:
    ``str.isdigit`` also accepts ``²`` and ``①`` (``int`` refuses them) and any length (``int``
    refuses more than 4300 digits)."""
    return 0 < len(text) <= max_digits and text.isascii() and text.isdigit()


def is_finite_number(value: Any) -> bool:
    """An int or float (not a bool) that is finite as a float (huge integers are not)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def long_text_note(where: str, what: str, length: int, count: int = 1) -> str:
    """The one warning for the texts of a file cut to :data:`EMBED_TEXT_CHARS` before embedding,
    naming the first (``where``: ``file:line``; ``what``: ``the query``, ``a text of field 'x'``)
    and how many there are."""
    more = f" ({count - 1:,} more such texts in the file)" if count > 1 else ""
    return f"{where}: {what} is {length:,} characters; only its first {EMBED_TEXT_CHARS:,} are embedded{more}"


def grade_problem(value: Any) -> str | None:
    """Why ``value`` cannot be a relevance grade, in a few words; None when it can.

    A grade is a finite number no larger than :data:`MAX_GRADE`: a sum of grades (nDCG's ideal
    DCG) must stay finite, or the score it divides becomes 0 whatever was retrieved. Whether a
    negative grade is refused or counted as 0 is the reader's rule (trec_eval's qrels: 0).
    """
    if not is_finite_number(value):
        return "must be a finite number"
    if value > MAX_GRADE:
        return f"must be at most {MAX_GRADE:g} (scale the grades down)"
    return None


def vector_problem(value: Any) -> str | None:
    """Why ``value`` cannot serve as an embedding vector, in a few words; None when it can.

    It must be a non-empty list of finite numbers that fit a 32-bit float, not all zero once
    stored as 32-bit floats, with a 32-bit length (``sqrt(sum(x²))``) that is finite: vectors are
    normalised to unit length in float32, so a zero or overflowing length has no direction.
    """
    if not isinstance(value, list) or not value or not all(is_finite_number(x) for x in value):
        return "must be a non-empty list of finite numbers"
    values = np.asarray(value, dtype=np.float64)
    if np.abs(values).max() > FLOAT32_MAX:
        return f"has a number beyond the 32-bit float range (±{FLOAT32_MAX:.3g})"
    with np.errstate(over="ignore", under="ignore"):
        length = float(np.linalg.norm(values.astype(np.float32)))
    if length == 0:
        return "is all zeros (a vector needs a direction for cosine similarity)"
    if not math.isfinite(length):
        return "is too long: its length overflows a 32-bit float (scale it down)"
    return None
