"""An eval run as a pytest test reads it: per-question results and per-metric means.

:class:`RagcovResults` wraps one ``eval --json`` report (``report``, the contract of
``store/eval_contract.py``): ``results["q3"]`` is a :class:`QuestionResult`, iteration is in
test-file order, ``results.mean("recall@10")`` a metric's mean (``None``: not measured). Metric
names are written as for ``--fail-under`` (``ndcg`` means ``ndcg@k``). Imports nothing heavy.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:  # the contract's TypedDict only: the plugin imports nothing heavy
    from ragcov_tui.store.eval_contract import EvalReport


@dataclass(frozen=True)
class QuestionResult:
    """One question of the run: its scores (retrieval and generation in one mapping), the ids it
    retrieved in rank order, its answer, and its error when the system or judge failed on it."""

    id: str
    question: str
    status: str  # "done" | "error"
    scores: Mapping[str, float | None] = field(default_factory=dict)
    retrieved_ids: tuple[str, ...] = ()
    answer: str | None = None
    diagnosis: str | None = None
    error: str | None = None

    def score(self, metric: str) -> float | None:
        """The question's value of ``metric`` (canonical name); ``None`` when undefined here."""
        return self.scores.get(metric)


def question_result(item: Mapping[str, Any]) -> QuestionResult:
    """A :class:`QuestionResult` from one ``questions[]`` entry of an eval report."""
    scores = {**(item.get("retrieval") or {}), **(item.get("generation") or {})}
    return QuestionResult(
        id=str(item["id"]),
        question=item.get("question") or "",
        status=item.get("status", ""),
        scores=scores,
        retrieved_ids=tuple(str(r["id"]) for r in item.get("retrieved") or ()),
        answer=item.get("answer"),
        diagnosis=item.get("diagnosis"),
        error=item.get("error"),
    )


class RagcovResults:
    """The per-question results and aggregates of one eval report (see the module docstring)."""

    def __init__(self, report: Mapping[str, Any]) -> None:
        self.report = cast("EvalReport", report)
        self.k = int(report.get("k", 10))
        self.session_id = str(report.get("session_id", ""))
        self.questions = [question_result(item) for item in report.get("questions") or ()]
        self._by_id = {q.id: q for q in self.questions}
        self._items = {str(item["id"]): item for item in report.get("questions") or ()}

    def __getitem__(self, question_id: str) -> QuestionResult:
        try:
            return self._by_id[question_id]
        except KeyError:
            raise KeyError(f"no question {question_id!r} in session {self.session_id}") from None

    def item(self, question_id: str) -> Mapping[str, Any]:
        """The question's entry in the report (``questions[]`` of ``eval --json``)."""
        self[question_id]  # KeyError naming the session for an unknown id
        return self._items[question_id]

    def __iter__(self) -> Iterator[QuestionResult]:
        return iter(self.questions)

    def __len__(self) -> int:
        return len(self.questions)

    @property
    def ids(self) -> list[str]:
        return [q.id for q in self.questions]

    def canonical(self, metric: str) -> str:
        """``metric`` as the report names it (``ndcg`` → ``ndcg@k``); BadInput for an unknown name."""
        from ragcov_tui.evaluation.metric_names import canonical_metric

        return canonical_metric(metric, self.k, where="assert_metric")[1]

    def mean(self, metric: str) -> float | None:
        """The mean of ``metric`` over the questions where it is defined; ``None`` when it is nowhere."""
        from ragcov_tui.evaluation.gates import metric_means

        return metric_means(self.report)[self.canonical(metric)]
