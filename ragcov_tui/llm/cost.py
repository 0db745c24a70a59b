"""What a model's tokens cost, in USD per 1M tokens, for the cost line of a run.

A price applies only where it is true:

1. ``$RAGCOV_PRICE_PER_MTOK`` names the model (``gpt-4o-mini=0.15,0.60;bge-m3=0.01``): that price,
   on any server (a negotiated rate, a paid proxy, a local server you want to account for).
2. The list price below, only when the server is the provider the price belongs to: ``openai:``
   models at ``api.openai.com``, ``voyage:`` models at ``api.voyageai.com``, ``anthropic:`` models
   at ``api.anthropic.com``. ``openai:gpt-4o-mini``
   sent to a local vLLM (``OPENAI_BASE_URL=http://127.0.0.1:8000/v1``) costs what that server costs,
   not OpenAI's list price.
3. A bare ``$RAGCOV_PRICE_PER_MTOK=IN,OUT`` (no model name): every other model.
4. Otherwise the cost is unknown: ``price_for`` returns ``None`` and callers show ``cost unknown``,
   never a made-up ``$0``.

``IN`` / ``OUT`` are USD per 1M input / output tokens; one number means the same for both
(embeddings use ``IN``). List prices are the standard tier as published by OpenAI, Voyage AI and
Anthropic (Claude: anthropic.com/pricing as of 2025-11; base input and output, no prompt-cache or
batch discount); they change, so the figure is an estimate. Dated snapshots (``gpt-4o-2024-08-06``,
``claude-sonnet-4-5-20250929``) are priced like their family.
"""

from __future__ import annotations

import math
import os
import re
from urllib.parse import urlsplit

from ragcov_tui.shared.errors import ConfigError

Price = tuple[float, float]  # (input USD / 1M tokens, output USD / 1M tokens)

PRICE_ENV = "RAGCOV_PRICE_PER_MTOK"
# The one host whose bills the list prices describe, per provider.
LIST_PRICE_HOSTS = {"openai": "api.openai.com", "voyage": "api.voyageai.com", "anthropic": "api.anthropic.com"}
ANY_MODEL = "*"  # the key of a bare price in user_prices()

PRICES_PER_MTOK: dict[str, Price] = {  # one family per line
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
    # Claude, anthropic.com/pricing as of 2025-11 (standard tier)
    "claude-opus-4-5": (5.00, 25.00),
    "claude-opus-4-1": (15.00, 75.00),
    "claude-opus-4": (15.00, 75.00),
    "claude-sonnet-4-5": (3.00, 15.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-haiku-4-5": (1.00, 5.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-3-haiku": (0.25, 1.25),
}
_SNAPSHOT = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$")  # OpenAI's -2024-08-06, Anthropic's -20250929 / -latest


def _name(model: str) -> str:
    name = model.strip().lower()
    return name[len("openai/") :] if name.startswith("openai/") else name


def price(model: str) -> Price | None:
    """The list price of ``model`` (wherever it runs), or ``None`` when the table has none."""
    name = _name(model)
    return PRICES_PER_MTOK.get(name) or PRICES_PER_MTOK.get(_SNAPSHOT.sub("", name))


def user_prices(raw: str | None = None) -> dict[str, Price]:
    """``$RAGCOV_PRICE_PER_MTOK`` parsed: ``{model: price}``, a bare price under ``"*"``; empty when
    unset. A malformed value is a one-line ConfigError naming the variable and the entry."""
    raw = os.environ.get(PRICE_ENV, "") if raw is None else raw
    prices: dict[str, Price] = {}
    for entry in (e.strip() for e in raw.split(";")):
        if not entry:
            continue
        model, _, figures = entry.rpartition("=")
        prices[_name(model) or ANY_MODEL] = _figures(figures, entry)
    return prices


def _figures(text: str, entry: str) -> Price:
    parts = [p.strip() for p in text.split(",")]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        values = []
    if len(values) not in (1, 2) or not all(math.isfinite(v) and 0 <= v <= 1e6 for v in values):
        raise ConfigError(
            f"${PRICE_ENV}: expected IN,OUT or MODEL=IN,OUT (USD per 1M tokens, entries "
            f"separated by ';'), got {entry!r}"
        )
    return (values[0], values[-1])


def is_list_price_host(provider: str, base_url: str) -> bool:
    """Whether ``base_url`` is the provider's own API, the one its list prices bill for."""
    try:
        host = urlsplit(base_url).hostname or ""
    except ValueError:
        return False
    return host.lower() == LIST_PRICE_HOSTS.get(provider, "")


def price_for(provider: str, model: str, base_url: str) -> Price | None:
    """The price that applies to ``model`` served at ``base_url`` (the rules in the module
    docstring), or ``None`` when the cost is unknown."""
    users = user_prices()
    named = users.get(_name(model))
    if named is not None:
        return named
    listed = price(model) if is_list_price_host(provider, base_url) else None
    return listed or users.get(ANY_MODEL)


def cost_of(p: Price | None, prompt_tokens: int, completion_tokens: int = 0) -> float | None:
    """USD for these tokens at price ``p``: ``(prompt × in + completion × out) / 1e6``; ``None``
    when the price is unknown (say so, do not print 0)."""
    if p is None:
        return None
    return (prompt_tokens * p[0] + completion_tokens * p[1]) / 1_000_000
