"""What ``ragcov compare`` returns (``compare --json``), typed: :func:`ragcov_tui.evaluation.compare.compare_reports`.

TypedDicts (the result stays a plain JSON dict); checked key for key against a real comparison by
``tests/core/test_json_contracts.py``. No ``from __future__ import annotations`` here: TypedDict
reads ``NotRequired`` from evaluated annotations.
"""

from typing import Any, NotRequired, TypedDict


class MetricDelta(TypedDict):
    """The paired statistics of one metric (see the module docstring); None / 0 with no shared question."""

    n: int
    mean_a: float | None
    mean_b: float | None
    delta: float | None
    ci_low: float | None
    ci_high: float | None
    significant: bool
    wins: int
    losses: int
    ties: int


class MetricComparison(MetricDelta):
    metric: str
    group: str  # "retrieval" | "generation"


class RunDescription(TypedDict):
    session_id: str | None
    name: str | None
    system: str | None
    judge: str | None
    k: int | None


class ScoredCounts(TypedDict):
    a: int
    b: int
    both: int


class PairVerdict(TypedDict):
    winner: str | None  # "a" | "b" | "tie"; None: the judge failed
    error: NotRequired[str | None]
    votes: NotRequired[list[str]]
    reasons: NotRequired[list[str]]
    calls: list[dict[str, Any]]


class PairItem(PairVerdict):
    id: str


class Pairwise(TypedDict):
    judge: str
    a_wins: int
    b_wins: int
    ties: int
    errors: int
    items: list[PairItem]


class Comparison(TypedDict):
    """What :func:`compare_reports` returns (``ragcov compare --json``)."""

    a: RunDescription
    b: RunDescription
    confidence: float
    resamples: int
    seed: int
    shared_questions: int
    scored: ScoredCounts
    metrics: list[MetricComparison]
    pairwise: Pairwise | None
