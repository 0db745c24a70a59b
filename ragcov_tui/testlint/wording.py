"""Answer in the question, and questions too vague to test (offline, by the words).

* **answer in the question**: every content word of the reference answer (stop words, and a
  leading yes / no, left out; ``text.content_tokens``) is in the question, and the answer has at
  least one. "Is the refund window 30 days?" → "30 days" gives itself away; "Yes." is not checked.
* **too vague**: fewer than ``MIN_CONTENT_WORDS`` content words ("What does it cost?"), or, in an
  English question, a third-person pronoun (``PRONOUNS``) before its second content word, with no
  name or figure in the question to refer to ("How does it handle refunds?", not "What is the
  boiling point of water and how does it vary?"). Written without spaces (Chinese, Japanese): not checked by
  words.
"""

from __future__ import annotations

import re

from ragcov_tui.evaluation.generation.claim_checks import names
from ragcov_tui.evaluation.generation.text import content_tokens

MIN_CONTENT_WORDS = 2
PRONOUNS = frozenset("it its they them their he him his she her".split())
_YES_NO = frozenset("yes no true false".split())


def answer_in_question(question: str, answer: str) -> list[str] | None:
    """The answer's content words when all of them are in the question, else None."""
    words = [w for w in content_tokens(answer) if w not in _YES_NO]
    if not words:
        return None
    have = set(content_tokens(question))
    return words if all(w in have for w in words) else None


def vagueness(question: str, english: bool) -> str | None:
    """Why the question is too vague to test, or None."""
    stripped = question.strip()
    if " " not in stripped:  # one word, or a script written without spaces (not checked by words)
        return "a single word" if stripped.isascii() else None
    words = content_tokens(question)
    if len(words) < MIN_CONTENT_WORDS:
        return f"{len(words)} content word{'s' if len(words) != 1 else ''} (at least {MIN_CONTENT_WORDS} needed)"
    if english and not _has_name(question):
        tokens = re.findall(r"[a-z]+", question.lower())
        content = set(words)
        for i, token in enumerate(tokens):
            if token in PRONOUNS and sum(1 for t in tokens[:i] if t in content) < 2:
                return f"{token!r} without a referent in the question"
    return None


def _has_name(question: str) -> bool:
    """A capitalised word after the first, an acronym or a figure: something for a pronoun to name."""
    return bool(names(question)) or bool(re.search(r"\d", question))
