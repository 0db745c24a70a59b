"""The usage lines of a run, one text for the CLI summary and the app alike.

From a report's ``usage`` block (:class:`ragcov_tui.llm.base.Usage.as_dict` per chat model,
``Embedder.usage()`` for the embedder), e.g.::

    embeddings: requests: 3 (1 retried), 12 texts cached, 1,204 tokens, cost unknown
    llm openai:gpt-4o-mini: requests: 14 (2 retried, 1 failed), 3 cached, 4,512 tokens, $0.0031

``requests`` is every HTTP request sent (what the server counted); a cost is shown only where a
price applies (:mod:`ragcov_tui.llm.cost`), else ``cost unknown`` — never ``$0`` for an unpriced
model, cached or not. Reports written before requests were counted give ``N calls (M cached)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragcov_tui.shared.json_types import JsonObject
from ragcov_tui.shared.number_text import count


def requests_text(u: JsonObject) -> str:
    """``requests: 14 (2 retried, 1 failed)``; the parenthesis only when some were (``abandoned``:
    in flight when the run stopped)."""
    extra = [f"{count(u[key])} {key}" for key in ("retried", "failed", "abandoned") if u.get(key)]
    return f"requests: {count(u.get('requests', 0))}" + (f" ({', '.join(extra)})" if extra else "")


def money_text(u: JsonObject) -> str:
    """``, $0.0031`` / ``, cost unknown``; '' for a provider that is not metered (no ``cost_usd`` key)."""
    if "cost_usd" not in u:
        return ""
    cost = u["cost_usd"]
    return ", cost unknown" if cost is None else f", ${cost:.4f}"


def usage_line(name: str, u: JsonObject) -> str:
    """One model's line (see the module docstring)."""
    tokens = u.get("prompt_tokens", 0) + u.get("completion_tokens", 0) if "prompt_tokens" in u else u.get("tokens", 0)
    if "requests" in u:
        cached = f"{count(u.get('cached', 0))} {'texts cached' if 'texts' in u else 'cached'}"  # embeddings: texts
        counted = f"{requests_text(u)}, {cached}"
    else:
        counted = f"{count(u['calls'])} calls ({count(u.get('cached', 0))} cached)"
    return f"{name}: {counted}, {count(tokens)} tokens{money_text(u)}"


def usage_lines(usage: Mapping[str, Any]) -> list[str]:
    """A line per model in ``usage``: its flat entries (``embeddings``, an analysis' ``llm``) and
    the per-spec entries of an eval's ``llm`` block (``llm openai:MODEL: …``)."""
    lines = []
    for name, u in usage.items():
        if not isinstance(u, dict):
            continue
        if "calls" in u:
            lines.append(usage_line(name, u))
            continue
        lines += [usage_line(f"{name} {spec}", m) for spec, m in u.items() if isinstance(m, dict) and "calls" in m]
    return lines
