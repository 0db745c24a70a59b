"""The judge prompts (system messages) and the builders of their user messages.

Every prompt asks for one JSON object whose shape the matching validator in ``judge.py`` checks.
Passages are shown with their chunk ids in brackets so a verdict can name its supporting chunk.
"""

from __future__ import annotations

from collections.abc import Sequence

DECOMPOSE = """You split a text into atomic factual claims.
Rules:
- Each claim is one short, self-contained statement of fact (resolve pronouns using the question).
- Keep every number, amount, unit, date, version and name exactly as written.
- Do not add, infer or drop information; skip greetings, hedges and offers of further help.
- A text with no factual content (e.g. "I don't know") has no claims.
Reply with JSON only: {"claims": ["claim 1", "claim 2", ...]}"""

VERIFY = """You are a strict fact checker. Judge each numbered claim using ONLY the passages given.
- "supported": the passages state it or directly imply it. Numbers, amounts, units, dates, versions
  and names must match the passages exactly.
- "contradicted": the passages state something incompatible with it.
- "not_found": the passages neither support nor contradict it.
For a supported claim give the id of the passage that supports it as "source" (else null).
Reply with JSON only, one verdict per claim, in order:
{"verdicts": [{"claim": 1, "verdict": "supported" | "contradicted" | "not_found", "source": "<passage id>" | null, "reason": "<short reason>"}]}"""  # noqa: E501 (the model reads this line verbatim)

VERIFY_ONE = """Decide whether one claim is supported by the passages, as a strict fact checker.
Answer "yes" only if the passages state the claim or directly imply it, with every number, date
and name matching exactly. Answer "no" if the passages contradict it or do not mention it.
Answer with one word: yes or no."""

RELEVANCE = """Rate how well an answer addresses a question. Judge relevance only, not truth.
1.0 = addresses exactly what was asked, directly and completely; 0.5 = partly addresses it or
buries it in unrelated content; 0.0 = does not address it, evades or refuses.
Reply with JSON only: {"score": <number from 0 to 1>, "reason": "<short reason>"}"""

CORRECTNESS = """Decide whether an answer is correct with respect to a reference answer.
It is correct when it agrees with the reference on every point the question asks about; extra
correct detail is fine, wording may differ. A contradiction, a wrong figure or a missing key fact
makes it incorrect.
Reply with JSON only: {"correct": true | false, "rationale": "<one or two sentences>"}"""

ABSTENTION = """Decide whether a question-answering system abstained: declined to answer instead of answering.
It abstained when it says it does not know, that the information is not available or not in its
sources, that the question cannot be answered, or refuses. It did not abstain when it states an
answer to the question, even a hedged, partial or wrong one.
Reply with JSON only: {"abstained": true | false, "reason": "<short reason>"}"""

USEFULNESS = """Given a question and its reference answer, decide for each passage whether it is
useful for arriving at the reference answer (it states facts the reference answer relies on).
Reply with JSON only, one verdict per passage, in order:
{"verdicts": [{"passage": "<passage id>", "useful": true | false, "reason": "<short reason>"}]}"""

AGREEMENT = """Two answers were given to the same question (asked in different words). Do they say
the same thing?
- "same": each answer entails the other (the same facts; wording may differ).
- "partial": they agree in part, but one adds or omits a key fact, or hedges where the other does not.
- "different": they contradict each other or answer differently.
Reply with JSON only: {"verdict": "same" | "partial" | "different", "reason": "<short reason>"}"""

PARAPHRASE = """Rewrite a question in {n} different ways. Each paraphrase must keep the exact
meaning and have the same answer: change wording and sentence structure, but do not add, drop or
change any constraint, name or figure.
Reply with JSON only: {{"paraphrases": ["...", ...]}} with exactly {n} items."""

def abstention_user(question: str, answer: str) -> str:
    return f"Question: {question}\n\nAnswer: {answer}"


REPEAT_NOTE = "\n(Independent re-judgement #{repeat}: judge afresh.)"


def passages_block(passages: Sequence[tuple[str, str]]) -> str:
    """``[id] text`` lines, one passage per paragraph."""
    return "\n\n".join(f"[{pid}] {text.strip()}" for pid, text in passages) or "(no passages)"


def numbered(items: Sequence[str]) -> str:
    return "\n".join(f"{i}. {item}" for i, item in enumerate(items, 1))


def decompose_user(question: str, text: str) -> str:
    return f"Question: {question}\n\nText:\n{text}"


def verify_user(claims: Sequence[str], passages: Sequence[tuple[str, str]]) -> str:
    return f"Passages:\n{passages_block(passages)}\n\nClaims:\n{numbered(claims)}"


def verify_one_user(claim: str, passages: Sequence[tuple[str, str]]) -> str:
    return f"Passages:\n{passages_block(passages)}\n\nClaim: {claim}\n\nIs the claim supported by the passages (yes or no)?"


def relevance_user(question: str, answer: str) -> str:
    return f"Question: {question}\n\nAnswer: {answer}"


def correctness_user(question: str, answer: str, reference: str) -> str:
    return f"Question: {question}\n\nReference answer: {reference}\n\nAnswer: {answer}"


def usefulness_user(question: str, reference: str, passages: Sequence[tuple[str, str]]) -> str:
    return f"Question: {question}\n\nReference answer: {reference}\n\nPassages:\n{passages_block(passages)}"


def agreement_user(question: str, first: str, second: str) -> str:
    return f"Question: {question}\n\nAnswer A: {first}\n\nAnswer B: {second}"


def paraphrase_user(question: str) -> str:
    return f"Question: {question}"
