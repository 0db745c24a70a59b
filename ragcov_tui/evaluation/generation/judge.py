"""The LLM judge for one item and one repeat: a prompt's typed reply, and a log of every call.

``Judge.ask(metric, prompt, data)`` sends a :class:`~ragcov_tui.llm.prompt.JsonPrompt`'s messages
for ``data`` through ``complete_json`` (temperature 0, robust parsing, one repair retry), and
returns the prompt's typed output (its ``read`` checks the reply's shape), appending
``{metric, repeat, prompt, raw, error}`` to the shared call log, so a person can see why a score is
what it is. Repeat ``i > 0`` adds a short note to the system message
(:data:`~ragcov_tui.llm.prompt.REPEAT_NOTE`), which changes the cache key: re-judgements are real
calls, not cache hits of the first one.

``decompose`` and ``verify`` are the two claim primitives shared by faithfulness, context recall
and graded correctness (:mod:`~ragcov_tui.evaluation.generation.claim_prompts`); identical
decomposition prompts are served by the LLM cache. ``mode``
(:data:`~ragcov_tui.evaluation.generation.graded.JUDGE_MODES`) says how ``verify`` asks: all claims
in one request, one claim per request, or one graded yes / no per claim whose verdict carries
``p_supported`` (:mod:`ragcov_tui.evaluation.generation.graded`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from ragcov_tui.evaluation.generation.claim_prompts import (
    DECOMPOSE,
    VERIFY,
    VERIFY_ONE,
    ClaimInPassages,
    ClaimsInPassages,
    ClaimSource,
)
from ragcov_tui.llm.base import ChatModel, JsonResult
from ragcov_tui.llm.json_reply import ReplyError
from ragcov_tui.llm.prompt import JsonPrompt
from ragcov_tui.shared.errors import RagcovError
from ragcov_tui.shared.json_types import JsonObject

In = TypeVar("In")
Out = TypeVar("Out")


class JudgeError(Exception):
    """A judge reply that could not be used (unparseable, wrong shape, provider failure)."""


@dataclass
class Judge:
    """Asks ``llm`` on behalf of one item; ``calls`` is the item's judge-call log (shared)."""

    llm: ChatModel
    repeat: int
    calls: list[JsonObject]
    mode: str = "batch"  # graded.JUDGE_MODES; EvalOptions.judge_mode holds the default users get

    def ask(self, metric: str, prompt: JsonPrompt[In, Out], data: In) -> Out:
        """``prompt``'s output for ``data``, or :class:`JudgeError` with the reason (also logged)."""
        try:
            result = prompt.ask(self.llm, data, repeat=self.repeat)
        except RagcovError as exc:  # a provider that raised instead of returning ok=False
            result = JsonResult(
                ok=False, error=f"{type(exc).__name__}: {exc}", prompt=prompt.messages(data, self.repeat)
            )
        error = None if result.ok else (result.error or "unusable reply")
        self.calls.append(
            {"metric": metric, "repeat": self.repeat, "prompt": result.prompt, "raw": result.raw, "error": error}
        )
        if error is not None:
            raise JudgeError(error)
        return result.value()

    def decompose(self, metric: str, question: str, text: str) -> list[str]:
        """Atomic claims of ``text`` (possibly empty)."""
        return self.ask(metric, DECOMPOSE, ClaimSource(question, text))

    def verify(self, metric: str, claims: Sequence[str], passages: Sequence[tuple[str, str]]) -> list[dict]:
        """One ``{claim, verdict, chunk_id, reason}`` per claim, judged against ``passages`` as
        ``mode`` says; graded verdicts add ``p_supported``."""
        if self.mode == "graded":
            return [self._graded(metric, claim, passages) for claim in claims]
        if self.mode == "claim":
            return [v for claim in claims for v in self._verify_batch(metric, [claim], passages)]
        return self._verify_batch(metric, claims, passages)

    def _verify_batch(self, metric: str, claims: Sequence[str], passages: Sequence[tuple[str, str]]) -> list[dict]:
        verdicts = self.ask(metric, VERIFY, ClaimsInPassages(claims, passages))
        return [
            {"claim": claim, "verdict": v.verdict, "reason": v.reason, "chunk_id": v.chunk_id}
            for claim, v in zip(claims, verdicts, strict=True)
        ]

    def _graded(self, metric: str, claim: str, passages: Sequence[tuple[str, str]]) -> dict:
        """One yes / no request for ``claim``, scored by the verdict token's probability (logged
        with the call: ``p_supported``, or the error)."""
        data = ClaimInPassages(claim, passages)
        messages = VERIFY_ONE.messages(data, self.repeat)
        entry: JsonObject = {"metric": metric, "repeat": self.repeat, "prompt": messages, "raw": "", "error": None}
        self.calls.append(entry)
        try:
            reply = self.llm.chat(messages, max_tokens=VERIFY_ONE.max_tokens, logprobs=VERIFY_ONE.logprobs)
        except RagcovError as exc:
            entry["error"] = f"{type(exc).__name__}: {exc}"
            raise JudgeError(entry["error"]) from None
        entry["raw"] = reply.text
        try:
            p = VERIFY_ONE.parse(data, reply)
        except ReplyError as exc:
            entry["error"] = str(exc)
            raise JudgeError(entry["error"]) from None
        entry["p_supported"] = round(p, 6)
        supported = p >= 0.5
        return {
            "claim": claim,
            "verdict": "supported" if supported else "not_found",
            "p_supported": p,
            "chunk_id": None,
            "reason": f"P(yes) = {p:.2f} from the verdict token's probabilities",
        }
