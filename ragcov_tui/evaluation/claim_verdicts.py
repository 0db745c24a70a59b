"""The claims and verdicts a judged item stored, for the screens and pages that show them.

A generation metric's stored details (``eval_items.details``) nest its per-claim verdicts in
metric-specific shapes (a list of claims, repeats of lists, …); every ``{claim, verdict}`` mapping
anywhere under a metric's details is one claim, kept in the order stored.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ragcov_tui.shared.json_types import JsonObject


def claims_under(node: Any) -> Iterator[JsonObject]:
    """Every ``{claim, verdict}`` dict anywhere under ``node`` (depth first, in stored order)."""
    if isinstance(node, dict):
        if "claim" in node and "verdict" in node:
            yield node
            return
        for value in node.values():
            yield from claims_under(value)
    elif isinstance(node, list):
        for value in node:
            yield from claims_under(value)


def metric_claims(generation_details: Mapping[str, Any]) -> list[tuple[str, JsonObject]]:
    """``(metric, claim)`` for every claim of every generation metric of one item."""
    return [(metric, claim) for metric, details in generation_details.items() for claim in claims_under(details)]
