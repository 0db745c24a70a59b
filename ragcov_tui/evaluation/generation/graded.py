"""Graded verdicts: a claim's support read from the probability of the judge's verdict token (issue #26 §3).

A sampled verdict word is all or nothing, and a small local model says "supported" to almost
everything. Asked one claim at a time to answer ``yes`` or ``no``, with the likeliest tokens at each
generated position returned (OpenAI ``logprobs`` / ``top_logprobs``, llama.cpp ``n_probs``), the
judge's belief is graded::

    p_supported = P(yes) / (P(yes) + P(no))

at the first position among the first :data:`GRADED_MAX_TOKENS` whose :data:`TOP_LOGPROBS`
alternatives hold a ``yes`` or a ``no`` token (case, spaces and punctuation ignored; every spelling
of one word summed). The verdict is ``supported`` when ``p_supported >= 0.5``, else ``not_found``.

Judge modes (``--judge-mode``, :data:`JUDGE_MODES`): ``batch`` (every claim in one JSON request, as
before), ``claim`` (one JSON request per claim: a small model need not keep count of a list),
``graded`` (one yes / no request per claim, scored by its probability).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

JUDGE_MODES = ("batch", "claim", "graded")
TOP_LOGPROBS = 10  # alternatives asked for at each position
GRADED_MAX_TOKENS = 4  # positions searched for the verdict token (a model may open with a quote or a space)
_WORD = re.compile(r"[^a-z]")


def verdict_word(token: str) -> str | None:
    """``"yes"`` / ``"no"`` for a token that spells one of them (``" Yes"``, ``"no."``), else None."""
    word = _WORD.sub("", token.lower())
    return word if word in ("yes", "no") else None


def yes_probability(positions: Sequence[dict[str, float]]) -> float | None:
    """``P(yes) / (P(yes) + P(no))`` at the first position that offers either word, or None when
    none of ``positions`` does (the module docstring)."""
    for alternatives in positions[:GRADED_MAX_TOKENS]:
        mass = {"yes": 0.0, "no": 0.0}
        for token, logprob in alternatives.items():
            word = verdict_word(token)
            if word is not None:
                mass[word] += math.exp(logprob)
        total = mass["yes"] + mass["no"]
        if total > 0.0:
            return mass["yes"] / total
    return None
