"""The ``eval --json`` report and its items, typed: the contract the eval job writes and readers rely on.

An item is built by ``evaluation.items.evaluate_question`` (:class:`EvalItem`, keys set as the work
gets that far), stored one ``eval_items`` row each and read back with every key
(:class:`StoredItem`, None where the run never set it). The report is the header the job stores in
``reports`` (:class:`EvalReport` without ``questions``) joined with one :class:`ReportQuestion` per
item by :func:`ragcov_tui.store.evals.load_eval_report`. A session stopped before its end has no
header yet: its report holds ``session_id`` and ``questions`` only.

The types live in the store, the lowest layer that reads the report back. TypedDicts: the report
stays a plain JSON dict. ``NotRequired`` keys may be absent, ``X | None`` values may be null. A judge's
transcripts and per-metric details stay free-form (``dict[str, Any]``). ``tests/core/test_json_contracts.py``
checks a real report against these types, key for key.
No ``from __future__ import annotations`` here: TypedDict reads ``NotRequired`` from evaluated
annotations.
"""

from typing import Any, NotRequired, TypedDict

from ragcov_tui.store.lint_contract import StaleGoldSection


class MetricStats(TypedDict):
    """One metric over the done items where it is defined (``evaluation/report.py`` ``aggregate_items``)."""

    mean: float | None
    n: int
    std: float | None
    judge_spread: NotRequired[float | None]  # with --repeats N > 1, generation metrics only


class Aggregate(TypedDict):
    retrieval: dict[str, MetricStats]
    generation: dict[str, MetricStats]


class ItemCounts(TypedDict):
    questions: int
    done: int
    errors: int
    with_gold: int
    levels: dict[str, int]  # gold level (document / chunk) → items
    diagnosis: dict[str, int]  # diagnosis → items


class ItemError(TypedDict):
    """One failure: a metric whose judgement failed on an item, else the item's own failure."""

    id: str
    metric: NotRequired[str]
    error: str


class MetricNames(TypedDict):
    retrieval: list[str]
    generation: list[str]


class TextCounts(TypedDict):
    texts: int
    cached: int
    embedded: int


class EmbeddingUse(TypedDict):
    """What the run embedded (``evaluation/embedding_use.py``)."""

    corpus: TextCounts
    per_question: TextCounts
    why: str


class GoldFromContexts(TypedDict):
    """How reference-context texts became gold ids (``evaluation/gold_contexts.py``)."""

    mapped: bool  # False: no corpus to find the texts in
    questions: int  # questions without file gold ids that carry references
    explicit: int  # questions with references whose file gold ids won
    matched_questions: int
    contexts: dict[str, int]  # tier (exact, near-exact, embedding) | unmatched | too short | ambiguous → contexts
    seed_document_id: int
    embedding_min: float
    embedded: int
    unmatched_examples: list[str]
    seconds: float


class RecordsJoinReport(TypedDict):
    """How a ``records:`` file's rows met the questions (``evaluation/systems/records_join.py``)."""

    join: str  # the --join mode asked for
    rows: int
    questions: int
    joined: int
    by: dict[str, int]  # id | question | order → questions joined that way
    ambiguous: int
    missing: int
    ambiguous_examples: list[str]


class SyntheticReferences(TypedDict):
    """How many questions' reference answers an LLM generated (``evaluation/references.py``)."""

    questions: int
    by: list[str]  # the model specs that wrote them


class EvalUsage(TypedDict):
    """Tokens, requests and cost of the run (models shared between roles counted once)."""

    embeddings: dict[str, Any]  # the embedder's usage() (embeddings/base.py)
    llm: dict[str, dict[str, Any]]  # model spec → its usage (llm/base.py)
    llm_calls: int
    llm_cached: int
    llm_requests: int
    llm_retried: int
    llm_failed: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None  # None: some model's price is unknown


class RetrievedContext(TypedDict):
    id: str
    text: str
    score: float | None
    cited: bool  # the answer cites it ([id])


class RetrievedRef(TypedDict):
    """A retrieved context as the report lists it (its text left out)."""

    id: str
    score: float | None
    cited: bool


class ParaphraseAsked(TypedDict):
    question: str
    answer: NotRequired[str]
    retrieved_ids: NotRequired[list[str]]
    error: NotRequired[str]  # the system failed on this paraphrase


class Paraphrases(TypedDict):
    source: str  # "test file", "llm:<spec>" or both
    items: list[ParaphraseAsked]


class EvalItem(TypedDict):
    """One question as ``evaluate_question`` returns it; keys past ``question`` are set as far as the work got."""

    id: str
    seq: int
    status: str  # "done" | "error"
    question: str | None
    answer: NotRequired[str]
    answer_label: NotRequired[str]
    retrieved: NotRequired[list[RetrievedContext]]
    retrieval: NotRequired[dict[str, float | None]]
    level: NotRequired[str | None]
    relevant_ranks: NotRequired[list[int] | None]
    generation: NotRequired[dict[str, float | None]]
    spread: NotRequired[dict[str, float]]
    errors: NotRequired[dict[str, str]]
    undefined: NotRequired[dict[str, str]]
    judge: NotRequired[str]
    details: NotRequired[dict[str, Any]]
    paraphrases: NotRequired[Paraphrases | None]
    judge_calls: NotRequired[list[dict[str, Any]]]
    diagnosis: NotRequired[str]
    error: NotRequired[str]


class _ItemFields(TypedDict):
    """The keys a stored item always has (None where the run never set them)."""

    id: str
    seq: int
    status: str
    question: str | None
    answer: str | None
    retrieval: dict[str, float | None]
    generation: dict[str, float | None]
    diagnosis: str | None
    error: str | None
    answer_label: str | None
    level: str | None
    relevant_ranks: list[int] | None
    spread: dict[str, float] | None
    errors: dict[str, str] | None
    undefined: dict[str, str] | None
    judge: str | None
    paraphrases: Paraphrases | None


class StoredItem(_ItemFields):
    """An ``eval_items`` row as :func:`ragcov_tui.store.evals.row_item` reads it back."""

    retrieved: list[RetrievedContext]
    judge_calls: list[dict[str, Any]]  # the judge's transcripts
    details: dict[str, Any]  # per generation metric: reasons, repeats, claims …


class Abstention(TypedDict):
    """Whether the system abstained on one question (``details.abstention`` of an item): who
    decided (``phrases`` or ``llm:<spec>``), why, and whether the question is out of scope."""

    abstained: bool
    by: str
    reason: str
    out_of_scope: bool


class ScopeCounts(TypedDict):
    """Out-of-scope questions and how many were declined; answerable ones and how many were refused."""

    unanswerable: int
    abstained: int
    answerable: int
    refused: int
    by: list[str]


class ReportQuestion(_ItemFields):
    """An item as the report lists it: without the judge transcripts, details and context texts
    (but with the abstention verdict, when one was made)."""

    retrieved: list[RetrievedRef]
    abstention: NotRequired[Abstention]


class ProbeAsked(TypedDict):
    chunk_id: str
    question: str
    form: str  # "question" | "passage" (coverage/suggest_offline.py) | "llm"


class ProbeReport(TypedDict):
    """Retrievability probes (``eval --probes N``, services/probes.py)."""

    requested: int  # N
    unexercised: int  # chunks no test question retrieved
    seed: int
    k: int
    writer: str  # "offline" or "llm:<spec>": who wrote the questions
    asked: int
    found: int
    unwritable: int  # sampled chunks no question could be written from
    errors: int  # probes the system failed on
    found_ids: list[str]
    unretrievable: list[ProbeAsked]


class SampleInfo(TypedDict):
    """``eval --sample N``: which questions were scored (``services/stratified_sample.py``)."""

    size: int
    of: int
    clusters: int
    seed: int
    rule: str


class EvalReport(TypedDict):
    """The whole ``eval --json`` report (docs/architecture.md, "JSON contracts")."""

    session_id: str
    name: str | None
    kind: str  # "eval"
    questions_path: str
    system: str
    answer_label: str
    judge: str  # "heuristic" or "llm:<spec>"
    embedder: str
    k: int
    metrics: MetricNames
    repeats: int
    resumed: bool
    skipped_done: int
    aggregate: Aggregate
    counts: ItemCounts
    errors: list[ItemError]
    gold_ids: dict[str, Any] | None  # how the file's gold ids matched the corpus (testset/gold_ids.py)
    gold_from_contexts: GoldFromContexts | None  # None: no reference contexts used
    records_join: RecordsJoinReport | None  # None: the system is no records: file
    retrieval_not_measured: NotRequired[str]  # why no retrieval metric was computed (records texts, no corpus)
    synthetic_references: NotRequired[SyntheticReferences]  # reference answers written by `ragcov references`
    scope: NotRequired[ScopeCounts | None]  # None: no answer was asked for (evaluation/scope.py)
    sample: NotRequired[SampleInfo]  # eval --sample N: the questions scored
    embedding: EmbeddingUse
    probes: NotRequired[ProbeReport]  # with --probes N only
    usage: EvalUsage
    timings: dict[str, float]
    questions: NotRequired[list[ReportQuestion]]  # absent only from the stored header
    # how the judge agrees with the session's labels, and the judge-corrected means
    # (evaluation/alignment.py Alignment.to_dict); present only once the session has labels
    judge_alignment: NotRequired[dict[str, Any]]
    stale_gold: NotRequired[StaleGoldSection]  # gold changed since the test file's last session (absent: older ragcov)


class EvalHeadline(TypedDict):
    """The figures stored in ``sessions.summary`` of an eval (session lists, trend charts)."""

    k: int
    system: str
    judge: str
    means: dict[str, float | None]  # "retrieval.mrr" → mean
    n: dict[str, int]
    counts: ItemCounts
