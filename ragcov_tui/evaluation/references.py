"""Reference answers for benchmark queries that have relevance judgements but no answer (BEIR).

For one judged query, :func:`pick_passages` takes its relevant documents in grade order (highest
first; equal grades in qrels order; grade 0 is "not relevant" and never used) while their text fits
a token budget: a document is taken whole when it fits what is left, the first one is cut to the
budget when it alone is longer, and the first that does not fit ends the list. :func:`reference_answer`
asks the LLM to answer the query from those passages only (cached and retried like every call).
The answer is *synthetic*: :data:`GENERATED_FIELD` on each written row says so, and names the model
and the documents it came from; :func:`synthetic_references` counts such rows in a test set.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragcov_tui.llm.base import ChatModel, ChatReply
from ragcov_tui.llm.prompt import Example, TextPrompt
from ragcov_tui.store.eval_contract import SyntheticReferences

DEFAULT_BUDGET = 1500  # tokens of passages per query
REFERENCE_MAX_TOKENS = 300
GENERATED_FIELD = "reference_generated"  # the row field marking a synthetic reference answer


@dataclass(frozen=True)
class Passage:
    document: str
    text: str
    grade: float
    cut: bool = False  # the text was cut to the budget


def pick_passages(
    gold: Mapping[str, float],
    texts: Mapping[str, str],
    budget: int,
    count: Callable[[str], int],
    cut: Callable[[str, int], str],
) -> list[Passage]:
    """The passages for one query (see the module docstring): ``gold`` ``{document: grade}`` in
    qrels order, ``texts`` the corpus' documents, ``count`` a token counter, ``cut(text, n)`` the
    text's first ``n`` tokens. Documents missing from ``texts`` are skipped."""
    ranked = sorted(((doc, g) for doc, g in gold.items() if g > 0 and doc in texts), key=lambda t: -t[1])  # stable
    out: list[Passage] = []
    left = budget
    for doc, grade in ranked:
        n = count(texts[doc])
        if n <= left:
            out.append(Passage(doc, texts[doc], grade))
            left -= n
        else:
            if not out:
                out.append(Passage(doc, cut(texts[doc], budget), grade, cut=True))
            break
    return out


@dataclass(frozen=True)
class JudgedQuery:
    question: str
    passages: Sequence[Passage]


class ReferencePrompt(TextPrompt[JudgedQuery, "str | None"]):
    """The reference answer (stripped); ``None`` when the reply is empty or says ``NONE``."""

    name = "reference_answer"
    instruction = """Write the reference answer to a search query, using only the passages given (the documents
judged relevant to it). Answer in one to three sentences with the facts the passages state; name figures
and names exactly as written. When the passages do not answer the query, reply with the one word NONE."""
    max_tokens = REFERENCE_MAX_TOKENS
    examples = (Example(JudgedQuery("What does d1 say?", [Passage("d1", "Nothing useful.", 1.0)]), " None.", None),)

    def user(self, data: JudgedQuery) -> str:
        block = "\n\n".join(f"[{p.document}] {p.text}" for p in data.passages)
        return f"Passages:\n{block}\n\nQuery: {data.question}"

    def parse(self, data: JudgedQuery, reply: ChatReply) -> str | None:
        text = reply.text.strip()
        return None if not text or text.strip(" .").upper() == "NONE" else text


REFERENCE = ReferencePrompt()


def reference_answer(llm: ChatModel, question: str, passages: list[Passage]) -> str | None:
    """The LLM's reference answer from ``passages``; ``None`` when it says they hold none (``NONE``)."""
    return REFERENCE.ask(llm, JudgedQuery(question, passages))


def synthetic_references(rows: Iterable[Mapping[str, Any]]) -> SyntheticReferences | None:
    """``{"questions": n, "by": [model specs]}`` over the rows whose reference answer was generated
    (:data:`GENERATED_FIELD`); ``None`` when none was."""
    marks = [row[GENERATED_FIELD] for row in rows if isinstance(row.get(GENERATED_FIELD), dict)]
    if not marks:
        return None
    return {"questions": len(marks), "by": sorted({str(m.get("llm")) for m in marks if m.get("llm")})}


def synthetic_text(synthetic: SyntheticReferences, questions: int) -> str:
    """The one line every report gives: ``reference answers: synthetic for 12 of 12 questions (…)``."""
    by = f"by {', '.join(synthetic['by'])} " if synthetic["by"] else ""
    return (
        f"reference answers: synthetic for {synthetic['questions']} of {questions} questions (generated {by}from "
        "their relevant documents by `ragcov references`, not written by people)"
    )
