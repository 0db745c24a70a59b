"""The ``traffic`` section of the ``analyze --json`` report (``analyze --traffic``), typed.

Built by ``coverage.traffic.TrafficResult.to_report()``; :func:`ragcov_tui.store.traffic.load_traffic`
reassembles it (``details`` from ``traffic_queries``). Checked key for key against a real report by
``tests/core/test_json_contracts.py``.
No ``from __future__ import annotations`` here: TypedDict reads ``NotRequired`` from evaluated
annotations.
"""

from typing import Any, NotRequired, TypedDict


class QueryCount(TypedDict):
    text: str
    count: int


class NearQuestion(TypedDict):
    id: str
    similarity: float


class TrafficClusterEntry(TypedDict):
    """One topic of the traffic, ranked by priority (``coverage/traffic.py`` ``TrafficCluster``)."""

    id: int
    queries: int  # distinct queries in it
    count: int  # queries asked (sum of counts)
    share: float  # of all traffic
    answerable_share: float
    coverage: float | None
    priority: float
    untested: bool
    examples: list[QueryCount]  # most asked first
    nearest_questions: list[NearQuestion]  # to the cluster's centroid


class Rule(TypedDict):
    threshold: float | None
    rule: str


class GapQuery(TypedDict):
    text: str
    count: int
    similarity: float
    nearest_chunk: str
    cluster: int


class ContentGap(Rule):
    """Queries no chunk of the corpus answers."""

    queries: int
    count: int
    share: float
    examples: list[GapQuery]


class UnaskedQuestion(TypedDict):
    id: str
    text: str
    similarity: float
    nearest_query: str
    nearest_query_count: int


class UnaskedQuestions(Rule):
    """Test questions nobody asks."""

    questions: list[UnaskedQuestion]


class TrafficQuery(TypedDict):
    """One distinct query (a ``traffic_queries`` row)."""

    text: str
    count: int
    cluster: int
    answerable: bool
    nearest_question: str | None
    question_similarity: float | None
    nearest_chunk: str
    chunk_similarity: float
    first_seen: str | None
    last_seen: str | None
    x: float
    y: float


class TrafficSection(TypedDict):
    source: dict[str, Any]  # the log: path, sha256, rows, queries, distinct, fields, first, last (traffic/reader.py)
    coverage: float | None
    answerable_share: float
    untested_share: float
    untested: Rule
    clusters: list[TrafficClusterEntry]
    content_gap: ContentGap
    unasked_questions: UnaskedQuestions
    details: NotRequired[list[TrafficQuery]]  # left out with details=False (and in the store)
