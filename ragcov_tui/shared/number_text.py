"""Numbers as every front end prints them: one place for the format of a count and of a signed difference.

- :func:`count`: a whole number with thousands separated (``5,055``), so "2,442 of 5,946 documents"
  reads like "1,909,694 tokens" beside it;
- :func:`signed`: a difference with its sign (``+0.012``, ``-0.250``), and a value that rounds to zero
  shown as ``+0.000``, never ``-0.000``.
"""

from __future__ import annotations


def count(n: int | None) -> str:
    """``n`` with thousands separated (``1,234``); None (a count not known) as ``?``."""
    return "?" if n is None else f"{n:,}"


def signed(value: float, digits: int = 3) -> str:
    """``value`` with its sign and ``digits`` decimals; what rounds to zero is ``+0.000``."""
    text = f"{value:+.{digits}f}"
    return "+" + text[1:] if text.startswith("-") and not text.strip("-0.") else text
