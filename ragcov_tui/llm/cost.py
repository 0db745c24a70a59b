"""USD prices per 1M tokens for common OpenAI and Voyage models, for the cost line of a run.

Prices are list prices (standard tier) as published by OpenAI and Voyage AI; they change, so the
figure is an estimate. A model not listed here (a local server, a fine-tune) has an unknown cost: the
functions return ``None`` and callers show "cost unknown" instead of a made-up 0.
Dated snapshots (``gpt-4o-2024-08-06``) are priced like their family.
"""

from __future__ import annotations

import re

# model: (input USD / 1M tokens, output USD / 1M tokens)
PRICES_PER_MTOK: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
    "gpt-4-turbo": (10.00, 30.00),
    "gpt-3.5-turbo": (0.50, 1.50),
    "text-embedding-3-small": (0.02, 0.0),
    "text-embedding-3-large": (0.13, 0.0),
    "text-embedding-ada-002": (0.10, 0.0),
    "voyage-3": (0.06, 0.0),
    "voyage-3-lite": (0.02, 0.0),
    "voyage-3-large": (0.18, 0.0),
    "voyage-3.5": (0.06, 0.0),
    "voyage-3.5-lite": (0.02, 0.0),
    "voyage-code-3": (0.18, 0.0),
}
_SNAPSHOT = re.compile(r"-\d{4}-\d{2}-\d{2}$")


def price(model: str) -> tuple[float, float] | None:
    """(input, output) USD per 1M tokens, or ``None`` when the model's price is unknown."""
    name = model.strip().lower()
    if name.startswith("openai/"):
        name = name[len("openai/"):]
    return PRICES_PER_MTOK.get(name) or PRICES_PER_MTOK.get(_SNAPSHOT.sub("", name))


def cost_usd(model: str, prompt_tokens: int, completion_tokens: int = 0) -> float | None:
    """Estimated cost of a call in USD, or ``None`` (unknown model: say so, do not print 0)."""
    p = price(model)
    if p is None:
        return None
    return (prompt_tokens * p[0] + completion_tokens * p[1]) / 1_000_000


def describe_cost(model: str, usd: float | None) -> str:
    """``$0.0123 (estimated)`` or ``cost unknown for MODEL (no price table entry)``."""
    if usd is None:
        return f"cost unknown for {model} (no price table entry)"
    return f"${usd:.4f} (estimated)"
