"""The JSON schema and token cap of every judge, theme and suggestion prompt.

Each function returns a :class:`~ragcov_tui.llm.structured.ReplySchema` that the call site passes
to :func:`ragcov_tui.llm.json_reply.complete_json`. Schemas keep to what OpenAI's strict mode
accepts (every property required, ``additionalProperties: false``, nullable as
``["string", "null"]``), which vLLM, llama.cpp and Ollama accept too. The validators next to the
prompts still check every reply: a server on the prompt-only rung follows no schema.

``max_tokens`` is sized to the reply: a fixed part for the braces and a short reason, plus a part
per list item the prompt asks for (:data:`TOKENS_PER_ITEM`, :data:`TOKENS_PER_REASON`), capped at
:data:`MAX_REPLY_TOKENS`. Without a cap a small model in JSON mode keeps nesting until the context
is full. ``max_items`` is the list length the prompt asks for; it reaches the server only as a
grammar bound for local models (:func:`bounded_schema`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ReplySchema:
    """The JSON schema one prompt's reply must follow, and the reply's token cap.

    ``max_tokens`` bounds the reply: in JSON mode a small model otherwise nests
    ``{"claim 1": {"claim 2": {…`` until the context is full.
    """

    name: str
    schema: dict[str, Any]
    max_tokens: int
    max_items: int = 20  # list length the prompt expects at most (sent only as a bound, see below)
    max_chars: int = 300  # length of one free string at most (a reason; list items are shorter)

    def response_format(self, bounded: bool = False) -> dict[str, Any]:
        """The ``response_format``; ``bounded`` adds ``maxLength`` to free strings and ``maxItems``
        to lists (:func:`bounded_schema`), for servers that enforce a schema by grammar."""
        schema = bounded_schema(self.schema, self.max_items, self.max_chars) if bounded else self.schema
        return {"type": "json_schema", "json_schema": {"name": self.name, "schema": schema, "strict": True}}

    def fingerprint(self) -> str:
        """``name:sha256[:12]`` of the schema, for cache keys (another schema is another request)."""
        text = json.dumps(self.schema, sort_keys=True, separators=(",", ":"))
        return f"{self.name}:{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def bounded_schema(schema: Any, max_items: int, max_chars: int) -> Any:
    """``schema`` with ``maxLength`` on every string without an ``enum`` and ``maxItems`` on every
    array. A small local model under a grammar otherwise repeats itself inside one string until
    ``max_tokens`` cuts the reply; with the bounds the longest reply the grammar allows fits the
    schema's ``max_tokens`` (:mod:`ragcov_tui.llm.reply_schemas`). OpenAI's strict mode refuses these keywords, so only the in-process
    llama.cpp server gets them (its grammar enforces them)."""
    if isinstance(schema, list):
        return [bounded_schema(s, max_items, max_chars) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: bounded_schema(v, max_items, max_chars) for k, v in schema.items()}
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "string" in kinds and "enum" not in schema:
        out["maxLength"] = max_chars
    if "array" in kinds:
        out["maxItems"] = max(1, max_items)
    return out


BASE_TOKENS = 48  # braces, keys and one short field
TOKENS_PER_REASON = 120  # one "reason" / "rationale" sentence or two
TOKENS_PER_ITEM = 60  # one question, claim or paraphrase
ITEM_CHARS = 180  # the grammar bound of one list item (about 45 tokens: it fits TOKENS_PER_ITEM)
REASON_CHARS = 300  # the grammar bound of one reason (about 75 tokens: it fits TOKENS_PER_REASON)
MAX_REPLY_TOKENS = 4096


def _cap(tokens: int) -> int:
    return min(MAX_REPLY_TOKENS, tokens)


def _object(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


_STRING: dict[str, Any] = {"type": "string"}
_STRINGS: dict[str, Any] = {"type": "array", "items": _STRING}


def claims() -> ReplySchema:
    """DECOMPOSE: ``{"claims": [str]}`` (up to ~20 claims of a long answer)."""
    return ReplySchema("claims", _object(claims=_STRINGS), _cap(BASE_TOKENS + 20 * TOKENS_PER_ITEM), max_chars=ITEM_CHARS)


def claim_verdicts(n_claims: int) -> ReplySchema:
    """VERIFY: one ``{claim, verdict, source, reason}`` per claim."""
    verdict = _object(claim={"type": "integer"},
                      verdict={"type": "string", "enum": ["supported", "contradicted", "not_found"]},
                      source={"type": ["string", "null"]}, reason=_STRING)
    return ReplySchema("claim_verdicts", _object(verdicts={"type": "array", "items": verdict}),
                       _cap(BASE_TOKENS + max(1, n_claims) * (TOKENS_PER_REASON + 30)), max_items=max(1, n_claims))


def relevance_score() -> ReplySchema:
    """RELEVANCE: ``{"score": number, "reason": str}``."""
    return ReplySchema("relevance_score", _object(score={"type": "number"}, reason=_STRING),
                       BASE_TOKENS + TOKENS_PER_REASON)


def correctness() -> ReplySchema:
    """CORRECTNESS: ``{"correct": bool, "rationale": str}``."""
    return ReplySchema("correctness", _object(correct={"type": "boolean"}, rationale=_STRING),
                       BASE_TOKENS + 2 * TOKENS_PER_REASON)


def abstention() -> ReplySchema:
    """ABSTENTION: ``{"abstained": bool, "reason": str}``."""
    return ReplySchema("abstention", _object(abstained={"type": "boolean"}, reason=_STRING),
                       BASE_TOKENS + TOKENS_PER_REASON)


def passage_usefulness(n_passages: int) -> ReplySchema:
    """USEFULNESS: one ``{passage, useful, reason}`` per passage."""
    item = _object(passage=_STRING, useful={"type": "boolean"}, reason=_STRING)
    return ReplySchema("passage_usefulness", _object(verdicts={"type": "array", "items": item}),
                       _cap(BASE_TOKENS + max(1, n_passages) * (TOKENS_PER_REASON + 30)), max_items=max(1, n_passages))


def agreement() -> ReplySchema:
    """AGREEMENT: ``{"verdict": "same" | "partial" | "different", "reason": str}``."""
    return ReplySchema("agreement", _object(verdict={"type": "string", "enum": ["same", "partial", "different"]},
                                            reason=_STRING), BASE_TOKENS + TOKENS_PER_REASON)


def paraphrases(n: int) -> ReplySchema:
    """PARAPHRASE: ``{"paraphrases": [str]}`` with ``n`` items."""
    return ReplySchema("paraphrases", _object(paraphrases=_STRINGS), _cap(BASE_TOKENS + max(1, n) * TOKENS_PER_ITEM),
                       max_items=max(1, n), max_chars=ITEM_CHARS)


def pairwise() -> ReplySchema:
    """The pairwise comparison: ``{"better": "1" | "2" | "tie", "reason": str}``."""
    return ReplySchema("pairwise", _object(better={"type": "string", "enum": ["1", "2", "tie"]}, reason=_STRING),
                       BASE_TOKENS + TOKENS_PER_REASON)


def themes(n_themes: int, n_questions: int) -> ReplySchema:
    """A gap cluster's ``{"themes": [str], "questions": [str]}``."""
    n = max(1, n_themes, n_questions)  # the bound of each list: both lists at most n long
    return ReplySchema("themes", _object(themes=_STRINGS, questions=_STRINGS),
                       _cap(BASE_TOKENS + 2 * n * TOKENS_PER_ITEM), max_items=n, max_chars=ITEM_CHARS)


def questions(n: int) -> ReplySchema:
    """More questions for a gap: ``{"questions": [str]}``."""
    return ReplySchema("questions", _object(questions=_STRINGS), _cap(BASE_TOKENS + max(1, n) * TOKENS_PER_ITEM),
                       max_items=max(1, n), max_chars=ITEM_CHARS)
