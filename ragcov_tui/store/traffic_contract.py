"""The ``traffic`` section of the ``analyze --json`` report (``analyze --traffic``), typed.

Built by ``coverage.traffic.TrafficResult.to_report()``; :func:`ragcov_tui.store.traffic.load_traffic`
reassembles it (``details`` from ``traffic_queries``). Checked key for key against a real report by
``tests/core/test_json_contracts.py``.
No ``from __future__ import annotations`` here: TypedDict reads ``NotRequired`` from evaluated
annotations.
"""

from typing import Any, Literal, NotRequired, TypedDict

RateName = Literal["zero_results", "low_relevance", "negative_feedback", "positive_feedback"]  # HealthEntry's rates


class QueryCount(TypedDict):
    text: str
    count: int


class NearQuestion(TypedDict):
    id: str
    similarity: float


class RateFigure(TypedDict):
    """A share of the rows that log the figure, weighted by count, with its Wilson 95 % interval."""

    rate: float | None
    interval: list[float] | None
    count: int
    of: int


class LatencyFigures(TypedDict):
    """Latency percentiles in ms with order-statistic 95 % intervals (``coverage/traffic_health.py``)."""

    n: int
    p50: float | None
    p50_interval: list[float] | None
    p95: float | None
    p95_interval: list[float] | None


class HealthEntry(TypedDict):
    """How a set of logged queries was served (``coverage/traffic_health.py``)."""

    queries: int
    latency_ms: LatencyFigures
    zero_results: RateFigure
    low_relevance: RateFigure
    negative_feedback: RateFigure
    positive_feedback: RateFigure


class WindowEntry(HealthEntry):
    start: str
    end: str


class Hotspot(TypedDict):
    """A traffic cluster where unhappy traffic concentrates, with its test coverage."""

    cluster: int
    share: float
    coverage: float | None
    untested: bool
    worse: list[RateName]  # the rates whose interval lies wholly above the whole log's
    examples: list[QueryCount]  # its unhappiest queries: count = the unhappy asks


class Selection(TypedDict):
    """The rows the health figures cover: ``--since`` / ``--until`` and the last ``--window``."""

    window: str | None
    since: str | None
    until: str | None


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
    health: NotRequired[HealthEntry]  # absent in reports stored before traffic health


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


class HealthSection(TypedDict):
    selection: Selection
    low_relevance: Rule
    overall: HealthEntry
    windows: list[WindowEntry]  # the latest first; empty without --window
    hotspots: list[Hotspot]
    sessions: int  # distinct session / user ids in the log
    answered: int  # rows with a logged answer


class TrafficSection(TypedDict):
    source: dict[str, Any]  # the log: path, sha256, rows, queries, distinct, fields, first, last (traffic/reader.py)
    coverage: float | None
    answerable_share: float
    untested_share: float
    untested: Rule
    clusters: list[TrafficClusterEntry]
    content_gap: ContentGap
    unasked_questions: UnaskedQuestions
    health: NotRequired[HealthSection]  # absent in reports stored before traffic health
    details: NotRequired[list[TrafficQuery]]  # left out with details=False (and in the store)
