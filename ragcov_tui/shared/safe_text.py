"""Untrusted text made safe to show: no character that a terminal or a reader would obey survives.

Documents, questions, answers, model replies, file names and the values quoted in error messages
reach a terminal (CLI, app) or a report (Markdown) only through :func:`visible` (multi-line) or
:func:`visible_line` (one line: table cells, titles, notifications, error lines). They replace
every *unsafe* character by a printable stand-in, so ``"\\x1b]0;pwned\\x07"`` shows as
``␛]0;pwned␇`` instead of retitling the terminal. The mapping:

==============================================  =========================================
unsafe character                                shown as
==============================================  =========================================
C0 controls U+0000–U+001F (ESC, BEL, CR, …)     the Control Picture U+2400 + code: ``␛ ␇ ␍ ␀``
``\\n`` and ``\\t``                               kept by :func:`visible`; ``␊`` / ``␉`` on one line
``\\r\\n`` (a Windows line end)                   ``\\n`` in :func:`visible`; ``␊`` on one line
DEL U+007F                                      ``␡``
C1 controls U+0080–U+009F (CSI ``\\x9b``, NEL…)  ``\\x9b`` (backslash, x, two hex digits)
bidi controls U+061C, U+200E–U+200F,            ``<U+202E>``
U+202A–U+202E, U+2066–U+2069
line / paragraph separators U+2028–U+2029       ``<U+2028>``
tag characters U+E0000–U+E007F (invisible)      ``<U+E0041>``
lone surrogates U+D800–U+DFFF (not encodable)   ``<U+D800>``
==============================================  =========================================

Everything else (accents, CJK, emoji, markup-like ``[bold]``) is kept. Both functions are
idempotent: their output contains no unsafe character, so applying them twice changes nothing.
JSON keeps the exact text: :func:`escape_json_text` only rewrites the unsafe characters that
``json.dumps(ensure_ascii=False)`` leaves raw as ``\\uXXXX`` escapes, which decode to the same string.
"""

from __future__ import annotations

import re

BIDI_CONTROLS = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"

# every character that must not reach a terminal or a report raw (\n and \t included: the
# multi-line form exempts them itself)
UNSAFE_CLASS = f"\\x00-\\x1f\\x7f-\\x9f{BIDI_CONTROLS}\\u2028\\u2029\\ud800-\\udfff\\U000e0000-\\U000e007f"
UNSAFE = re.compile(f"[{UNSAFE_CLASS}]")
_UNSAFE_IN_BLOCK = re.compile(f"\r\n|(?![\n\t])[{UNSAFE_CLASS}]")
_RAW_IN_JSON = re.compile(f"[\\x7f-\\x9f{BIDI_CONTROLS}\\u2028\\u2029\\ud800-\\udfff\\U000e0000-\\U000e007f]")


def stand_in(char: str) -> str:
    """The printable form of one unsafe character (see the module's table)."""
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    if code <= 0x9F:
        return f"\\x{code:02x}"
    return f"<U+{code:04X}>"


def _replace(match: re.Match[str]) -> str:
    found = match.group()
    return "\n" if found == "\r\n" else stand_in(found)


def visible(text: str) -> str:
    """Multi-line text safe to show: line breaks and tabs kept (``\\r\\n`` becomes ``\\n``),
    every other unsafe character replaced by its stand-in."""
    return _UNSAFE_IN_BLOCK.sub(_replace, text) if UNSAFE.search(text) else text


def visible_line(text: str) -> str:
    """One line safe to show: every unsafe character replaced, ``\\n`` and ``\\t`` included
    (``\\r\\n`` counts as one line break, ``␊``)."""
    if not UNSAFE.search(text):
        return text
    return UNSAFE.sub(lambda m: stand_in(m.group()), text.replace("\r\n", "\n"))


_LINE_BREAKS = re.compile(r"[ \t\r\n]+")


def single_line(text: str) -> str:
    """Text for a one-line slot (a table cell, a title): runs of spaces, tabs and line breaks
    become one space, the ends are trimmed, every other unsafe character is made visible."""
    if not UNSAFE.search(text) and "  " not in text:  # the common case, ~10x faster
        return text.strip(" ")
    return visible_line(_LINE_BREAKS.sub(" ", text).strip(" "))


def is_safe(text: str, *, multiline: bool = True) -> bool:
    """True when ``text`` holds no unsafe character (``\\n`` and ``\\t`` allowed when ``multiline``)."""
    found = UNSAFE.findall(text)
    return not [c for c in found if not (multiline and c in "\n\t")]


def escape_json_text(json_text: str) -> str:
    """``json.dumps(..., ensure_ascii=False)`` output with DEL, C1, bidi, separator, tag and
    surrogate characters written as ``\\uXXXX`` (C0 is escaped by ``json.dumps`` already).

    These characters only occur inside JSON strings, where ``\\uXXXX`` is the same character,
    so ``json.loads`` gives back exactly the data that was dumped.
    """
    return _RAW_IN_JSON.sub(_json_escape, json_text)


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # outside the BMP: a UTF-16 surrogate pair, as JSON requires
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
