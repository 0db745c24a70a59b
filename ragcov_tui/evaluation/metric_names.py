"""Metric names: which exist, which group they belong to, and parsing the user's ``--metrics``
and ``--fail-under`` names into canonical ones.

Retrieval names carry the cut-off (``precision@5``); the user may write them with or without it
(``ndcg`` means ``ndcg@k``), or name a whole group (``retrieval``, ``generation``). Generation
names are those of :data:`ragcov_tui.evaluation.generation.registry.GENERATION_METRICS`; retrieval
names those of :data:`ragcov_tui.evaluation.retrieval.RETRIEVAL_METRICS`. The abstention metrics
(``abstention``, ``answered``: :mod:`ragcov_tui.evaluation.generation.abstention`) are generation
metrics by name; ``all`` and ``generation`` leave them to the run, which adds them when its test set
has out-of-scope questions.
"""

from __future__ import annotations

from collections.abc import Iterable

from ragcov_tui.evaluation.generation.abstention import SCOPE_METRICS
from ragcov_tui.evaluation.generation.registry import GENERATION_METRICS
from ragcov_tui.evaluation.retrieval import RETRIEVAL_METRICS, metric_names
from ragcov_tui.shared.errors import BadInput

RETRIEVAL_BASES = tuple(m.base for m in RETRIEVAL_METRICS)
_CUT = tuple(m.base for m in RETRIEVAL_METRICS if m.cut)


def canonical_metric(name: str, k: int, where: str = "--metrics") -> tuple[str, str]:
    """``(group, name)`` for a metric as the user wrote it; BadInput naming the known metrics."""
    name = name.strip().lower()
    if name in GENERATION_METRICS or name in SCOPE_METRICS:
        return "generation", name
    base, _, cut = name.partition("@")
    if base in RETRIEVAL_BASES:
        if cut and (base not in _CUT or cut != str(k)):
            raise BadInput(f"{where}: metric {name!r} does not match --k {k} (use {base}@{k} or {base})")
        return "retrieval", f"{base}@{k}" if base in _CUT else base
    known = ", ".join([*metric_names(k), *GENERATION_METRICS, *SCOPE_METRICS])
    raise BadInput(f"{where}: unknown metric {name!r}; known: {known}")


def select_metrics(requested: str | Iterable[str] | None, k: int) -> tuple[list[str], list[str]]:
    """The retrieval and generation metrics to compute; ``None`` / empty / ``all`` means all of them."""
    if isinstance(requested, str):
        requested = requested.split(",") if requested.strip() else None
    given = [str(n) for n in requested or ()]
    names = [n.strip() for n in given]
    if not all(names):  # ",", "mrr,,hit": a name left out by mistake must not mean "every metric"
        raise BadInput(
            f"--metrics: an empty metric name in {','.join(given)!r}; "
            "give names separated by commas, or leave --metrics out for all of them"
        )
    if not names or any(n.lower() == "all" for n in names):
        return metric_names(k), list(GENERATION_METRICS)
    chosen: dict[str, set[str]] = {"retrieval": set(), "generation": set()}
    for name in names:
        if name.lower() in chosen:
            chosen[name.lower()].update(metric_names(k) if name.lower() == "retrieval" else GENERATION_METRICS)
            continue
        group, canonical = canonical_metric(name, k)
        chosen[group].add(canonical)
    return (
        [m for m in metric_names(k) if m in chosen["retrieval"]],
        [m for m in (*GENERATION_METRICS, *SCOPE_METRICS) if m in chosen["generation"]],
    )
