"""The shapes of stored rows the store hands out, typed (TypedDicts: plain dicts at run time).

:class:`SessionRow` is a ``sessions`` row as :mod:`ragcov_tui.store.sessions` returns it (JSON
columns decoded, ``live`` added; ``ragcov sessions --json`` prints a list of them);
:class:`ClusterRow` and :class:`RedundantPairRow` are rows of two of the app's read models
(:mod:`ragcov_tui.store.queries`). Rows written with sqlite-utils stay ``dict[str, Any]`` (its
``insert`` takes no TypedDict).
``tests/core/test_json_contracts.py`` checks real session rows against :class:`SessionRow`.
No ``from __future__ import annotations`` here: TypedDict reads ``NotRequired`` from evaluated
annotations.
"""

from typing import Any, TypedDict

from ragcov_tui.store.analysis_contract import ClusterEntry


class SessionRow(TypedDict):
    """One run (``kind`` "analysis" | "eval"); columns in table order (store/schema.py)."""

    id: str
    kind: str
    name: str | None
    status: str  # running | done | failed | cancelled | interrupted (a running row whose owner is gone)
    created_at: str
    finished_at: str | None
    user: str | None
    corpus: list[str] | None
    questions_path: str | None
    testset_sha256: str | None
    embedder: str | None
    llm: str | None
    system: str | None
    params: dict[str, Any] | None  # every parameter of the run (credentials redacted)
    summary: dict[str, Any] | None  # an AnalysisHeadline or an EvalHeadline
    timings: dict[str, float] | None
    usage: dict[str, Any] | None  # an AnalysisUsage or an EvalUsage
    error: str | None
    pid: int | None  # the owner while it runs (store/liveness.py)
    host: str | None
    heartbeat_at: str | None
    progress: dict[str, Any] | None  # the owner's latest {stage, done, total}
    live: bool  # a process is still working on it


class ClusterRow(ClusterEntry):
    """A cluster as the Clusters pane lists it (``store.queries.cluster_rows``)."""

    covering: int  # inlier questions whose nearest cluster it is


class RedundantPairRow(TypedDict):
    """Two near-duplicate questions (``store.queries.redundant_pairs``), ``a`` < ``b``."""

    a: str
    a_text: str
    b: str
    b_text: str
