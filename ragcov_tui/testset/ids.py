"""Identity helpers for test-file rows: the normalised text key, the content ids of rows without an
id, and fresh ids that fit the file."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence

_NUMBERED = re.compile(r"^(.*?)([0-9]{1,18})$")  # ASCII digits (int() of "²" fails), 18 at most (of 5000 too)
FALLBACK_PREFIX = "ragcov-"


def id_key(value: str | int) -> str:
    """The form in which two question ids are compared: the text of the id, without surrounding
    whitespace (``1``, ``"1"`` and ``" 1 "`` are one id, as in a qrels file's fields). Two rows
    whose ids are equal under it are duplicates."""
    return str(value).strip()


def text_key(text: str) -> str:
    """The normalised form of a question, equal for questions that differ only trivially.

    NFKC-normalise, casefold, collapse runs of whitespace to one space, then strip whitespace and
    punctuation (Unicode category P*) from the end: ``"  What is  X ?"`` -> ``"what is  x"`` ->
    ``"what is x"``. Used to remember rejected suggestions and to refuse duplicates.
    """
    key = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    end = len(key)
    while end and (key[end - 1].isspace() or unicodedata.category(key[end - 1]).startswith("P")):
        end -= 1
    return key[:end]


def content_id(text: str) -> str:
    """An id for a row that carries none, from its content rather than its place:
    ``q-`` + the first 10 hex digits of sha256(:func:`text_key`). It stays the same when a row
    above is dropped or the rows are reordered, and is equal for texts equal under text_key."""
    return "q-" + hashlib.sha256(text_key(text).encode("utf-8")).hexdigest()[:10]


def content_ids(texts: Iterable[str], taken: set[str]) -> list[str]:
    """The ids of test-file rows that carry none, in file order (``taken``: the ids the file's
    other rows carry; each id given is added to it).

    A row gets :func:`content_id` of its text; when that is taken — the 2nd, 3rd… row with the
    same text under :func:`text_key`, or a row whose explicit id happens to be it — the row gets
    ``<content id>-2``, ``-3``… (the first one free, counting in file order). So an id moves only
    among rows that share one text: dropping the first of two makes the second take the plain id.
    Dropping, inserting or reordering any other row moves no id.
    """
    next_suffix: dict[str, int] = {}
    ids = []
    for text in texts:
        base = content_id(text)
        number = next_suffix.get(base, 1)
        candidate = base if number == 1 else f"{base}-{number}"
        while candidate in taken:
            number += 1
            candidate = f"{base}-{number}"
        next_suffix[base] = number + 1
        taken.add(candidate)
        ids.append(candidate)
    return ids


def fresh_id(existing: Sequence[str | int]) -> str | int:
    """A new id, unused in ``existing``, that follows the ids already in the file.

    - every id an integer -> max + 1 (an integer);
    - at least half the ids are ``<prefix><digits>`` with one prefix -> that prefix and the
      next number after the largest, zero-padded to the widest when the ids are padded
      (``q007`` ... ``q030`` -> ``q031``; ``"1"``, ``"2"`` -> ``"3"``);
    - otherwise ``ragcov-1``, ``ragcov-2``, ... (the first one free).
    """
    taken = {str(i) for i in existing}
    if existing and all(isinstance(i, int) for i in existing):
        number = max(int(i) for i in existing) + 1
        while str(number) in taken:
            number += 1
        return number
    matches = [m for m in (_NUMBERED.match(str(i)) for i in existing) if m]
    prefixes = Counter(m.group(1) for m in matches)
    prefix, width, number = FALLBACK_PREFIX, 0, 1
    if prefixes:
        top, count = prefixes.most_common(1)[0]
        if 2 * count >= len(existing):
            digits = [m.group(2) for m in matches if m.group(1) == top]
            padded = any(len(d) > 1 and d.startswith("0") for d in digits)
            prefix, width, number = top, max(map(len, digits)) if padded else 0, max(map(int, digits)) + 1
    while (candidate := f"{prefix}{number:0{width}d}") in taken:
        number += 1
    return candidate
