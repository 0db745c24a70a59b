"""The LLM judge for one item and one repeat: JSON calls, shape validation, a log of every call.

``Judge.ask`` sends a system + user message through ``complete_json`` (temperature 0, robust
parsing, one repair retry), validates the reply's shape, and appends
``{metric, repeat, prompt, raw, error}`` to the shared call log, so a person can see why a score is
what it is. Repeat ``i > 0`` adds a short note to the system message, which changes the cache key:
re-judgements are real calls, not cache hits of the first one.

``decompose`` and ``verify`` are the two claim primitives shared by faithfulness, context recall
and graded correctness; identical decomposition prompts are served by the LLM cache. ``mode``
(:data:`~ragcov_tui.evaluation.generation.graded.JUDGE_MODES`) says how ``verify`` asks: all claims
in one request, one claim per request, or one graded yes / no per claim whose verdict carries
``p_supported`` (:mod:`ragcov_tui.evaluation.generation.graded`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ragcov_tui.errors import RagcovError
from ragcov_tui.evaluation.generation import prompts
from ragcov_tui.evaluation.generation.graded import GRADED_MAX_TOKENS, TOP_LOGPROBS, yes_probability
from ragcov_tui.input_values import is_finite_number
from ragcov_tui.llm import reply_schemas
from ragcov_tui.llm.base import ChatModel, JsonResult
from ragcov_tui.llm.json_reply import complete_json
from ragcov_tui.llm.reply_schemas import ReplySchema

VERDICTS = ("supported", "contradicted", "not_found")
Validator = Callable[[Any], "str | None"]


class JudgeError(Exception):
    """A judge reply that could not be used (unparseable, wrong shape, provider failure)."""


@dataclass
class Judge:
    """Asks ``llm`` on behalf of one item; ``calls`` is the item's judge-call log (shared)."""

    llm: ChatModel
    repeat: int
    calls: list[dict[str, Any]]
    mode: str = "batch"  # graded.JUDGE_MODES; EvalOptions.judge_mode holds the default users get

    def _messages(self, system: str, user: str) -> list[dict[str, str]]:
        if self.repeat > 0:
            system += prompts.REPEAT_NOTE.format(repeat=self.repeat)
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def ask(self, metric: str, system: str, user: str, validate: Validator, schema: ReplySchema | None = None) -> Any:
        """The validated JSON reply, or :class:`JudgeError` with the reason (also logged); ``schema``
        is the prompt's reply schema and token cap (:mod:`ragcov_tui.llm.reply_schemas`)."""
        messages = self._messages(system, user)
        try:
            result = complete_json(self.llm, messages, validate=validate, schema=schema)
        except RagcovError as exc:  # a provider that raised instead of returning ok=False
            result = JsonResult(ok=False, error=f"{type(exc).__name__}: {exc}", prompt=messages)
        error = None if result.ok else (result.error or "unusable reply")
        self.calls.append({"metric": metric, "repeat": self.repeat, "prompt": messages,
                           "raw": result.raw, "error": error})
        if error is not None:
            raise JudgeError(error)
        return result.data

    def decompose(self, metric: str, question: str, text: str) -> list[str]:
        """Atomic claims of ``text`` (possibly empty)."""
        data = self.ask(metric, prompts.DECOMPOSE, prompts.decompose_user(question, text), _check_claims,
                        reply_schemas.claims())
        return [c.strip() for c in data["claims"] if c.strip()]

    def verify(self, metric: str, claims: Sequence[str], passages: Sequence[tuple[str, str]]) -> list[dict]:
        """One ``{claim, verdict, chunk_id, reason}`` per claim, judged against ``passages`` as
        ``mode`` says; graded verdicts add ``p_supported``."""
        if self.mode == "graded":
            return [self._graded(metric, claim, passages) for claim in claims]
        if self.mode == "claim":
            return [v for claim in claims for v in self._verify_batch(metric, [claim], passages)]
        return self._verify_batch(metric, claims, passages)

    def _verify_batch(self, metric: str, claims: Sequence[str], passages: Sequence[tuple[str, str]]) -> list[dict]:
        ids = [pid for pid, _ in passages]
        data = self.ask(metric, prompts.VERIFY, prompts.verify_user(claims, passages),
                        lambda d: _check_verdicts(d, len(claims)), reply_schemas.claim_verdicts(len(claims)))
        out = []
        for claim, v in zip(claims, _ordered(data["verdicts"]), strict=True):
            verdict = _verdict(v)
            out.append({"claim": claim, "verdict": verdict, "reason": str(v.get("reason") or ""),
                        "chunk_id": _source(v, ids) if verdict == "supported" else None})
        return out

    def _graded(self, metric: str, claim: str, passages: Sequence[tuple[str, str]]) -> dict:
        """One yes / no request for ``claim``, scored by the verdict token's probability (logged
        with the call: ``p_supported``, or the error)."""
        messages = self._messages(prompts.VERIFY_ONE, prompts.verify_one_user(claim, passages))
        entry: dict[str, Any] = {"metric": metric, "repeat": self.repeat, "prompt": messages, "raw": "", "error": None}
        self.calls.append(entry)
        try:
            reply = self.llm.chat(messages, max_tokens=GRADED_MAX_TOKENS, logprobs=TOP_LOGPROBS)
        except RagcovError as exc:
            entry["error"] = f"{type(exc).__name__}: {exc}"
            raise JudgeError(entry["error"]) from None
        entry["raw"] = reply.text
        p = yes_probability(reply.top_logprobs)
        if p is None:
            entry["error"] = ("the server returned no token probabilities (logprobs); use --judge-mode claim"
                              if not reply.top_logprobs else
                              f"neither yes nor no among the likeliest first tokens (reply {reply.text[:40]!r})")
            raise JudgeError(entry["error"])
        entry["p_supported"] = round(p, 6)
        supported = p >= 0.5
        return {"claim": claim, "verdict": "supported" if supported else "not_found", "p_supported": p,
                "chunk_id": None, "reason": f"P(yes) = {p:.2f} from the verdict token's probabilities"}


def _check_claims(data: Any) -> str | None:
    if not isinstance(data, dict) or not isinstance(data.get("claims"), list):
        return 'expected {"claims": [...]}'
    if not all(isinstance(c, str) for c in data["claims"]):
        return "every claim must be a string"
    return None


def _verdict(v: dict) -> str:
    return str(v.get("verdict", "")).strip().lower().replace(" ", "_").replace("-", "_")


def _check_verdicts(data: Any, n: int) -> str | None:
    if not isinstance(data, dict) or not isinstance(data.get("verdicts"), list):
        return 'expected {"verdicts": [...]}'
    verdicts = data["verdicts"]
    if len(verdicts) != n:
        return f"expected {n} verdicts, got {len(verdicts)}"
    for i, v in enumerate(verdicts, 1):
        if not isinstance(v, dict) or _verdict(v) not in VERDICTS:
            return f"verdict {i} must be one of {', '.join(VERDICTS)}"
    return None


def _ordered(verdicts: list[dict]) -> list[dict]:
    """Verdicts in claim order when every one carries a distinct claim number, else as given."""
    numbers = [x for v in verdicts if isinstance(x := v.get("claim"), int)]
    if len(numbers) == len(verdicts) and sorted(numbers) == list(range(1, len(verdicts) + 1)):
        return sorted(verdicts, key=lambda v: v["claim"])
    return verdicts


def _source(v: dict, ids: Sequence[str]) -> str | None:
    """The cited passage id if it names one of ``ids`` (brackets tolerated), else None."""
    source = str(v.get("source") or "").strip().strip("[]").strip()
    return source if source in ids else None


def check_bool_list(data: Any, key: str, field: str, n: int) -> str | None:
    """Validator for ``{key: [{field: bool, ...}] * n}``."""
    if not isinstance(data, dict) or not isinstance(data.get(key), list):
        return f'expected {{"{key}": [...]}}'
    if len(data[key]) != n:
        return f"expected {n} items in {key}, got {len(data[key])}"
    if not all(isinstance(v, dict) and isinstance(v.get(field), bool) for v in data[key]):
        return f'every item needs a boolean "{field}"'
    return None


def check_fields(data: Any, **types: type) -> str | None:
    """Validator: ``data`` is an object whose named fields have the given types (``float`` means
    any finite JSON number, booleans excluded)."""
    if not isinstance(data, dict):
        return "expected a JSON object"
    for name, kind in types.items():
        value = data.get(name)
        ok = is_finite_number(value) if kind is float else isinstance(value, kind)
        if not ok:
            return f'field "{name}" is missing or has the wrong type'
    return None


def check_score(data: Any, field: str = "score") -> str | None:
    """Validator for ``{field: number}`` with a finite number from 0 to 1: a judge saying 2, -1 or
    NaN has not answered the question, so that is a failed judgement (never clamped to 1 or 0)."""
    problem = check_fields(data, **{field: float})
    if problem is None and not 0.0 <= data[field] <= 1.0:
        return f'field "{field}" must be a number from 0 to 1, got {data[field]!r}'
    return problem
