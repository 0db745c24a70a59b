"""The claim prompts shared by faithfulness, context recall and graded correctness.

- :data:`DECOMPOSE` — a text → its atomic claims (``list[str]``, stripped, blanks dropped);
- :data:`VERIFY` — numbered claims + passages → one :class:`ClaimVerdict` per claim, in claim order
  (reordered by the reply's claim numbers when they are 1..n, each once), the cited passage kept
  only for a ``supported`` claim and only when it names one of the passages (brackets tolerated);
- :data:`VERIFY_ONE` — one claim + passages → ``P(yes) / (P(yes) + P(no))`` read from the verdict
  token's probabilities (:func:`~ragcov_tui.evaluation.generation.graded.yes_probability`).

Passages are shown with their chunk ids in brackets so a verdict can name its supporting chunk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragcov_tui.evaluation.generation.graded import GRADED_MAX_TOKENS, TOP_LOGPROBS, yes_probability
from ragcov_tui.llm.base import ChatReply
from ragcov_tui.llm.json_reply import ReplyError
from ragcov_tui.llm.prompt import Example, JsonPrompt, Prompt
from ragcov_tui.llm.reply_checks import reason
from ragcov_tui.llm.reply_schemas import (
    BASE_TOKENS,
    ITEM_CHARS,
    STRING,
    STRINGS,
    TOKENS_PER_ITEM,
    TOKENS_PER_REASON,
    ReplySchema,
    cap,
    json_object,
)
from ragcov_tui.shared.json_types import JsonObject

Passages = Sequence[tuple[str, str]]  # (chunk id, text)
VERDICTS = ("supported", "contradicted", "not_found")


def passages_block(passages: Passages) -> str:
    """``[id] text`` lines, one passage per paragraph."""
    return "\n\n".join(f"[{pid}] {text.strip()}" for pid, text in passages) or "(no passages)"


def numbered(items: Sequence[str]) -> str:
    return "\n".join(f"{i}. {item}" for i, item in enumerate(items, 1))


@dataclass(frozen=True)
class ClaimSource:
    """The text to split into claims, and the question that resolves its pronouns."""

    question: str
    text: str


@dataclass(frozen=True)
class ClaimsInPassages:
    """Claims to judge against passages."""

    claims: Sequence[str]
    passages: Passages


@dataclass(frozen=True)
class ClaimVerdict:
    """One claim's verdict (one of :data:`VERDICTS`), the passage that supports it, and why."""

    verdict: str
    chunk_id: str | None
    reason: str


class DecomposePrompt(JsonPrompt[ClaimSource, list[str]]):
    name = "claims"
    instruction = """You split a text into atomic factual claims.
Rules:
- Each claim is one short, self-contained statement of fact (resolve pronouns using the question).
- Keep every number, amount, unit, date, version and name exactly as written.
- Do not add, infer or drop information; skip greetings, hedges and offers of further help.
- A text with no factual content (e.g. "I don't know") has no claims.
Reply with JSON only: {"claims": ["claim 1", "claim 2", ...]}"""
    examples = (
        Example(
            ClaimSource("What does Pro cost?", "It costs $49. Thanks!"),
            '{"claims": ["Pro costs $49.", " "]}',
            ["Pro costs $49."],
        ),
    )

    def user(self, data: ClaimSource) -> str:
        return f"Question: {data.question}\n\nText:\n{data.text}"

    def reply_schema(self, data: ClaimSource) -> ReplySchema:
        """``{"claims": [str]}`` (up to ~20 claims of a long answer)."""
        return ReplySchema(
            self.name, json_object(claims=STRINGS), cap(BASE_TOKENS + 20 * TOKENS_PER_ITEM), max_chars=ITEM_CHARS
        )

    def read(self, data: ClaimSource, value: Any) -> list[str]:
        if not isinstance(value, dict) or not isinstance(value.get("claims"), list):
            raise ReplyError('expected {"claims": [...]}')
        if not all(isinstance(c, str) for c in value["claims"]):
            raise ReplyError("every claim must be a string")
        return [c.strip() for c in value["claims"] if c.strip()]


def _verdict(v: JsonObject) -> str:
    return str(v.get("verdict", "")).strip().lower().replace(" ", "_").replace("-", "_")


def _ordered(verdicts: list[JsonObject]) -> list[JsonObject]:
    """Verdicts in claim order when every one carries a distinct claim number, else as given."""
    numbers = [x for v in verdicts if isinstance(x := v.get("claim"), int)]
    if len(numbers) == len(verdicts) and sorted(numbers) == list(range(1, len(verdicts) + 1)):
        return sorted(verdicts, key=lambda v: v["claim"])
    return verdicts


def _source(v: JsonObject, ids: Sequence[str]) -> str | None:
    """The cited passage id if it names one of ``ids`` (brackets tolerated), else None."""
    source = str(v.get("source") or "").strip().strip("[]").strip()
    return source if source in ids else None


class VerifyPrompt(JsonPrompt[ClaimsInPassages, list[ClaimVerdict]]):
    name = "claim_verdicts"
    instruction = """You are a strict fact checker. Judge each numbered claim using ONLY the passages given.
- "supported": the passages state it or directly imply it. Numbers, amounts, units, dates, versions
  and names must match the passages exactly.
- "contradicted": the passages state something incompatible with it.
- "not_found": the passages neither support nor contradict it.
For a supported claim give the id of the passage that supports it as "source" (else null).
Reply with JSON only, one verdict per claim, in order:
{"verdicts": [{"claim": 1, "verdict": "supported" | "contradicted" | "not_found", "source": "<passage id>" | null, "reason": "<short reason>"}]}"""  # noqa: E501 (the model reads this line verbatim)
    examples = (
        Example(
            ClaimsInPassages(["Pro costs $49.", "Pro costs $99."], [("p#1", "Pro costs $49 a month.")]),
            '{"verdicts": [{"claim": 2, "verdict": "Contradicted", "source": null, "reason": "$49"}, '
            '{"claim": 1, "verdict": "supported", "source": "[p#1]", "reason": "stated"}]}',
            [ClaimVerdict("supported", "p#1", "stated"), ClaimVerdict("contradicted", None, "$49")],
        ),
    )

    def user(self, data: ClaimsInPassages) -> str:
        return f"Passages:\n{passages_block(data.passages)}\n\nClaims:\n{numbered(data.claims)}"

    def reply_schema(self, data: ClaimsInPassages) -> ReplySchema:
        """One ``{claim, verdict, source, reason}`` per claim."""
        n = max(1, len(data.claims))
        verdict = json_object(
            claim={"type": "integer"},
            verdict={"type": "string", "enum": list(VERDICTS)},
            source={"type": ["string", "null"]},
            reason=STRING,
        )
        return ReplySchema(
            self.name,
            json_object(verdicts={"type": "array", "items": verdict}),
            cap(BASE_TOKENS + n * (TOKENS_PER_REASON + 30)),
            max_items=n,
        )

    def read(self, data: ClaimsInPassages, value: Any) -> list[ClaimVerdict]:
        if not isinstance(value, dict) or not isinstance(value.get("verdicts"), list):
            raise ReplyError('expected {"verdicts": [...]}')
        verdicts, n = value["verdicts"], len(data.claims)
        if len(verdicts) != n:
            raise ReplyError(f"expected {n} verdicts, got {len(verdicts)}")
        for i, v in enumerate(verdicts, 1):
            if not isinstance(v, dict) or _verdict(v) not in VERDICTS:
                raise ReplyError(f"verdict {i} must be one of {', '.join(VERDICTS)}")
        ids = [pid for pid, _ in data.passages]
        out = []
        for v in _ordered(verdicts):
            verdict = _verdict(v)
            out.append(ClaimVerdict(verdict, _source(v, ids) if verdict == "supported" else None, reason(v)))
        return out


@dataclass(frozen=True)
class ClaimInPassages:
    """One claim to judge against passages."""

    claim: str
    passages: Passages


class VerifyOnePrompt(Prompt[ClaimInPassages, float]):
    """Asked for ``max_tokens`` tokens with the ``logprobs`` likeliest alternatives at each; the output
    is the probability of "yes" read from them, not the text."""

    name = "verify_one"
    max_tokens = GRADED_MAX_TOKENS
    logprobs = TOP_LOGPROBS
    instruction = """Decide whether one claim is supported by the passages, as a strict fact checker.
Answer "yes" only if the passages state the claim or directly imply it, with every number, date
and name matching exactly. Answer "no" if the passages contradict it or do not mention it.
Answer with one word: yes or no."""

    def user(self, data: ClaimInPassages) -> str:
        return (
            f"Passages:\n{passages_block(data.passages)}\n\nClaim: {data.claim}\n\n"
            "Is the claim supported by the passages (yes or no)?"
        )

    def parse(self, data: ClaimInPassages, reply: ChatReply) -> float:
        p = yes_probability(reply.top_logprobs)
        if p is None:
            raise ReplyError(
                "the server returned no token probabilities (logprobs); use --judge-mode claim"
                if not reply.top_logprobs
                else f"neither yes nor no among the likeliest first tokens (reply {reply.text[:40]!r})"
            )
        return p


DECOMPOSE = DecomposePrompt()
VERIFY = VerifyPrompt()
VERIFY_ONE = VerifyOnePrompt()
