"""An extractive answer (a bare name, date or figure copied from the context) is supported: it
embeds far from any whole context sentence, so similarity alone called it not found, which is why
counting words beat the checker on HaluEval QA (issue #26 §1). Its figures must still match."""

from __future__ import annotations

from ragcov_tui.embeddings.factory import make_embedder
from ragcov_tui.evaluation.generation.support import ContextIndex, judge_claims

CONTEXT = [
    (
        "k",
        "Hillary Rodham Clinton served as the 67th Secretary of State. The deal was worth $268 million "
        "and closed on September 29, 1784 in Palm Desert, California.",
    )
]


def verdicts(claims: list[str]) -> list[dict]:
    embedder = make_embedder("hash")
    return judge_claims(claims, ContextIndex.build(CONTEXT, embedder), embedder)


def test_a_short_answer_copied_from_the_context_is_supported_with_its_reason() -> None:
    got = verdicts(["Hillary Rodham Clinton", "September 29, 1784.", "$268 million", "Palm Desert, California"])
    assert [v["verdict"] for v in got] == ["supported"] * 4
    assert all(v["reason"] == "the claim occurs word for word in the context" and v["evidence"] for v in got)


def test_a_short_answer_with_another_figure_or_words_is_not_supported_by_the_span_rule() -> None:
    got = verdicts(["€268 million", "September 30, 1784", "Bill Clinton"])
    assert all(v["verdict"] != "supported" for v in got), got
